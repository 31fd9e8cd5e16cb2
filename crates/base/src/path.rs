//! Paths inside a store: the rules of `FileStore.path`, file-name de-duplication and
//! the names of spilled tool results.

use crate::error::{Error, Result};

/// Returns `name` as a path inside a store: relative, with forward slashes, with a
/// leading `./` or `/` and repeated slashes removed.
///
/// Refuses an empty name, `.` or `..` parts after the leading ones, a character
/// that is no part of a name ([`unnamable`]), and
/// a path in one of the gem's own folders (`.ruby_llm_index`, `.ruby_llm_removing`); and
/// as too long, a path over `MAX_PATH_BYTES`, a part over `MAX_PART_BYTES`, or more
/// than `tree::MAX_DEPTH` parts.
pub fn normalize(name: &str) -> Result<String> {
    if name.len() > MAX_PATH_BYTES
        || name
            .split(['/', '\\'])
            .any(|part| part.len() > MAX_PART_BYTES)
    {
        return Err(Error::PathTooLong(brief(name)));
    }
    let unified = name.replace('\\', "/");
    let mut parts: Vec<&str> = unified.split('/').filter(|p| !p.is_empty()).collect();
    let leading_dots = parts.iter().take_while(|p| **p == ".").count();
    parts.drain(..leading_dots);
    let refused = parts.is_empty()
        || parts.iter().any(|p| *p == "." || *p == "..")
        || name.chars().any(unnamable);
    // The gem's own folders (`removing`): a run never sees into them, and the
    // stores keep their index there.
    let the_gems = parts
        .first()
        .is_some_and(|first| crate::removing::GEMS_FOLDERS.contains(first));
    if refused || the_gems {
        return Err(Error::InvalidPath(name.to_string()));
    }
    // The depth past which no walk looks, and past which a run's repair removes
    // what it finds: the store keeps to the same rule.
    if parts.len() > crate::tree::MAX_DEPTH {
        return Err(Error::PathTooLong(brief(name)));
    }
    Ok(parts.join("/"))
}

/// Whether `c` is no part of a name a store takes: a control character (C0, DEL
/// and C1, NEL among them), which no file name a person types contains, or a line
/// or paragraph separator. Each breaks a line where a reader of the tools' answers
/// (the model, a log) breaks lines, so a name holding one could pass for two
/// lines of a listing or a search.
pub fn unnamable(c: char) -> bool {
    c.is_control() || c == '\u{2028}' || c == '\u{2029}'
}

/// The longest path a store takes, in bytes: Linux's `PATH_MAX`.
pub const MAX_PATH_BYTES: usize = 4096;
/// The longest part of a path, in bytes: `NAME_MAX` of common file systems.
pub const MAX_PART_BYTES: usize = 255;

/// `name` quoted for a message, cut after 100 characters with its length said.
pub fn brief(name: &str) -> String {
    match name.char_indices().nth(100) {
        None => format!("{name:?}"),
        Some((cut, _)) => format!("{:?}… ({} bytes)", &name[..cut], name.len()),
    }
}

/// Whether any part of a normalised path is hidden (starts with a dot).
pub fn hidden(path: &str) -> bool {
    path.split('/').any(|part| part.starts_with('.'))
}

/// How a store sees a name met in one of its folders: the one rule of what every
/// walk of a store's folder shows, the listing and the search (`dir::walk`, which
/// neither list nor enter anything but [`Seen::Listed`]) and a run's snapshot
/// (`snapshot`, which keeps the rest apart), so what a run is said to have made is
/// what a listing then shows, and what a listing shows is a path the store takes.
/// Links and other entries that are not regular files or folders are each walk's own
/// to leave out: a walk never follows a link.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Seen {
    /// A name a store path holds, in a folder where its path is one the store takes.
    Listed,
    /// A hidden name (a leading dot): the store's own files, such as its writes'
    /// temporary files and its lock, and what a person hides.
    Hidden,
    /// A name no store path holds: not UTF-8, with a control character or a
    /// backslash (which [`normalize`] refuses, or reads as a `/`), or whose path
    /// would be longer than [`MAX_PATH_BYTES`] or deeper than `tree::MAX_DEPTH`.
    Unnamed,
}

/// How a store sees the name `name` in its folder `folder` (`""` for the top).
pub fn seen(folder: &str, name: &[u8]) -> Seen {
    let Ok(name) = std::str::from_utf8(name) else {
        return Seen::Unnamed;
    };
    if name.starts_with('.') {
        return Seen::Hidden;
    }
    let (bytes, parts) = match folder {
        "" => (name.len(), 1),
        _ => (folder.len() + 1 + name.len(), parts_of(folder) + 1),
    };
    let refused = name.chars().any(|c| unnamable(c) || c == '\\');
    if refused || bytes > MAX_PATH_BYTES || parts > crate::tree::MAX_DEPTH {
        return Seen::Unnamed;
    }
    Seen::Listed
}

/// Whether a walk goes into the folder at `folder`, a path [`seen`] lists: only
/// where a name in it can still be listed, one level and one byte further down.
pub fn enters(folder: &str) -> bool {
    folder.len() + 1 < MAX_PATH_BYTES && parts_of(folder) < crate::tree::MAX_DEPTH
}

/// How a store sees the path `path` (names joined with `/`) a walk met, `lossy`
/// when a name on the way was not UTF-8 (and is shown with U+FFFD): unnamed then,
/// else hidden when a name on the way is, else unnamed when one is, else listed.
pub fn seen_path(path: &str, lossy: bool) -> Seen {
    if lossy {
        return Seen::Unnamed;
    }
    let mut seen_so_far = Seen::Listed;
    let mut end: usize = 0;
    for part in path.split('/') {
        let folder = &path[..end.saturating_sub(1)];
        match seen(folder, part.as_bytes()) {
            Seen::Hidden => return Seen::Hidden,
            Seen::Unnamed => seen_so_far = Seen::Unnamed,
            Seen::Listed => {}
        }
        end += part.len() + 1;
    }
    seen_so_far
}

fn parts_of(folder: &str) -> usize {
    memchr::memchr_iter(b'/', folder.as_bytes()).count() + 1
}

/// The `n`th name for a file called `name` (n >= 2): `report.pdf` becomes
/// `report-2.pdf`, `archive.tar.gz` becomes `archive-2.tar.gz`, `README` `README-2`.
pub fn numbered(name: &str, n: usize) -> String {
    let (folder, file) = match name.rfind('/') {
        Some(i) => (&name[..=i], &name[i + 1..]),
        None => ("", name),
    };
    let stem_end = match file.find('.') {
        Some(0) | None => file.len(),
        Some(i) => i,
    };
    format!("{folder}{}-{n}{}", &file[..stem_end], &file[stem_end..])
}

/// Turns any text into a safe single file-name part: letters, digits, `_` and `-`
/// kept, everything else `_`, at most 64 characters, never empty.
pub fn sanitize_part(text: &str) -> String {
    let cleaned: String = text
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '-' || c == '_' {
                c
            } else {
                '_'
            }
        })
        .take(64)
        .collect();
    if cleaned.is_empty() {
        "result".to_string()
    } else {
        cleaned
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn normalizes_the_examples() {
        assert_eq!(normalize("./reports//q3.pdf").unwrap(), "reports/q3.pdf");
        assert_eq!(normalize("/abs/file.txt").unwrap(), "abs/file.txt");
        assert_eq!(normalize("a\\b\\c.txt").unwrap(), "a/b/c.txt");
        assert_eq!(normalize("././x").unwrap(), "x");
        assert_eq!(normalize("notes/").unwrap(), "notes");
    }

    #[test]
    fn keeps_names_that_merely_contain_dots_or_brackets() {
        assert_eq!(normalize("[...nextauth].ts").unwrap(), "[...nextauth].ts");
        assert_eq!(normalize("v1..2.txt").unwrap(), "v1..2.txt");
        assert_eq!(normalize(".env").unwrap(), ".env");
        assert_eq!(normalize("résumé ✓.md").unwrap(), "résumé ✓.md");
    }

    #[test]
    fn refuses_escapes_and_control_characters() {
        for bad in [
            "",
            "/",
            ".",
            "./",
            "..",
            "../x",
            "a/../b",
            "a/./b",
            "a/..",
            "x\u{0}y",
            "a\nb",
            "tab\there",
            "\u{1f}",
            "del\u{7f}",
            "next\u{85}line.md",
            "x\u{2028}fake.md:1: y.md",
            "para\u{2029}graph",
            ".ruby_llm_index/passages",
            "./.ruby_llm_removing",
            ".ruby_llm_index",
        ] {
            let err = normalize(bad).unwrap_err();
            assert!(
                matches!(err, Error::InvalidPath(ref n) if n == bad),
                "{bad:?}"
            );
            assert!(err
                .to_string()
                .ends_with("is not a path inside the chat's files"));
        }
    }

    #[test]
    fn sees_a_name_with_a_break_in_it_as_no_name() {
        for name in [
            "a\nb.md",
            "x\u{2028}fake.md:1: y.md",
            "n\u{85}l",
            "del\u{7f}",
        ] {
            assert_eq!(seen("", name.as_bytes()), Seen::Unnamed, "{name:?}");
            assert_eq!(seen("docs", name.as_bytes()), Seen::Unnamed, "{name:?}");
        }
        assert_eq!(seen("docs", "résumé ✓.md".as_bytes()), Seen::Listed);
    }

    #[test]
    fn takes_the_gems_names_below_the_top_and_names_like_them() {
        for good in [
            "notes/.ruby_llm_index",
            ".ruby_llm_indexes/a",
            "ruby_llm_index",
        ] {
            assert_eq!(normalize(good).unwrap(), good);
        }
    }

    #[test]
    fn refuses_paths_deeper_than_a_walk_looks() {
        let deepest = vec!["d"; crate::tree::MAX_DEPTH].join("/");
        assert_eq!(normalize(&deepest).unwrap(), deepest);
        let deeper = format!("{deepest}/f");
        assert!(matches!(normalize(&deeper), Err(Error::PathTooLong(_))));
    }

    #[test]
    fn refuses_paths_longer_than_file_systems_take() {
        let part = "a".repeat(255);
        let deep = vec![part.as_str(); 16].join("/");
        assert_eq!(normalize(&deep).unwrap().len(), 4095);
        for long in [
            "a".repeat(256),
            format!("{deep}/b"),
            format!("x/{}", "é".repeat(128)),
        ] {
            let err = normalize(&long).unwrap_err();
            assert!(matches!(err, Error::PathTooLong(_)), "{}", long.len());
            assert!(err.to_string().len() < 300);
        }
    }

    #[test]
    fn detects_hidden_parts() {
        assert!(hidden(".env"));
        assert!(hidden("a/.git/config"));
        assert!(!hidden("a/b.c/d"));
    }

    #[test]
    fn numbers_duplicate_names() {
        assert_eq!(numbered("report.pdf", 2), "report-2.pdf");
        assert_eq!(numbered("archive.tar.gz", 3), "archive-3.tar.gz");
        assert_eq!(numbered("README", 2), "README-2");
        assert_eq!(numbered("docs/a.md", 2), "docs/a-2.md");
        assert_eq!(numbered(".env", 2), ".env-2");
    }

    #[test]
    fn sanitizes_parts() {
        assert_eq!(sanitize_part("search_drive"), "search_drive");
        assert_eq!(sanitize_part("../../etc/passwd"), "______etc_passwd");
        assert_eq!(sanitize_part(""), "result");
        assert_eq!(sanitize_part(&"x".repeat(100)).len(), 64);
    }
}
