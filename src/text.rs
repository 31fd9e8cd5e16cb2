//! Text slicing for reading files: binary detection, numbered line windows
//! (`cat -n` style, `lines`) and character windows (`chars`), all streaming in
//! constant memory over a lossy UTF-8 decoder (`utf8`), and what `read_file`
//! shows of them with their trailers under the result ceiling (`shown`).

use std::borrow::Cow;

/// The marker put after a line cut at the character limit; `{}` is the line's full length.
pub(crate) fn truncation_marker(total_chars: usize) -> String {
    format!("… [line truncated: {total_chars} characters]")
}

/// Whether a sample of a file's bytes is binary: true iff it contains a NUL byte.
///
/// Invalid UTF-8 without NUL (Latin-1, Shift-JIS, a multi-byte character cut at the
/// end of the sample) is text, shown lossily.
pub fn looks_binary(sample: &[u8]) -> bool {
    memchr::memchr(0, sample).is_some()
}

/// Formats one numbered line the way `cat -n` does: the number right-aligned in six
/// columns, a tab, the text and a newline.
pub fn number_line(out: &mut String, number: usize, line: &str) {
    use std::fmt::Write;
    let _ = writeln!(out, "{number:>6}\t{line}");
}

/// Cuts `line` to `max_chars` characters followed by a `… [line truncated: N characters]`
/// marker (N is the full length in characters); returns the line unchanged (borrowed)
/// and `false` when it fits.
pub fn truncate_line(line: &str, max_chars: usize) -> (Cow<'_, str>, bool) {
    // A line of at most max_chars bytes has at most max_chars chars.
    if line.len() <= max_chars {
        return (Cow::Borrowed(line), false);
    }
    match line.char_indices().nth(max_chars) {
        None => (Cow::Borrowed(line), false),
        Some((cut, _)) => {
            let total = max_chars + line[cut..].chars().count();
            let mut s = String::with_capacity(cut + 40);
            s.push_str(&line[..cut]);
            s.push_str(&truncation_marker(total));
            (Cow::Owned(s), true)
        }
    }
}

/// `n` with the noun that fits it: `1 line`, `2 lines`.
pub(crate) fn plural(n: usize, one: &str, many: &str) -> String {
    format!("{n} {}", if n == 1 { one } else { many })
}

mod ceiling;
mod chars;
mod hashing;
mod lines;
mod shown;
mod utf8;
pub use ceiling::{cap_result, MAX_RESULT_CHARS, TRAILER_ROOM};
pub use chars::{read_chars, trailer_for_chars, CharSlice};
pub use hashing::Hashing;
pub use lines::{read_lines, read_lines_counted, trailer_for_lines, LineSlice};
pub use shown::{chars_shown, lines_shown, Shown, COUNT_BUDGET, MAX_READ_CHARS};

#[cfg(test)]
mod tests;
