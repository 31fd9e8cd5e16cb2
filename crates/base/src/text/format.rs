//! How a read shows a line: numbered as `cat -n` does, cut with a marker when
//! long, and the words its trailers share.

use std::borrow::Cow;

/// The marker put after a line cut at the character limit; `{}` is the line's full length.
pub fn truncation_marker(total_chars: usize) -> String {
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
