//! Work done for a fiber under a Fiber scheduler (Async, Falcon): on a thread of
//! its own, while the fiber waits through the scheduler, so the scheduler's other
//! fibers run meanwhile. Releasing the GVL is not enough there: the scheduler runs
//! on the calling thread, which would wait for the work with every fiber on it.
//!
//! The worker thread writes a byte to one end of a socket pair when the work is
//! done; Ruby waits for the other end with `IO#wait_readable`, which every
//! scheduler implements, on every Ruby the gem supports (Ruby 3.4's
//! `blocking_operation_wait` would hand the work to the scheduler's own threads,
//! but gives no say over stopping it). A fiber stopped while it waits (Async's
//! `Task#stop`, a `Timeout` under the scheduler) sets the work's cancellation
//! flag, waits (still through the scheduler) for the work to end, drops its value
//! and raises what stopped it, as `Thread#kill` does on the thread path.

use std::ffi::c_void;
use std::io::{ErrorKind, Read, Write};
use std::os::fd::AsRawFd;
use std::os::unix::net::UnixStream;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::ptr::null_mut;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;

use magnus::rb_sys::AsRawValue;
use magnus::value::Lazy;
use magnus::{prelude::*, Error, RModule, Ruby, Value};

use file_store_base::cancel;

use crate::errors;

/// How many more stops a stopped fiber's wait for its work's end goes through the
/// scheduler for, before it waits on the thread.
const STOPS_WAITED_THROUGH: usize = 3;

/// The Ruby side: `Interrupts.wait_for_native(fd)`.
static INTERRUPTS: Lazy<RModule> = Lazy::new(|ruby| {
    ruby.class_object()
        .funcall::<_, _, RModule>("const_get", ("RubyLLM::FileStore::Interrupts",))
        .expect("lib/ruby_llm/file_store/interrupts.rb is loaded before the extension")
});

/// Looks the Ruby side up as the extension loads, as `errors::init` does.
pub fn init(ruby: &Ruby) {
    Lazy::force(&INTERRUPTS, ruby);
}

/// Whether this call runs for a fiber a scheduler drives, outside a section that
/// defers interrupts (`Interrupts.deferred`: a lock taken or given back, a write
/// committed). There the work stays on this thread, as without a scheduler: it is
/// short, and a fiber switch would let a stop in where interrupts wait. The section's
/// mark is read as `Thread#[]` reads it (the fiber's own), calling no Ruby method, so
/// no pending interrupt can be raised, and lost, here.
pub fn scheduled(ruby: &Ruby) -> bool {
    // SAFETY: takes no argument; called holding the GVL, as every Ruby C API call must be.
    let scheduler = unsafe { rb_sys::rb_fiber_scheduler_current() };
    if scheduler == ruby.qnil().as_raw() {
        return false;
    }
    // SAFETY: called holding the GVL; rb_intern reads a NUL-terminated static string, and
    // rb_thread_local_aref reads the current thread's fiber-local, calling no Ruby method.
    let deferring = unsafe {
        rb_sys::rb_thread_local_aref(
            rb_sys::rb_thread_current(),
            rb_sys::rb_intern(c"ruby_llm_file_store_deferring".as_ptr()),
        )
    };
    deferring != ruby.qtrue().as_raw()
}

/// Runs `work` on a thread of its own and waits for it through the scheduler.
pub fn offload<F, T>(ruby: &Ruby, work: F) -> Result<T, Error>
where
    F: FnOnce() -> T + Send,
    T: Send,
{
    let failed =
        |e: std::io::Error| errors::internal(ruby, format!("cannot wait for native work: {e}"));
    let (mut waiting, signal) = UnixStream::pair().map_err(failed)?;
    waiting.set_nonblocking(true).map_err(failed)?;
    let flag = Arc::new(AtomicBool::new(false));
    std::thread::scope(|scope| {
        let worker_flag = flag.clone();
        let worker = std::thread::Builder::new()
            .name("file_store work".into())
            .spawn_scoped(scope, move || {
                let out = catch_unwind(AssertUnwindSafe(|| {
                    cancel::with_flag(Some(worker_flag), work)
                }));
                let _ = (&signal).write_all(&[1]);
                out
            })
            .map_err(failed)?;
        let waited = wait_for(ruby, &mut waiting);
        if waited.is_err() {
            flag.store(true, Ordering::SeqCst);
            // Work that does not look at the flag (a code run goes on to its own
            // timeout, as under Thread#kill) is waited for through the scheduler too,
            // so the other fibers go on meanwhile; a fiber stopped again and again
            // (a reactor closing) waits on the thread instead.
            let mut stopped_again = 0;
            while stopped_again < STOPS_WAITED_THROUGH && wait_for(ruby, &mut waiting).is_err() {
                stopped_again += 1;
            }
        }
        let out = join_off_gvl(move || worker.join());
        waited?;
        match out {
            Ok(Ok(value)) => Ok(value),
            Ok(Err(panic)) | Err(panic) => Err(errors::panicked(ruby, &panic)),
        }
    })
}

/// Waits through the scheduler until the worker's byte arrives; the error is what
/// stopped the fiber meanwhile.
fn wait_for(ruby: &Ruby, waiting: &mut UnixStream) -> Result<(), Error> {
    let interrupts = ruby.get_inner(&INTERRUPTS);
    loop {
        match waiting.read(&mut [0; 1]) {
            Ok(_) => return Ok(()),
            Err(e) if e.kind() == ErrorKind::Interrupted => continue,
            Err(e) if e.kind() == ErrorKind::WouldBlock => {}
            // The worker's end closed without a byte: it ended all the same.
            Err(_) => return Ok(()),
        }
        interrupts.funcall::<_, _, Value>("wait_for_native", (waiting.as_raw_fd(),))?;
    }
}

/// Runs `wait` (a join) with the GVL released, so other threads go on while
/// cancelled work winds down; not interruptible, as the work it waits for has
/// already been asked to stop. Run holding the GVL if Ruby refuses to release it
/// (an interrupt pending).
fn join_off_gvl<W: FnOnce() -> R, R>(wait: W) -> R {
    let mut slot = (Some(wait), None);
    unsafe extern "C" fn call<W: FnOnce() -> R, R>(data: *mut c_void) -> *mut c_void {
        let slot = &mut *(data as *mut (Option<W>, Option<R>));
        if let Some(wait) = slot.0.take() {
            slot.1 = Some(wait());
        }
        null_mut()
    }
    // SAFETY: rb_nogvl runs `call::<W, R>` with `slot`, the (Option<W>, Option<R>) it
    // expects, which lives in this frame until rb_nogvl returns; with no unblocking
    // function nothing else touches it.
    unsafe {
        rb_sys::rb_nogvl(
            Some(call::<W, R>),
            &mut slot as *mut _ as *mut c_void,
            None,
            null_mut(),
            rb_sys::RB_NOGVL_INTR_FAIL as i32,
        );
    }
    if let Some(wait) = slot.0.take() {
        slot.1 = Some(wait());
    }
    slot.1.expect("the join ran")
}
