//! Documents of random shape, for every format the converters read: elements
//! nested and repeated in random order and number (tables in notes in
//! comments, repeated rows of repeated cells, spines, PDF text objects), each built at a
//! size n and 4n. What the larger costs, in time and in memory (counted by the
//! allocator), is at most about 4 times what the smaller does, and never near
//! the worker's CPU limit.
//!
//! One test in this file, so the allocator counts nothing else.

mod hostile;

use std::alloc::{GlobalAlloc, Layout, System};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;

use file_store_convert::budget::{thread_cpu_time, MAX_OUTPUT};
use file_store_convert::worker::CPU_LIMIT;
use hostile::{docx, epub, odt, pdf, zip, Kind};
use proptest::prelude::*;

struct Counting;

static CURRENT: AtomicUsize = AtomicUsize::new(0);
static PEAK: AtomicUsize = AtomicUsize::new(0);

fn grew(by: usize) {
    let now = CURRENT.fetch_add(by, Ordering::Relaxed) + by;
    PEAK.fetch_max(now, Ordering::Relaxed);
}

// SAFETY: each method passes its arguments to `System` unchanged and returns what `System`
// returns, so `System`'s guarantees are this allocator's; the counting beside it touches
// only atomics and never allocates.
unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        let p = System.alloc(layout);
        if !p.is_null() {
            grew(layout.size());
        }
        p
    }
    unsafe fn dealloc(&self, p: *mut u8, layout: Layout) {
        System.dealloc(p, layout);
        CURRENT.fetch_sub(layout.size(), Ordering::Relaxed);
    }
    unsafe fn realloc(&self, p: *mut u8, layout: Layout, size: usize) -> *mut u8 {
        let q = System.realloc(p, layout, size);
        if !q.is_null() {
            if size > layout.size() {
                grew(size - layout.size());
            } else {
                CURRENT.fetch_sub(layout.size() - size, Ordering::Relaxed);
            }
        }
        q
    }
}

#[global_allocator]
static ALLOCATOR: Counting = Counting;

/// The time and the most memory over what was held before a conversion. The
/// time is the thread's CPU time, which other processes on a busy machine
/// change little, where they stretch the wall clock's many times over.
fn cost(kind: Kind, bytes: &[u8]) -> (Duration, usize, usize) {
    let base = CURRENT.load(Ordering::Relaxed);
    PEAK.store(base, Ordering::Relaxed);
    let started = thread_cpu_time();
    let text = kind.convert(bytes).map(|t| t.len()).unwrap_or(0);
    let took = thread_cpu_time().saturating_sub(started);
    (took, PEAK.load(Ordering::Relaxed) - base, text)
}

/// One level of a shape: what opens, what closes, in each format's words.
type Level = (&'static str, &'static str);

const HTML: &[Level] = &[
    ("<div>", "</div>"),
    ("<table><tr><td>", "</td></tr></table>"),
    ("<ul><li>", "</li></ul>"),
    ("<p><b>", ""),
    ("<pre>", "</pre>"),
    ("<div hidden>", "</div>"),
    ("<td>", ""),
];
const WORD: &[Level] = &[
    ("<w:p>", "</w:p>"),
    ("<w:tbl><w:tr><w:tc>", "</w:tc></w:tr></w:tbl>"),
    ("<w:p><w:pPr><w:numPr/></w:pPr>", "</w:p>"),
    ("<w:tc>", ""),
    ("<w:r>", "</w:r>"),
];
const ODF: &[Level] = &[
    ("<text:p>", "</text:p>"),
    ("<text:note><text:note-body>", "</text:note-body></text:note>"),
    ("<office:annotation>", "</office:annotation>"),
    ("<table:table><table:table-row table:number-rows-repeated=\"200\"><table:table-cell table:number-columns-repeated=\"50\">", "</table:table-cell></table:table-row></table:table>"),
    ("<text:list><text:list-item>", "</text:list-item></text:list>"),
    ("<text:h text:outline-level=\"2\">", "</text:h>"),
];
const PDF: &[Level] = &[
    ("q ", "Q "),
    ("BT /F1 12 Tf ", "ET "),
    ("[(a) -200 (b)] TJ ", ""),
    ("0 -14 Td ", ""),
    ("<< /K true >> BDC ", "EMC "),
];

/// `levels` (indices into `words`) nested in order around `leaf`, the whole
/// repeated `n` times.
fn nest(words: &[Level], levels: &[usize], leaf: &str, n: usize) -> String {
    let mut one = String::new();
    for &l in levels {
        one.push_str(words[l % words.len()].0);
    }
    one.push_str(leaf);
    for &l in levels.iter().rev() {
        one.push_str(words[l % words.len()].1);
    }
    one.repeat(n)
}

/// A document of format `format` with the shape `levels`, `n` times over.
fn document(format: usize, levels: &[usize], n: usize) -> (Kind, Vec<u8>) {
    match format {
        0 => (Kind::Html, nest(HTML, levels, "text ", n).into_bytes()),
        1 => (
            Kind::Office,
            docx(&format!(
                "<w:document><w:body>{}</w:body></w:document>",
                nest(WORD, levels, "<w:r><w:t>text</w:t></w:r>", n)
            )),
        ),
        2 => (
            Kind::Office,
            odt(&nest(ODF, levels, "<text:p>text</text:p>", n), ""),
        ),
        3 => {
            let row = |i: usize| {
                format!(
                    "<row><c r=\"A{i}\" t=\"s\"><v>0</v></c><c r=\"{}{i}\"><v>{i}</v></c></row>",
                    ["B", "Z", "AZ", "XFD"][levels.len() % 4]
                )
            };
            let rows: String = (0..n * (1 + levels.len())).map(row).collect();
            (
                Kind::Office,
                zip(&[
                    ("xl/workbook.xml", b"<workbook><sheets><sheet name=\"S\" r:id=\"r1\"/></sheets></workbook>"),
                    ("xl/_rels/workbook.xml.rels", b"<Relationships><Relationship Id=\"r1\" Target=\"worksheets/s.xml\"/></Relationships>"),
                    ("xl/sharedStrings.xml", b"<sst><si><t>text</t></si></sst>"),
                    ("xl/worksheets/s.xml", format!("<worksheet><sheetData>{rows}</sheetData></worksheet>").as_bytes()),
                ]),
            )
        }
        4 => {
            let page = nest(HTML, levels, "page text ", 4);
            let pages: Vec<String> = (0..n).map(|i| format!("OEBPS/p{}.xhtml", i % 50)).collect();
            let manifest: String = (0..50.min(n))
                .map(|i| format!("<item id=\"p{i}\" href=\"p{i}.xhtml\" media-type=\"application/xhtml+xml\"/>"))
                .collect();
            let spine: String = (0..n * 4)
                .map(|i| format!("<itemref idref=\"p{}\"/>", i % 50))
                .collect();
            let parts: Vec<(&str, &[u8])> = pages
                .iter()
                .take(50)
                .map(|p| (p.as_str(), page.as_bytes()))
                .collect();
            (Kind::Office, epub(&manifest, &spine, &parts))
        }
        _ => {
            let content = format!(
                "BT /F1 12 Tf 72 700 Td ET {}",
                nest(PDF, levels, "BT /F1 12 Tf (text) Tj ET ", n)
            );
            (Kind::Pdf, pdf(content.into_bytes(), true))
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(32))]

    #[test]
    fn cost_grows_at_most_linearly_and_stays_within_the_budget(
        format in 0..6usize,
        levels in proptest::collection::vec(0..8usize, 0..7),
        n in 50..400usize,
    ) {
        let (kind, small) = document(format, &levels, n);
        let (_, large) = document(format, &levels, 4 * n);
        cost(kind, &small); // warm up
        let best = |bytes: &[u8]| {
            let runs: Vec<_> = (0..2).map(|_| cost(kind, bytes)).collect();
            let time = runs.iter().map(|r| r.0).min().unwrap();
            (time, runs[0].1, runs[0].2)
        };
        let (t1, m1, _) = best(&small);
        let (t4, m4, text) = best(&large);
        prop_assert!(t4 < CPU_LIMIT, "{t4:?}");
        prop_assert!(text <= MAX_OUTPUT + 1024);
        // 4 times the input: about 4 times the memory, and the time within a
        // factor a busy machine allows (quadratic work would be 16 times).
        prop_assert!(m4 <= m1 * 6 + (4 << 20), "memory {m1} -> {m4}");
        prop_assert!(m4 < 1 << 30, "memory {m4}");
        let floor = Duration::from_millis(20);
        prop_assert!(t4 <= t1.max(floor) * 10, "time {t1:?} -> {t4:?}");
    }
}
