//! The index's mechanics: ranking, replacing and removing a file's passages,
//! compaction, bounds and cancellation.

use file_store_rank::{Index, MAX_FILE_BYTES, MAX_LIMIT, MAX_PASSAGES};

const MANUAL: &str = "# Connections\n\nThe server listens on port 5432 by default.\n\n\
# Timeouts\n\nstatement_timeout: abort any statement that takes more than the specified amount of time.\n\n\
# Logging\n\nLog lines go to stderr unless a log file is set.\n";

#[test]
fn the_answering_passage_comes_first_with_its_lines() {
    let mut index = Index::new();
    index.put("manual.md", "v1", MANUAL).unwrap();
    index
        .put(
            "other.md",
            "v1",
            "Nothing about statements here, only a statement.\n",
        )
        .unwrap();
    let hits = index
        .search("how do I abort a statement that runs too long? timeout", 5)
        .unwrap();
    assert_eq!(hits[0].path, "manual.md");
    assert_eq!((hits[0].first_line, hits[0].last_line), (5, 7));
    assert!(hits[0].text.contains("abort any statement"));
    assert!(hits.windows(2).all(|w| w[0].score >= w[1].score));
}

#[test]
fn putting_a_file_again_replaces_its_passages_and_version() {
    let mut index = Index::new();
    index.put("a.md", "v1", "the old walrus text\n").unwrap();
    index.put("a.md", "v2", "the new penguin text\n").unwrap();
    assert_eq!(index.version("a.md"), Some("v2"));
    assert!(index.search("walrus", 10).unwrap().is_empty());
    assert_eq!(index.search("penguin", 10).unwrap().len(), 1);
    assert_eq!(index.passages(), 1);
}

#[test]
fn a_removed_file_is_never_found_even_after_compaction() {
    let mut index = Index::new();
    index.put("keep.md", "v", "a kept zebra\n").unwrap();
    for round in 0..3 {
        for i in 0..3000 {
            index
                .put(
                    &format!("f{i}.md"),
                    "v",
                    &format!("zebra number {i} round {round}\n"),
                )
                .unwrap();
        }
        for i in 0..3000 {
            assert!(index.remove(&format!("f{i}.md")));
        }
    }
    let hits = index.search("zebra", 10).unwrap();
    assert_eq!(hits.len(), 1);
    assert_eq!(hits[0].path, "keep.md");
    assert_eq!(index.paths(), ["keep.md"]);
    assert!(!index.remove("f1.md"));
}

#[test]
fn a_question_with_no_known_word_finds_nothing() {
    let mut index = Index::new();
    index.put("a.md", "v", "some text\n").unwrap();
    assert!(index.search("the of and", 10).unwrap().is_empty());
    assert!(index.search("", 10).unwrap().is_empty());
    assert!(Index::new().search("text", 10).unwrap().is_empty());
}

#[test]
fn the_limit_is_bounded() {
    let mut index = Index::new();
    let text: String = (0..500)
        .map(|i| format!("# H{i}\nelephant {i}\n"))
        .collect();
    index.put("a.md", "v", &text).unwrap();
    assert_eq!(index.search("elephant", 10_000).unwrap().len(), MAX_LIMIT);
    assert_eq!(index.search("elephant", 0).unwrap().len(), 1);
}

#[test]
fn a_file_past_the_byte_bound_is_indexed_in_part_with_a_note() {
    let mut index = Index::new();
    let line = "alpha beta gamma delta\n\n";
    let mut text = line.repeat(MAX_FILE_BYTES / line.len() + 10);
    text.push_str("omega\n");
    let put = index.put("big.md", "v", &text).unwrap();
    assert!(put.note.unwrap().contains("first 16777216 bytes"));
    assert!(index.search("omega", 10).unwrap().is_empty());
    assert!(!index.search("gamma", 10).unwrap().is_empty());
}

#[test]
fn an_index_past_the_passage_bound_refuses_the_rest_with_a_note() {
    let mut index = Index::new();
    let many: String = (0..MAX_PASSAGES + 5).map(|i| format!("# {i}\n")).collect();
    let put = index.put("many.md", "v", &many).unwrap();
    assert_eq!(put.passages, MAX_PASSAGES);
    assert!(put.note.unwrap().contains("passages are indexed"));
    let put = index.put("more.md", "v", "# one more\n").unwrap();
    assert_eq!(put.passages, 0);
    assert!(put.note.unwrap().contains("first 0 passages"));
    index.remove("many.md");
    assert_eq!(
        index.put("more.md", "v", "# one more\n").unwrap().passages,
        1
    );
}

#[test]
fn a_cancelled_put_changes_nothing() {
    use std::sync::atomic::AtomicBool;
    use std::sync::Arc;
    let mut index = Index::new();
    index.put("a.md", "v1", "first tapir\n").unwrap();
    let flag = Arc::new(AtomicBool::new(true));
    let result = file_store_base::cancel::with_flag(Some(flag), || {
        index.put("a.md", "v2", "second okapi\n")
    });
    assert!(result.is_err());
    assert_eq!(index.version("a.md"), Some("v1"));
    assert_eq!(index.search("tapir", 10).unwrap().len(), 1);
}

#[test]
fn a_text_with_a_nul_byte_has_no_passages() {
    let mut index = Index::new();
    assert_eq!(
        index.put("blob.bin", "v", "zebra\0zebra").unwrap().passages,
        0
    );
    assert!(index.search("zebra", 10).unwrap().is_empty());
    assert_eq!(index.version("blob.bin"), Some("v"));
}

#[test]
fn a_folder_narrows_the_passages_before_they_are_ranked() {
    let mut index = Index::new();
    // More strong passages outside the folder than one search returns.
    for n in 0..(MAX_LIMIT + 20) {
        let text = format!("# Walrus {n}\n\nwalrus walrus walrus tusks\n");
        index
            .put(&format!("zoo/walrus-{n}.md"), "v1", &text)
            .unwrap();
    }
    index
        .put(
            "docs/guide.md",
            "v1",
            "A note that names a walrus once among many other words.\n",
        )
        .unwrap();
    index
        .put("docs-old/guide.md", "v1", "walrus walrus walrus\n")
        .unwrap();
    // Ranked over every file, the folder's one passage is not among the best.
    assert!(index
        .search("walrus", MAX_LIMIT)
        .unwrap()
        .iter()
        .all(|hit| hit.path != "docs/guide.md"));
    for folder in ["docs", "docs/", "docs/guide.md"] {
        let hits = index.search_within("walrus", 10, Some(folder)).unwrap();
        let paths: Vec<&str> = hits.iter().map(|hit| hit.path.as_str()).collect();
        assert_eq!(paths, ["docs/guide.md"], "within {folder}");
    }
    assert!(index
        .search_within("walrus", 10, Some("nowhere"))
        .unwrap()
        .is_empty());
}

/// Of two passages that answer alike, the one in a file about the question comes
/// first: a page on timeouts against one passage on them in a page on other things.
#[test]
fn a_passage_in_a_file_about_the_question_comes_first() {
    let mut index = Index::new();
    let about = "# Part\n\nA timeout ends a slow query.\n\n\
## Settings\n\nEach query timeout is in seconds.\n\n\
## Errors\n\nA slow query timeout raises an error.\n";
    let aside = "# Part\n\nA timeout ends a slow query, any slow query.\n\n\
## Colours\n\nThe theme is blue.\n\n## Fonts\n\nThe font is serif.\n";
    index.put("one.md", "v1", aside).unwrap();
    index.put("two.md", "v1", about).unwrap();
    let hits = index.search("timeout slow query", 5).unwrap();
    assert_eq!(hits[0].path, "two.md", "{hits:?}");
}

/// A file's path and title count for each of its passages.
#[test]
fn a_files_path_and_title_count_for_its_passages() {
    let mut index = Index::new();
    index
        .put(
            "howto/sorting.md",
            "v1",
            "# Sorting\n\nUse a key.\n\n## Stability\n\nOrder is kept.\n",
        )
        .unwrap();
    index
        .put("notes.md", "v1", "Order is kept, as promised.\n")
        .unwrap();
    let hits = index.search("howto order kept", 5).unwrap();
    assert_eq!(hits[0].path, "howto/sorting.md", "{hits:?}");
    assert_eq!((hits[0].first_line, hits[0].last_line), (5, 7));
}
