//! What the app and its supervisor say to each other on their socket, a
//! `SOCK_SEQPACKET` pair, one message for each request and each answer.
//!
//! - First, unasked, once the supervisor has started: `[OK]` with a pidfd of the
//!   supervisor attached (none on a kernel without pidfds), by which the app
//!   continues a supervisor it gives up on, so that one stopped sees the socket
//!   close and ends.
//! - `[START][path]`: start a worker of the program at `path`. Answer
//!   `[OK][id: u64 LE]` with the worker's standard input and output attached
//!   (`SCM_RIGHTS`), or `[FAILED][errno: i32 LE]`.
//! - `[RUN][path]`: start the program at `path` as a code run's host
//!   (`path run`, see [`crate::host`]). Answered as `START` is, the host's
//!   standard input a stream socket rather than a pipe.
//! - `[TMPFS][mount options]\0[folder]`: mount a tmpfs on the empty folder in
//!   namespaces of its own (a code run's private run folder, see
//!   [`file_store_sandbox::private`]). Answer `[OK]` with the descriptors of its
//!   mount namespace, its root and, for an app that is not root, its user
//!   namespace attached, or `[FAILED][why]`.
//! - `[EMPTY][folder]`: start the remover of what a run set aside in the run
//!   folder ([`file_store_sandbox::removing`]). Answer `[OK]` with the read end
//!   of a pipe the remover closes when it is done attached, `[OK]` alone when
//!   nothing waits to be removed, or `[FAILED]`.
//! - `[END][id: u64 LE]`: kill the worker if it runs, reap it, and say how it
//!   ended. Answer `[OK][wait status: i32 LE][CPU time in µs: u64 LE]`, or
//!   `[FAILED]` for an id the supervisor does not know.
//!
//! `END` ends a host as it ends a worker. The app names a worker by the supervisor's id, never by its pid.

use std::io;
use std::os::fd::{AsRawFd, BorrowedFd, FromRawFd, OwnedFd};

pub const START: u8 = 1;
pub const END: u8 = 2;
pub const RUN: u8 = 3;
pub const TMPFS: u8 = 4;
pub const EMPTY: u8 = 5;
pub const OK: u8 = 0;
pub const FAILED: u8 = 1;

/// The longest message either side sends.
const MAX_MESSAGE: usize = 8192;

/// Sends `bytes`, with `fds` attached. A peer that has gone is an error, not a
/// SIGPIPE.
pub fn send(socket: BorrowedFd, bytes: &[u8], fds: &[BorrowedFd]) -> io::Result<()> {
    let mut iov = libc::iovec {
        iov_base: bytes.as_ptr() as *mut _,
        iov_len: bytes.len(),
    };
    let raw: Vec<i32> = fds.iter().map(|fd| fd.as_raw_fd()).collect();
    // SAFETY: CMSG_SPACE is arithmetic on its argument and reads no memory.
    let space = unsafe { libc::CMSG_SPACE(std::mem::size_of_val(raw.as_slice()) as u32) } as usize;
    let mut control = control_buffer(if raw.is_empty() { 0 } else { space });
    // SAFETY: msghdr is C data (pointers, lengths, flags) for which all zeros is a valid,
    // empty header.
    let mut header: libc::msghdr = unsafe { std::mem::zeroed() };
    header.msg_iov = &mut iov;
    header.msg_iovlen = 1;
    if !raw.is_empty() {
        header.msg_control = control.as_mut_ptr().cast();
        header.msg_controllen = std::mem::size_of_val(control.as_slice()) as _;
        // SAFETY: `control` is non-empty here: CMSG_SPACE(n * 4) bytes for n > 0
        // descriptors, aligned for a cmsghdr (`control_buffer`), so CMSG_FIRSTHDR returns
        // its start, not null, and the header written through it lies inside it.
        // CMSG_DATA(cmsg) is followed by CMSG_LEN(n * 4) - CMSG_LEN(0) = n * 4 bytes still
        // inside `control`, 4-aligned, which the n i32s of `raw` (a separate allocation)
        // are copied into.
        unsafe {
            let cmsg = libc::CMSG_FIRSTHDR(&header);
            (*cmsg).cmsg_level = libc::SOL_SOCKET;
            (*cmsg).cmsg_type = libc::SCM_RIGHTS;
            (*cmsg).cmsg_len = libc::CMSG_LEN(std::mem::size_of_val(raw.as_slice()) as u32) as _;
            std::ptr::copy_nonoverlapping(raw.as_ptr(), libc::CMSG_DATA(cmsg).cast(), raw.len());
        }
    }
    loop {
        // SAFETY: sendmsg only reads `header`, its one iovec over `bytes` and `control`,
        // all alive for the call with the lengths the header gives; `socket` is an open
        // descriptor the caller lends. MSG_NOSIGNAL: a peer that has gone is EPIPE, not a
        // signal.
        let sent = unsafe { libc::sendmsg(socket.as_raw_fd(), &header, libc::MSG_NOSIGNAL) };
        if sent >= 0 {
            return Ok(());
        }
        let error = io::Error::last_os_error();
        if error.kind() != io::ErrorKind::Interrupted {
            return Err(error);
        }
    }
}

/// Receives one message and the descriptors attached to it (made close-on-exec).
/// An empty message is the peer's end.
pub fn receive(socket: BorrowedFd) -> io::Result<(Vec<u8>, Vec<OwnedFd>)> {
    receive_at_most(socket, MAX_MESSAGE)
}

/// [`receive`], reading at most `max` bytes: on a stream socket, the bytes past
/// them stay to be read.
pub fn receive_at_most(socket: BorrowedFd, max: usize) -> io::Result<(Vec<u8>, Vec<OwnedFd>)> {
    let mut bytes = vec![0u8; max];
    let mut iov = libc::iovec {
        iov_base: bytes.as_mut_ptr().cast(),
        iov_len: bytes.len(),
    };
    // SAFETY: CMSG_SPACE is arithmetic on its argument and reads no memory.
    let mut control = control_buffer(unsafe { libc::CMSG_SPACE(4 * 4) } as usize);
    // SAFETY: msghdr is C data (pointers, lengths, flags) for which all zeros is a valid,
    // empty header.
    let mut header: libc::msghdr = unsafe { std::mem::zeroed() };
    header.msg_iov = &mut iov;
    header.msg_iovlen = 1;
    header.msg_control = control.as_mut_ptr().cast();
    header.msg_controllen = std::mem::size_of_val(control.as_slice()) as _;
    let received = loop {
        // SAFETY: recvmsg writes at most `iov_len` bytes into `bytes` and at most
        // `msg_controllen` into `control`, both alive and as long as the header says, and
        // updates `header` in place; `socket` is an open descriptor the caller lends.
        let received =
            unsafe { libc::recvmsg(socket.as_raw_fd(), &mut header, libc::MSG_CMSG_CLOEXEC) };
        if received >= 0 {
            break received as usize;
        }
        let error = io::Error::last_os_error();
        if error.kind() != io::ErrorKind::Interrupted {
            return Err(error);
        }
    };
    let mut fds = Vec::new();
    // SAFETY: CMSG_FIRSTHDR reads only `header`, whose control pointer and length recvmsg
    // left naming the control data it wrote into `control` (null when there is none).
    let mut cmsg = unsafe { libc::CMSG_FIRSTHDR(&header) };
    while !cmsg.is_null() {
        // SAFETY: `cmsg` is non-null and came from CMSG_FIRSTHDR or CMSG_NXTHDR, which
        // return a header only when it lies whole inside the control data the kernel wrote
        // (`control`, aligned for a cmsghdr). For SCM_RIGHTS the kernel wrote (cmsg_len -
        // CMSG_LEN(0)) / 4 descriptors after it, read unaligned; each is a descriptor it
        // has just installed in this process (close-on-exec), which nothing else owns, so
        // each becomes one OwnedFd.
        unsafe {
            if (*cmsg).cmsg_level == libc::SOL_SOCKET && (*cmsg).cmsg_type == libc::SCM_RIGHTS {
                let data = libc::CMSG_DATA(cmsg).cast::<i32>();
                let count = ((*cmsg).cmsg_len as usize - libc::CMSG_LEN(0) as usize) / 4;
                for n in 0..count {
                    fds.push(OwnedFd::from_raw_fd(data.add(n).read_unaligned()));
                }
            }
            cmsg = libc::CMSG_NXTHDR(&header, cmsg);
        }
    }
    bytes.truncate(received);
    Ok((bytes, fds))
}

/// Zeroed room for `bytes` bytes of control messages, aligned as a `cmsghdr` must be
/// (a byte buffer need not be).
fn control_buffer(bytes: usize) -> Vec<u64> {
    vec![0; bytes.div_ceil(std::mem::size_of::<u64>())]
}

/// A pair of connected sockets, each closed on exec: (the app's, the supervisor's).
pub fn socket_pair() -> io::Result<(OwnedFd, OwnedFd)> {
    pair(libc::SOCK_SEQPACKET)
}

/// A pair of connected stream sockets, each closed on exec.
pub fn stream_pair() -> io::Result<(OwnedFd, OwnedFd)> {
    pair(libc::SOCK_STREAM)
}

fn pair(kind: i32) -> io::Result<(OwnedFd, OwnedFd)> {
    let mut fds = [0; 2];
    let kind = kind | libc::SOCK_CLOEXEC;
    // SAFETY: socketpair writes two descriptors into `fds`, an array of two.
    if unsafe { libc::socketpair(libc::AF_UNIX, kind, 0, fds.as_mut_ptr()) } != 0 {
        return Err(io::Error::last_os_error());
    }
    // SAFETY: socketpair succeeded: both are new descriptors that nothing else owns.
    Ok(unsafe { (OwnedFd::from_raw_fd(fds[0]), OwnedFd::from_raw_fd(fds[1])) })
}

/// A little-endian u64 at `at` in `bytes`.
pub fn u64_at(bytes: &[u8], at: usize) -> Option<u64> {
    Some(u64::from_le_bytes(bytes.get(at..at + 8)?.try_into().ok()?))
}

/// A little-endian i32 at `at` in `bytes`.
pub fn i32_at(bytes: &[u8], at: usize) -> Option<i32> {
    Some(i32::from_le_bytes(bytes.get(at..at + 4)?.try_into().ok()?))
}
