//! The supervisor: `file_store_convert supervise`, one process for each app
//! process that converts or runs code, started by the app on its first need and
//! outside it (see [`process`]). It starts the convert workers and the hosts of
//! code runs ([`crate::host`]), hands the app their pipes, kills them when asked,
//! and reaps every one, and whatever they leave behind: the app never has a
//! worker or a run as its child, never knows a pid, and never waits for a process.
//!
//! It speaks with the app on one socket ([`message`]), its standard input, and
//! ends, killing its workers, when the app closes it or the app ends (a pidfd
//! of the app, for a copy of the socket a process forked from the app keeps
//! open); a worker it started dies with it (`PR_SET_PDEATHSIG`).

pub mod message;
pub mod process;

use std::collections::HashMap;
use std::ffi::OsStr;
use std::io;
use std::os::fd::{AsFd, AsRawFd, BorrowedFd, FromRawFd, OwnedFd};
use std::os::unix::ffi::OsStrExt;

use file_store_sandbox::private::PrivateTmpfs;
use file_store_sandbox::removing::{self, Emptying};
use message::{EMPTY, END, FAILED, OK, RUN, START, TMPFS};
use process::{Ended, Program, Start};

/// The argument that makes `file_store_convert` the supervisor.
pub const MODE: &str = "supervise";

/// Serves the app on standard input until it closes it or ends.
pub fn serve() -> io::Result<()> {
    // SAFETY: close_range reads no memory. `serve` is the first thing the supervisor's
    // `main` does, before anything in this process opens a descriptor, so no File or
    // OwnedFd owns one of the numbers from 3 up that it closes: they are what the app's
    // process left open.
    if unsafe { libc::syscall(libc::SYS_close_range, 3u32, u32::MAX, 0u32) } != 0 {
        return Err(io::Error::last_os_error());
    }
    // SAFETY: prctl with PR_SET_CHILD_SUBREAPER takes integers only. What a run's
    // host leaves behind when it ends comes here, where it is reaped, rather than to
    // the app, which adopts orphans itself when it is PID 1 of its namespace.
    unsafe { libc::prctl(libc::PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0) };
    // SAFETY: descriptor 0 is the socket the app started the supervisor with as its
    // standard input (`Program::stdio`); nothing else in this process reads stdin or owns
    // descriptor 0, so it becomes this OwnedFd alone.
    let socket = unsafe { OwnedFd::from_raw_fd(0) };
    let children = children_ended()?;
    let app = app_ended(socket.as_fd())?;
    hello(socket.as_fd())?;
    let mut workers = Workers::default();
    loop {
        let watched = [
            socket.as_raw_fd(),
            children.as_raw_fd(),
            app.as_ref().map_or(-1, |fd| fd.as_raw_fd()),
        ];
        let mut fds = watched.map(|fd| libc::pollfd {
            fd,
            events: libc::POLLIN,
            revents: 0,
        });
        // SAFETY: poll reads and writes the three pollfds of `fds`, a live local array (an
        // fd of -1, no pidfd, is skipped by poll).
        if unsafe { libc::poll(fds.as_mut_ptr(), 3, -1) } < 0 {
            let error = io::Error::last_os_error();
            if error.kind() == io::ErrorKind::Interrupted {
                continue;
            }
            return Err(error);
        }
        if fds[1].revents != 0 {
            drain(children.as_fd());
            workers.reap_ended();
        }
        if fds[2].revents != 0 {
            break;
        }
        if fds[0].revents != 0 {
            let Ok((request, _)) = message::receive(socket.as_fd()) else {
                break;
            };
            if request.is_empty() || workers.answer(socket.as_fd(), &request).is_err() {
                break;
            }
        }
    }
    workers.end_all();
    Ok(())
}

/// The workers started, by id, and how those reaped before the app asked ended.
#[derive(Default)]
struct Workers {
    running: HashMap<u64, libc::pid_t>,
    /// The pids among `running` that are hosts of code runs.
    hosts: std::collections::HashSet<libc::pid_t>,
    ended: HashMap<libc::pid_t, Ended>,
    next: u64,
}

impl Workers {
    fn answer(&mut self, socket: BorrowedFd, request: &[u8]) -> io::Result<()> {
        match request[0] {
            kind @ (START | RUN) => match self.start(OsStr::from_bytes(&request[1..]), kind == RUN)
            {
                Ok((id, [input, output])) => {
                    let mut answer = vec![OK];
                    answer.extend(id.to_le_bytes());
                    message::send(socket, &answer, &[input.as_fd(), output.as_fd()])
                }
                Err(error) => {
                    let mut answer = vec![FAILED];
                    answer.extend(error.raw_os_error().unwrap_or(libc::EIO).to_le_bytes());
                    message::send(socket, &answer, &[])
                }
            },
            END => match message::u64_at(request, 1).and_then(|id| self.end(id)) {
                Some(ended) => {
                    let mut answer = vec![OK];
                    answer.extend(ended.status.to_le_bytes());
                    answer.extend((ended.cpu.as_micros() as u64).to_le_bytes());
                    message::send(socket, &answer, &[])
                }
                None => message::send(socket, &[FAILED], &[]),
            },
            TMPFS => tmpfs(socket, &request[1..]),
            EMPTY => empty(socket, &request[1..]),
            _ => Err(io::Error::new(
                io::ErrorKind::InvalidData,
                "an unknown request",
            )),
        }
    }

    /// Starts a worker, or a run's host when `host`: its id and the app's ends
    /// of its input (a pipe's write end, or a stream socket for a host) and output.
    fn start(&mut self, path: &OsStr, host: bool) -> io::Result<(u64, [OwnedFd; 2])> {
        let (child_input, input) = if host {
            message::stream_pair()?
        } else {
            process::pipe()?
        };
        let (output, child_output) = process::pipe()?;
        let null = process::null()?;
        let program = Program {
            path,
            args: if host { &[crate::host::MODE] } else { &[] },
            stdio: [
                child_input.as_raw_fd(),
                child_output.as_raw_fd(),
                null.as_raw_fd(),
            ],
            start: Start::Worker,
        };
        let pid = process::start(&program)?.expect("a worker's pid");
        self.next += 1;
        self.running.insert(self.next, pid);
        if host {
            self.hosts.insert(pid);
        }
        Ok((self.next, [input, output]))
    }

    /// Kills the worker `id` if it runs and reaps it.
    fn end(&mut self, id: u64) -> Option<Ended> {
        let pid = self.running.remove(&id)?;
        self.hosts.remove(&pid);
        self.ended.remove(&pid).or_else(|| process::reap(pid, true))
    }

    /// Reaps the workers that have ended, keeping how each ended for the app.
    fn reap_ended(&mut self) {
        while let Some((pid, ended)) = process::reap_ended(-1) {
            if self.running.values().any(|running| *running == pid) {
                self.ended.insert(pid, ended);
            }
        }
    }

    /// Ends every worker at once, and every host once it has ended its run: a
    /// host whose app has gone sees its socket close, stops the run and gives the
    /// folder back (its owner, for a root app) before it ends, which it is given
    /// [`HOST_END_WITHIN`] for.
    fn end_all(&mut self) {
        let deadline = std::time::Instant::now() + HOST_END_WITHIN;
        for (_, pid) in self.running.drain() {
            if self.ended.contains_key(&pid) {
                continue;
            }
            if self.hosts.contains(&pid) && ended_by(pid, deadline) {
                continue;
            }
            process::reap(pid, true);
        }
    }
}

/// Whether the child `pid` ended, and was reaped, by `deadline`.
fn ended_by(pid: libc::pid_t, deadline: std::time::Instant) -> bool {
    loop {
        if process::reap_ended(pid).is_some() {
            return true;
        }
        if std::time::Instant::now() >= deadline {
            return false;
        }
        std::thread::sleep(std::time::Duration::from_millis(10));
    }
}

/// How long a host whose app has gone may take to stop its run and give the
/// folder back before the supervisor, ending, kills it.
const HOST_END_WITHIN: std::time::Duration = std::time::Duration::from_secs(30);

/// Mounts a run folder's private tmpfs (`[options]\0[folder]`) and answers with
/// its descriptors. The maker it forks is reaped before this returns.
fn tmpfs(socket: BorrowedFd, request: &[u8]) -> io::Result<()> {
    let made = request
        .iter()
        .position(|byte| *byte == 0)
        .ok_or_else(|| "a garbled request".to_string())
        .and_then(|at| {
            let options = String::from_utf8_lossy(&request[..at]);
            let dir = std::path::Path::new(OsStr::from_bytes(&request[at + 1..]));
            PrivateTmpfs::mount_with(dir, &options).map_err(|e| e.to_string())
        });
    match made {
        Ok(tmpfs) => {
            let (user, mount, root, _) = tmpfs.parts();
            let mut fds = vec![mount, root];
            fds.extend(user);
            message::send(socket, &[OK], &fds)
        }
        Err(why) => {
            let mut answer = vec![FAILED];
            answer.extend(why.as_bytes());
            message::send(socket, &answer, &[])
        }
    }
}

/// Starts the remover of what a run set aside in the folder `request` names,
/// and answers with the pipe it closes when done. The loop reaps it, as any child.
fn empty(socket: BorrowedFd, request: &[u8]) -> io::Result<()> {
    match removing::start_emptying(std::path::Path::new(OsStr::from_bytes(request)), false) {
        Emptying::Nothing => message::send(socket, &[OK], &[]),
        Emptying::Failed => message::send(socket, &[FAILED], &[]),
        Emptying::Started { done, .. } => message::send(socket, &[OK], &[done.as_fd()]),
    }
}

/// A descriptor readable when a child ends (a signalfd of SIGCHLD, which is
/// blocked). Every other signal takes its default action.
fn children_ended() -> io::Result<OwnedFd> {
    // SAFETY: the supervisor is single-threaded and calls this before it starts a worker,
    // so changing the signal dispositions and the mask affects only this thread and relies
    // on no handler (a worker it clones takes the defaults too); glibc refuses signal() for
    // the signals it uses itself. `mask` is a local sigset_t, valid zeroed and set up by
    // sigemptyset before use. signalfd returns a new descriptor on success, which nothing
    // else owns.
    unsafe {
        for signal in 1..libc::SIGRTMIN() {
            if signal != libc::SIGKILL && signal != libc::SIGSTOP {
                libc::signal(signal, libc::SIG_DFL);
            }
        }
        let mut mask: libc::sigset_t = std::mem::zeroed();
        libc::sigemptyset(&mut mask);
        libc::sigaddset(&mut mask, libc::SIGCHLD);
        if libc::sigprocmask(libc::SIG_SETMASK, &mask, std::ptr::null_mut()) != 0 {
            return Err(io::Error::last_os_error());
        }
        let fd = libc::signalfd(-1, &mask, libc::SFD_CLOEXEC | libc::SFD_NONBLOCK);
        if fd < 0 {
            return Err(io::Error::last_os_error());
        }
        Ok(OwnedFd::from_raw_fd(fd))
    }
}

fn drain(fd: BorrowedFd) {
    let mut buffer = [0u8; 128 * 8];
    // SAFETY: read writes at most `buffer.len()` bytes into `buffer`, a live local array;
    // `fd` is the signalfd, non-blocking, so the loop ends when it is empty.
    while unsafe { libc::read(fd.as_raw_fd(), buffer.as_mut_ptr().cast(), buffer.len()) } > 0 {}
}

/// Tells the app this supervisor has started, with a pidfd of itself attached
/// where the kernel makes one: the app's way to wake a supervisor it has given up
/// on (stopped, it would not see its socket close, and would outlive the app).
fn hello(socket: BorrowedFd) -> io::Result<()> {
    // SAFETY: pidfd_open takes a pid and flags and reads no memory; getpid cannot fail.
    let fd = unsafe { libc::syscall(libc::SYS_pidfd_open, libc::getpid(), 0) };
    if fd < 0 {
        return message::send(socket, &[OK], &[]);
    }
    // SAFETY: pidfd_open succeeded: `fd` is a new descriptor that nothing else owns.
    let own = unsafe { OwnedFd::from_raw_fd(fd as i32) };
    message::send(socket, &[OK], &[own.as_fd()])
}

/// A pidfd of the app at the other end of `socket`, readable when the app ends;
/// `None` on a kernel without pidfds (before 5.3), where the socket's close alone
/// ends the supervisor.
fn app_ended(socket: BorrowedFd) -> io::Result<Option<OwnedFd>> {
    // SAFETY: ucred is three integers, for which zero is valid.
    let mut peer: libc::ucred = unsafe { std::mem::zeroed() };
    let mut size = std::mem::size_of::<libc::ucred>() as libc::socklen_t;
    // SAFETY: SO_PEERCRED writes at most `size` bytes, the size of a ucred, into `peer`, a
    // live local, and the length written into `size`; `socket` is an open descriptor the
    // caller lends.
    let asked = unsafe {
        libc::getsockopt(
            socket.as_raw_fd(),
            libc::SOL_SOCKET,
            libc::SO_PEERCRED,
            (&mut peer as *mut libc::ucred).cast(),
            &mut size,
        )
    };
    if asked != 0 || peer.pid <= 0 {
        return Ok(None);
    }
    // SAFETY: pidfd_open takes a pid and flags and reads no memory.
    let fd = unsafe { libc::syscall(libc::SYS_pidfd_open, peer.pid, 0) };
    if fd < 0 {
        return match io::Error::last_os_error().raw_os_error() {
            Some(libc::ESRCH) => Err(io::Error::other("the app has ended")),
            _ => Ok(None),
        };
    }
    // SAFETY: pidfd_open succeeded: `fd` is a new descriptor that nothing else owns.
    Ok(Some(unsafe { OwnedFd::from_raw_fd(fd as i32) }))
}
