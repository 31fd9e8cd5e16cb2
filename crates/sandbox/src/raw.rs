//! The raw system calls a forked child makes before exec (or exit), shared by
//! the run's child and the maker of its run folder's tmpfs: nothing in them
//! allocates or takes a lock.

/// `Ok` for a call that returned 0, else the error it left in `errno`.
pub(super) fn check(rc: libc::c_int) -> std::io::Result<()> {
    if rc == 0 {
        Ok(())
    } else {
        Err(std::io::Error::last_os_error())
    }
}

/// Makes every mount of the calling process's mount namespace private, so that
/// nothing mounted in it from now on reaches the namespace it was copied from.
///
/// # Safety
/// Callable between fork and exec; only after `unshare(CLONE_NEWNS)`, or the
/// caller's own namespace (the app's) would change.
pub(super) unsafe fn make_mounts_private() -> std::io::Result<()> {
    let null = std::ptr::null::<libc::c_char>();
    check(libc::mount(
        null,
        c"/".as_ptr(),
        null,
        libc::MS_REC | libc::MS_PRIVATE,
        std::ptr::null(),
    ))
}

/// Closes every descriptor from 3 up but those in `keep`, which must be in
/// ascending order: a forked child that runs no program (close-on-exec never acts
/// there) holds no descriptor of the app's, and no pipe end of another run's
/// child, whose end-of-file would otherwise wait for this one to exit.
///
/// # Safety
/// Callable between fork and exit: no allocation, no lock.
pub(super) unsafe fn close_all_but(keep: &[libc::c_int]) -> std::io::Result<()> {
    let close_range = |first: libc::c_uint, last: libc::c_uint| {
        if libc::syscall(libc::SYS_close_range, first, last, 0 as libc::c_uint) != 0 {
            return Err(std::io::Error::last_os_error());
        }
        Ok(())
    };
    let mut next: libc::c_uint = 3;
    for &fd in keep {
        let fd = fd as libc::c_uint;
        if fd > next {
            close_range(next, fd - 1)?;
        }
        next = next.max(fd + 1);
    }
    close_range(next, libc::c_uint::MAX)
}
