//! Starting programs as children that signal no one when they end, and reaping
//! them: how the app starts its supervisor, and the supervisor its workers.
//!
//! A child made by `fork` sends its parent SIGCHLD when it dies, and Ruby handles
//! SIGCHLD by interrupting its main thread; and execve gives any child SIGCHLD
//! as its exit signal again, so an app's `Process.wait(-1)` or `Process.waitall`
//! would wait for it. The app therefore starts its supervisor through a child
//! cloned with no exit signal, which starts the supervisor and ends at once: the
//! supervisor is then no child of the app at all, and the app reaps the
//! short-lived one itself (only `waitpid` with `__WALL` reaps such a child).
//!
//! An app that adopts orphans itself (PID 1 of its namespace, or a child
//! subreaper) would adopt that supervisor, as the child of an exit signal its
//! parent's end gives it, and every worker a killed supervisor leaves. There the
//! supervisor is started by a keeper ([`Start::Kept`]): a copy of the app made
//! with no exit signal that never runs a program, so it stays one no wait of the
//! app sees, even once ended, and adopts and reaps whatever the supervisor leaves;
//! the app reaps it with `__WALL` once it has ended ([`ended`]).
//!
//! Every other clone here is a vfork, as `posix_spawn` makes one: the child shares the
//! caller's memory, on a stack of its own, until it runs the program, and the
//! caller's thread waits until then, so whether it ran is known when the clone
//! returns, from a pipe that is never waited on. (Waiting for the pipe to close
//! would wait for any process forked meanwhile by another thread of the app,
//! which holds a copy of it until it ends.) Sharing the memory spares copying the
//! app's page tables, twice for the supervisor: a fork of a Ruby process of 60 MB
//! took a millisecond, and more the larger the app. Every signal is blocked in
//! the calling thread across the clone, so no handler of the app's runs in the
//! child on the app's memory; the program sets its own mask.

use std::ffi::{CString, OsStr};
use std::fs::File;
use std::io::{self, Read};
use std::os::fd::{AsFd, AsRawFd, BorrowedFd, FromRawFd, OwnedFd};
use std::os::unix::ffi::OsStrExt;
use std::time::Duration;

/// What the child does before it runs the program.
#[derive(Clone, Copy, PartialEq, Eq)]
pub enum Start {
    /// The app's supervisor: in a session of its own, its parent a child that
    /// ends at once, so the supervisor is nobody's child in the app.
    Detached,
    /// The app's supervisor, where the app adopts orphans: the child the caller
    /// must reap is a keeper that lives as long as the supervisor (see the
    /// module's doc).
    Kept,
    /// A worker of the supervisor: killed when the supervisor ends
    /// (`PR_SET_PDEATHSIG`), with the default action for every signal. (The worker
    /// makes itself the OOM killer's first choice before it reads a byte.)
    Worker,
}

/// A program to start: its path, its arguments, and the descriptors that become
/// its standard input, output and error.
pub struct Program<'a> {
    pub path: &'a OsStr,
    pub args: &'a [&'a str],
    pub stdio: [i32; 3],
    pub start: Start,
}

/// Makes a pipe whose ends close on exec: (read, write).
pub fn pipe() -> io::Result<(OwnedFd, OwnedFd)> {
    let mut fds = [0; 2];
    // SAFETY: pipe2 writes two descriptors into `fds`, an array of two.
    if unsafe { libc::pipe2(fds.as_mut_ptr(), libc::O_CLOEXEC) } != 0 {
        return Err(io::Error::last_os_error());
    }
    // SAFETY: pipe2 succeeded: both are new descriptors that nothing else owns.
    Ok(unsafe { (OwnedFd::from_raw_fd(fds[0]), OwnedFd::from_raw_fd(fds[1])) })
}

/// `/dev/null`, open for writing, for a child's standard error.
pub fn null() -> io::Result<File> {
    File::options().write(true).open("/dev/null")
}

/// Starts `program` with an empty environment. Returns the pid of the child the
/// caller must reap: the program's for a worker, the keeper's for
/// [`Start::Kept`]; for [`Start::Detached`] the short-lived child's, already
/// reaped, and `None`.
pub fn start(program: &Program) -> io::Result<Option<libc::pid_t>> {
    let path = CString::new(program.path.as_bytes())
        .map_err(|_| io::Error::new(io::ErrorKind::InvalidInput, "a NUL in the path"))?;
    let args: Vec<CString> = program
        .args
        .iter()
        .map(|arg| CString::new(*arg).expect("no NUL in an argument"))
        .collect();
    let mut argv = vec![path.as_ptr()];
    argv.extend(args.iter().map(|arg| arg.as_ptr()));
    argv.push(std::ptr::null());
    let envp = [std::ptr::null::<libc::c_char>()];
    let (report_read, report_write) = pipe()?;
    // The stacks the child (and, detached, its own child) run on until execve.
    let mut stacks = vec![0u8; 2 * CHILD_STACK];
    let child = Child {
        path: path.as_ptr(),
        argv: argv.as_ptr(),
        envp: envp.as_ptr(),
        stdio: program.stdio,
        report: report_write.as_raw_fd(),
        start: program.start,
        // SAFETY: getpid takes no argument and cannot fail.
        parent: unsafe { libc::getpid() },
        grandchild_stack: stack_top(&mut stacks[CHILD_STACK..]),
    };
    let stack = stack_top(&mut stacks[..CHILD_STACK]);
    let pid = if program.start == Start::Kept {
        clone_keeper(&child, stack)
    } else {
        clone_vfork(&child, stack)
    };
    drop(report_write);
    let pid = pid?;
    let failed = if program.start == Start::Kept {
        wait_report(report_read)
    } else {
        read_report(report_read)
    };
    match program.start {
        Start::Detached => {
            // The short-lived child has ended (or ends now): reap it.
            reap(pid, false);
            failed.map_or(Ok(None), Err)
        }
        Start::Worker | Start::Kept => match failed {
            None => Ok(Some(pid)),
            Some(error) => {
                reap(pid, true);
                Err(error)
            }
        },
    }
}

/// The bytes of stack a child runs on before execve: the few calls of
/// [`Child::run`], with room to spare.
const CHILD_STACK: usize = 64 * 1024;

/// The top of `stack`, aligned as a stack pointer must be (stacks grow down).
fn stack_top(stack: &mut [u8]) -> *mut libc::c_void {
    let end = stack.as_mut_ptr_range().end as usize;
    (end & !15) as *mut libc::c_void
}

/// Starts `child` as by vfork (see the module's doc) with no exit signal: its pid
/// once it has run the program or ended.
fn clone_vfork(child: &Child, stack: *mut libc::c_void) -> io::Result<libc::pid_t> {
    // SAFETY: glibc's clone runs `child_main` on `stack`, the top of a buffer of
    // CHILD_STACK bytes that `start` keeps alive until the clone returns, which with
    // CLONE_VFORK is once the child has run its program or ended; `child` is in the
    // caller's frame, alive as long. The child shares this memory (CLONE_VM) while
    // this thread waits, with every signal blocked: it makes only async-signal-safe
    // calls that write no memory but the errno of this thread, which waits
    // (`Child::run`), and never returns.
    unsafe { clone_quietly(child_main, child, stack, libc::CLONE_VM | libc::CLONE_VFORK) }
}

/// Starts `child` as a keeper: a copy of this process with no exit signal (see
/// the module's doc), which reports once the program has run.
fn clone_keeper(child: &Child, stack: *mut libc::c_void) -> io::Result<libc::pid_t> {
    // SAFETY: with no CLONE_VM the keeper runs `keeper_main` on its own copy of this
    // memory, `stack` and `child` included, so nothing it does reaches the app's; a copy
    // of a process with threads may call only async-signal-safe functions, and
    // `Child::keep` allocates nothing, takes no lock, and never returns.
    unsafe { clone_quietly(keeper_main, child, stack, 0) }
}

/// Clones `main` with `flags` and no exit signal, or SIGCHLD where qemu-user
/// refuses any other, every signal blocked in this thread meanwhile, so the child
/// starts with a mask that runs none of the app's handlers.
///
/// # Safety
///
/// `main` must be sound to run on `stack` with `child` as the flags share them.
unsafe fn clone_quietly(
    main: extern "C" fn(*mut libc::c_void) -> libc::c_int,
    child: &Child,
    stack: *mut libc::c_void,
    flags: libc::c_int,
) -> io::Result<libc::pid_t> {
    let arg = child as *const Child as *mut libc::c_void;
    // SAFETY: `all` and `before` are local sigset_ts, set up by sigfillset before use, and
    // pthread_sigmask only changes this thread's mask, set back below whatever the
    // clone did.
    let mut before: libc::sigset_t = unsafe { std::mem::zeroed() };
    // SAFETY: as above.
    unsafe {
        let mut all: libc::sigset_t = std::mem::zeroed();
        libc::sigfillset(&mut all);
        libc::pthread_sigmask(libc::SIG_SETMASK, &all, &mut before);
    }
    // SAFETY: the caller's contract.
    let mut pid = unsafe { libc::clone(main, stack, flags, arg) };
    if pid < 0 && io::Error::last_os_error().raw_os_error() == Some(libc::EINVAL) {
        // Linux takes any exit signal; qemu-user emulates SIGCHLD alone.
        // SAFETY: the same clone as above, with SIGCHLD as the exit signal.
        pid = unsafe { libc::clone(main, stack, flags | libc::SIGCHLD, arg) };
    }
    let failed = (pid < 0).then(io::Error::last_os_error);
    // SAFETY: sets back the mask `before` holds, a sigset_t pthread_sigmask filled.
    unsafe { libc::pthread_sigmask(libc::SIG_SETMASK, &before, std::ptr::null_mut()) };
    failed.map_or(Ok(pid), Err)
}

/// Where a keeper starts.
extern "C" fn keeper_main(arg: *mut libc::c_void) -> libc::c_int {
    // SAFETY: `arg` is the Child `clone_keeper` was given, in this process's own copy
    // of the app's memory; `keep` never returns.
    unsafe { (*(arg as *const Child)).keep() }
}

/// How long a keeper may take to say whether the program runs.
const KEEPER_REPORTS_WITHIN: Duration = Duration::from_secs(10);

/// The error number a keeper reported, or `None` once it said the program runs:
/// four bytes, waited for, since the keeper runs beside the app.
fn wait_report(report: OwnedFd) -> Option<io::Error> {
    if readable_within(report.as_fd(), KEEPER_REPORTS_WITHIN).is_err() {
        return Some(io::Error::new(
            io::ErrorKind::TimedOut,
            "the supervisor's keeper did not report",
        ));
    }
    let mut bytes = [0u8; 4];
    let mut file = File::from(report);
    loop {
        return match file.read(&mut bytes) {
            Ok(4) => match i32::from_ne_bytes(bytes) {
                0 => None,
                errno => Some(io::Error::from_raw_os_error(errno)),
            },
            Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
            _ => Some(io::Error::other("the supervisor's keeper ended")),
        };
    }
}

/// Waits until `fd` can be read (or its other end closed), for at most `within`;
/// `Err` (TimedOut) past it.
pub fn readable_within(fd: BorrowedFd, within: Duration) -> io::Result<()> {
    let mut fds = [libc::pollfd {
        fd: fd.as_raw_fd(),
        events: libc::POLLIN,
        revents: 0,
    }];
    let deadline = std::time::Instant::now() + within;
    loop {
        let left = deadline.saturating_duration_since(std::time::Instant::now());
        if left.is_zero() {
            return Err(io::ErrorKind::TimedOut.into());
        }
        // SAFETY: poll reads and writes the one pollfd of `fds`, a live local array; its
        // descriptor is `fd`, which the caller keeps open for the call.
        if unsafe { libc::poll(fds.as_mut_ptr(), 1, left.as_millis() as i32 + 1) } > 0 {
            return Ok(());
        }
    }
}

/// Whether the child `pid`, one with no exit signal, has ended (and is now
/// reaped) or is no child of this process any more.
pub fn ended(pid: libc::pid_t) -> bool {
    // SAFETY: wait4 with null status and rusage writes nothing.
    let reaped = unsafe {
        libc::wait4(
            pid,
            std::ptr::null_mut(),
            libc::WNOHANG | libc::__WALL,
            std::ptr::null_mut(),
        )
    };
    reaped != 0 && !(reaped < 0 && io::Error::last_os_error().kind() == io::ErrorKind::Interrupted)
}

/// Where a child of [`clone_vfork`] starts.
extern "C" fn child_main(arg: *mut libc::c_void) -> libc::c_int {
    // SAFETY: `arg` is the Child `clone_vfork` was given, alive while the parent's
    // thread waits for this child (see there); `run` never returns.
    unsafe { (*(arg as *const Child)).run() }
}

/// Where the program's process of a detached start starts.
extern "C" fn grandchild_main(arg: *mut libc::c_void) -> libc::c_int {
    // SAFETY: `arg` is the Child `Child::detach` was given, alive while the app's
    // thread and the short-lived child wait; execve and _exit never return.
    unsafe {
        let child = &*(arg as *const Child);
        child.exec();
        child.report_and_exit()
    }
}

/// The error number a child wrote before it ended, if it wrote one: the report
/// pipe is read without waiting, since the child has run the program or ended.
fn read_report(report: OwnedFd) -> Option<io::Error> {
    let mut bytes = [0u8; 4];
    // SAFETY: F_GETFL on `report`, a descriptor this function owns, reads no memory.
    let flags = unsafe { libc::fcntl(report.as_raw_fd(), libc::F_GETFL) };
    // SAFETY: F_SETFL on the same descriptor, with an integer argument.
    unsafe { libc::fcntl(report.as_raw_fd(), libc::F_SETFL, flags | libc::O_NONBLOCK) };
    match File::from(report).read(&mut bytes) {
        Ok(4) => Some(io::Error::from_raw_os_error(i32::from_ne_bytes(bytes))),
        _ => None,
    }
}

/// What the child needs, prepared before the clone so it allocates nothing.
struct Child {
    path: *const libc::c_char,
    argv: *const *const libc::c_char,
    envp: *const *const libc::c_char,
    stdio: [i32; 3],
    report: i32,
    start: Start,
    /// The process cloning the child, whose end a worker must not outlive.
    parent: libc::pid_t,
    /// The top of the stack a detached start's program process runs on.
    grandchild_stack: *mut libc::c_void,
}

impl Child {
    /// The child's side. On failure it writes the error number to the report pipe
    /// and ends.
    unsafe fn run(&self) -> ! {
        let ran = match self.start {
            Start::Detached => self.detach(),
            Start::Kept => self.keep(),
            Start::Worker => self.prepare_worker() && self.exec(),
        };
        let _ = ran;
        self.report_and_exit()
    }

    /// Writes this thread's errno to the report pipe and ends the process.
    unsafe fn report_and_exit(&self) -> ! {
        let errno = *libc::__errno_location();
        libc::write(self.report, errno.to_ne_bytes().as_ptr().cast(), 4);
        libc::_exit(127)
    }

    /// In a session of its own, clones the program's process, as by vfork on a
    /// stack of its own, and ends once it has run the program: the program's
    /// parent is then whoever adopts orphans, never the app.
    unsafe fn detach(&self) -> bool {
        if libc::setsid() < 0 {
            return false;
        }
        let flags = libc::CLONE_VM | libc::CLONE_VFORK | libc::SIGCHLD;
        let arg = self as *const Child as *mut libc::c_void;
        if libc::clone(grandchild_main, self.grandchild_stack, flags, arg) > 0 {
            libc::_exit(0)
        }
        false
    }

    /// The keeper's side: in a session of its own, with none of the app's
    /// descriptors but the ones the program needs, it clones the program's process
    /// as `detach` does, reports, and reaps every child it has, the supervisor and
    /// whatever it leaves (a child subreaper), until none is left.
    unsafe fn keep(&self) -> ! {
        let [input, output, error] = self.stdio;
        let mut kept = [input, output, error, self.report];
        kept.sort_unstable();
        let mut next = 0;
        for fd in kept {
            if fd > next {
                libc::syscall(libc::SYS_close_range, next as u32, (fd - 1) as u32, 0u32);
            }
            next = next.max(fd + 1);
        }
        libc::syscall(libc::SYS_close_range, next as u32, u32::MAX, 0u32);
        if libc::setsid() < 0 || libc::prctl(libc::PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0) != 0 {
            self.report_and_exit()
        }
        let flags = libc::CLONE_VM | libc::CLONE_VFORK | libc::SIGCHLD;
        let arg = self as *const Child as *mut libc::c_void;
        let program = libc::clone(grandchild_main, self.grandchild_stack, flags, arg);
        if program < 0 {
            self.report_and_exit()
        }
        let mut status = 0;
        // A program that could not run has reported why and ended (127).
        let failed = libc::wait4(program, &mut status, libc::WNOHANG, std::ptr::null_mut())
            == program
            && libc::WIFEXITED(status)
            && libc::WEXITSTATUS(status) == 127;
        if !failed {
            libc::write(self.report, 0i32.to_ne_bytes().as_ptr().cast(), 4);
        }
        libc::syscall(libc::SYS_close_range, 0u32, u32::MAX, 0u32);
        while libc::wait4(-1, std::ptr::null_mut(), libc::__WALL, std::ptr::null_mut()) > 0
            || *libc::__errno_location() == libc::EINTR
        {}
        libc::_exit(0)
    }

    /// Dies with the supervisor and takes the default action for every signal, none
    /// blocked.
    unsafe fn prepare_worker(&self) -> bool {
        if libc::prctl(libc::PR_SET_PDEATHSIG, libc::SIGKILL) != 0 {
            return false;
        }
        // The supervisor may have ended between the clone and the call above.
        if libc::getppid() != self.parent {
            return false;
        }
        for signal in 1..libc::SIGRTMIN() {
            if signal != libc::SIGKILL && signal != libc::SIGSTOP {
                libc::signal(signal, libc::SIG_DFL);
            }
        }
        let mut none: libc::sigset_t = std::mem::zeroed();
        libc::sigemptyset(&mut none);
        libc::sigprocmask(libc::SIG_SETMASK, &none, std::ptr::null_mut()) == 0
    }

    /// Its descriptors in place of 0, 1 and 2, then the program.
    unsafe fn exec(&self) -> bool {
        let [input, output, error] = self.stdio;
        if libc::dup2(input, 0) >= 0 && libc::dup2(output, 1) >= 0 && libc::dup2(error, 2) >= 0 {
            libc::execve(self.path, self.argv, self.envp);
        }
        false
    }
}

/// How a child ended: its wait status and the CPU time it used.
#[derive(Clone, Copy, Debug)]
pub struct Ended {
    pub status: i32,
    pub cpu: Duration,
}

/// Kills the child if `kill` and waits for it to end.
pub fn reap(pid: libc::pid_t, kill: bool) -> Option<Ended> {
    if kill {
        // SAFETY: kill reads no memory. `pid` is a child of this process that it has not
        // reaped (callers pass a worker just started or one still running, never one
        // `reap_ended` took), so the number cannot have been reused by another process.
        unsafe { libc::kill(pid, libc::SIGKILL) };
    }
    loop {
        match wait(pid, 0) {
            Ok(Some(ended)) => return Some(ended.1),
            Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
            _ => return None,
        }
    }
}

/// Reaps a child that has ended, without waiting: `pid` or, with -1, any.
pub fn reap_ended(pid: libc::pid_t) -> Option<(libc::pid_t, Ended)> {
    wait(pid, libc::WNOHANG).ok().flatten()
}

fn wait(pid: libc::pid_t, options: i32) -> io::Result<Option<(libc::pid_t, Ended)>> {
    let mut status = 0;
    // SAFETY: rusage is integers and timevals, for which zero is valid.
    let mut usage: libc::rusage = unsafe { std::mem::zeroed() };
    // SAFETY: wait4 writes one int into `status` and one rusage into `usage`, both live
    // locals.
    let reaped = unsafe { libc::wait4(pid, &mut status, options | libc::__WALL, &mut usage) };
    if reaped < 0 {
        return Err(io::Error::last_os_error());
    }
    if reaped == 0 {
        return Ok(None);
    }
    let time = |t: libc::timeval| Duration::new(t.tv_sec as u64, t.tv_usec as u32 * 1000);
    let cpu = time(usage.ru_utime) + time(usage.ru_stime);
    Ok(Some((reaped, Ended { status, cpu })))
}
