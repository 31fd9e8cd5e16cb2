use super::*;

fn ok(content: &[u8], old: &str, new: &str, all: bool) -> Edited {
    edit(content, old, new, all).unwrap()
}

#[test]
fn replaces_one_span_and_shows_it() {
    let file: String = (1..=10).map(|i| format!("line {i}\n")).collect();
    let e = ok(file.as_bytes(), "line 5\n", "five\nand a half\n", false);
    assert_eq!(e.replacements, 1);
    assert_eq!(
        String::from_utf8(e.content).unwrap(),
        file.replace("line 5\n", "five\nand a half\n")
    );
    assert_eq!(e.changed, "     3\tline 3\n     4\tline 4\n     5\tfive\n     6\tand a half\n     7\tline 6\n     8\tline 7\n");
    let e = ok(b"only", "only", "", false);
    assert_eq!((e.content, e.changed), (Vec::new(), String::new()));
    let e = ok(b"a\nb\n", "b", "c\nd", false);
    assert_eq!(e.changed, "     1\ta\n     2\tc\n     3\td\n");
}

#[test]
fn refusals_and_their_messages() {
    assert_eq!(edit(b"x", "", "y", false), Err(EditError::Empty));
    assert_eq!(edit(b"x", "x", "x", false), Err(EditError::Same));
    let file = "a\nfoo\nb\nc\nfoo\nfoo bar foo\n";
    let err = edit(file.as_bytes(), "foo", "baz", false).unwrap_err();
    assert_eq!(
        err,
        EditError::Ambiguous {
            lines: vec![2, 5, 6, 6]
        }
    );
    assert_eq!(
        err.to_string(),
        "old_text matches 4 places (lines 2, 5, 6). Add surrounding lines to old_text to pick one, or pass replace_all: true."
    );
    let many = "x\n".repeat(12);
    let msg = edit(many.as_bytes(), "x", "y", false)
        .unwrap_err()
        .to_string();
    assert!(
        msg.starts_with(
            "old_text matches 12 places (lines 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, and 2 more)."
        ),
        "{msg}"
    );
}

#[test]
fn replace_all_shows_groups_separated() {
    let file: String = (1..=20)
        .map(|i| {
            if i == 2 || i == 4 || i == 15 {
                "old\n".to_string()
            } else {
                format!("l{i}\n")
            }
        })
        .collect();
    let e = ok(file.as_bytes(), "old", "new", true);
    assert_eq!(e.replacements, 3);
    let want = "     1\tl1\n     2\tnew\n     3\tl3\n     4\tnew\n     5\tl5\n     6\tl6\n...\n    13\tl13\n    14\tl14\n    15\tnew\n    16\tl16\n    17\tl17\n";
    assert_eq!(e.changed, want);
    let e = ok("a\n".repeat(100).as_bytes(), "a", "b", true);
    assert_eq!(e.replacements, 100);
    assert_eq!(e.content, "b\n".repeat(100).into_bytes());
    assert!(e.changed.ends_with("   100\tb\n"));
    let spread = "a\n\n\n\n\n\n".repeat(30);
    assert!(ok(spread.as_bytes(), "a", "b", true)
        .changed
        .ends_with("...\n[and 10 more changed places]\n"));
}

#[test]
fn crlf_files_stay_crlf() {
    let e = ok(
        b"one\r\ntwo\r\nthree\r\n",
        "one\ntwo\n",
        "uno\ndos\n",
        false,
    );
    assert_eq!(e.content, b"uno\r\ndos\r\nthree\r\n");
    assert_eq!(e.changed, "     1\tuno\n     2\tdos\n     3\tthree\n");
    let e = ok(b"one\r\ntwo\r\n", "two", "2\n3", false);
    assert_eq!(
        e.content, b"one\r\n2\r\n3\r\n",
        "new lines in a CRLF file get CRLF"
    );
    let e = ok(b"one\ntwo\n", "two", "2\n3", false);
    assert_eq!(e.content, b"one\n2\n3\n");
    assert_eq!(
        edit(b"a\r\nb\r\n", "a\nb", "a\r\nb", false),
        Err(EditError::Same)
    );
}

#[test]
fn other_bytes_untouched() {
    // A UTF-8 BOM, Shift-JIS before and after, Latin-1 and a lone CR elsewhere.
    let mut file =
        b"\xef\xbb\xbfheader\r\n\x82\xb1\x82\xf1 value = 1 \x82\xc9\n caf\xe9 \r tail".to_vec();
    let e = ok(&file, "value = 1", "value = 2", false);
    let at = memmem::find(&file, b"value = 1").unwrap();
    file[at + 8] = b'2';
    assert_eq!(e.content, file);
    assert_eq!(
        e.changed,
        "     1\t\u{feff}header\n     2\t{}{} value = 2 {}\n     3\t caf\u{fffd} \\u000D tail\n"
            .replace("{}", "\u{fffd}\u{fffd}")
    );
    let e = ok(b"\xef\xbb\xbffirst\n", "first", "1st", false);
    assert_eq!(e.content, b"\xef\xbb\xbf1st\n");
}

#[test]
fn not_found_suggests_close_lines() {
    let file = "fn main() {\n    let total = compute(1, 2);\n    println!(\"{total}\");\n}\nfn compute(a: u32, b: u32) -> u32 { a + b }\n";
    let err = edit(
        file.as_bytes(),
        "\n  let totl = compute(1,2);\n  more\n",
        "x",
        false,
    )
    .unwrap_err();
    let EditError::NotFound { closest } = &err else {
        panic!("{err:?}")
    };
    assert!(
        closest.starts_with("     2\t    let total = compute(1, 2);\n"),
        "{closest}"
    );
    assert!(err.to_string().starts_with(
        "old_text was not found in the file. The closest lines are:\n     2\t    let total"
    ));
    assert!(!err.to_string().ends_with('\n'));
    let err = edit(file.as_bytes(), "zzzz qqqq", "x", false).unwrap_err();
    assert_eq!(
        err,
        EditError::NotFound {
            closest: String::new()
        }
    );
    assert!(err
        .to_string()
        .starts_with("old_text was not found in the file, and no line resembles it."));
    let lines = "abcdef\n".repeat(50);
    let EditError::NotFound { closest } = edit(lines.as_bytes(), "abcdeg", "x", false).unwrap_err()
    else {
        panic!()
    };
    assert_eq!(closest.lines().count(), 5);
    // A long single-line file is bounded: lines over the limit are not compared.
    let huge = "x".repeat(10_000_000);
    assert_eq!(
        edit(huge.as_bytes(), "y", "z", false),
        Err(EditError::NotFound {
            closest: String::new()
        })
    );
}

#[test]
fn refuses_an_edit_whose_result_is_over_the_limit_before_building_it() {
    let file = "a".repeat(1000);
    assert_eq!(
        edit_within(file.as_bytes(), "a", "bb", true, 1999),
        Err(EditError::TooLarge {
            places: 1000,
            size: 2000,
            max: 1999
        })
    );
    assert_eq!(
        edit_within(file.as_bytes(), "a", "bb", true, 2000)
            .unwrap()
            .content
            .len(),
        2000
    );
    let err = edit_within(file.as_bytes(), "a", "bb", true, 10).unwrap_err();
    assert_eq!(
        err.to_string(),
        "replacing 1000 places would make the file 2000 bytes, over this store's limit of 10 bytes \
         a file. Replace fewer places or shorter text."
    );
}
