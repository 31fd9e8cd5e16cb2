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

/// The characters besides `\n` that a reader of the text (a model, an editor, a
/// terminal) takes for the end of a line: a carriage return on its own (the one of a
/// `\r\n` ending is gone before a line is shown), vertical tab, form feed, NEL, and the
/// line and paragraph separators U+2028 and U+2029.
const LINE_BREAKS: [char; 6] = ['\r', '\u{b}', '\u{c}', '\u{85}', '\u{2028}', '\u{2029}'];

/// `line` with each of [`LINE_BREAKS`] written as `\uXXXX` (`\u2028`), so a line
/// shown as one (a numbered line, a search's `path:line: text`) never reads as two,
/// whatever a file holds; borrowed when it holds none.
pub fn escape_breaks(line: &str) -> Cow<'_, str> {
    if !line.contains(LINE_BREAKS) {
        return Cow::Borrowed(line);
    }
    use std::fmt::Write;
    let mut out = String::with_capacity(line.len() + 16);
    for c in line.chars() {
        if LINE_BREAKS.contains(&c) {
            let _ = write!(out, "\\u{:04X}", c as u32);
        } else {
            out.push(c);
        }
    }
    Cow::Owned(out)
}

/// Formats one numbered line the way `cat -n` does: the number right-aligned in six
/// columns, a tab, the text (its line breaks escaped, [`escape_breaks`]) and a newline.
pub fn number_line(out: &mut String, number: usize, line: &str) {
    use std::fmt::Write;
    let _ = writeln!(out, "{number:>6}\t{}", escape_breaks(line));
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
