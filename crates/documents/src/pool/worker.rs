//! One convert worker as the app holds it: the supervisor's id for it and the
//! app's ends of its pipes, read and written without blocking.

use std::fs::File;
use std::io::{self, BufReader, Read, Write};
use std::os::fd::{AsRawFd, OwnedFd};
use std::time::{Duration, Instant};

use file_store_base::cancel;
use file_store_convert::{wire, Converted, Kind};

use super::document::Document;
use super::link::Started;

/// How often a waiting caller looks at its cancellation flag.
pub const LOOK_EVERY: Duration = Duration::from_millis(10);

pub struct Worker {
    pub id: u64,
    /// Which of this process's supervisors started it.
    pub generation: u64,
    input: Polled,
    output: BufReader<Polled>,
    pub served: u32,
}

impl Worker {
    pub fn new(started: Started) -> io::Result<Worker> {
        Ok(Worker {
            id: started.id,
            generation: started.generation,
            input: Polled::new(started.input)?,
            output: BufReader::new(Polled::new(started.output)?),
            served: 0,
        })
    }

    /// Sends the document (a file a piece at a time) and reads the answer,
    /// looking at the caller's flag while either waits; past `wall`, a `TimedOut` error.
    pub fn ask(
        &mut self,
        chain: &[Kind],
        document: Document,
        wall: Duration,
    ) -> io::Result<Converted> {
        self.served += 1;
        let deadline = Some(Instant::now() + wall);
        self.input.deadline = deadline;
        self.output.get_mut().deadline = deadline;
        wire::write_request_head(&mut self.input, chain, document.size())?;
        document.send(&mut self.input)?;
        wire::read_answer(&mut self.output)
    }
}

/// A non-blocking pipe end whose reads and writes wait in `poll`, a few
/// milliseconds at a time, and stop with a cancellation error once the caller's
/// flag is set, or a `TimedOut` one past the deadline.
struct Polled {
    file: File,
    deadline: Option<Instant>,
}

impl Polled {
    fn new(fd: OwnedFd) -> io::Result<Polled> {
        let raw = fd.as_raw_fd();
        // SAFETY: F_GETFL on `raw`, the descriptor of `fd`, which this function owns; no
        // memory is read.
        let flags = unsafe { libc::fcntl(raw, libc::F_GETFL) };
        // SAFETY: F_SETFL on the same descriptor, with an integer argument.
        if flags < 0 || unsafe { libc::fcntl(raw, libc::F_SETFL, flags | libc::O_NONBLOCK) } < 0 {
            return Err(io::Error::last_os_error());
        }
        Ok(Polled {
            file: File::from(fd),
            deadline: None,
        })
    }

    fn wait(&self, events: i16) -> io::Result<()> {
        if cancel::cancelled() {
            return Err(cancel::io_cancelled());
        }
        if self
            .deadline
            .is_some_and(|deadline| Instant::now() >= deadline)
        {
            return Err(io::ErrorKind::TimedOut.into());
        }
        let mut fds = [libc::pollfd {
            fd: self.file.as_raw_fd(),
            events,
            revents: 0,
        }];
        let timeout = LOOK_EVERY.as_millis() as i32;
        // SAFETY: poll reads and writes the one pollfd of `fds`, a live local array; its
        // descriptor is `self.file`'s, open for as long as `self` is borrowed.
        if unsafe { libc::poll(fds.as_mut_ptr(), 1, timeout) } < 0 {
            let error = io::Error::last_os_error();
            if error.kind() != io::ErrorKind::Interrupted {
                return Err(error);
            }
        }
        Ok(())
    }
}

impl Read for Polled {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        loop {
            match self.file.read(buf) {
                Err(e) if e.kind() == io::ErrorKind::WouldBlock => self.wait(libc::POLLIN)?,
                other => return other,
            }
        }
    }
}

impl Write for Polled {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        loop {
            match self.file.write(buf) {
                Err(e) if e.kind() == io::ErrorKind::WouldBlock => self.wait(libc::POLLOUT)?,
                other => return other,
            }
        }
    }

    fn flush(&mut self) -> io::Result<()> {
        Ok(())
    }
}
