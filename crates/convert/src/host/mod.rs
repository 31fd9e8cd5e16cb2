//! The host of a code run: `file_store_convert run`, a process the app's
//! supervisor starts for each run (see [`crate::supervisor`]), which runs it with
//! [`file_store_sandbox::run_in`] and sends back how it ended. Every process a run
//! makes (bubblewrap, the helper that looks at the folder after it, the remover
//! of what it left) is then the host's, never the app's: the app's
//! `Process.waitall` and SIGCHLD never see one, a fork of the app copies none, and
//! the app's wait is a read on a pipe.
//!
//! The app sends the run on the host's standard input, a stream socket: first one
//! byte with the descriptors of the run folder's private tmpfs, if it has one
//! ([`request`]), then the spec. The host answers on its standard output
//! ([`answer`]). Anything the app sends after the spec, or its end of the socket
//! closing, stops the run, which still gives the folder back before the host
//! answers.

mod answer;
mod request;

use std::io::{self, Read, Write};
use std::os::fd::{AsFd, AsRawFd, FromRawFd, OwnedFd};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::Duration;

use file_store_base::cancel;
use file_store_base::error::{Error, Result};
use file_store_sandbox::{Outcome, Spec};

/// The argument that makes `file_store_convert` a run's host.
pub const MODE: &str = "run";

/// Serves one run: reads it from standard input, runs it, writes how it ended to
/// standard output.
pub fn serve() -> io::Result<()> {
    // SAFETY: prctl with PR_SET_CHILD_SUBREAPER takes integers only. A subreaper
    // adopts what the run leaves behind, so nothing of it reaches the app, which is
    // the supervisor's parent when it is PID 1 of its namespace.
    unsafe { libc::prctl(libc::PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0) };
    // SAFETY: descriptors 0 and 1 are the socket and the pipe the supervisor started
    // the host with; nothing else in this process owns them.
    let (socket, out) = unsafe { (OwnedFd::from_raw_fd(0), OwnedFd::from_raw_fd(1)) };
    let (spec, private, env) = request::receive(socket.as_fd())?;
    for (name, value) in env {
        // Still one thread: nothing reads the environment while it is set.
        std::env::set_var(name, value);
    }
    let stop = Arc::new(AtomicBool::new(false));
    let flag = stop.clone();
    std::thread::spawn(move || {
        // Whatever comes (a byte, the end, an error) is the app's stop.
        let _ = rustix::io::read(&socket, &mut [0u8; 1]);
        flag.store(true, Ordering::SeqCst);
    });
    let ran = cancel::with_flag(Some(stop), || {
        file_store_sandbox::run_in(&spec, private.map(Arc::new))
    });
    let mut out = io::BufWriter::with_capacity(64 << 10, std::fs::File::from(out));
    answer::write(&mut out, &ran)?;
    out.flush()
}

/// Runs `spec` in the host whose standard input is `socket` and output `output`,
/// and returns how it ended. When the caller's cancellation flag is set, the run
/// is told to stop and its end still awaited.
pub fn ask(socket: OwnedFd, output: OwnedFd, spec: &Spec) -> Result<Outcome> {
    let lost = |e: io::Error| Error::Sandbox(format!("lost the run's host: {e}"));
    request::send(socket.as_fd(), spec).map_err(lost)?;
    let mut reader = io::BufReader::with_capacity(
        64 << 10,
        Watched {
            output,
            socket: Some(socket),
        },
    );
    answer::read(&mut reader)
}

/// The host's output, read while the caller's cancellation flag is looked at
/// every 20 ms: once it is set, the socket closes, which stops the run.
struct Watched {
    output: OwnedFd,
    socket: Option<OwnedFd>,
}

impl Read for Watched {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        while self.socket.is_some() && !ready(&self.output, Duration::from_millis(20))? {
            if cancel::cancelled() {
                self.socket = None;
            }
        }
        loop {
            match rustix::io::read(&self.output, &mut *buf) {
                Ok(read) => return Ok(read),
                Err(rustix::io::Errno::INTR) => continue,
                Err(e) => return Err(e.into()),
            }
        }
    }
}

/// Whether `fd` has something to read (or has ended) within `within`.
fn ready(fd: &OwnedFd, within: Duration) -> io::Result<bool> {
    let mut fds = [libc::pollfd {
        fd: fd.as_raw_fd(),
        events: libc::POLLIN,
        revents: 0,
    }];
    // SAFETY: poll reads and writes the one pollfd of `fds`, a live local array whose
    // descriptor `fd` keeps open for the call.
    match unsafe { libc::poll(fds.as_mut_ptr(), 1, within.as_millis() as i32) } {
        n if n > 0 => Ok(true),
        0 => Ok(false),
        _ => match io::Error::last_os_error() {
            e if e.kind() == io::ErrorKind::Interrupted => Ok(false),
            e => Err(e),
        },
    }
}
