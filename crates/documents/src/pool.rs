//! The convert workers: every document is converted in a `file_store_convert`
//! process ([`file_store_convert::worker`]), never in the app's, so a document
//! that needs more memory or CPU time than a conversion may have ends a worker,
//! which the caller reads as a [`Refusal`], and never the app.
//!
//! At most [`MAX_WORKERS`] run at once; a caller past that waits for one. A
//! worker is kept for the next conversion and replaced after
//! [`CONVERSIONS_PER_WORKER`] or when it dies. A caller that gives up (its
//! cancellation flag set by `Timeout`, `Thread#kill` or Ctrl-C) kills its worker
//! at once, so the memory the document took is the system's again within the
//! interrupt's latency. A process forked from the app (a Puma or Unicorn worker)
//! starts its own workers rather than talking to its parent's.

use std::fs::File;
use std::io::{self, BufReader, Read, Write};
use std::os::fd::{AsRawFd, OwnedFd};
use std::path::PathBuf;
use std::sync::{Condvar, Mutex, MutexGuard, RwLock};
use std::time::Duration;

use file_store_convert::worker::{CPU_LIMIT, MEMORY_LIMIT};
use file_store_convert::{wire, Converted, Kind, Refusal};

use super::spawn;
use file_store_base::cancel;
use file_store_base::error::{Error, Result};

/// The most workers converting at once, in one app process.
pub const MAX_WORKERS: usize = 4;

/// How many documents one worker converts before a new one takes its place, so
/// what a worker's heap kept from a large document is given back.
pub const CONVERSIONS_PER_WORKER: u32 = 100;

/// How often a waiting caller looks at its cancellation flag.
const LOOK_EVERY: Duration = Duration::from_millis(10);

static PROGRAM: RwLock<Option<PathBuf>> = RwLock::new(None);

/// Names the worker executable; the Ruby layer names the one its gem ships.
pub fn set_program(path: PathBuf) {
    *PROGRAM.write().unwrap_or_else(|e| e.into_inner()) = Some(path);
}

/// The worker executable named, if any.
pub fn program() -> Option<PathBuf> {
    PROGRAM.read().unwrap_or_else(|e| e.into_inner()).clone()
}

/// Converts `bytes` with the converters of `chain`, tried in order, in a worker.
/// `Err` only when no worker could be started or the caller gave up.
pub fn convert(chain: &[Kind], bytes: &[u8]) -> Result<Converted> {
    let mut worker = take()?;
    match worker.ask(chain, bytes) {
        Ok(converted) => {
            give_back(worker);
            Ok(converted)
        }
        Err(error) if cancel::is_cancelled(&error) => {
            worker.end();
            Err(Error::Cancelled)
        }
        Err(_) => {
            let status = worker.end();
            Ok(Err(Refusal::Stopped(why_stopped(status))))
        }
    }
}

/// How many workers this process runs now, busy or idle.
pub fn running() -> usize {
    pool().live
}

/// Ends the idle workers (a test's clean slate, or an app shutting down).
pub fn end_idle() {
    let idle = std::mem::take(&mut pool().idle);
    for worker in idle {
        worker.end();
    }
}

/// What a worker that ended without answering (its wait status) says to the model.
fn why_stopped(status: Option<i32>) -> String {
    let signal = status
        .filter(|s| libc::WIFSIGNALED(*s))
        .map(|s| libc::WTERMSIG(s));
    match signal {
        Some(libc::SIGABRT) => format!(
            "the document needs more than {} GB of memory to convert",
            MEMORY_LIMIT >> 30
        ),
        Some(libc::SIGXCPU) => format!(
            "the document takes more than {} seconds of CPU to convert",
            CPU_LIMIT.as_secs()
        ),
        Some(libc::SIGSYS) => "the converter tried a system call it may not make".into(),
        Some(signal) => format!("the converter stopped (signal {signal})"),
        None => match status {
            Some(status) => format!(
                "the converter stopped (exit code {})",
                libc::WEXITSTATUS(status)
            ),
            None => "the converter stopped".into(),
        },
    }
}

struct Pool {
    idle: Vec<Worker>,
    live: usize,
    /// The process the workers belong to: a forked child has none of them.
    pid: u32,
}

static POOL: Mutex<Pool> = Mutex::new(Pool {
    idle: Vec::new(),
    live: 0,
    pid: 0,
});
static FREED: Condvar = Condvar::new();

fn pool() -> MutexGuard<'static, Pool> {
    let mut pool = POOL.lock().unwrap_or_else(|e| e.into_inner());
    let pid = std::process::id();
    if pool.pid != pid {
        // The workers are the parent's: close this process's copies of their
        // pipes and leave them to it.
        pool.idle.clear();
        pool.live = 0;
        pool.pid = pid;
    }
    pool
}

/// An idle worker, a new one, or the first freed while [`MAX_WORKERS`] are busy.
fn take() -> Result<Worker> {
    let mut pool = pool();
    loop {
        if let Some(worker) = pool.idle.pop() {
            return Ok(worker);
        }
        if pool.live < MAX_WORKERS {
            pool.live += 1;
            drop(pool);
            return Worker::start().inspect_err(|_| pool_lost_one());
        }
        cancel::check()?;
        pool = FREED
            .wait_timeout(pool, LOOK_EVERY)
            .unwrap_or_else(|e| e.into_inner())
            .0;
    }
}

fn give_back(worker: Worker) {
    if worker.served >= CONVERSIONS_PER_WORKER {
        worker.end();
        return;
    }
    pool().idle.push(worker);
    FREED.notify_one();
}

fn pool_lost_one() {
    let mut pool = pool();
    pool.live = pool.live.saturating_sub(1);
    drop(pool);
    FREED.notify_one();
}

struct Worker {
    pid: libc::pid_t,
    /// The process that started it, the only one that may kill and reap it.
    owner: u32,
    input: Polled,
    output: BufReader<Polled>,
    served: u32,
}

impl Worker {
    fn start() -> Result<Worker> {
        Self::start_program(program())
    }

    fn start_program(program: Option<PathBuf>) -> Result<Worker> {
        let program = program.ok_or_else(|| Error::Io {
            path: "file_store_convert".into(),
            source: io::Error::new(io::ErrorKind::NotFound, "no convert worker is named"),
        })?;
        let spawned = spawn::spawn(program.as_os_str())
            .map_err(|e| Error::io(program.display().to_string(), e))?;
        let pid = spawned.pid;
        let pipes =
            Polled::new(spawned.input).and_then(|input| Ok((input, Polled::new(spawned.output)?)));
        let (input, output) = pipes.map_err(|e| {
            spawn::reap(pid, true);
            Error::io("file_store_convert", e)
        })?;
        Ok(Worker {
            pid,
            owner: std::process::id(),
            input,
            output: BufReader::new(output),
            served: 0,
        })
    }

    /// Sends the document and reads the answer, looking at the caller's flag
    /// while either waits.
    fn ask(&mut self, chain: &[Kind], bytes: &[u8]) -> io::Result<Converted> {
        self.served += 1;
        SENT.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        wire::write_request(&mut self.input, chain, bytes)?;
        wire::read_answer(&mut self.output)
    }

    /// Kills the worker if it still runs and reaps it; returns its wait status.
    fn end(self) -> Option<i32> {
        let status = if self.owner == std::process::id() {
            spawn::reap(self.pid, true)
        } else {
            None
        };
        pool_lost_one();
        status
    }
}

/// A non-blocking pipe end whose reads and writes wait in `poll`, a few
/// milliseconds at a time, and stop with a cancellation error once the caller's
/// flag is set.
struct Polled(File);

impl Polled {
    fn new(fd: OwnedFd) -> io::Result<Polled> {
        let raw = fd.as_raw_fd();
        let flags = unsafe { libc::fcntl(raw, libc::F_GETFL) };
        if flags < 0 || unsafe { libc::fcntl(raw, libc::F_SETFL, flags | libc::O_NONBLOCK) } < 0 {
            return Err(io::Error::last_os_error());
        }
        Ok(Polled(File::from(fd)))
    }

    fn wait(&self, events: i16) -> io::Result<()> {
        if cancel::cancelled() {
            return Err(cancel::io_cancelled());
        }
        let mut fds = [libc::pollfd {
            fd: self.0.as_raw_fd(),
            events,
            revents: 0,
        }];
        let timeout = LOOK_EVERY.as_millis() as i32;
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
            match self.0.read(buf) {
                Err(e) if e.kind() == io::ErrorKind::WouldBlock => self.wait(libc::POLLIN)?,
                other => return other,
            }
        }
    }
}

impl Write for Polled {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        loop {
            match self.0.write(buf) {
                Err(e) if e.kind() == io::ErrorKind::WouldBlock => self.wait(libc::POLLOUT)?,
                other => return other,
            }
        }
    }

    fn flush(&mut self) -> io::Result<()> {
        Ok(())
    }
}

/// How many documents this process has sent to workers.
pub fn conversions() -> u64 {
    SENT.load(std::sync::atomic::Ordering::Relaxed)
}

static SENT: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);

/// Names the worker `cargo test --workspace` built beside the test binaries
/// (`target/<profile>/file_store_convert`), or builds it, and holds the pool for one
/// test at a time, so a test's counts are its own. The crates whose tests convert
/// (this one, and search through its `test-worker` feature) call it.
#[cfg(any(test, feature = "test-worker"))]
pub fn use_test_worker() -> MutexGuard<'static, ()> {
    static ONE_TEST: Mutex<()> = Mutex::new(());
    let held = ONE_TEST.lock().unwrap_or_else(|e| e.into_inner());
    let exe = std::env::current_exe().unwrap();
    let profile = exe.parent().unwrap().parent().unwrap();
    let beside = profile.join("file_store_convert");
    let program = if beside.exists() {
        beside
    } else {
        build_test_worker(profile)
    };
    set_program(program);
    held
}

/// `cargo test -p <crate>` builds no other package's executable, so the worker is
/// built here, once, in a target folder of its own: the cargo running the tests may
/// still hold the lock on its own.
#[cfg(any(test, feature = "test-worker"))]
fn build_test_worker(profile: &std::path::Path) -> PathBuf {
    let target = profile.parent().unwrap().join("test-worker");
    let release = profile.file_name().is_some_and(|name| name == "release");
    let mut cargo =
        std::process::Command::new(std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into()));
    cargo.args([
        "build",
        "--quiet",
        "-p",
        "ruby_llm_file_store_convert",
        "--bin",
        "file_store_convert",
    ]);
    cargo.arg("--target-dir").arg(&target);
    if release {
        cargo.arg("--release");
    }
    let status = cargo
        .status()
        .expect("cargo runs to build the convert worker");
    assert!(
        status.success(),
        "building the convert worker for the tests failed"
    );
    target
        .join(if release { "release" } else { "debug" })
        .join("file_store_convert")
}

#[cfg(test)]
mod tests;
