//! Runs Rust work without Ruby's global VM lock, so other Ruby threads go on, and
//! so Ruby can interrupt it: `Timeout.timeout`, `Thread#kill` and Ctrl-C take
//! effect while the work runs, not after it.
//!
//! Ruby interrupts a thread that is outside the GVL by calling its unblocking
//! function. Ours sets the work's cancellation flag (`file_store_base::cancel`),
//! which the core checks in its long loops (searching, streaming reads, hashing,
//! waiting for a lock). When the work returns, the pending interrupt is raised
//! here as a Ruby exception, after every Rust value of the work has been dropped:
//! a lock taken is released, a temporary file removed.
//!
//! Under a Fiber scheduler the work runs on a thread of its own while the fiber
//! waits through the scheduler (`offload.rs`), so the thread's other fibers go on.

mod offload;

use std::ffi::c_void;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::ptr::null_mut;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;

use magnus::{Error, Ruby};

use file_store_base::cancel;

use crate::errors;

type Slot<F, T> = (Option<F>, Option<std::thread::Result<T>>, Arc<AtomicBool>);

/// Runs `work` with the GVL released and returns its value. `F` and `T` are `Send`,
/// so no Ruby value can be captured or returned. A panic becomes a Ruby exception
/// instead of crossing into Ruby, where magnus would turn it into `fatal`.
///
/// When Ruby interrupts the thread, the work's cancellation flag is set; once the
/// work returns, the interrupt (Timeout's error, a kill, `Interrupt`) is raised
/// and the work's value dropped.
pub fn nogvl<F, T>(ruby: &Ruby, work: F) -> Result<T, Error>
where
    F: FnOnce() -> T + Send,
    T: Send,
{
    if offload::scheduled(ruby) {
        return offload::offload(ruby, work);
    }
    let flag = Arc::new(AtomicBool::new(false));
    let mut slot: Slot<F, T> = (Some(work), None, flag.clone());
    unsafe extern "C" fn call<F: FnOnce() -> T, T>(data: *mut c_void) -> *mut c_void {
        let slot = &mut *(data as *mut Slot<F, T>);
        if let Some(work) = slot.0.take() {
            let flag = slot.2.clone();
            slot.1 = Some(catch_unwind(AssertUnwindSafe(|| {
                cancel::with_flag(Some(flag), work)
            })));
        }
        null_mut()
    }
    unsafe extern "C" fn unblock(data: *mut c_void) {
        // Called by Ruby on another thread holding the GVL, or from a signal
        // handler (RB_NOGVL_UBF_ASYNC_SAFE): only sets the flag.
        (*(data as *const AtomicBool)).store(true, Ordering::SeqCst);
    }
    let mut refused = 0;
    loop {
        // RB_NOGVL_INTR_FAIL neither runs the work when an interrupt is already
        // pending nor raises one on return, so no Ruby exception unwinds
        // through this frame: interrupts are raised below, through magnus.
        // RB_NOGVL_UBF_ASYNC_SAFE, which `unblock` is: without it, Ruby starts a
        // thread for every call made on the main thread of a single-threaded
        // program (a console, a script, a job runner's one thread) to call the
        // unblocking function on a signal, about 50 microseconds a call.
        // SAFETY: rb_nogvl runs `call::<F, T>` with `slot`, the Slot<F, T> it expects,
        // which lives in this frame until rb_nogvl returns, and `unblock` with the
        // AtomicBool that `flag` keeps alive for the whole call (Ruby may call it on
        // another thread or in a signal handler; it only stores to the atomic). Neither
        // function unwinds: `call` catches the work's panic.
        unsafe {
            rb_sys::rb_nogvl(
                Some(call::<F, T>),
                &mut slot as *mut _ as *mut c_void,
                Some(unblock),
                Arc::as_ptr(&flag) as *mut c_void,
                (rb_sys::RB_NOGVL_INTR_FAIL | rb_sys::RB_NOGVL_UBF_ASYNC_SAFE) as i32,
            );
        }
        if slot.1.is_none() || flag.load(Ordering::SeqCst) {
            ruby.thread_check_ints()?;
        }
        match slot.1.take() {
            Some(Ok(value)) => return Ok(value),
            Some(Err(panic)) => return Err(errors::panicked(ruby, &panic)),
            // Not started because an interrupt was pending that raised nothing:
            // another thread asking for the GVL, or a signal whose trap returns.
            // Handling it cleared it, so try again. An interrupt deferred by
            // Thread.handle_interrupt stays pending and would refuse every try:
            // after a few, the work runs here, holding the GVL.
            None => {
                flag.store(false, Ordering::SeqCst);
                refused += 1;
                if refused >= 10 {
                    // SAFETY: `slot` is the live Slot<F, T> `call::<F, T>` expects; it runs
                    // here on this thread, holding the GVL, and catches any panic of the
                    // work.
                    unsafe { call::<F, T>(&mut slot as *mut _ as *mut c_void) };
                }
            }
        }
    }
}

/// Like `nogvl`, for work that may retry: core work stopped by an interrupt that
/// raised nothing in Ruby (a signal whose trap returns) runs again, so the caller
/// never sees `Cancelled` for an interrupt that was not meant to stop it.
pub fn nogvl_retrying<F, T>(ruby: &Ruby, work: F) -> Result<file_store_base::Result<T>, Error>
where
    F: Fn() -> file_store_base::Result<T> + Sync,
    T: Send,
{
    loop {
        match nogvl(ruby, &work)? {
            Err(file_store_base::Error::Cancelled) => continue,
            done => return Ok(done),
        }
    }
}

pub fn init(ruby: &Ruby) {
    offload::init(ruby);
}
