use super::*;
use sha2::{Digest, Sha256};

fn key(ino: u64) -> Key {
    Key {
        at: StatVersion {
            dev: 1,
            ino,
            size: 10,
            mtime: (0, 0),
            ctime: (0, 0),
        },
        chain: vec![Kind::Html],
    }
}

fn text(len: usize) -> Arc<Conversion> {
    Arc::new(Conversion {
        text: Ok(Arc::new("x".repeat(len))),
        digest: String::new(),
        size: 10,
        mtime: (0, 0),
    })
}

fn small(bytes: usize, files: usize) -> Cache {
    Cache {
        limit_bytes: bytes,
        limit_files: files,
        ..Cache::default()
    }
}

#[test]
fn drops_the_least_recently_used_past_its_bytes() {
    let mut cache = small(3 * (1000 + 64), 100);
    for ino in 0..3 {
        cache.put(key(ino), text(1000));
    }
    assert!(cache.get(&key(0)).is_some(), "0 is now the most recent");
    cache.put(key(3), text(1000));
    assert!(
        cache.get(&key(1)).is_none(),
        "1 was the least recently used"
    );
    for ino in [0, 2, 3] {
        assert!(cache.get(&key(ino)).is_some(), "{ino} stays");
    }
    assert!(cache.bytes <= cache.limit_bytes);
    cache.put(key(9), text(10_000));
    assert!(
        cache.get(&key(9)).is_none(),
        "a text over the whole budget is not kept"
    );
    assert_eq!(cache.entries.len(), 3);
}

#[test]
fn holds_at_most_its_number_of_files() {
    let mut cache = small(usize::MAX, 50);
    for ino in 0..1000 {
        cache.put(key(ino), text(1));
    }
    assert_eq!(cache.entries.len(), 50);
    assert_eq!(cache.by_use.len(), 50);
    assert!(cache.get(&key(999)).is_some());
    assert!(cache.get(&key(949)).is_none());
    cache.put(key(999), text(5));
    assert_eq!(
        cache.bytes,
        49 * 65 + 69,
        "a replaced entry's bytes are given back"
    );
}

#[test]
fn a_file_is_converted_once_per_version() {
    let _pool = crate::pool::use_test_worker();
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("page.html");
    std::fs::write(&path, "<p>first</p>").unwrap();
    let open = || File::open(&path).unwrap();
    let first = converted(&open(), "page.html", &[Kind::Html]).unwrap();
    assert_eq!(first.text.as_deref().map(String::as_str), Ok("first\n"));
    assert_eq!(first.digest, hex::encode(Sha256::digest(b"<p>first</p>")));
    let again = converted(&open(), "page.html", &[Kind::Html]).unwrap();
    assert!(
        Arc::ptr_eq(&first, &again),
        "the second read comes from the cache"
    );
    // Same size, rewritten in place: the times move, so it is converted again.
    std::thread::sleep(std::time::Duration::from_millis(20));
    std::fs::write(&path, "<p>other</p>").unwrap();
    let changed = converted(&open(), "page.html", &[Kind::Html]).unwrap();
    assert_eq!(changed.text.as_deref().map(String::as_str), Ok("other\n"));
    // Another chain is another conversion.
    let refused = converted(&open(), "page.html", &[Kind::Pdf]).unwrap();
    assert!(refused.text.is_err());
}

#[test]
fn a_refusal_is_kept_so_a_scan_is_not_tried_again() {
    let _pool = crate::pool::use_test_worker();
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("scan.pdf");
    let scan = format!(
        "{}/../../spec/fixtures/documents/scan.pdf",
        env!("CARGO_MANIFEST_DIR")
    );
    std::fs::copy(scan, &path).unwrap();
    let first = converted(&File::open(&path).unwrap(), "scan.pdf", &[Kind::Pdf]).unwrap();
    assert_eq!(first.text.as_deref(), Err(&Refusal::NoText("PDF")));
    let again = converted(&File::open(&path).unwrap(), "scan.pdf", &[Kind::Pdf]).unwrap();
    assert!(Arc::ptr_eq(&first, &again));
}

#[test]
fn threads_wanting_one_version_at_once_share_one_conversion() {
    let _pool = crate::pool::use_test_worker();
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("shared.html");
    std::fs::write(&path, "<p>x</p>".repeat(200_000)).unwrap();
    let before = crate::pool::conversions();
    let start = std::sync::Barrier::new(6);
    let texts: Vec<_> = std::thread::scope(|s| {
        let threads: Vec<_> = (0..6)
            .map(|_| {
                s.spawn(|| {
                    start.wait();
                    converted(&File::open(&path).unwrap(), "shared.html", &[Kind::Html]).unwrap()
                })
            })
            .collect();
        threads.into_iter().map(|t| t.join().unwrap()).collect()
    });
    assert_eq!(crate::pool::conversions() - before, 1);
    assert!(texts.iter().all(|text| Arc::ptr_eq(text, &texts[0])));
}

#[test]
fn a_document_past_what_a_conversion_takes_is_refused_before_it_is_read() {
    // Sparse: 3 GB that take no disk, and that a read would put in memory whole.
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("big.pdf");
    let file = File::create(&path).unwrap();
    file.set_len(3 << 30).unwrap();
    let file = File::open(&path).unwrap();
    let conversion = converted(&file, "big.pdf", &[Kind::Pdf]).unwrap();
    let why = "the document is 3072 MB, more than the 256 MB a conversion takes";
    assert!(
        matches!(&conversion.text, Err(Refusal::Stopped(w)) if w == why),
        "{:?}",
        conversion.text
    );
    // Kept: asked again, the same answer, without a look at the bytes.
    assert!(Arc::ptr_eq(
        &converted(&file, "big.pdf", &[Kind::Pdf]).unwrap(),
        &conversion
    ));
    // Bytes handed in are held to it too, before a worker is asked.
    let bytes = vec![0u8; (pool::MAX_DOCUMENT_BYTES + 1) as usize];
    assert!(matches!(
        pool::convert(&[Kind::Pdf], &bytes).unwrap(),
        Err(Refusal::Stopped(_))
    ));
}

#[test]
fn a_files_version_is_the_digest_of_the_bytes_the_worker_read() {
    let _pool = pool::use_test_worker();
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("page.html");
    let html: String = (0..30_000).map(|n| format!("<p>{n}</p>")).collect();
    std::fs::write(&path, &html).unwrap();
    let file = File::open(&path).unwrap();
    let conversion = converted(&file, "page.html", &[Kind::Html]).unwrap();
    assert_eq!(
        conversion.digest,
        hex::encode(Sha256::digest(html.as_bytes()))
    );
    assert_eq!(conversion.size, html.len() as u64);
    assert!(conversion.text.as_ref().unwrap().starts_with("0\n1\n"));
}
