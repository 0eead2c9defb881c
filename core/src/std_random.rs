//! Seeded std randomness: while a case runs, `getrandom` on the case's thread answers from a stream
//! seeded by the case's seed, so the operating system's randomness that std and the `getrandom` crate
//! hand out (and everything seeded from it: `std::collections::hash_map::RandomState`, `rand`'s thread
//! RNG, `OsRng`) is the same on every run of the case.
//!
//! A subject opts in with [`Subject::std_random`](crate::Subject::std_random) returning
//! [`StdRandom::Seeded`] (the facade's short form: `subject(..).with_std_random(StdRandom::Seeded)`).
//!
//! # The mechanism: `getrandom`, interposed in the binary
//! On Linux, std (for `RandomState`'s keys) and the `getrandom` crate (for `OsRng`, and so `rand`'s
//! thread RNG) look `getrandom` up by name at run time, and the binary's own definition comes first:
//! this module defines one. It answers from the case's stream on a thread that runs a case with seeded
//! std randomness, and passes every other call on to libc's `getrandom` (found with `dlsym(RTLD_NEXT)`;
//! the system call if that lookup fails).
//!
//! # One thread per case
//! A thread-local generator seeds itself once per thread (`rand`'s thread RNG, std's `RandomState`
//! keys), and a worker thread runs many cases: the second case would go on from the first's state. So
//! the facade's runner, shrinker and replay run each case of such a subject on a thread of its own,
//! where every thread-local generator starts afresh from the case's stream. [`execute`](crate::execute)
//! runs it on the calling thread: the stream is the case's, a thread-local generator seeded before is
//! not.
//!
//! # Limits
//! - **Linux with glibc only**, as virtual std clocks ([`crate::std_clocks::supported`]); elsewhere
//!   each case aborts with [`Abort::InvalidConfig`](crate::Abort) naming why.
//! - **Through `getrandom` only.** `/dev/urandom` read as a file, `getentropy`, the `RDRAND`
//!   instruction and raw system calls are not interposed.
//! - **Thread identity.** A generator that hashes the thread's id or the time as well (`fastrand`'s
//!   thread-local generator) differs from run to run all the same: seed it (`fastrand::seed`).
//! - **The case's own thread**, as virtual std clocks.
//! - **The binary must link this definition.** A self-check at the start of every case aborts it
//!   ([`Abort::InvalidConfig`](crate::Abort), naming the cause) if `getrandom` does not come here.

use std::cell::Cell;

use serde::{Deserialize, Serialize};

use crate::rng::{mix, SplitMix64};

/// Where the randomness std and the `getrandom` crate hand out comes from while a subject's case runs.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum StdRandom {
    /// The operating system (the default).
    #[default]
    Os,
    /// A stream seeded by the case's seed, on a thread of the case's own (see the module docs).
    Seeded,
}

impl StdRandom {
    /// `true` for [`StdRandom::Seeded`].
    pub fn is_seeded(self) -> bool {
        self == StdRandom::Seeded
    }
}

/// The index [`mix`] combines with a case's seed for its `getrandom` stream (apart from the World's own
/// randomness, which the stream never draws from).
const STREAM: u64 = 0x6765_7472_616e_646f; // "getrando"

/// The stream of the case running on this thread, when it has seeded std randomness.
#[derive(Clone, Copy, Debug)]
struct Stream {
    rng: SplitMix64Copy,
    /// `getrandom` calls answered (for the self-check).
    answered: u64,
}

/// A [`SplitMix64`] state held in a `Cell` (the generator itself is not `Copy`).
#[derive(Clone, Copy, Debug)]
struct SplitMix64Copy(u64);

thread_local! {
    static SEEDED: Cell<Option<Stream>> = const { Cell::new(None) };
}

/// Seeded std randomness installed on this thread; dropping it restores what was there before.
#[derive(Debug)]
pub(crate) struct Installed {
    previous: Option<Stream>,
}

impl Drop for Installed {
    fn drop(&mut self) {
        SEEDED.with(|cell| cell.set(self.previous));
    }
}

/// Installs the `getrandom` stream of the case seeded by `seed` on this thread, then checks that
/// `getrandom` answers from it.
///
/// # Errors
/// Why it could not be installed (an unsupported platform, or a binary whose `getrandom` calls do not
/// come here); nothing stays installed then.
pub(crate) fn install(seed: u64) -> Result<Installed, String> {
    if let Some(reason) = crate::std_clocks::unavailable() {
        return Err(reason.replace("virtual std clocks", "seeded std randomness"));
    }
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    std::hint::black_box(linked()); // The definition is linked with this code.
    let stream = Stream { rng: SplitMix64Copy(mix(seed, STREAM)), answered: 0 };
    let previous = SEEDED.with(|cell| cell.replace(Some(stream)));
    let installed = Installed { previous };
    self_check()?;
    // The check drew from the stream: start it again, so the case's first byte is the stream's first.
    SEEDED.with(|cell| cell.set(Some(stream)));
    Ok(installed)
}

#[cfg(all(target_os = "linux", target_env = "gnu"))]
fn self_check() -> Result<(), String> {
    let before = answered();
    let mut byte = 0u8;
    // SAFETY: one writable byte. A call through libc's declaration, as std's and the crates' are linked.
    let filled = unsafe { libc::getrandom((&raw mut byte).cast(), 1, 0) };
    if filled != 1 || answered() != before + 1 {
        return Err("seeded std randomness is not in effect: this binary's `getrandom` calls do not reach \
                    timelaw's `getrandom` (is timelaw-core linked into it, and without a `getrandom` of its \
                    own?)"
            .to_owned());
    }
    Ok(())
}

#[cfg(not(all(target_os = "linux", target_env = "gnu")))]
fn self_check() -> Result<(), String> {
    Ok(())
}

#[cfg(all(target_os = "linux", target_env = "gnu"))]
fn answered() -> u64 {
    SEEDED.with(|cell| cell.get().map_or(0, |stream| stream.answered))
}

/// Fills `bytes` from the stream of the case running on this thread; `false` when none runs here.
fn fill(bytes: &mut [u8]) -> bool {
    SEEDED
        .try_with(|cell| {
            let Some(mut stream) = cell.get() else { return false };
            let mut rng = SplitMix64::new(stream.rng.0);
            for chunk in bytes.chunks_mut(8) {
                let word = rng.next_u64().to_le_bytes();
                chunk.copy_from_slice(&word[..chunk.len()]);
            }
            stream.rng = SplitMix64Copy(rng.state());
            stream.answered += 1;
            cell.set(Some(stream));
            true
        })
        .unwrap_or(false)
}

#[cfg(all(target_os = "linux", target_env = "gnu"))]
#[allow(unsafe_code)]
mod interpose {
    //! The interposed `getrandom` (see the module docs).

    use std::sync::atomic::{AtomicPtr, Ordering};

    use super::fill;

    type GetRandom = unsafe extern "C" fn(*mut libc::c_void, libc::size_t, libc::c_uint) -> libc::ssize_t;

    /// libc's `getrandom`, once looked up.
    static REAL: AtomicPtr<libc::c_void> = AtomicPtr::new(std::ptr::null_mut());

    /// Linux `getrandom(2)`: the case's stream on a thread running a case with seeded std randomness
    /// (the whole buffer, whatever the flags), libc's everywhere else.
    ///
    /// # Safety
    /// As libc's: `buf` is valid for writing `len` bytes (or `len` is 0).
    #[no_mangle]
    pub unsafe extern "C" fn getrandom(
        buf: *mut libc::c_void,
        len: libc::size_t,
        flags: libc::c_uint,
    ) -> libc::ssize_t {
        if !buf.is_null() && len <= isize::MAX as usize {
            // SAFETY: the caller passes `len` writable bytes at `buf` (checked non-null).
            let bytes = unsafe { std::slice::from_raw_parts_mut(buf.cast::<u8>(), len) };
            if fill(bytes) {
                return len as libc::ssize_t;
            }
        }
        // SAFETY: the caller's arguments, passed on unchanged.
        unsafe { real(buf, len, flags) }
    }

    /// libc's `getrandom` (the next definition after this binary's), or the system call.
    unsafe fn real(buf: *mut libc::c_void, len: libc::size_t, flags: libc::c_uint) -> libc::ssize_t {
        let mut found = REAL.load(Ordering::Acquire);
        if found.is_null() {
            // SAFETY: a NUL-terminated name; `RTLD_NEXT` looks past this binary.
            found = unsafe { libc::dlsym(libc::RTLD_NEXT, c"getrandom".as_ptr()) };
            if found.is_null() {
                // SAFETY: the system call takes the same arguments.
                return unsafe { libc::syscall(libc::SYS_getrandom, buf, len, flags) } as libc::ssize_t;
            }
            REAL.store(found, Ordering::Release);
        }
        // SAFETY: `dlsym` found libc's `getrandom`, whose signature this is.
        let real: GetRandom = unsafe { std::mem::transmute::<*mut libc::c_void, GetRandom>(found) };
        // SAFETY: the caller's arguments, passed on unchanged.
        unsafe { real(buf, len, flags) }
    }
}

/// A reference to the interposed definition, so that it is linked with the code that installs the
/// stream.
#[cfg(all(target_os = "linux", target_env = "gnu"))]
pub(crate) fn linked() -> *const () {
    interpose::getrandom as *const ()
}
