//! State that belongs to one process. A process forked from the app (a Puma or
//! Unicorn worker, a job runner) starts with a copy of the parent's memory taken
//! at any instant: a mutex another thread held then stays held for good, a
//! conversion under way never lands, a worker's pipes are shared with the
//! parent. What lives in a [`PerProcess`] is made anew the first time a process
//! other than its maker reaches it; the parent's copy is left as it was, never
//! locked, read or dropped in the child.

use std::sync::atomic::{AtomicPtr, Ordering};

struct Owned<T> {
    pid: u32,
    value: T,
}

/// A value of each process, made by `make` from the parent's copy (`None` in the
/// first process), which `make` may only look at without waiting: it is in the
/// state the fork left it in.
pub struct PerProcess<T: 'static> {
    current: AtomicPtr<Owned<T>>,
    make: fn(Option<&T>) -> T,
}

impl<T> PerProcess<T> {
    pub const fn new(make: fn(Option<&T>) -> T) -> Self {
        PerProcess {
            current: AtomicPtr::new(std::ptr::null_mut()),
            make,
        }
    }

    /// This process's value.
    pub fn get(&self) -> &'static T {
        let pid = std::process::id();
        let now = self.current.load(Ordering::Acquire);
        // SAFETY: a value once published is never freed (a parent's is left
        // behind in the child, never dropped).
        let parent = unsafe { now.as_ref() };
        if let Some(owned) = parent.filter(|owned| owned.pid == pid) {
            return &owned.value;
        }
        let value = (self.make)(parent.map(|owned| &owned.value));
        let fresh = Box::into_raw(Box::new(Owned { pid, value }));
        match self
            .current
            .compare_exchange(now, fresh, Ordering::AcqRel, Ordering::Acquire)
        {
            // SAFETY: `fresh` came from Box::into_raw above and is now published in
            // `current`; no published value is ever freed (the comment above), so the
            // reference lives as long as 'static.
            Ok(_) => unsafe { &(*fresh).value },
            Err(other) => {
                // Another thread of this process made it first.
                // SAFETY: the exchange failed, so `fresh`, from Box::into_raw above, was
                // never published: this thread alone holds it, and it is turned back into
                // its Box once.
                drop(unsafe { Box::from_raw(fresh) });
                // SAFETY: `other` is the value another thread published in `current`
                // (non-null: only fresh boxes are ever stored), written before its Release
                // exchange and read after this Acquire; published values are never freed.
                unsafe { &(*other).value }
            }
        }
    }
}
