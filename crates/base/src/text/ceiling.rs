//! The ceiling on what one tool result gives the model, in characters.

/// The most characters one tool result carries: about 25,000 tokens. A longer
/// result is cut, with a note saying so.
pub const MAX_RESULT_CHARS: usize = 100_000;

/// Characters under the ceiling kept for a trailer or a note after the text.
pub const TRAILER_ROOM: usize = 1000;

/// `text` as the model may receive it: whole when it is at most `max` characters;
/// else cut at the last line break within `max` characters (or at `max` when the
/// first line is longer), followed by a note of what was cut, all within `max`.
pub fn cap_result(text: &str, max: usize) -> String {
    // A text of at most `max` bytes has at most `max` characters.
    if text.len() <= max {
        return text.to_string();
    }
    let Some((cut, _)) = text.char_indices().nth(max) else {
        return text.to_string();
    };
    let total = max + text[cut..].chars().count();
    let room = max.saturating_sub(TRAILER_ROOM.min(max / 2));
    let cut = text.char_indices().nth(room).map_or(cut, |(at, _)| at);
    let kept = match text[..cut].rfind('\n') {
        Some(line_end) if line_end > 0 => &text[..line_end],
        _ => &text[..cut],
    };
    let shown = kept.chars().count();
    format!(
        "{kept}\n[Result cut: showing {shown} of {total} characters, the most one result gives. \
         Ask for less at a time, such as a smaller limit or a narrower path.]"
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keeps_short_results_and_cuts_long_ones_at_a_line_break() {
        assert_eq!(cap_result("short", 10), "short");
        let capped = cap_result("aaaa\nbbbb\ncccc\ndddd\neeee", 20);
        assert!(capped.starts_with("aaaa\nbbbb\n[Result cut: showing 9 of 24 characters"));
        let one_line = cap_result(&"é".repeat(50), 20);
        assert!(one_line.starts_with(&format!(
            "{}\n[Result cut: showing 10 of 50",
            "é".repeat(10)
        )));
    }
}
