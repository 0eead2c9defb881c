//! Scratch folders for tests: fresh for every call, under the system's temporary folder, removed when
//! the test is done with them (also when it fails), so a test run leaves nothing behind.
#![allow(dead_code)] // Each test target uses a part of the shared code.

use std::ffi::OsStr;
use std::ops::Deref;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};

/// A scratch folder, removed with everything in it when dropped.
#[derive(Debug)]
pub struct Scratch(PathBuf);

impl Scratch {
    /// A fresh empty folder `timelaw-{suite}-{name}-{process}-{n}`: distinct for every call, tests run in
    /// parallel.
    pub fn new(suite: &str, name: &str) -> Scratch {
        static NEXT: AtomicUsize = AtomicUsize::new(0);
        let n = NEXT.fetch_add(1, Ordering::Relaxed);
        let dir = std::env::temp_dir().join(format!("timelaw-{suite}-{name}-{}-{n}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).expect("a scratch folder");
        Scratch(dir)
    }
}

impl Drop for Scratch {
    fn drop(&mut self) {
        // A test may have left a folder read-only: make it writable again, then remove it. A failure to
        // remove is not the test's failure.
        make_writable(&self.0);
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

/// Makes `dir` and the folders under it writable by their owner, so they can be removed.
fn make_writable(dir: &Path) {
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        let Ok(meta) = std::fs::symlink_metadata(dir) else { return };
        if !meta.is_dir() {
            return;
        }
        let mut permissions = meta.permissions();
        permissions.set_mode(permissions.mode() | 0o700);
        let _ = std::fs::set_permissions(dir, permissions);
        for entry in std::fs::read_dir(dir).into_iter().flatten().flatten() {
            make_writable(&entry.path());
        }
    }
    #[cfg(not(unix))]
    let _ = dir;
}

impl Deref for Scratch {
    type Target = Path;
    fn deref(&self) -> &Path {
        &self.0
    }
}

impl AsRef<Path> for Scratch {
    fn as_ref(&self) -> &Path {
        &self.0
    }
}

impl AsRef<OsStr> for Scratch {
    fn as_ref(&self) -> &OsStr {
        self.0.as_os_str()
    }
}
