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
