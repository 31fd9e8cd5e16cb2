//! One budget per conversion, shared by every output a converter writes (the
//! body, notes, comments, headers, sheets, spine items): bytes of text out and
//! steps of work. Past either the converter stops and its text says why
//! (`[cut: ...]`); it never aborts.
//!
//! Both count what the document holds, never time: the same document is cut at
//! the same place every time, idle or with every core busy, alone or beside
//! fifteen others, so its text can be kept as the file's. Time is an outer
//! ceiling only, the worker's CPU limit
//! ([`crate::worker::CPU_LIMIT`]), which refuses the document (no text) and
//! never cuts it. A conversion nobody waits for any more is not stopped here:
//! it runs in a worker process, which its caller kills.

use std::cell::{Cell, RefCell};
use std::rc::Rc;
use std::time::Duration;

/// The most bytes of text a conversion writes, all its outputs together.
pub const MAX_OUTPUT: usize = 64 * 1024 * 1024;
/// The most steps of work a conversion takes: a step is an XML element or text,
/// an HTML token, an attribute the tokenizer compares or 4 KB handed to it, a
/// sixteenth of a PDF operation, a repeated row or cell written, a spine entry,
/// or a kilobyte decompressed or decoded.
pub const MAX_WORK: u64 = 50_000_000;

/// The most entries an archive may have. Kept with the other ceilings of a
/// conversion, below both [`super::archive`], which enforces it, and
/// [`Refusal`](crate::Refusal), whose message states it.
pub const MAX_ENTRIES: usize = 10_000;
/// The most bytes read out of one archive, all entries together.
pub const MAX_UNCOMPRESSED: u64 = 200 * 1024 * 1024;

/// The budget of one conversion; cheap to share (`Rc`) among its outputs.
pub struct Budget {
    /// The ceiling on the whole text, which `text_left` counts down from.
    text_ceiling: usize,
    text_left: Cell<usize>,
    work_left: Cell<u64>,
    /// Why the conversion stopped, once it has: the first reason wins.
    cut: RefCell<Option<String>>,
}

impl Budget {
    /// A fresh budget of [`MAX_OUTPUT`] and [`MAX_WORK`].
    pub fn new() -> Rc<Self> {
        Self::with(MAX_OUTPUT, MAX_WORK)
    }

    /// A budget with other ceilings (tests use small ones).
    pub fn with(text: usize, work: u64) -> Rc<Self> {
        Rc::new(Budget {
            text_ceiling: text,
            text_left: Cell::new(text),
            work_left: Cell::new(work),
            cut: RefCell::new(None),
        })
    }

    /// Whether the conversion has stopped (a ceiling reached, or cancelled).
    pub fn stopped(&self) -> bool {
        self.cut.borrow().is_some()
    }

    /// Stops the conversion for `why`, unless it has already stopped.
    pub fn cut(&self, why: impl Into<String>) {
        let mut cut = self.cut.borrow_mut();
        if cut.is_none() {
            *cut = Some(why.into());
        }
    }

    /// The line that ends a cut conversion's text, if it was cut.
    pub fn marker(&self) -> Option<String> {
        self.cut
            .borrow()
            .as_ref()
            .map(|why| format!("[cut: {why}]"))
    }

    /// Takes `steps` of work; false once the conversion has stopped.
    pub fn step(&self, steps: u64) -> bool {
        if self.stopped() {
            return false;
        }
        let left = self.work_left.get();
        if steps > left {
            self.work_left.set(0);
            self.cut(format!(
                "the document takes more than {MAX_WORK} steps to read"
            ));
            return false;
        }
        self.work_left.set(left - steps);
        true
    }

    /// Takes up to `wanted` bytes of text; returns how many may be written (all
    /// of them, unless this reaches the ceiling, which stops the conversion).
    pub fn take_text(&self, wanted: usize) -> usize {
        if self.stopped() {
            return 0;
        }
        let left = self.text_left.get();
        if wanted > left {
            self.text_left.set(0);
            self.text_cut();
            return left;
        }
        self.text_left.set(left - wanted);
        wanted
    }

    /// How many bytes of text are left to write.
    pub fn text_left(&self) -> usize {
        self.text_left.get()
    }

    /// The ceiling on the conversion's whole text, which no output passes, even
    /// with the separators and headings it adds to text already paid for.
    pub fn text_ceiling(&self) -> usize {
        self.text_ceiling
    }

    /// Stops the conversion at the text ceiling.
    pub fn text_cut(&self) {
        self.cut(format!(
            "the document expands past {} MB of text",
            MAX_OUTPUT >> 20
        ));
    }

    /// Stops the conversion when memory for `bytes` more cannot be had.
    pub fn out_of_memory(&self) {
        self.cut("the document needs more memory than there is to read it");
    }
}

/// The CPU time the calling thread has used, which tests measure conversions by.
pub fn thread_cpu_time() -> Duration {
    let mut now = libc::timespec {
        tv_sec: 0,
        tv_nsec: 0,
    };
    // Cannot fail for this clock on Linux.
    // SAFETY: clock_gettime writes one timespec to `now`, a live local; the clock id is a
    // constant.
    unsafe { libc::clock_gettime(libc::CLOCK_THREAD_CPUTIME_ID, &mut now) };
    Duration::new(now.tv_sec as u64, now.tv_nsec as u32)
}

/// `buffer` grown by `extra` bytes without aborting: false (and the budget cut)
/// when the memory cannot be had. Used wherever a size comes from the document.
pub fn reserve<T>(buffer: &mut Vec<T>, extra: usize, budget: &Budget) -> bool {
    if buffer.try_reserve(extra).is_ok() {
        return true;
    }
    budget.out_of_memory();
    false
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn stops_at_each_ceiling_and_says_which() {
        let text = Budget::with(10, 100);
        assert_eq!(text.take_text(6), 6);
        assert_eq!(text.take_text(6), 4);
        assert_eq!(text.take_text(1), 0);
        assert_eq!(
            text.marker().unwrap(),
            "[cut: the document expands past 64 MB of text]"
        );
        let work = Budget::with(10, 5);
        assert!(work.step(5));
        assert!(!work.step(1));
        assert!(work.marker().unwrap().contains("steps"));
    }
}
