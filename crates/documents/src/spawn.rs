//! Starting a convert worker as a child that signals no one when it ends.
//!
//! A child made by `fork` sends its parent SIGCHLD when it dies, and Ruby handles
//! SIGCHLD by interrupting its main thread: a worker dying at its memory limit,
//! or killed because its caller gave up, would interrupt whatever the main
//! thread was waiting on, another conversion included, which would then be
//! given up and its worker killed in turn. A child cloned with no exit signal
//! sends nothing; and since only `waitpid` with `__WALL` reaps such a child, an
//! app's own `Process.wait` (or a server reaping its children) never takes its
//! exit status from the pool.

use std::ffi::{CString, OsStr};
use std::fs::File;
use std::io::{self, Read};
use std::os::fd::{AsRawFd, FromRawFd, OwnedFd};
use std::os::unix::ffi::OsStrExt;

/// A started worker: its pid and our ends of its standard input and output.
pub struct Spawned {
    pub pid: libc::pid_t,
    pub input: OwnedFd,
    pub output: OwnedFd,
}

fn pipe() -> io::Result<(OwnedFd, OwnedFd)> {
    let mut fds = [0; 2];
    if unsafe { libc::pipe2(fds.as_mut_ptr(), libc::O_CLOEXEC) } != 0 {
        return Err(io::Error::last_os_error());
    }
    Ok(unsafe { (OwnedFd::from_raw_fd(fds[0]), OwnedFd::from_raw_fd(fds[1])) })
}

/// Starts `program` with no arguments and an empty environment, its standard
/// input and output pipes to us and its standard error `/dev/null`.
pub fn spawn(program: &OsStr) -> io::Result<Spawned> {
    let path = CString::new(program.as_bytes())
        .map_err(|_| io::Error::new(io::ErrorKind::InvalidInput, "a NUL in the path"))?;
    let argv = [path.as_ptr(), std::ptr::null()];
    let envp = [std::ptr::null::<libc::c_char>()];
    let null = File::options().write(true).open("/dev/null")?;
    let (child_in, input) = pipe()?;
    let (output, child_out) = pipe()?;
    let (report_read, report_write) = pipe()?;
    let fds = [
        child_in.as_raw_fd(),
        child_out.as_raw_fd(),
        null.as_raw_fd(),
        report_write.as_raw_fd(),
    ];
    // Without CLONE_VM the child has its own copy of memory, like fork, and an
    // exit signal of 0. Between here and execve it makes only async-signal-safe
    // calls: dup2, execve, write and _exit.
    let mut pid = unsafe { libc::syscall(libc::SYS_clone, 0, 0, 0, 0, 0) };
    if pid < 0 && io::Error::last_os_error().raw_os_error() == Some(libc::EINVAL) {
        // Linux takes any exit signal; qemu-user emulates SIGCHLD alone and
        // refuses the clone above with EINVAL. There, and only there, the worker
        // is started as by fork, and its end sends SIGCHLD after all.
        pid = unsafe { libc::syscall(libc::SYS_clone, libc::SIGCHLD, 0, 0, 0, 0) };
    }
    if pid < 0 {
        return Err(io::Error::last_os_error());
    }
    if pid == 0 {
        unsafe { exec_child(fds, argv.as_ptr(), envp.as_ptr()) }
    }
    let pid = pid as libc::pid_t;
    drop((child_in, child_out, null, report_write));
    let mut report = [0u8; 4];
    let mut report_read = File::from(report_read);
    match report_read.read(&mut report) {
        // The report pipe closed on exec: the program runs.
        Ok(0) => Ok(Spawned { pid, input, output }),
        Ok(_) => {
            reap(pid, false);
            Err(io::Error::from_raw_os_error(i32::from_ne_bytes(report)))
        }
        Err(error) => {
            reap(pid, true);
            Err(error)
        }
    }
}

/// The child's side: its pipes in place of 0, 1 and 2, then the program. On
/// failure it writes the error number to the report pipe and ends.
unsafe fn exec_child(
    [input, output, null, report]: [i32; 4],
    argv: *const *const libc::c_char,
    envp: *const *const libc::c_char,
) -> ! {
    if libc::dup2(input, 0) >= 0 && libc::dup2(output, 1) >= 0 && libc::dup2(null, 2) >= 0 {
        libc::execve(*argv, argv, envp);
    }
    let errno = *libc::__errno_location();
    libc::write(report, errno.to_ne_bytes().as_ptr().cast(), 4);
    libc::_exit(127)
}

/// Kills the worker if `kill` and waits for it to end; returns its wait status.
pub fn reap(pid: libc::pid_t, kill: bool) -> Option<i32> {
    if kill {
        unsafe { libc::kill(pid, libc::SIGKILL) };
    }
    let mut status = 0;
    loop {
        let reaped = unsafe { libc::waitpid(pid, &mut status, libc::__WALL) };
        if reaped == pid {
            return Some(status);
        }
        if reaped < 0 && io::Error::last_os_error().kind() != io::ErrorKind::Interrupted {
            return None;
        }
    }
}
