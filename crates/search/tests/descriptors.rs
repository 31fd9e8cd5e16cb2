//! A search opens each file from the folder it was found in, and the inputs it holds
//! waiting keep their folders open: with slow files and a fast walk, what is held
//! must stay bounded, or a process allowed few descriptors fails the search. This
//! binary holds one test, since it lowers the limit of its whole process.

use std::sync::Arc;

use file_store_folder::Root;
use file_store_search::tree::{search_tree, Plan};
use file_store_search::{SearchOptions, GIVEN_TOGETHER, QUEUED_AHEAD};
use rustix::process::{getrlimit, setrlimit, Resource, Rlimit};

#[test]
fn a_search_of_thousands_of_folders_holds_few_descriptors() {
    let dir = tempfile::tempdir().unwrap();
    let root = Root::open(dir.path()).unwrap();
    // 1,500 folders of one file: every input waiting holds a folder of its own.
    for i in 0..1500 {
        let body = format!("line one\nneedle {i}\n{}\n", "filler words ".repeat(200));
        root.write(
            &format!("f{:02}/g{:02}/h{i}.txt", i % 30, i / 30),
            body.as_bytes(),
        )
        .unwrap();
    }
    let root = Arc::new(root);
    // What a search may hold (inputs waiting and gathered, a folder and a file a
    // thread), and room for the test's own: far fewer than the 1,500 folders.
    let threads = std::thread::available_parallelism().map_or(1, |n| n.get());
    let room = QUEUED_AHEAD + GIVEN_TOGETHER + 2 * threads + 64;
    let limit = getrlimit(Resource::Nofile);
    setrlimit(
        Resource::Nofile,
        Rlimit {
            current: Some(room as u64),
            maximum: limit.maximum,
        },
    )
    .unwrap();
    let opts = SearchOptions {
        pattern: "needle [0-9]+".into(),
        literal: false,
        ignore_case: false,
        context: 0,
        max_matches: 10_000,
    };
    let searched = search_tree(
        &root,
        None,
        &opts,
        &Arc::new(Plan::default()),
        Default::default(),
    );
    setrlimit(Resource::Nofile, limit).unwrap();
    let (out, count) = searched.unwrap();
    assert_eq!(count, 1500);
    assert_eq!(
        (out.total_matches, out.skipped),
        (1500, 0),
        "{:?}",
        out.skipped_shown
    );
    // In path order, as the walk found them.
    let first = out.text.lines().next().unwrap();
    assert_eq!(first, "f00/g00/h0.txt:2: needle 0");
}
