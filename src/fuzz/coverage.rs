//! Hiding the coverage of timelaw's own checking from libFuzzer.
//!
//! libFuzzer's cost per input is mostly its work per covered edge (it turns every non-zero 8-bit
//! counter into a feature and updates its corpus statistics for it). Judging the catalogue covers far
//! more edges than the subject's run, and none of them says anything about the subject: a law's branches
//! are the same for every subject. So the fuzz helpers judge inside [`hidden`]: it saves the 8-bit
//! counters before judging and puts them back after, and libFuzzer sees the coverage of decoding the
//! input and of running the subject only. The verdicts are unchanged: judging runs in full, on every
//! input.
//!
//! The counters are the section `__sancov_cntrs` that `-sanitizer-coverage-inline-8bit-counters`
//! (what `cargo fuzz` builds with) fills; the linker brackets it with `__start___sancov_cntrs` and
//! `__stop___sancov_cntrs`. The two symbols are declared weak, so a `cfg(fuzzing)` build without inline
//! counters (another fuzzing engine) links and finds an empty region: nothing is hidden then. Built for
//! `cfg(fuzzing)` (which `cargo fuzz` sets) on x86-64 Linux only; everywhere else [`hidden`] just calls.
//!
//! The compare hooks are gated too. `fuzz/cargo-fuzz` builds every crate that keeps
//! `-sanitizer-coverage-trace-compares` with `-sanitizer-coverage-gated-trace-callbacks`: an instrumented
//! function then calls libFuzzer's compare hooks only while the global `__sancov_should_track` is
//! non-zero (read once, when the function is entered). This crate defines that global, 1 at start, so
//! that every hook fires as before until [`compares`] says otherwise; the fuzz helpers turn the hooks on
//! for a deterministic sample of the inputs (`timelaw::fuzz::compares_sampled`) and off while judging.
//! A build without gating never reads the global.
#![allow(unexpected_cfgs)] // `fuzzing` is set by `cargo fuzz`, not by a feature of this crate.

/// Runs `work` and puts libFuzzer's coverage counters back as they were before it (see the module docs).
/// The compare hooks are off meanwhile: the laws' comparisons would only fill libFuzzer's table of
/// recent comparisons with values the subject never looks at.
pub(crate) fn hidden<T>(work: impl FnOnce() -> T) -> T {
    let tracked = compares(false);
    let result = counters::hidden(work);
    compares(tracked);
    result
}

/// Turns the gated compare hooks on or off (see the module docs) and returns whether they were on.
pub(crate) fn compares(on: bool) -> bool {
    gate::set(on)
}

#[cfg(all(fuzzing, target_os = "linux", target_arch = "x86_64"))]
mod gate {
    use std::sync::atomic::{AtomicU64, Ordering};

    /// The gate SanitizerCoverage's gated callbacks read (`SanCovCallbackGateName` in LLVM); the
    /// instrumented modules each declare it `linkonce` with the value 0, and this strong definition is
    /// the one the linker keeps. Atomic only to be written without `unsafe`: one thread fuzzes.
    #[no_mangle]
    #[allow(non_upper_case_globals)] // The name LLVM gives it.
    static __sancov_should_track: AtomicU64 = AtomicU64::new(1);

    pub(super) fn set(on: bool) -> bool {
        __sancov_should_track.swap(u64::from(on), Ordering::Relaxed) != 0
    }
}

#[cfg(not(all(fuzzing, target_os = "linux", target_arch = "x86_64")))]
mod gate {
    pub(super) fn set(_: bool) -> bool {
        true
    }
}

#[cfg(all(fuzzing, target_os = "linux", target_arch = "x86_64"))]
mod counters {
    use std::cell::Cell;

    thread_local! {
        static SAVED: Cell<Vec<u8>> = const { Cell::new(Vec::new()) };
    }

    // Weak: a build without the section links, and both symbols are then 0 (an empty region).
    std::arch::global_asm!(".weak __start___sancov_cntrs", ".weak __stop___sancov_cntrs");

    /// The counters' region: its start and its length in bytes (0 when there is no such section).
    /// The bounds are read through the GOT in assembly, not declared as Rust statics: the coverage pass
    /// declares the same two symbols in every instrumented module, and a second declaration of another
    /// type would make it rename its own and lose the counters of this crate.
    fn region() -> (*mut u8, usize) {
        let start: usize;
        let stop: usize;
        // SAFETY: two loads of symbol addresses from the GOT; no memory is written, no flags kept.
        unsafe {
            std::arch::asm!(
                "mov {start}, qword ptr [rip + __start___sancov_cntrs@GOTPCREL]",
                "mov {stop}, qword ptr [rip + __stop___sancov_cntrs@GOTPCREL]",
                start = out(reg) start,
                stop = out(reg) stop,
                options(nostack, readonly, preserves_flags, pure),
            );
        }
        (start as *mut u8, stop.saturating_sub(start))
    }

    pub(super) fn hidden<T>(work: impl FnOnce() -> T) -> T {
        let (start, length) = region();
        if length == 0 {
            return work();
        }
        // Taken, not borrowed: a nested call (none today) would start from an empty buffer.
        let mut saved = SAVED.take();
        // SAFETY: `start..start + length` is the linker's `__sancov_cntrs` section (both bounds are the
        // linker's own symbols for it, and `length > 0`): plain bytes, writable, alive for the whole
        // process. Instrumented code only increments them, and libFuzzer reads them between inputs;
        // this runs inside an input, on the fuzzing thread.
        let result = unsafe { super::restoring(start, length, &mut saved, work) };
        SAVED.set(saved);
        result
    }
}

/// Runs `work` and writes the `length` bytes at `start` back as they were before it, using `saved` as
/// the buffer.
///
/// # Safety
/// `start..start + length` must be valid for reads and writes for the whole call, and nothing but
/// `work` (on this thread) may write it meanwhile.
#[allow(dead_code)] // Called by the fuzzing build (`cfg(fuzzing)`) and the tests only.
unsafe fn restoring<T>(start: *mut u8, length: usize, saved: &mut Vec<u8>, work: impl FnOnce() -> T) -> T {
    saved.clear();
    // SAFETY: the caller's promise: the region is valid for reads.
    saved.extend_from_slice(unsafe { std::slice::from_raw_parts(start, length) });
    let result = work();
    // SAFETY: the caller's promise: the region is valid for writes; `saved` holds `length` bytes.
    unsafe { std::ptr::copy_nonoverlapping(saved.as_ptr(), start, length) };
    result
}

#[cfg(not(all(fuzzing, target_os = "linux", target_arch = "x86_64")))]
mod counters {
    pub(super) fn hidden<T>(work: impl FnOnce() -> T) -> T {
        work()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hidden_work_runs_once_and_returns_its_value() {
        let mut runs = 0;
        assert_eq!(
            hidden(|| {
                runs += 1;
                7
            }),
            7
        );
        assert_eq!(runs, 1);
    }

    /// Counters before, what `work` adds to them, the counters after `restoring`.
    #[track_caller]
    fn check(before: &[u8], added: &[u8], expect: &[u8]) {
        let mut counters = before.to_vec();
        let mut saved = vec![9; 3];
        let start = counters.as_mut_ptr();
        let length = counters.len();
        // SAFETY: `counters` is a live Vec of `length` bytes, written only by `work` through `start`.
        let seen = unsafe {
            restoring(start, length, &mut saved, || {
                for (index, add) in added.iter().enumerate() {
                    *start.add(index) = (*start.add(index)).wrapping_add(*add); // `index < length`
                }
                std::slice::from_raw_parts(start, length).to_vec()
            })
        };
        assert_eq!(counters, expect);
        let during: Vec<u8> = before.iter().zip(added).map(|(a, b)| a.wrapping_add(*b)).collect();
        assert_eq!(seen, during, "work saw the counters it incremented");
    }

    #[test]
    fn restoring_puts_back_exactly_the_counters_before_the_work() {
        check(&[], &[], &[]);
        check(&[0, 0, 0, 0], &[1, 0, 5, 0], &[0, 0, 0, 0]);
        check(&[3, 0, 255, 1], &[1, 2, 1, 0], &[3, 0, 255, 1]);
        check(&[7; 40], &[1; 40], &[7; 40]);
    }
}
