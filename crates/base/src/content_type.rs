//! Content types: from the file name, and from the first bytes when the name says nothing.

/// Types the name alone decides better than mime_guess does for the files a chat holds.
const OVERRIDES: &[(&str, &str)] = &[
    ("md", "text/markdown"),
    ("markdown", "text/markdown"),
    ("ts", "text/typescript"),
    ("tsx", "text/typescript"),
    ("rb", "text/x-ruby"),
    ("py", "text/x-python"),
    ("rs", "text/x-rust"),
    ("go", "text/x-go"),
    ("yml", "application/yaml"),
    ("yaml", "application/yaml"),
    ("jsonl", "application/jsonl"),
    ("ndjson", "application/jsonl"),
    ("log", "text/plain"),
    ("toml", "application/toml"),
    // Flat OpenDocument files: XML, but read by the office converter.
    ("fodt", "application/vnd.oasis.opendocument.text-flat-xml"),
    (
        "fods",
        "application/vnd.oasis.opendocument.spreadsheet-flat-xml",
    ),
    (
        "fodp",
        "application/vnd.oasis.opendocument.presentation-flat-xml",
    ),
    ("srt", "application/x-subrip"),
];

/// Types that hold text although they are not `text/*`.
pub const TEXT_TYPES: &[&str] = &[
    "application/json",
    "application/jsonl",
    "application/x-ndjson",
    "application/xml",
    "application/yaml",
    "application/x-yaml",
    "application/toml",
    "application/javascript",
    "application/x-javascript",
    "application/ecmascript",
    "application/typescript",
    "application/sql",
    "application/x-sh",
    "application/x-shellscript",
    "application/x-subrip",
    "application/csv",
    "application/x-httpd-php",
    "application/graphql",
    "application/ld+json",
    "application/xhtml+xml",
    "image/svg+xml",
];

/// Whether files of `content_type` hold text: `Some(true)` for text types,
/// `None` for a type that says nothing (the bytes decide), `Some(false)` otherwise.
pub fn holds_text(content_type: &str) -> Option<bool> {
    if content_type.starts_with("text/") || TEXT_TYPES.contains(&content_type) {
        Some(true)
    } else if content_type.is_empty() || content_type == "application/octet-stream" {
        None
    } else {
        Some(false)
    }
}

/// The content type the file name says, or `None` when it says nothing.
pub fn from_name(name: &str) -> Option<String> {
    let file = name.rsplit('/').next().unwrap_or(name);
    let (_, ext) = file.rsplit_once('.').filter(|(stem, _)| !stem.is_empty())?;
    // A folder's files mostly share a few extensions: the last one looked up on
    // this thread is answered again without a search of mime_guess's table.
    LAST_LOOKED_UP.with_borrow_mut(|last| {
        if last.0 != ext {
            *last = (ext.to_string(), by_extension(ext));
        }
        last.1.map(str::to_string)
    })
}

thread_local! {
    static LAST_LOOKED_UP: std::cell::RefCell<(String, Option<&'static str>)> =
        const { std::cell::RefCell::new((String::new(), None)) };
}

/// The content type of the extension `ext`, in any case.
fn by_extension(ext: &str) -> Option<&'static str> {
    let ext = ext.to_ascii_lowercase();
    if let Some((_, ty)) = OVERRIDES.iter().find(|(e, _)| *e == ext) {
        return Some(ty);
    }
    mime_guess::from_ext(&ext).first_raw()
}

/// The content type the first bytes show: a known signature, else `text/plain` for
/// bytes without a NUL, else `application/octet-stream`. Empty content is text.
pub fn from_content(head: &[u8]) -> String {
    if let Some(kind) = infer::get(head) {
        return kind.mime_type().to_string();
    }
    if head.contains(&0) {
        "application/octet-stream".to_string()
    } else {
        "text/plain".to_string()
    }
}

/// The content type of a file called `name` that starts with `head`: the name
/// decides when it can, the bytes otherwise.
pub fn detect(name: &str, head: &[u8]) -> String {
    from_name(name).unwrap_or_else(|| from_content(head))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_decide_first() {
        assert_eq!(detect("report.pdf", b""), "application/pdf");
        assert_eq!(detect("notes/plan.md", b""), "text/markdown");
        assert_eq!(detect("data.JSON", b""), "application/json");
        assert_eq!(detect("photo.png", b"not a png"), "image/png");
        assert_eq!(detect("app.ts", b""), "text/typescript");
        assert_eq!(detect("table.csv", b""), "text/csv");
        // The last extension looked up is answered again, in its own case too.
        assert_eq!(detect("b.CSV", b""), "text/csv");
        assert_eq!(detect("notes.", b"plain"), "text/plain");
        assert_eq!(detect("c.csv", b""), "text/csv");
    }

    #[test]
    fn tells_which_types_hold_text() {
        assert_eq!(holds_text("text/markdown"), Some(true));
        assert_eq!(holds_text("application/json"), Some(true));
        assert_eq!(holds_text("application/octet-stream"), None);
        assert_eq!(holds_text("image/png"), Some(false));
    }

    #[test]
    fn bytes_decide_when_the_name_says_nothing() {
        assert_eq!(detect("scan", b"%PDF-1.7\n"), "application/pdf");
        assert_eq!(
            detect("image", b"\x89PNG\r\n\x1a\n\0\0\0\rIHDR"),
            "image/png"
        );
        assert_eq!(detect("README", "ไทย 日本語".as_bytes()), "text/plain");
        assert_eq!(detect("blob", b"\x00\x01\x02"), "application/octet-stream");
        assert_eq!(detect(".env", b"KEY=1"), "text/plain");
        assert_eq!(detect("Makefile", b""), "text/plain");
    }
}
