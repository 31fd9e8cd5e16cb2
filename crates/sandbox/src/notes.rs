//! The notes on what the looks at a run folder could not see or removed, for
//! the model.

use file_store_base::tree::{Gaps, MAX_DEPTH};

/// Adds the notes on what a walk could not see.
pub(super) fn note_gaps(gaps: &Gaps, notes: &mut Vec<String>) {
    let mut add = |paths: Vec<&str>, why: &str| {
        if let Some(first) = paths.first() {
            let more = paths.len() - 1;
            let more = if more > 0 {
                format!(" and {more} more")
            } else {
                String::new()
            };
            let note = format!(
                "{why}: {}{more}; files there are not listed.",
                shorten(first)
            );
            if !notes.contains(&note) {
                notes.push(note);
            }
        }
    };
    add(
        gaps.too_deep.iter().map(String::as_str).collect(),
        &format!("Folders more than {MAX_DEPTH} levels down were not looked into"),
    );
    add(
        gaps.unreadable.iter().map(|(p, _)| p.as_str()).collect(),
        "Folders that could not be read",
    );
}

/// The note on what earlier runs left past their limits that no remover took
/// away, which this run's new names give room to (`removing::prepare`).
pub(super) fn leftover(left: &crate::removing::Leftover, most: u64) -> String {
    let names = if left.names > most {
        format!("more than {most} names")
    } else {
        format!("{} names", left.names)
    };
    format!(
        "{names} ({} bytes of files) that earlier runs left past their limits could not be removed \
         yet; they wait in {} and count against this run's new names.",
        left.bytes,
        crate::removing::REMOVING
    )
}

/// The note on the folders too deep or too long that the repair removed.
pub(super) fn note_too_deep(removed: &[String], notes: &mut Vec<String>) {
    if let Some(first) = removed.first() {
        let more = match removed.len() - 1 {
            0 => String::new(),
            more => format!(" and {more} more"),
        };
        notes.push(format!(
            "Folders {MAX_DEPTH} levels down, or with paths longer than the chat's files take \
             ({} bytes), were removed with all in them, out of reach of every limit: {}{more}.",
            file_store_base::path::MAX_PATH_BYTES,
            shorten(first)
        ));
    }
}

/// A path for a note: a long one cut to its start and its count of levels.
fn shorten(path: &str) -> String {
    const SHOWN: usize = 60;
    if path.len() <= SHOWN {
        return format!("{path:?}");
    }
    let mut cut = SHOWN;
    while !path.is_char_boundary(cut) {
        cut -= 1;
    }
    format!("{:?}… ({} levels)", &path[..cut], path.split('/').count())
}
