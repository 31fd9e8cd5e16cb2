//! Long tool results saved as files: the saved text (JSON pretty-printed one value per
//! line, so a model reads and greps it by line), its path, and what the model sees in
//! its place.

use sha2::{Digest, Sha256};

use crate::path::sanitize_part;

/// How many characters of a spilled result the model sees.
pub const PREVIEW_CHARS: usize = 2000;

/// A tool result moved to a file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Spilled {
    /// What is saved: the result, or its JSON pretty-printed.
    pub saved: String,
    /// Where it is saved: `results/<tool>-<8 hex>.json` or `.txt`.
    pub path: String,
    /// What the model gets: the start of `saved` and a note saying where the rest is.
    pub preview: String,
}

/// `text` pretty-printed, one value per line with keys in their order, when it is a
/// JSON object or array; `None` otherwise.
pub fn pretty_json(text: &str) -> Option<String> {
    let trimmed = text.trim_start();
    if !(trimmed.starts_with('{') || trimmed.starts_with('[')) {
        return None;
    }
    let value: serde_json::Value = serde_json::from_str(text).ok()?;
    serde_json::to_string_pretty(&value).ok()
}

/// The spilled form of `result`, returned by the tool `tool`.
pub fn spill(tool: &str, result: &str) -> Spilled {
    let (saved, extension) = match pretty_json(result) {
        Some(pretty) => (pretty, "json"),
        None => (result.to_string(), "txt"),
    };
    let digest = hex::encode(Sha256::digest(saved.as_bytes()));
    let path = format!(
        "results/{}-{}.{extension}",
        sanitize_part(tool),
        &digest[..8]
    );
    let total = saved.chars().count();
    let start = match saved.char_indices().nth(PREVIEW_CHARS) {
        Some((index, _)) => &saved[..index],
        None => saved.as_str(),
    };
    let preview = format!(
        "{start}\n\n[This result has {total} characters, so only the start is shown. All of it is in\n\
         {path}: read more with read_file, or search it with search_files.]"
    );
    Spilled {
        saved,
        path,
        preview,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pretty_prints_json_one_value_per_line_keeping_key_order() {
        let pretty = pretty_json(r#"{"zeta":1,"alpha":[true,null,"x"]}"#).unwrap();
        assert_eq!(
            pretty,
            "{\n  \"zeta\": 1,\n  \"alpha\": [\n    true,\n    null,\n    \"x\"\n  ]\n}"
        );
        assert_eq!(pretty_json("plain words"), None);
        assert_eq!(pretty_json("{not json"), None);
        assert_eq!(pretty_json("42"), None);
    }

    #[test]
    fn names_the_file_after_the_sanitised_tool_and_the_content() {
        let spilled = spill("search/../drive", "x".repeat(3000).as_str());
        assert!(
            spilled.path.starts_with("results/search____drive-"),
            "{}",
            spilled.path
        );
        assert!(spilled.path.ends_with(".txt"));
        assert_eq!(spilled.path.len(), "results/search____drive-".len() + 8 + 4);
        assert_eq!(
            spill("t", r#"{"a":1}"#).path.rsplit('.').next(),
            Some("json")
        );
        assert_eq!(spill("t", "same").path, spill("t", "same").path);
    }

    #[test]
    fn previews_the_first_characters_and_says_where_the_rest_is() {
        let text = "é".repeat(2500);
        let spilled = spill("export", &text);
        assert!(spilled.preview.starts_with(&"é".repeat(2000)));
        assert!(!spilled.preview.starts_with(&"é".repeat(2001)));
        assert!(spilled.preview.ends_with(&format!(
            "[This result has 2500 characters, so only the start is shown. All of it is in\n{}: read more with read_file, or search it with search_files.]",
            spilled.path
        )));
        assert_eq!(spilled.saved, text);
    }
}
