//! The queue a search's workers take their inputs from while a producer (a walk
//! of a folder) is still adding to it, each input numbered in the order it came.

use std::collections::VecDeque;
use std::sync::{Condvar, Mutex, MutexGuard};

use super::input::SearchInput;

/// Inputs given and not yet taken, and whether more may come.
#[derive(Default)]
struct State {
    items: VecDeque<(usize, SearchInput)>,
    given: usize,
    closed: bool,
    /// Workers waiting for an input: a push wakes one only when there is one,
    /// since a wake is a system call even when no thread waits.
    waiting: usize,
}

/// A queue of numbered inputs shared by a producer and the workers.
#[derive(Default)]
pub(super) struct Queue {
    state: Mutex<State>,
    ready: Condvar,
}

impl Queue {
    fn state(&self) -> MutexGuard<'_, State> {
        self.state.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Adds every input of `inputs`, leaving it empty, and gives how many were
    /// ever added: numbered in order, the first input 0. Inputs come in
    /// batches since the walk that gives them and the workers that take them
    /// would otherwise contend for the queue at every one, each time putting a
    /// thread to sleep and waking it, which costs more than searching a small
    /// file.
    pub(super) fn push_all(&self, inputs: &mut Vec<SearchInput>) -> usize {
        let mut state = self.state();
        for input in inputs.drain(..) {
            let index = state.given;
            state.given += 1;
            state.items.push_back((index, input));
        }
        let (given, wake) = (state.given, state.waiting > 0);
        drop(state);
        if wake {
            self.ready.notify_all();
        }
        given
    }

    /// Says no more inputs come; with `stop`, the ones not taken are dropped
    /// too, since the search failed.
    pub(super) fn close(&self, stop: bool) {
        let mut state = self.state();
        state.closed = true;
        if stop {
            state.items.clear();
        }
        drop(state);
        self.ready.notify_all();
    }

    /// The next input when more than `ahead` wait, without waiting.
    pub(super) fn pop_past(&self, ahead: usize) -> Option<(usize, SearchInput)> {
        let mut state = self.state();
        if state.items.len() > ahead {
            state.items.pop_front()
        } else {
            None
        }
    }

    /// The next input, waiting for one while more may come; `None` once the queue
    /// is closed and empty.
    pub(super) fn pop(&self) -> Option<(usize, SearchInput)> {
        let mut state = self.state();
        loop {
            if let Some(next) = state.items.pop_front() {
                return Some(next);
            }
            if state.closed {
                return None;
            }
            state.waiting += 1;
            state = self.ready.wait(state).unwrap_or_else(|e| e.into_inner());
            state.waiting -= 1;
        }
    }
}
