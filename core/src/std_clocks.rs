//! Virtual std clocks: while a case runs, `std::time::Instant::now()` and `SystemTime::now()` on the
//! case's thread read the World's clocks, for code that reads the clock itself instead of taking one.
//!
//! A subject opts in with [`Subject::std_clocks`](crate::Subject::std_clocks) returning
//! [`StdClocks::Virtual`] (the facade's short form: `subject(..).with_std_clocks(StdClocks::Virtual)`).
//! Then, from the moment the World is handed to the subject until the run ends, on the thread that runs
//! the case:
//! - `Instant::now()` is the World's monotonic instant, counted from [`MONOTONIC_ORIGIN`] (the same
//!   instant every run, so `Instant::now() + d` overflows, or not, the same way every run);
//! - `SystemTime::now()` is the World's wall clock ([`World::wall_clock`](crate::World::wall_clock)),
//!   wall jumps included as the schedule applies them;
//! - every other thread, and this thread outside a case, reads the real clocks.
//!
//! # The mechanism: `clock_gettime`, interposed in the binary
//! On Linux, std reads both clocks with libc's `clock_gettime` (`CLOCK_MONOTONIC` and `CLOCK_REALTIME`).
//! This module defines a `clock_gettime` of its own (as deterministic simulators do): the linker binds
//! every call of the binary's Rust code (std's included) to it instead of libc's. It answers from the
//! case's clocks when the calling thread runs a case with virtual std clocks, and passes every other call
//! on to libc's `clock_gettime` (found with `dlsym(RTLD_NEXT)`, so the vDSO's fast path stays; a raw
//! `clock_gettime` system call if that lookup fails). The cost elsewhere is one thread-local read per
//! clock read.
//!
//! Virtualized: `CLOCK_MONOTONIC`, `CLOCK_MONOTONIC_RAW`, `CLOCK_MONOTONIC_COARSE` and `CLOCK_BOOTTIME`
//! read the monotonic clock; `CLOCK_REALTIME`, `CLOCK_REALTIME_COARSE` and `CLOCK_TAI` the wall clock.
//! CPU-time clocks and every other id read the real clock.
//!
//! # Limits
//! - **Linux with glibc only** ([`supported`]). Elsewhere (macOS, Windows, musl) a subject that asks for
//!   virtual std clocks does not run: each case aborts with [`Abort::InvalidConfig`](crate::Abort), which
//!   fails the check with that reason; nothing passes unjudged.
//! - **The case's own thread.** Threads the subject spawns (a multi-threaded runtime, a `std::thread`)
//!   read the real clocks. The tokio driver runs on the case's thread, and its paused clock and std's
//!   agree: before each poll of the subject's future the World catches up with tokio's time.
//! - **Through libc only.** A crate that reads the time stamp counter (`quanta`, `minstant`), makes the
//!   system call itself, or calls `gettimeofday` / `time` is not interposed. A statically linked binary
//!   (`crt-static`) still interposes, falling back to the system call for real reads.
//! - **The binary must link this definition.** A self-check at the start of every case with virtual
//!   std clocks reads `Instant::now()` and `SystemTime::now()` and aborts the case
//!   ([`Abort::InvalidConfig`](crate::Abort), naming the cause) if either did not come from here.
//! - **Reads are not events.** A read of std's clock is not recorded in the trace and never fails:
//!   std's `Instant::now()` has no failure to report (std panics if `clock_gettime` fails), so the
//!   schedule's failed reads apply to the World's own reads ([`World::read_now`](crate::World::read_now),
//!   [`World::wall_now`](crate::World::wall_now)) only.
//! - **Busy waiting hangs.** Code that spins on `Instant::now()` until time passes waits forever, since
//!   only the World moves virtual time; the watchdog reports the case as a hang (`terminates`).

use std::cell::Cell;

use serde::{Deserialize, Serialize};

use crate::clock::WallInstant;
use crate::time::{VDuration, VInstant};

/// Which clocks std's `Instant::now()` and `SystemTime::now()` read while a subject's case runs.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum StdClocks {
    /// The process's own clocks (the default): right for a subject that reads time only through the
    /// World or the tokio driver.
    #[default]
    Real,
    /// The World's clocks, on the case's thread (see the module docs).
    Virtual,
}

impl StdClocks {
    /// `true` for [`StdClocks::Virtual`].
    pub fn is_virtual(self) -> bool {
        self == StdClocks::Virtual
    }
}

/// What std's monotonic clock reads at the start of every case with virtual std clocks: one day, as on
/// a machine up for a day (Linux counts `Instant` from boot). The World's instant `t` reads as
/// `MONOTONIC_ORIGIN + t`.
pub const MONOTONIC_ORIGIN: VDuration = VDuration::from_secs(MONOTONIC_ORIGIN_S);

/// [`MONOTONIC_ORIGIN`] in seconds.
pub const MONOTONIC_ORIGIN_S: u64 = 86_400;

/// `true` where std's clocks can be interposed (Linux with glibc).
pub const fn supported() -> bool {
    cfg!(all(target_os = "linux", target_env = "gnu"))
}

/// The clocks of the case running on this thread, when it has virtual std clocks.
#[derive(Clone, Copy, Debug)]
struct Reading {
    monotonic: VInstant,
    wall: WallInstant,
    /// Reads answered from this reading's case (for the self-check).
    answered: u64,
}

thread_local! {
    static VIRTUAL: Cell<Option<Reading>> = const { Cell::new(None) };
}

/// Virtual std clocks installed on this thread; dropping it restores what was there before (nothing,
/// unless a case runs inside another's).
#[derive(Debug)]
pub(crate) struct Installed {
    previous: Option<Reading>,
}

impl Drop for Installed {
    fn drop(&mut self) {
        VIRTUAL.with(|cell| cell.set(self.previous));
    }
}

/// Why virtual std clocks could not be installed.
pub(crate) fn unavailable() -> Option<String> {
    if !supported() {
        return Some(format!(
            "virtual std clocks need Linux with glibc (this build targets {}-{}): std's clocks cannot be \
             interposed here",
            std::env::consts::OS,
            if cfg!(target_env = "musl") { "musl" } else { std::env::consts::FAMILY }
        ));
    }
    None
}

/// Installs virtual std clocks on this thread at `monotonic` and `wall`, then checks that std's clocks
/// answer from them.
///
/// # Errors
/// Why they could not be installed (an unsupported platform, or a binary whose clock reads do not come
/// here); nothing stays installed then.
pub(crate) fn install(monotonic: VInstant, wall: WallInstant) -> Result<Installed, String> {
    if let Some(reason) = unavailable() {
        return Err(reason);
    }
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    std::hint::black_box(interpose::clock_gettime as *const ()); // The definition is linked with this code.
    let previous = VIRTUAL.with(|cell| cell.replace(Some(Reading { monotonic, wall, answered: 0 })));
    let installed = Installed { previous };
    self_check(wall)?;
    Ok(installed)
}

/// Reads std's clocks once each and checks both answers came from this module.
fn self_check(wall: WallInstant) -> Result<(), String> {
    let before = answered();
    let _ = std::time::Instant::now();
    let system = std::time::SystemTime::now();
    if answered() != before + 2 || wall.to_system_time() != system {
        return Err("virtual std clocks are not in effect: this binary's clock reads do not reach timelaw's \
                    `clock_gettime` (is timelaw-core linked into it, and without a `clock_gettime` of its \
                    own?)"
            .to_owned());
    }
    Ok(())
}

fn answered() -> u64 {
    VIRTUAL.with(|cell| cell.get().map_or(0, |reading| reading.answered))
}

/// Moves this thread's virtual std clocks to `monotonic` and `wall`, if a case installed them here.
pub(crate) fn publish(monotonic: VInstant, wall: WallInstant) {
    VIRTUAL.with(|cell| {
        if let Some(reading) = cell.get() {
            cell.set(Some(Reading { monotonic, wall, ..reading }));
        }
    });
}

/// Which of the case's clocks a clock id reads.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Reads {
    Monotonic,
    Wall,
}

/// The answer for clock `id` on this thread, as seconds and nanoseconds, when a case with virtual std
/// clocks runs here and `id` is a clock it virtualizes.
fn answer(reads: Option<Reads>) -> Option<(i64, i64)> {
    let reads = reads?;
    // `try_with`: a read during this thread's teardown reads the real clock.
    VIRTUAL
        .try_with(|cell| {
            let mut reading = cell.get()?;
            reading.answered += 1;
            cell.set(Some(reading));
            Some(match reads {
                Reads::Monotonic => {
                    split(i128::from(reading.monotonic.since_epoch().saturating_add(MONOTONIC_ORIGIN).as_nanos()))
                }
                Reads::Wall => split(i128::from(reading.wall.as_unix_nanos())),
            })
        })
        .ok()
        .flatten()
}

/// Nanoseconds as a timespec's seconds and nanoseconds (`0..1e9`, as POSIX asks, also before 1970).
fn split(nanos: i128) -> (i64, i64) {
    const NANOS_PER_S: i128 = 1_000_000_000;
    let secs = i64::try_from(nanos.div_euclid(NANOS_PER_S)).unwrap_or(i64::MAX);
    (secs, nanos.rem_euclid(NANOS_PER_S) as i64)
}

#[cfg(all(target_os = "linux", target_env = "gnu"))]
#[allow(unsafe_code)]
mod interpose {
    //! The interposed `clock_gettime` (see the module docs).

    use std::sync::atomic::{AtomicPtr, Ordering};

    use super::{answer, Reads};

    type ClockGettime = unsafe extern "C" fn(libc::clockid_t, *mut libc::timespec) -> libc::c_int;

    /// libc's `clock_gettime`, once looked up.
    static REAL: AtomicPtr<libc::c_void> = AtomicPtr::new(std::ptr::null_mut());

    fn reads(id: libc::clockid_t) -> Option<Reads> {
        match id {
            libc::CLOCK_MONOTONIC | libc::CLOCK_MONOTONIC_RAW | libc::CLOCK_MONOTONIC_COARSE | libc::CLOCK_BOOTTIME => {
                Some(Reads::Monotonic)
            }
            libc::CLOCK_REALTIME | libc::CLOCK_REALTIME_COARSE | libc::CLOCK_TAI => Some(Reads::Wall),
            _ => None,
        }
    }

    /// POSIX `clock_gettime`: the case's clock on a thread running a case with virtual std clocks, libc's
    /// everywhere else.
    ///
    /// # Safety
    /// As libc's: `tp` is null or valid for writing a `timespec`.
    #[no_mangle]
    pub unsafe extern "C" fn clock_gettime(id: libc::clockid_t, tp: *mut libc::timespec) -> libc::c_int {
        if !tp.is_null() {
            if let Some((secs, nanos)) = answer(reads(id)) {
                // SAFETY: the caller passes a pointer valid for writing a timespec (checked non-null).
                unsafe { tp.write(libc::timespec { tv_sec: secs, tv_nsec: nanos }) };
                return 0;
            }
        }
        // SAFETY: the caller's arguments, passed on unchanged.
        unsafe { real(id, tp) }
    }

    /// libc's `clock_gettime` (the next definition after this binary's), or the system call.
    unsafe fn real(id: libc::clockid_t, tp: *mut libc::timespec) -> libc::c_int {
        let mut found = REAL.load(Ordering::Acquire);
        if found.is_null() {
            // SAFETY: a NUL-terminated name; `RTLD_NEXT` looks past this binary.
            found = unsafe { libc::dlsym(libc::RTLD_NEXT, c"clock_gettime".as_ptr()) };
            if found.is_null() {
                // SAFETY: the system call takes the same arguments.
                return unsafe { libc::syscall(libc::SYS_clock_gettime, id, tp) } as libc::c_int;
            }
            REAL.store(found, Ordering::Release);
        }
        // SAFETY: `dlsym` found libc's `clock_gettime`, whose signature this is.
        let real: ClockGettime = unsafe { std::mem::transmute::<*mut libc::c_void, ClockGettime>(found) };
        // SAFETY: the caller's arguments, passed on unchanged.
        unsafe { real(id, tp) }
    }
}

#[cfg(test)]
mod tests {
    use super::split;

    #[test]
    fn splits_nanoseconds_as_posix_does() {
        assert_eq!(split(0), (0, 0));
        assert_eq!(split(1_500_000_000), (1, 500_000_000));
        assert_eq!(split(-1), (-1, 999_999_999));
        assert_eq!(split(-1_000_000_000), (-1, 0));
    }
}
