//! The app's side of its supervisor (`file_store_convert supervise`, see
//! [`file_store_convert::supervisor`]): started on the first conversion of each
//! process, asked for workers and to end them. A supervisor that cannot be
//! started, or a worker it cannot start, is an error naming the program and why
//! it cannot run there; after one, the next conversions fail at once with the same
//! error until a backoff has passed (a second, doubling up to a minute), then try
//! again.

use std::io;
use std::os::fd::{AsFd, AsRawFd, BorrowedFd, OwnedFd};
use std::path::Path;
use std::time::{Duration, Instant};

use file_store_convert::supervisor::message::{self, END, OK, RUN, START};
use file_store_convert::supervisor::process::{self, Ended, Program, Start};
use file_store_convert::supervisor::MODE;

/// How long the supervisor may take to answer: past it, it is taken for gone
/// (stopped, or starved), and a new one is started for the next conversion; the
/// one given up on is continued (SIGCONT), so that it sees its socket closed and
/// ends, with its workers, rather than outlive the app stopped.
const ANSWER_WITHIN: Duration = Duration::from_secs(10);

/// The first wait after a failure to start; each failure in a row doubles it.
const FIRST_BACKOFF: Duration = Duration::from_secs(1);
const MAX_BACKOFF: Duration = Duration::from_secs(60);

/// A worker the supervisor started: its id there and the app's ends of its pipes.
pub struct Started {
    pub id: u64,
    pub generation: u64,
    pub input: OwnedFd,
    pub output: OwnedFd,
}

/// The connection to this process's supervisor, if one runs.
#[derive(Default)]
pub struct Link {
    socket: Option<OwnedFd>,
    /// A pidfd of the supervisor, which it sends when it has started (none on a
    /// kernel without pidfds).
    supervisor: Option<OwnedFd>,
    /// Counts the supervisors started, so a worker of one that has gone is not
    /// asked of the next.
    generation: u64,
    failures: u32,
    failed: Option<(Instant, String)>,
    /// The keepers of supervisors started in an app that adopts orphans, not yet
    /// reaped ([`Start::Kept`]).
    keepers: Vec<libc::pid_t>,
}

impl Link {
    /// A new worker of `program`. `Err` is why none can run, for the log and the
    /// caller; nothing about any document.
    pub fn start_worker(&mut self, program: &Path) -> Result<Started, String> {
        self.start(program, START)
    }

    /// A new host of one code run ([`file_store_convert::host`]) of `program`;
    /// `Err` as for [`Link::start_worker`].
    pub fn start_host(&mut self, program: &Path) -> Result<Started, String> {
        self.start(program, RUN)
    }

    fn start(&mut self, program: &Path, kind: u8) -> Result<Started, String> {
        if let Some((until, why)) = &self.failed {
            if Instant::now() < *until {
                return Err(why.clone());
            }
        }
        let started = self.try_start(program, kind).or_else(|error| {
            // A supervisor that has gone (killed, stopped, its answer lost) is
            // replaced once; a worker it could not start is not its fault.
            if self.socket.is_some() {
                return Err(error);
            }
            self.try_start(program, kind)
        });
        match started {
            Ok(started) => {
                self.failures = 0;
                self.failed = None;
                Ok(started)
            }
            Err(error) => {
                let why = cannot_run(program, &error);
                let backoff = FIRST_BACKOFF.saturating_mul(1 << self.failures.min(6));
                self.failures += 1;
                self.failed = Some((Instant::now() + backoff.min(MAX_BACKOFF), why.clone()));
                Err(why)
            }
        }
    }

    /// Asks this process's supervisor, started from `program` first if none
    /// runs: its answer and the descriptors attached to it.
    pub fn request(
        &mut self,
        program: &Path,
        request: &[u8],
    ) -> io::Result<(Vec<u8>, Vec<OwnedFd>)> {
        // A supervisor started from another program serves this one too: each
        // request names the worker to start.
        if self.socket.is_none() {
            self.keepers.retain(|&keeper| !process::ended(keeper));
            let (socket, keeper) = start_supervisor(program)?;
            self.keepers.extend(keeper);
            let (_, mut pidfd) = answer_within(socket.as_fd())?;
            self.socket = Some(socket);
            self.supervisor = pidfd.pop();
            self.generation += 1;
        }
        self.ask(request)
    }

    fn try_start(&mut self, program: &Path, kind: u8) -> io::Result<Started> {
        let mut request = vec![kind];
        request.extend(program.as_os_str().as_encoded_bytes());
        let (answer, fds) = self.request(program, &request)?;
        match (answer.first(), <[OwnedFd; 2]>::try_from(fds)) {
            (Some(&OK), Ok([input, output])) => Ok(Started {
                id: message::u64_at(&answer, 1).ok_or_else(garbled)?,
                generation: self.generation,
                input,
                output,
            }),
            _ => {
                let errno = message::i32_at(&answer, 1).ok_or_else(garbled)?;
                Err(io::Error::from_raw_os_error(errno))
            }
        }
    }

    /// Kills the worker `id` of `generation` if it runs and reaps it: how it ended,
    /// or `None` when its supervisor has gone (and it with it).
    pub fn end_worker(&mut self, id: u64, generation: u64) -> Option<Ended> {
        if generation != self.generation || self.socket.is_none() {
            return None;
        }
        let mut request = vec![END];
        request.extend(id.to_le_bytes());
        let Ok((answer, _)) = self.ask(&request) else {
            return None;
        };
        if answer.first() != Some(&OK) {
            return None;
        }
        Some(Ended {
            status: message::i32_at(&answer, 1)?,
            cpu: Duration::from_micros(message::u64_at(&answer, 5)?),
        })
    }

    /// Lets the next start try again at once (a new program was named).
    pub fn forget_failures(&mut self) {
        self.failures = 0;
        self.failed = None;
    }

    fn ask(&mut self, request: &[u8]) -> io::Result<(Vec<u8>, Vec<OwnedFd>)> {
        let socket = self.socket.as_ref().ok_or_else(gone)?;
        let asked = message::send(socket.as_fd(), request, &[])
            .and_then(|()| answer_within(socket.as_fd()));
        if asked.is_err() {
            self.give_up();
        }
        asked
    }

    /// Closes the socket, which ends the supervisor and its workers, whatever it
    /// was doing, once it reads it: a stopped one is continued to read it.
    fn give_up(&mut self) {
        self.socket = None;
        if let Some(pidfd) = self.supervisor.take() {
            // SAFETY: pidfd_send_signal reads no memory (its siginfo is null); `pidfd`
            // is an open pidfd, which stays valid, naming no other process, once its
            // process has ended.
            unsafe {
                libc::syscall(
                    libc::SYS_pidfd_send_signal,
                    pidfd.as_raw_fd(),
                    libc::SIGCONT,
                    std::ptr::null::<libc::siginfo_t>(),
                    0,
                )
            };
        }
    }
}

/// The supervisor's next message on `socket`, within [`ANSWER_WITHIN`].
fn answer_within(socket: BorrowedFd) -> io::Result<(Vec<u8>, Vec<OwnedFd>)> {
    process::readable_within(socket, ANSWER_WITHIN)
        .map_err(|_| io::Error::new(io::ErrorKind::TimedOut, "the supervisor did not answer"))?;
    let (answer, fds) = message::receive(socket)?;
    if answer.is_empty() {
        return Err(gone());
    }
    Ok((answer, fds))
}

fn gone() -> io::Error {
    io::Error::new(
        io::ErrorKind::BrokenPipe,
        "the convert supervisor has ended",
    )
}

fn garbled() -> io::Error {
    io::Error::new(
        io::ErrorKind::InvalidData,
        "the convert supervisor's answer is garbled",
    )
}

/// Starts `program` as this process's supervisor: the app's end of its socket,
/// and the keeper to reap once it has ended, where one keeps it.
fn start_supervisor(program: &Path) -> io::Result<(OwnedFd, Option<libc::pid_t>)> {
    let (app, supervisor) = message::socket_pair()?;
    let null = process::null()?;
    // The app's pid, for whoever lists processes (the supervisor asks the socket).
    let pid = std::process::id().to_string();
    let keeper = process::start(&Program {
        path: program.as_os_str(),
        args: &[MODE, &pid],
        stdio: [supervisor.as_raw_fd(), null.as_raw_fd(), null.as_raw_fd()],
        start: if adopts_orphans() {
            Start::Kept
        } else {
            Start::Detached
        },
    })?;
    Ok((app, keeper))
}

/// Whether orphans of this process's descendants come to it: it is PID 1 of its
/// namespace (a container's app without an init) or a child subreaper.
fn adopts_orphans() -> bool {
    let mut subreaper: libc::c_int = 0;
    // SAFETY: getpid reads no memory; PR_GET_CHILD_SUBREAPER writes one int into
    // `subreaper`, a live local.
    unsafe {
        libc::getpid() == 1
            || (libc::prctl(libc::PR_GET_CHILD_SUBREAPER, &mut subreaper) == 0 && subreaper != 0)
    }
}

/// Why the worker at `program` cannot run, in words an operator acts on.
fn cannot_run(program: &Path, error: &io::Error) -> String {
    let why = match error.raw_os_error() {
        Some(libc::ENOENT) => "there is no file there".to_string(),
        Some(libc::EACCES) | Some(libc::EPERM) => {
            "it may not be run there (not executable, or on a file system mounted noexec)"
                .to_string()
        }
        Some(libc::ENOEXEC) => "it is not a program for this machine".to_string(),
        Some(libc::EAGAIN) => {
            "the system refused a new process (EAGAIN: too many processes, or too little memory)"
                .to_string()
        }
        _ => error.to_string(),
    };
    format!("the convert worker {} cannot run: {why}", program.display())
}
