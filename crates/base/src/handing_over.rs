//! Handing a large buffer's bytes to another owner (a Ruby string) without holding
//! them twice: a converted text may be 64 MB, and copying it whole before the
//! original is freed would make the app hold 128 MB for a moment, which is what a
//! container's memory limit counts.

use std::ffi::c_void;

/// How much is copied before the pages copied are given back.
const PIECE: usize = 4 << 20;

/// Gives `sink` the bytes of `bytes` a piece at a time, in order, and gives the
/// system back the pages of each piece once it is copied, so no more than a piece
/// is held twice. The first and last pages stay (an allocator keeps its own
/// bookkeeping beside a buffer); the buffer is freed at the end.
pub fn copy_releasing(mut bytes: Vec<u8>, mut sink: impl FnMut(&[u8])) {
    let len = bytes.len();
    // Every access below goes through this pointer, never through a reference to the
    // Vec's slice, so zeroing pages through it (madvise) is a write through it.
    let base = bytes.as_mut_ptr();
    let page = rustix::param::page_size();
    let first_whole = (base as usize + 1).next_multiple_of(page);
    let mut copied = 0;
    while copied < len {
        let end = (copied + PIECE).min(len);
        // SAFETY: `base` points to `len` initialized bytes the Vec owns and keeps alive
        // until the end of this function; `copied..end` lies within them.
        sink(unsafe { std::slice::from_raw_parts(base.add(copied), end - copied) });
        let from = (base as usize + copied)
            .next_multiple_of(page)
            .max(first_whole);
        let to = (base as usize + end) / page * page;
        if to > from {
            // SAFETY: `from..to` are whole pages inside the Vec's initialized bytes, past
            // its first page and before the page its last byte is on, already copied and
            // never read again: MADV_DONTNEED gives them back and makes them read as
            // zeros, which only the Vec's drop below sees (it reads no byte).
            unsafe {
                let _ = rustix::mm::madvise(
                    from as *mut c_void,
                    to - from,
                    rustix::mm::Advice::LinuxDontNeed,
                );
            }
        }
        copied = end;
    }
    drop(bytes);
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn gives_every_byte_in_order_whatever_the_size() {
        for len in [0, 1, 4095, PIECE - 1, PIECE, PIECE + 1, 3 * PIECE + 12_345] {
            let bytes: Vec<u8> = (0..len).map(|i| (i % 251) as u8).collect();
            let mut got = Vec::with_capacity(len);
            copy_releasing(bytes, |piece| got.extend_from_slice(piece));
            assert_eq!(got.len(), len);
            assert!(got.iter().enumerate().all(|(i, b)| *b == (i % 251) as u8));
        }
    }

    /// Resident memory of this process, from /proc.
    fn resident() -> usize {
        let status = std::fs::read_to_string("/proc/self/statm").unwrap();
        let pages: usize = status.split(' ').nth(1).unwrap().parse().unwrap();
        pages * rustix::param::page_size()
    }

    #[test]
    fn holds_no_more_than_a_piece_twice() {
        let len = 64 << 20;
        let bytes = vec![7u8; len];
        let mut largest_rise = 0;
        let before = resident();
        let mut got: Vec<u8> = Vec::with_capacity(len);
        copy_releasing(bytes, |piece| {
            got.extend_from_slice(piece);
            largest_rise = largest_rise.max(resident().saturating_sub(before));
        });
        assert_eq!(got.len(), len);
        // Copied whole, the rise would reach the 64 MB copy; other tests' threads
        // allocate meanwhile, hence the room.
        assert!(largest_rise < 24 << 20, "rose {largest_rise} bytes");
    }
}
