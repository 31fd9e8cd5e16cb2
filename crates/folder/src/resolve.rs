//! Opening a path beneath the root in one call, where the kernel can refuse every
//! symbolic link on the way itself (Linux's `openat2` with `RESOLVE_NO_SYMLINKS`).
//! Elsewhere, or where a sandbox filters the call out, callers walk the path one
//! component at a time instead, which refuses the same links with more calls.

use std::os::fd::{BorrowedFd, OwnedFd};

use rustix::fs::{Mode, OFlags};
use rustix::io::Errno;

/// What a one-call open gave: the descriptor, a definite error, or nothing when
/// the kernel cannot do it and the caller must walk.
pub(super) enum Opened {
    Fd(OwnedFd),
    Failed(Errno),
    Unsupported,
}

#[cfg(target_os = "linux")]
pub(super) fn open_beneath(root: BorrowedFd<'_>, path: &str, flags: OFlags) -> Opened {
    use std::sync::atomic::{AtomicBool, Ordering};

    use rustix::fs::ResolveFlags;

    static UNSUPPORTED: AtomicBool = AtomicBool::new(false);
    if UNSUPPORTED.load(Ordering::Relaxed) {
        return Opened::Unsupported;
    }
    let resolve = ResolveFlags::BENEATH | ResolveFlags::NO_SYMLINKS | ResolveFlags::NO_MAGICLINKS;
    match rustix::fs::openat2(
        root,
        path,
        flags | OFlags::NOFOLLOW | OFlags::CLOEXEC,
        Mode::empty(),
        resolve,
    ) {
        Ok(fd) => Opened::Fd(fd),
        // An old kernel, or a seccomp filter that does not know the call.
        Err(Errno::NOSYS | Errno::PERM | Errno::INVAL | Errno::TOOBIG) => {
            UNSUPPORTED.store(true, Ordering::Relaxed);
            Opened::Unsupported
        }
        Err(errno) => Opened::Failed(errno),
    }
}

#[cfg(not(target_os = "linux"))]
pub(super) fn open_beneath(_root: BorrowedFd<'_>, _path: &str, _flags: OFlags) -> Opened {
    Opened::Unsupported
}
