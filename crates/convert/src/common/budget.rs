//! One budget per conversion, shared by every output a converter writes (the
//! body, notes, comments, headers, sheets, spine items): bytes of text out, steps
//! of work and time. Past any of them the converter stops and its text says why
//! (`[cut: ...]`); it never aborts.
//!
//! Time is the CPU time of the converting thread, not the clock on the wall: a
//! busy machine slows a conversion down but gives it the same CPU time, so the
//! same document is cut at the same place, idle or loaded, and its text can be
//! kept as the file's. A conversion nobody waits for any more is not stopped
//! here: it runs in a worker process, which its caller kills.

use std::cell::{Cell, RefCell};
use std::rc::Rc;
use std::time::Duration;

/// The most bytes of text a conversion writes, all its outputs together.
pub const MAX_OUTPUT: usize = 64 * 1024 * 1024;
/// The most steps of work a conversion takes: a step is an XML element or text,
/// an HTML token, a PDF operation, a repeated row or cell written, a spine
/// entry, or a kilobyte decompressed.
pub const MAX_WORK: u64 = 50_000_000;
/// The most CPU time a conversion's budgeted work takes: 2 seconds. An
/// unoptimised build (the one `cargo test` makes) runs about ten times slower,
/// so its ceiling is ten times longer, and its tests see the cuts a release
/// build makes.
pub const MAX_TIME: Duration = if cfg!(debug_assertions) {
    Duration::from_secs(20)
} else {
    Duration::from_secs(2)
};

/// The line that ends a conversion the time ceiling stopped.
pub const TIME_CUT: &str = if cfg!(debug_assertions) {
    "[cut: the document takes more than 20 seconds of CPU to read]"
} else {
    "[cut: the document takes more than 2 seconds of CPU to read]"
};

/// The most entries an archive may have. Kept with the other ceilings of a
/// conversion, below both [`super::archive`], which enforces it, and
/// [`Refusal`](crate::Refusal), whose message states it.
pub const MAX_ENTRIES: usize = 10_000;
/// The most bytes read out of one archive, all entries together.
pub const MAX_UNCOMPRESSED: u64 = 200 * 1024 * 1024;

/// How many steps go between looks at the clock.
const CLOCK_EVERY: u64 = 1024;

/// The budget of one conversion; cheap to share (`Rc`) among its outputs.
pub struct Budget {
    /// The ceiling on the whole text, which `text_left` counts down from.
    text_ceiling: usize,
    text_left: Cell<usize>,
    work_left: Cell<u64>,
    /// Steps until the clock is looked at again.
    clock_in: Cell<u64>,
    /// The thread's CPU time past which the conversion stops.
    deadline: Duration,
    /// Why the conversion stopped, once it has: the first reason wins.
    cut: RefCell<Option<String>>,
}

impl Budget {
    /// A fresh budget of [`MAX_OUTPUT`], [`MAX_WORK`] and [`MAX_TIME`].
    pub fn new() -> Rc<Self> {
        Self::with(MAX_OUTPUT, MAX_WORK, MAX_TIME)
    }

    /// A budget with other ceilings (tests use small ones).
    pub fn with(text: usize, work: u64, time: Duration) -> Rc<Self> {
        Rc::new(Budget {
            text_ceiling: text,
            text_left: Cell::new(text),
            work_left: Cell::new(work),
            clock_in: Cell::new(CLOCK_EVERY),
            deadline: thread_cpu_time().saturating_add(time),
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
        let clock = self.clock_in.get().saturating_sub(steps);
        if clock == 0 {
            self.clock_in.set(CLOCK_EVERY);
            if thread_cpu_time() > self.deadline {
                self.cut(TIME_CUT.trim_start_matches("[cut: ").trim_end_matches(']'));
                return false;
            }
        } else {
            self.clock_in.set(clock);
        }
        true
    }

    /// Takes a step and looks at the clock whatever the steps since: for work
    /// whose steps cost more than most (a piece of HTML handed to the tokenizer).
    pub fn step_and_look(&self) -> bool {
        self.clock_in.set(1);
        self.step(1)
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

/// The CPU time the calling thread has used.
pub fn thread_cpu_time() -> Duration {
    let mut now = libc::timespec {
        tv_sec: 0,
        tv_nsec: 0,
    };
    // Cannot fail for this clock on Linux; a zero time would only delay the cut.
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
        let text = Budget::with(10, 100, MAX_TIME);
        assert_eq!(text.take_text(6), 6);
        assert_eq!(text.take_text(6), 4);
        assert_eq!(text.take_text(1), 0);
        assert_eq!(
            text.marker().unwrap(),
            "[cut: the document expands past 64 MB of text]"
        );
        let work = Budget::with(10, 5, MAX_TIME);
        assert!(work.step(5));
        assert!(!work.step(1));
        assert!(work.marker().unwrap().contains("steps"));
        let time = Budget::with(10, u64::MAX, Duration::ZERO);
        let spin = thread_cpu_time();
        while thread_cpu_time() == spin {}
        assert!(!(0..CLOCK_EVERY + 1).all(|_| time.step(1)));
        assert!(time.marker().unwrap().contains("seconds"));
    }
}
