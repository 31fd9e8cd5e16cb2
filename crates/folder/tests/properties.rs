//! Properties over random input: edits change exactly their span, and no path,
//! however made, reaches outside the store or panics.

use file_store_base::{edit, path};
use file_store_folder::Root;
use proptest::prelude::*;

/// Bytes with no `@` in them, so a marker made of `@` is unique.
fn bytes_without_marker() -> impl Strategy<Value = Vec<u8>> {
    proptest::collection::vec(any::<u8>().prop_filter("no @", |b| *b != b'@'), 0..2000)
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(512))]

    #[test]
    fn an_edit_changes_its_span_and_no_other_byte(
        before in bytes_without_marker(),
        after in bytes_without_marker(),
        marker in "@[a-z\u{e9}\u{1F600}]{0,8}@",
        new_text in "[^@]{0,40}",
    ) {
        let content = [before.as_slice(), marker.as_bytes(), after.as_slice()].concat();
        let edited = edit::edit(&content, &marker, &new_text, false);
        if marker.contains('\r') || new_text == marker {
            return Ok(());
        }
        let edited = edited.expect("a unique span is replaced");
        // Line endings of new_text follow the file's; compare around the span.
        prop_assert!(edited.content.starts_with(&before));
        prop_assert!(edited.content.ends_with(&after));
        prop_assert_eq!(edited.replacements, 1);
        if !new_text.contains('\n') {
            let expected = [before.as_slice(), new_text.as_bytes(), after.as_slice()].concat();
            prop_assert_eq!(edited.content, expected);
        }
    }

    #[test]
    fn an_edit_that_does_not_apply_changes_nothing(
        content in bytes_without_marker(),
        new_text in "[^@]{0,40}",
    ) {
        prop_assert!(edit::edit(&content, "@absent@", &new_text, false).is_err());
    }

    #[test]
    fn no_path_leaves_the_store_or_panics(
        parts in proptest::collection::vec(
            prop_oneof![
                Just("..".to_string()), Just(".".to_string()), Just("".to_string()),
                Just("/".to_string()), Just("\\\\".to_string()), Just(".hidden".to_string()),
                Just("\u{0}".to_string()), Just("a".repeat(300)), "[a-z\u{e9}\u{202e} .-]{1,12}",
            ],
            1..8,
        ),
    ) {
        let name = parts.join("/");
        let tmp = tempfile::tempdir().unwrap();
        let root = Root::open(&tmp.path().join("store")).unwrap();
        if let Ok(normal) = path::normalize(&name) {
            prop_assert!(normal.len() <= path::MAX_PATH_BYTES);
            prop_assert!(!normal.starts_with('/'));
            prop_assert!(normal.split('/').all(|p| !p.is_empty() && p != "." && p != ".."));
        }
        let _ = root.write(&name, b"x");
        let _ = root.stat(&name);
        let _ = root.read(&name);
        let _ = root.list(Some(&name));
        let _ = root.file_paths(Some(&name));
        let _ = root.writer(&name).map(|mut w| { let _ = w.write_all(b"y"); w.commit() });
        let _ = root.delete(&name);
        let outside: Vec<_> = std::fs::read_dir(tmp.path()).unwrap()
            .map(|e| e.unwrap().file_name().into_string().unwrap())
            .collect();
        prop_assert_eq!(outside, vec!["store".to_string()]);
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]

    /// The search reads a folder's files as its walk finds them, so the walk must
    /// find them in the order sorting their paths gives: with names around `/`
    /// (`a-b`, `a.b`, `a0` sort on either side of `a/x`) at any depth.
    #[test]
    fn the_walk_finds_files_in_sorted_order(
        paths in proptest::collection::vec(
            proptest::collection::vec("[ab0.\u{e9} -]{1,3}", 1..4).prop_map(|p| p.join("/")),
            1..40,
        ),
        prefix in prop_oneof![Just(None), "[ab]{1}".prop_map(Some)],
    ) {
        let tmp = tempfile::tempdir().unwrap();
        let root = Root::open(&tmp.path().join("store")).unwrap();
        for name in &paths {
            // A path under a file, or a hidden one, is refused: the others make the tree.
            let _ = root.write(name, b"x");
        }
        let listed: Vec<String> =
            root.list(prefix.as_deref()).unwrap().into_iter().map(|e| e.path).collect();
        let mut found = Vec::new();
        root.each_file(prefix.as_deref(), |file| {
            // Each opens from the folder it was found in, and is the file written.
            let (mut opened, size) = file.open_sized().unwrap();
            let mut bytes = Vec::new();
            std::io::Read::read_to_end(&mut opened, &mut bytes).unwrap();
            assert_eq!((bytes.as_slice(), size), (&b"x"[..], 1), "{}", file.path());
            found.push(file.path().to_string());
            Ok(())
        })
        .unwrap();
        prop_assert_eq!(&found, &listed);
        prop_assert!(found.windows(2).all(|pair| pair[0] < pair[1]));
    }
}

/// Bytes mixing whole characters of every width with stray bytes, so sequences are
/// valid, cut short, or invalid.
fn mixed_bytes() -> impl Strategy<Value = Vec<u8>> {
    let piece = prop_oneof![
        any::<char>().prop_map(|c| c.to_string().into_bytes()),
        any::<u8>().prop_map(|b| vec![b]),
    ];
    proptest::collection::vec(piece, 0..60).prop_map(|pieces| pieces.concat())
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(512))]

    #[test]
    fn read_chars_decodes_any_bytes_read_in_any_pieces_as_from_utf8_lossy(
        bytes in mixed_bytes(),
        buffer in 1usize..9,
    ) {
        let reader = std::io::BufReader::with_capacity(buffer, bytes.as_slice());
        let got = file_store_base::text::read_chars(reader, 0, usize::MAX).unwrap();
        prop_assert_eq!(got.text, String::from_utf8_lossy(&bytes).into_owned());
    }
}
