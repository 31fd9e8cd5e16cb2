use super::*;
use file_store_documents::cache;

fn opts(pattern: &str) -> SearchOptions {
    SearchOptions {
        pattern: pattern.into(),
        literal: false,
        ignore_case: false,
        context: 0,
        max_matches: 100,
    }
}

fn defaults() -> Arc<Plan> {
    Arc::new(Plan::new([
        ("application/pdf".to_string(), vec![Step::Native(Kind::Pdf)]),
        ("text/html".to_string(), vec![Step::Native(Kind::Html)]),
    ]))
}

fn fixture(name: &str) -> Vec<u8> {
    let path = format!("{}/../../spec/fixtures/{name}", env!("CARGO_MANIFEST_DIR"));
    std::fs::read(&path).unwrap()
}

fn folder(files: &[(&str, &[u8])]) -> (tempfile::TempDir, Arc<Root>) {
    let dir = tempfile::tempdir().unwrap();
    let root = Root::open(dir.path()).unwrap();
    for (path, bytes) in files {
        root.write(path, bytes).unwrap();
    }
    (dir, Arc::new(root))
}

#[test]
fn reading_follows_exact_type_then_family_then_any() {
    let plan = Plan::new([
        ("application/pdf".to_string(), vec![Step::Native(Kind::Pdf)]),
        ("image/*".to_string(), vec![Step::Caller]),
        (
            "text/html".to_string(),
            vec![Step::Native(Kind::Html), Step::Caller],
        ),
    ]);
    assert_eq!(
        plan.reading("application/pdf"),
        Reading::Native(vec![Kind::Pdf])
    );
    assert_eq!(plan.reading("image/png"), Reading::Caller);
    assert_eq!(plan.reading("text/html"), Reading::Caller);
    assert_eq!(plan.reading("text/plain"), Reading::AsIs);
    let any = Plan::new([("*/*".to_string(), vec![Step::Native(Kind::Html)])]);
    assert_eq!(any.reading("text/plain"), Reading::Native(vec![Kind::Html]));
    // Each key's list in turn, each once however the type is written.
    let all = Plan::new([
        ("*/*".to_string(), vec![Step::Native(Kind::Html)]),
        ("text/*".to_string(), vec![Step::Native(Kind::Pdf)]),
        ("text/csv".to_string(), vec![Step::Native(Kind::Html)]),
    ]);
    let chain = |kinds: &[Kind]| Reading::Native(kinds.to_vec());
    assert_eq!(
        all.reading("text/csv"),
        chain(&[Kind::Html, Kind::Pdf, Kind::Html])
    );
    assert_eq!(all.reading("text/plain"), chain(&[Kind::Pdf, Kind::Html]));
    assert_eq!(all.reading("text/*"), chain(&[Kind::Pdf, Kind::Html]));
    assert_eq!(all.reading("*/*"), chain(&[Kind::Html]));
    assert_eq!(all.reading("image/png"), chain(&[Kind::Html]));
}

#[test]
fn searches_converted_text_and_says_what_it_skipped() {
    let _pool = file_store_documents::pool::use_test_worker();
    let report = fixture("documents/report.pdf");
    let scan = fixture("documents/scan.pdf");
    let (_dir, root) = folder(&[
        ("a.txt", b"Revenue grew\n"),
        ("blob.bin", b"Revenue\0binary"),
        ("chart.png", b"\x89PNG Revenue"),
        ("report.pdf", &report),
        ("scan.pdf", &scan),
        (
            "page.html",
            b"<p>Revenue <b>page</b></p><script>Revenue()</script>",
        ),
    ]);
    let (out, count) =
        search_tree(&root, None, &opts("Revenue"), &defaults(), HashMap::new()).unwrap();
    assert_eq!(count, 6);
    assert!(
        out.text
            .starts_with("a.txt:1: Revenue grew\npage.html:1: Revenue page\n"),
        "{}",
        out.text
    );
    assert!(
        out.text.contains("report.pdf:"),
        "the PDF's text is searched: {}",
        out.text
    );
    assert!(!out.text.contains("Revenue()"), "the script is not text");
    let skipped: Vec<(&str, &str)> = out
        .skipped_shown
        .iter()
        .map(|(p, w)| (p.as_str(), w.as_str()))
        .collect();
    assert_eq!(
        skipped,
        [
            ("blob.bin", "is binary"),
            ("chart.png", "has no text converter"),
            ("scan.pdf", "gave no text (the PDF has no text)"),
        ]
    );
    assert_eq!(out.skipped, 3);
}

#[test]
fn a_second_search_reads_the_cached_text() {
    let _pool = file_store_documents::pool::use_test_worker();
    let report = fixture("documents/report.pdf");
    let (_dir, root) = folder(&[("report.pdf", &report)]);
    let first = search_tree(&root, None, &opts("."), &defaults(), HashMap::new()).unwrap();
    let file = root.open_file("report.pdf").unwrap();
    let cached = cache::converted(&file, "report.pdf", &[Kind::Pdf]).unwrap();
    let again = cache::converted(&file, "report.pdf", &[Kind::Pdf]).unwrap();
    assert!(Arc::ptr_eq(&cached, &again));
    let second = search_tree(&root, None, &opts("."), &defaults(), HashMap::new()).unwrap();
    assert_eq!(first.0, second.0);
    // A new version is converted anew.
    root.write("report.pdf", b"<not a pdf>").unwrap();
    let (out, _) = search_tree(&root, None, &opts("."), &defaults(), HashMap::new()).unwrap();
    assert_eq!(out.skipped_shown[0].0, "report.pdf");
    assert!(
        out.skipped_shown[0]
            .1
            .starts_with("gave no text (not a readable PDF"),
        "{:?}",
        out.skipped_shown
    );
}

#[test]
fn a_callers_texts_are_searched_in_place_of_the_files() {
    let _pool = file_store_documents::pool::use_test_worker();
    let (_dir, root) = folder(&[
        ("notes.rtf", b"{\\rtf1 secret}"),
        ("other.rtf", b"{\\rtf1 x}"),
        ("plain.txt", b"secret\n"),
    ]);
    let plan = Arc::new(Plan::new([(
        "application/rtf".to_string(),
        vec![Step::Caller],
    )]));
    assert_eq!(
        caller_paths(&root, None, &plan).unwrap(),
        ["notes.rtf", "other.rtf"]
    );
    let given = HashMap::from([
        (
            "notes.rtf".to_string(),
            Ok(Arc::from(&b"the secret clause\n"[..])),
        ),
        ("other.rtf".to_string(), Err("gave no text".to_string())),
    ]);
    let (out, count) = search_tree(&root, None, &opts("secret"), &plan, given).unwrap();
    assert_eq!(
        out.text,
        "notes.rtf:1: the secret clause\nplain.txt:1: secret\n"
    );
    assert_eq!(count, 3);
    assert_eq!(
        out.skipped_shown,
        [("other.rtf".to_string(), "gave no text".to_string())]
    );
}

#[test]
fn names_at_most_ten_skipped_files_and_counts_the_rest() {
    let _pool = file_store_documents::pool::use_test_worker();
    let files: Vec<(String, Vec<u8>)> = (0..25)
        .map(|i| (format!("img/{i:02}.png"), b"\x89PNG".to_vec()))
        .collect();
    let borrowed: Vec<(&str, &[u8])> = files
        .iter()
        .map(|(p, b)| (p.as_str(), b.as_slice()))
        .collect();
    let (_dir, root) = folder(&borrowed);
    let (out, count) =
        search_tree(&root, Some("img"), &opts("x"), &defaults(), HashMap::new()).unwrap();
    assert_eq!((count, out.skipped, out.skipped_shown.len()), (25, 25, 10));
    assert_eq!(out.skipped_shown[9].0, "img/09.png");
}

#[test]
fn the_kept_type_decides_over_the_name() {
    let _pool = file_store_documents::pool::use_test_worker();
    let report = fixture("documents/report.pdf");
    let dir = tempfile::tempdir().unwrap();
    let root = Root::open(dir.path()).unwrap();
    root.write_typed("contract", &report, Some("application/pdf".into()))
        .unwrap();
    root.write("unnamed", &report).unwrap();
    let root = Arc::new(root);
    let (out, _) = search_tree(&root, None, &opts("."), &defaults(), HashMap::new()).unwrap();
    assert!(
        out.text.contains("unnamed:"),
        "sniffed as a PDF: {}",
        out.text
    );
    if file_store_folder::Root::open(dir.path())
        .unwrap()
        .stat("contract")
        .unwrap()
        .unwrap()
        .content_type
        == "application/pdf"
    {
        assert!(out.text.contains("contract:"), "{}", out.text);
    }
}

/// The files are searched as the walk finds them, and shown in path order, a
/// folder's files where its name and a `/` sort.
#[test]
fn shows_files_in_path_order_around_folders() {
    let _pool = file_store_documents::pool::use_test_worker();
    let (_dir, root) = folder(&[
        ("a0", b"x\n"),
        ("a/x", b"x\n"),
        ("a-b", b"x\n"),
        ("a.b/x", b"x\n"),
        ("a/b/c/x", b"x\n"),
        ("a/b-c", b"x\n"),
    ]);
    let (out, count) = search_tree(&root, None, &opts("x"), &defaults(), HashMap::new()).unwrap();
    assert_eq!(count, 6);
    assert_eq!(
        out.text,
        "a-b:1: x\na.b/x:1: x\na/b-c:1: x\na/b/c/x:1: x\na/x:1: x\na0:1: x\n"
    );
}
