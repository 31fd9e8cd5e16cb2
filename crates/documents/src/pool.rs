//! The convert workers: every document is converted in a `file_store_convert`
//! process ([`file_store_convert::worker`]), never in the app's, so a document
//! that needs more memory or CPU time than a conversion may have ends a worker,
//! which the caller reads as a [`Refusal`], and never the app.
//!
//! The workers are started, killed and reaped by this process's supervisor
//! ([`file_store_convert::supervisor`], asked through [`link`]), which runs outside
//! the app and hands it each worker's pipes: the app has no child process to
//! wait for, and its wait for a text is a read on a pipe. At most
//! [`MAX_WORKERS`] run at once; a caller past that waits its turn, and the turn
//! goes to the queue ([`in_queue`]: a store, a chat) with the fewest conversions
//! under way, so one queue busy with slow documents delays another's by at most
//! one conversion. A worker is kept for the next conversion and replaced after
//! [`CONVERSIONS_PER_WORKER`] or when it dies. A caller that gives up (its
//! cancellation flag set by `Timeout`, `Thread#kill` or Ctrl-C) has its worker
//! killed at once, and so does a conversion past the wall-clock bound
//! ([`wall_limit`]).
//!
//! A worker that ends without answering is read by how it ended: by its document
//! (past its memory or CPU limit, a forbidden system call, a crash) it is a
//! [`Refusal`], which callers keep; by anything else (killed from outside, as the
//! OOM killer or an operator does, or its supervisor gone) the document is tried
//! once more in a new worker, then it is [`Error::Converter`], which no one keeps.
//! A process forked from the app (a Puma or Unicorn worker) has a pool and a
//! supervisor of its own ([`PerProcess`]).

pub mod document;
mod ended;
pub(crate) mod link;
mod worker;

use std::cell::Cell;
use std::collections::HashMap;
use std::path::PathBuf;
use std::sync::atomic::{AtomicPtr, AtomicU64, Ordering};
use std::sync::{Condvar, Mutex, MutexGuard};
use std::time::Duration;

use file_store_convert::supervisor::process::Ended;
use file_store_convert::worker::CPU_LIMIT;
use file_store_convert::{Converted, Kind, Refusal};

pub use document::Document;
use document::Unread;
use ended::{stopped, Stop};
use file_store_base::cancel;
use file_store_base::error::{Error, Result};
use file_store_base::process_local::PerProcess;
use link::Link;
use worker::{Worker, LOOK_EVERY};

/// The most workers converting at once, in one app process.
pub const MAX_WORKERS: usize = 4;

/// How many documents one worker converts before a new one takes its place, so
/// what a worker's heap kept from a large document is given back.
pub const CONVERSIONS_PER_WORKER: u32 = 100;

/// How long a conversion may take on the wall clock by default: six times the
/// CPU time it may take, room for a machine whose cores are shared six ways. A
/// worker past it (stopped, or starved of CPU) is killed.
pub const WALL_LIMIT: Duration = Duration::from_secs(CPU_LIMIT.as_secs() * 6);

static PROGRAM: AtomicPtr<PathBuf> = AtomicPtr::new(std::ptr::null_mut());
static WALL_MILLIS: AtomicU64 = AtomicU64::new(WALL_LIMIT.as_millis() as u64);

/// Names the worker executable; the Ruby layer names the one its gem ships. The
/// next conversion runs it: the idle workers of the one named before end, and a
/// failure to start that one is forgotten.
pub fn set_program(path: PathBuf) {
    // The path named before is left as it is: another thread may be reading it.
    PROGRAM.store(Box::into_raw(Box::new(path)), Ordering::Release);
    lock(&shared().link).forget_failures();
    end_idle();
}

/// The worker executable named, if any.
pub fn program() -> Option<PathBuf> {
    // SAFETY: PROGRAM is null or a pointer from Box::into_raw in `set_program`, published
    // with Release and read here with Acquire, so the PathBuf is fully written; no path
    // once stored is ever freed (the one named before is left behind), so the reference
    // stays valid for as long as the clone takes.
    unsafe { PROGRAM.load(Ordering::Acquire).as_ref() }.cloned()
}

/// Sets how long one conversion may take on the wall clock.
pub fn set_wall_limit(limit: Duration) {
    WALL_MILLIS.store(limit.as_millis().max(1) as u64, Ordering::Relaxed);
}

/// How long one conversion may take on the wall clock ([`WALL_LIMIT`] unless set).
pub fn wall_limit() -> Duration {
    Duration::from_millis(WALL_MILLIS.load(Ordering::Relaxed))
}

thread_local! {
    static QUEUE: Cell<u64> = const { Cell::new(0) };
}

/// Runs `work` with its conversions in the queue `queue` (a store's or a chat's
/// number): the turn for a worker goes to the queue with the fewest under way.
pub fn in_queue<T>(queue: u64, work: impl FnOnce() -> T) -> T {
    let before = QUEUE.replace(queue);
    let result = work();
    QUEUE.set(before);
    result
}

/// Converts `bytes` with the converters of `chain`, tried in order, in a worker.
/// `Err` when no worker could run it ([`Error::Converter`]) or the caller gave up.
pub fn convert(chain: &[Kind], bytes: &[u8]) -> Result<Converted> {
    convert_document(chain, Document::Bytes(bytes))
}

/// [`convert`] for a document that may be an open file, sent to the worker a
/// piece at a time; a file that cannot be read is [`Error::Io`] naming it.
pub fn convert_document(chain: &[Kind], document: Document) -> Result<Converted> {
    if let Some(refusal) = too_large(document.size()) {
        return Ok(Err(refusal));
    }
    let queue = QUEUE.get();
    let mut tried = 0;
    loop {
        let mut worker = take(queue)?;
        SENT.fetch_add(1, Ordering::Relaxed);
        let stop = match worker.ask(chain, document, wall_limit()) {
            Ok(converted) => {
                give_back(worker, queue);
                return Ok(converted);
            }
            Err(error) if cancel::is_cancelled(&error) => {
                end(worker, queue);
                return Err(Error::Cancelled);
            }
            Err(error) if Unread::of(&error).is_some() => {
                // The worker waits for the rest of a request it will never get.
                end(worker, queue);
                let path = match document {
                    Document::File { path, .. } => path,
                    Document::Bytes(_) => "the document",
                };
                return Err(Error::io(path, Unread::into_read_error(error)));
            }
            Err(error) if error.kind() == std::io::ErrorKind::TimedOut => {
                end(worker, queue);
                return Err(Error::Converter(format!(
                    "a convert worker did not answer within {} seconds (stopped, or the machine too \
                     busy to give it CPU time) and was killed",
                    wall_limit().as_secs_f64()
                )));
            }
            Err(_) => stopped(end(worker, queue)),
        };
        tried += 1;
        match stop {
            Stop::Document(why) => return Ok(Err(Refusal::Stopped(why))),
            Stop::Outside(_) if tried == 1 => {
                // What killed it (the OOM killer, an operator's kill of every worker)
                // may have killed the idle ones too: the document's second try is in
                // a new worker.
                end_idle();
                cancel::check()?;
            }
            Stop::Outside(why) => return Err(Error::Converter(why)),
        }
    }
}

/// The largest document a conversion takes. A worker may use 1 GiB: a larger
/// document would not convert, and the app would hold it whole on its way there
/// (a folder store's 3 GB file once took the app to its memory limit).
pub const MAX_DOCUMENT_BYTES: u64 = 256 * 1024 * 1024;

/// Why a document of `size` bytes is not converted, when it is past
/// [`MAX_DOCUMENT_BYTES`]: a refusal of the document, kept as any other.
pub fn too_large(size: u64) -> Option<Refusal> {
    (size > MAX_DOCUMENT_BYTES).then(|| {
        Refusal::Stopped(format!(
            "the document is {} MB, more than the {} MB a conversion takes",
            size.div_ceil(1 << 20),
            MAX_DOCUMENT_BYTES >> 20
        ))
    })
}

/// Starts a worker ahead of the first conversion, on a thread of its own, when
/// this process has none: the supervisor's start and the worker's (about 2 ms on
/// a quiet machine, tens under load) are then spent while the model answers, not
/// while a read waits for its text. Whether one is being started: not when a
/// worker runs or is starting, no worker program is named, or no thread can be
/// made. A conversion asked meanwhile waits for it rather than start a second
/// worker behind it. A start that fails is the next conversion's error (the link
/// keeps it for its backoff), as if that conversion had tried.
pub fn prestart() -> bool {
    if program().is_none() {
        return false;
    }
    let mut pool = lock(&shared().pool);
    if pool.live > 0 {
        return false;
    }
    pool.live += 1;
    pool.prestarting = true;
    drop(pool);
    let named = PROGRAM.load(Ordering::Acquire) as usize;
    let started = std::thread::Builder::new()
        .name("file_store prestart".into())
        .spawn(move || prestarted(start().ok(), named))
        .is_ok();
    if !started {
        prestarted(None, named);
    }
    started
}

/// The prestart's end: its worker is idle, or its place is given back. A worker
/// of a program named before another was (`named`, the program's pointer when the
/// prestart began) ends: `set_program` ended the idle ones while it started.
fn prestarted(worker: Option<Worker>, named: usize) {
    let renamed = PROGRAM.load(Ordering::Acquire) as usize != named;
    let mut pool = lock(&shared().pool);
    pool.prestarting = false;
    let outdated = match worker {
        Some(worker) if !renamed => {
            pool.idle.push(worker);
            None
        }
        worker => {
            pool.live = pool.live.saturating_sub(1);
            worker
        }
    };
    drop(pool);
    if let Some(worker) = outdated {
        end_worker(worker);
    }
    shared().freed.notify_all();
}

/// How many workers this process runs now, busy or idle.
pub fn running() -> usize {
    lock(&shared().pool).live
}

/// Ends the idle workers (a test's clean slate, or an app shutting down).
pub fn end_idle() {
    let idle = std::mem::take(&mut lock(&shared().pool).idle);
    for worker in idle {
        lock(&shared().pool).live -= 1;
        end_worker(worker);
    }
}

struct Shared {
    pool: Mutex<Pool>,
    freed: Condvar,
    link: Mutex<Link>,
}

static SHARED: PerProcess<Shared> = PerProcess::new(|_| Shared {
    pool: Mutex::new(Pool::default()),
    freed: Condvar::new(),
    link: Mutex::new(Link::default()),
});

fn shared() -> &'static Shared {
    SHARED.get()
}

fn lock<T>(mutex: &Mutex<T>) -> MutexGuard<'_, T> {
    mutex.lock().unwrap_or_else(|e| e.into_inner())
}

#[derive(Default)]
struct Pool {
    idle: Vec<Worker>,
    live: usize,
    /// The callers waiting for a worker: their ticket and queue, in arrival order.
    waiting: Vec<(u64, u64)>,
    tickets: u64,
    /// Conversions under way, by queue.
    busy: HashMap<u64, usize>,
    /// Whether a worker is being started ahead of need ([`prestart`]): a caller
    /// waits for it rather than start another behind it.
    prestarting: bool,
}

impl Pool {
    /// Whether `ticket` is among the first `places` in turn, the turn going to the
    /// queue with the fewest conversions under way, then to the first to arrive:
    /// while there is room for several, as many take one at once, none waiting for
    /// another to wake.
    fn in_turn(&self, ticket: u64, places: usize) -> bool {
        let busy = |queue| self.busy.get(queue).copied().unwrap_or(0);
        let (_, queue) = self
            .waiting
            .iter()
            .find(|(t, _)| *t == ticket)
            .copied()
            .unwrap_or((ticket, 0));
        let mine = (busy(&queue), ticket);
        let ahead = self
            .waiting
            .iter()
            .filter(|(t, q)| (busy(q), *t) < mine)
            .count();
        ahead < places
    }

    fn leave(&mut self, ticket: u64) {
        self.waiting.retain(|(waiting, _)| *waiting != ticket);
    }

    fn done(&mut self, queue: u64) {
        if let Some(busy) = self.busy.get_mut(&queue) {
            *busy -= 1;
            if *busy == 0 {
                self.busy.remove(&queue);
            }
        }
    }
}

/// An idle worker or a new one, when it is this caller's turn.
fn take(queue: u64) -> Result<Worker> {
    let shared = shared();
    let mut pool = lock(&shared.pool);
    pool.tickets += 1;
    let ticket = pool.tickets;
    pool.waiting.push((ticket, queue));
    loop {
        let places = pool.idle.len() + MAX_WORKERS.saturating_sub(pool.live);
        let prestarting = pool.prestarting && pool.idle.is_empty();
        if !prestarting && pool.in_turn(ticket, places) {
            pool.leave(ticket);
            *pool.busy.entry(queue).or_default() += 1;
            let idle = pool.idle.pop();
            if idle.is_none() {
                pool.live += 1;
            }
            drop(pool);
            // The next in turn may take another place.
            shared.freed.notify_all();
            return match idle {
                Some(worker) => Ok(worker),
                None => start().inspect_err(|_| lost(queue)),
            };
        }
        if let Err(error) = cancel::check() {
            pool.leave(ticket);
            drop(pool);
            shared.freed.notify_all();
            return Err(error);
        }
        pool = shared
            .freed
            .wait_timeout(pool, LOOK_EVERY)
            .unwrap_or_else(|e| e.into_inner())
            .0;
    }
}

/// A new worker, from the supervisor.
fn start() -> Result<Worker> {
    let program = program().ok_or_else(|| {
        Error::Converter("no convert worker (file_store_convert) is named".into())
    })?;
    let started = lock(&shared().link)
        .start_worker(&program)
        .map_err(Error::Converter)?;
    let (id, generation) = (started.id, started.generation);
    Worker::new(started).map_err(|error| {
        lock(&shared().link).end_worker(id, generation);
        Error::Converter(format!("a convert worker's pipes: {error}"))
    })
}

fn give_back(worker: Worker, queue: u64) {
    if worker.served >= CONVERSIONS_PER_WORKER {
        end(worker, queue);
        return;
    }
    let mut pool = lock(&shared().pool);
    pool.done(queue);
    pool.idle.push(worker);
    drop(pool);
    shared().freed.notify_all();
}

/// Gives the worker's place back and has the supervisor kill and reap it.
fn end(worker: Worker, queue: u64) -> Option<Ended> {
    lost(queue);
    end_worker(worker)
}

/// A new host of one code run, started by this process's supervisor.
pub(crate) fn start_host(program: &std::path::Path) -> std::result::Result<link::Started, String> {
    lock(&shared().link).start_host(program)
}

/// Asks this process's supervisor `request`, starting it first if none runs.
pub(crate) fn ask_supervisor(
    request: &[u8],
) -> std::io::Result<(Vec<u8>, Vec<std::os::fd::OwnedFd>)> {
    let program = program().ok_or_else(|| std::io::Error::from(std::io::ErrorKind::NotFound))?;
    lock(&shared().link).request(&program, request)
}

/// Kills the host `id` of `generation` if it still runs, and reaps it.
pub(crate) fn end_host(id: u64, generation: u64) {
    lock(&shared().link).end_worker(id, generation);
}

fn end_worker(worker: Worker) -> Option<Ended> {
    let (id, generation) = (worker.id, worker.generation);
    drop(worker);
    lock(&shared().link).end_worker(id, generation)
}

fn lost(queue: u64) {
    let mut pool = lock(&shared().pool);
    pool.done(queue);
    pool.live = pool.live.saturating_sub(1);
    drop(pool);
    shared().freed.notify_all();
}

/// How many documents this process has sent to workers.
pub fn conversions() -> u64 {
    SENT.load(Ordering::Relaxed)
}

static SENT: AtomicU64 = AtomicU64::new(0);
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
