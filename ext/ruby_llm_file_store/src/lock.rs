//! `Native::Lock`: the cross-process lock of a folder store, held until released;
//! `Native::Lock.new` is an empty one that `Native::Directory#lock` fills.

use std::sync::Mutex;

use magnus::{function, method, prelude::*, Error, RModule, Ruby};

use file_store_folder::LockGuard;

#[magnus::wrap(class = "RubyLLM::FileStore::Native::Lock", free_immediately, size)]
pub struct Lock {
    guard: Mutex<Option<LockGuard>>,
}

impl Lock {
    pub fn new(guard: LockGuard) -> Lock {
        Lock {
            guard: Mutex::new(Some(guard)),
        }
    }

    fn empty() -> Lock {
        Lock {
            guard: Mutex::new(None),
        }
    }

    pub fn hold(&self, guard: LockGuard) {
        *self.guard.lock().unwrap_or_else(|e| e.into_inner()) = Some(guard);
    }

    fn release(&self) {
        drop(self.guard.lock().unwrap_or_else(|e| e.into_inner()).take());
    }
}

pub fn define(ruby: &Ruby, native: RModule) -> Result<(), Error> {
    let class = native.define_class("Lock", ruby.class_object())?;
    class.define_singleton_method("new", function!(Lock::empty, 0))?;
    class.define_method("release", method!(Lock::release, 0))?;
    Ok(())
}
