//! Runs Rust work without Ruby's global VM lock, so other Ruby threads go on.

use std::ffi::c_void;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::ptr::null_mut;

use magnus::{Error, Ruby};

use crate::errors;

/// Runs `work` with the GVL released and returns its value. `F` and `T` are `Send`,
/// so no Ruby value can be captured or returned. A panic becomes a Ruby exception
/// instead of crossing into Ruby, where magnus would turn it into `fatal`.
pub fn nogvl<F, T>(ruby: &Ruby, work: F) -> Result<T, Error>
where
    F: FnOnce() -> T + Send,
    T: Send,
{
    let mut slot: (Option<F>, Option<std::thread::Result<T>>) = (Some(work), None);
    unsafe extern "C" fn call<F: FnOnce() -> T, T>(data: *mut c_void) -> *mut c_void {
        let slot = &mut *(data as *mut (Option<F>, Option<std::thread::Result<T>>));
        if let Some(work) = slot.0.take() {
            slot.1 = Some(catch_unwind(AssertUnwindSafe(work)));
        }
        null_mut()
    }
    unsafe {
        rb_sys::rb_thread_call_without_gvl(
            Some(call::<F, T>),
            &mut slot as *mut _ as *mut c_void,
            None,
            null_mut(),
        );
    }
    match slot.1 {
        Some(Ok(value)) => Ok(value),
        Some(Err(panic)) => Err(errors::internal(ruby, panic_message(&panic))),
        None => Err(errors::internal(ruby, "the work did not run".to_string())),
    }
}

fn panic_message(panic: &Box<dyn std::any::Any + Send>) -> String {
    panic
        .downcast_ref::<&str>()
        .map(|s| s.to_string())
        .or_else(|| panic.downcast_ref::<String>().cloned())
        .unwrap_or_else(|| "a panic in the native extension".to_string())
}
