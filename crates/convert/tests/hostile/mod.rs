//! A corpus of hostile documents, built byte by byte: each shape an attack run
//! found (a few hundred bytes that expand to gigabytes, spines of millions of
//! entries, a 60 MB content stream, lying charsets) and each shape that was
//! already handled (zip bombs, billion laughs, deep nesting, cyclic forms,
//! paths out of the archive), so none comes back.

#![allow(dead_code)]

pub mod attacks;
pub mod fans;
pub mod pdfs;

use std::io::Write;

use flate2::{write::DeflateEncoder, Compression, Crc};

/// Which converter reads a document: the dispatcher's own.
pub use file_store_convert::Kind;

/// What a user would check of the result.
pub enum Expect {
    /// Text that says it was cut.
    Cut,
    /// Text holding this.
    Holds(&'static str),
    /// Text without this (such as a zip's `PK` signature).
    Lacks(&'static str),
    /// Any refusal.
    Refused,
    /// Text or a refusal: only that it ends, within the ceilings.
    Ends,
}

/// One document of the corpus.
pub struct Hostile {
    pub name: &'static str,
    pub kind: Kind,
    pub bytes: Vec<u8>,
    pub expect: Expect,
}

/// Deflates `bytes`, as a zip entry holds them.
pub fn deflate(bytes: &[u8]) -> Vec<u8> {
    let mut encoder = DeflateEncoder::new(Vec::new(), Compression::best());
    encoder.write_all(bytes).unwrap();
    encoder.finish().unwrap()
}

/// A zip of `entries` (name, raw deflate data, size, crc), written as a zip
/// writer would, with no check on what they hold.
pub fn zip_raw<N: AsRef<str>>(entries: &[(N, Vec<u8>, u64, u32)]) -> Vec<u8> {
    let (mut out, mut central) = (Vec::new(), Vec::new());
    for (name, data, size, crc) in entries {
        let name = name.as_ref();
        let offset = out.len() as u32;
        let size32 = (*size).min(u32::MAX as u64) as u32;
        let common = |buf: &mut Vec<u8>| {
            buf.extend_from_slice(&[20, 0, 0, 0, 8, 0, 0, 0, 0, 0]);
            buf.extend_from_slice(&crc.to_le_bytes());
            buf.extend_from_slice(&(data.len() as u32).to_le_bytes());
            buf.extend_from_slice(&size32.to_le_bytes());
            buf.extend_from_slice(&(name.len() as u16).to_le_bytes());
            buf.extend_from_slice(&0u16.to_le_bytes());
        };
        out.extend_from_slice(b"PK\x03\x04");
        common(&mut out);
        out.extend_from_slice(name.as_bytes());
        out.extend_from_slice(data);
        central.extend_from_slice(b"PK\x01\x02\x14\x00");
        common(&mut central);
        central.extend_from_slice(&[0; 10]);
        central.extend_from_slice(&offset.to_le_bytes());
        central.extend_from_slice(name.as_bytes());
    }
    let at = out.len() as u32;
    let count = (entries.len() as u16).to_le_bytes();
    out.extend_from_slice(&central);
    out.extend_from_slice(b"PK\x05\x06\0\0\0\0");
    out.extend_from_slice(&count);
    out.extend_from_slice(&count);
    out.extend_from_slice(&(central.len() as u32).to_le_bytes());
    out.extend_from_slice(&at.to_le_bytes());
    out.extend_from_slice(&[0, 0]);
    out
}

/// A zip of named parts, each deflated with its true size and checksum.
pub fn zip(parts: &[(&str, &[u8])]) -> Vec<u8> {
    let entries: Vec<_> = parts
        .iter()
        .map(|(name, bytes)| {
            let mut crc = Crc::new();
            crc.update(bytes);
            (
                name.to_string(),
                deflate(bytes),
                bytes.len() as u64,
                crc.sum(),
            )
        })
        .collect();
    zip_raw(&entries)
}

const ODF_NS: &str = "xmlns:office=\"urn:oasis:names:tc:opendocument:xmlns:office:1.0\" \
    xmlns:text=\"urn:oasis:names:tc:opendocument:xmlns:text:1.0\" \
    xmlns:table=\"urn:oasis:names:tc:opendocument:xmlns:table:1.0\" \
    xmlns:style=\"urn:oasis:names:tc:opendocument:xmlns:style:1.0\"";

/// An .odt whose text body is `body` (and whose styles.xml is `styles`).
pub fn odt(body: &str, styles: &str) -> Vec<u8> {
    let content = format!(
        "<?xml version=\"1.0\"?><office:document-content {ODF_NS}><office:body><office:text>{body}\
         </office:text></office:body></office:document-content>"
    );
    let styles = format!(
        "<?xml version=\"1.0\"?><office:document-styles {ODF_NS}><office:master-styles>{styles}\
         </office:master-styles></office:document-styles>"
    );
    zip(&[
        ("mimetype", b"application/vnd.oasis.opendocument.text"),
        ("content.xml", content.as_bytes()),
        ("styles.xml", styles.as_bytes()),
    ])
}

/// A table of one row repeated a million times, of a cell repeated across
/// every column: gigabytes of text from a hundred bytes.
pub const REPEATED_TABLE: &str =
    "<table:table><table:table-row table:number-rows-repeated=\"1048576\">\
    <table:table-cell table:number-columns-repeated=\"16384\"><text:p>x</text:p></table:table-cell>\
    </table:table-row></table:table>";

/// An .odt of `n` footnotes, each holding [`REPEATED_TABLE`].
pub fn footnotes_with_tables(n: usize) -> Vec<u8> {
    let note = format!(
        "<text:note text:note-class=\"footnote\"><text:note-body>{REPEATED_TABLE}</text:note-body></text:note>"
    );
    odt(&format!("<text:p>{}</text:p>", note.repeat(n)), "")
}

/// An .odt of `n` comments, each holding [`REPEATED_TABLE`].
pub fn comments_with_tables(n: usize) -> Vec<u8> {
    let comment = format!("<office:annotation>{REPEATED_TABLE}</office:annotation>");
    odt(&format!("<text:p>{}</text:p>", comment.repeat(n)), "")
}

/// An .odt of `n` distinct comments.
pub fn many_comments(n: usize) -> Vec<u8> {
    let mut body = String::from("<text:p>");
    for i in 0..n {
        body.push_str(&format!(
            "<office:annotation><text:p>comment {i}</text:p></office:annotation>"
        ));
    }
    body.push_str("</text:p>");
    odt(&body, "")
}

/// An .odt of `n` distinct page headers.
pub fn many_headers(n: usize) -> Vec<u8> {
    let mut styles = String::new();
    for i in 0..n {
        styles.push_str(&format!(
            "<style:master-page><style:header><text:p>header {i}</text:p></style:header></style:master-page>"
        ));
    }
    odt("<text:p>body</text:p>", &styles)
}

/// An EPUB whose package lists `manifest` and `spine` (XML), with `pages`.
pub fn epub(manifest: &str, spine: &str, pages: &[(&str, &[u8])]) -> Vec<u8> {
    let container = "<?xml version=\"1.0\"?><container><rootfiles>\
        <rootfile full-path=\"OEBPS/book.opf\" media-type=\"application/oebps-package+xml\"/>\
        </rootfiles></container>";
    let opf = format!(
        "<?xml version=\"1.0\"?><package><manifest>{manifest}</manifest><spine>{spine}</spine></package>"
    );
    let mut parts: Vec<(&str, &[u8])> = vec![
        ("mimetype", b"application/epub+zip"),
        ("META-INF/container.xml", container.as_bytes()),
        ("OEBPS/book.opf", opf.as_bytes()),
    ];
    parts.extend_from_slice(pages);
    zip(&parts)
}

/// An EPUB whose spine lists one page `n` times.
pub fn long_spine(n: usize, page: &[u8]) -> Vec<u8> {
    epub(
        "<item id=\"p\" href=\"p.xhtml\" media-type=\"application/xhtml+xml\"/>",
        &"<itemref idref=\"p\"/>".repeat(n),
        &[("OEBPS/p.xhtml", page)],
    )
}

/// A one-page PDF whose page content is `content`, deflated when `deflated`.
pub fn pdf(content: Vec<u8>, deflated: bool) -> Vec<u8> {
    use lopdf::{dictionary, Document, Stream};
    let mut doc = Document::with_version("1.5");
    let font = doc.add_object(dictionary! {
        "Type" => "Font", "Subtype" => "Type1", "BaseFont" => "Helvetica", "Encoding" => "WinAnsiEncoding",
    });
    let stream = if deflated {
        let mut zlib = flate2::write::ZlibEncoder::new(Vec::new(), Compression::best());
        zlib.write_all(&content).unwrap();
        Stream::new(
            dictionary! { "Filter" => "FlateDecode" },
            zlib.finish().unwrap(),
        )
    } else {
        Stream::new(dictionary! {}, content)
    };
    let content = doc.add_object(stream);
    let pages = doc.new_object_id();
    let page = doc.add_object(dictionary! {
        "Type" => "Page", "Parent" => pages, "Contents" => content,
        "Resources" => dictionary! { "Font" => dictionary! { "F1" => font } },
    });
    with_one_page(&mut doc, pages, page)
}

/// `doc` saved with `page` as the one page of the page tree `pages`.
pub fn with_one_page(
    doc: &mut lopdf::Document,
    pages: lopdf::ObjectId,
    page: lopdf::ObjectId,
) -> Vec<u8> {
    doc.objects.insert(
        pages,
        lopdf::Object::Dictionary(
            lopdf::dictionary! { "Type" => "Pages", "Kids" => vec![page.into()], "Count" => 1 },
        ),
    );
    let catalog = doc.add_object(lopdf::dictionary! { "Type" => "Catalog", "Pages" => pages });
    doc.trailer.set("Root", catalog);
    saved(doc)
}

/// `doc`'s bytes.
pub fn saved(doc: &mut lopdf::Document) -> Vec<u8> {
    let mut bytes = Vec::new();
    doc.save_to(&mut bytes).unwrap();
    bytes
}

/// A content stream of `bytes` bytes showing one letter again and again.
pub fn shows(bytes: usize) -> Vec<u8> {
    let op = b"(x) Tj ";
    let mut content = b"BT /F1 12 Tf 72 700 Td ".to_vec();
    content.extend(op.repeat(bytes / op.len()));
    content.extend_from_slice(b"ET");
    content
}

/// A one-page PDF whose forms draw each other in a cycle, and a fan of forms
/// each drawing the next 300 times, 8 deep.
pub fn pdf_with_cyclic_forms() -> Vec<u8> {
    use lopdf::{dictionary, Document, Object, Stream};
    let mut doc = Document::with_version("1.5");
    let font = doc.add_object(dictionary! {
        "Type" => "Font", "Subtype" => "Type1", "BaseFont" => "Helvetica",
    });
    let ids: Vec<_> = (0..10).map(|_| doc.new_object_id()).collect();
    for level in 0..10 {
        // Each form draws the next 300 times; the last draws the first.
        let next = ids[(level + 1) % 10];
        let content = format!("BT /F1 12 Tf (x) Tj ET {}", "/Fm Do ".repeat(300));
        let dict = dictionary! {
            "Subtype" => "Form",
            "Resources" => dictionary! { "XObject" => dictionary! { "Fm" => next }, "Font" => dictionary! { "F1" => font } },
        };
        doc.objects.insert(
            ids[level],
            Object::Stream(Stream::new(dict, content.into_bytes())),
        );
    }
    let pages = doc.new_object_id();
    let content = doc.add_object(Stream::new(dictionary! {}, b"/Fm Do".to_vec()));
    let page = doc.add_object(dictionary! {
        "Type" => "Page", "Parent" => pages, "Contents" => content,
        "Resources" => dictionary! { "XObject" => dictionary! { "Fm" => ids[0] } },
    });
    with_one_page(&mut doc, pages, page)
}

/// A .docx whose document.xml is `xml`.
pub fn docx(xml: &str) -> Vec<u8> {
    zip(&[("word/document.xml", xml.as_bytes())])
}

/// Raw deflate data for `megabytes` MB of spaces in about a kilobyte each.
pub fn spaces(megabytes: usize) -> Vec<u8> {
    let mut encoder = DeflateEncoder::new(Vec::new(), Compression::best());
    encoder.write_all(&vec![b' '; 1 << 20]).unwrap();
    encoder.flush().unwrap();
    let block = encoder.get_ref().clone();
    let mut data = block.repeat(megabytes);
    data.extend_from_slice(&[3, 0]);
    data
}

/// Text nested in a note in a comment in a note..., 16 levels, each level
/// holding a repeated table, the whole repeated and cut off before its end:
/// built to break the shared budget (every output at once), the nesting
/// limit and the reader of a part that stops short.
pub fn nested_truncated() -> Vec<u8> {
    let mut open = String::new();
    for level in 0..16 {
        if level % 2 == 0 {
            open.push_str("<text:note><text:note-body><text:p>");
        } else {
            open.push_str("<office:annotation><text:p>");
        }
        open.push_str(REPEATED_TABLE);
    }
    let body = format!("<text:p>{}</text:p>", open.repeat(64));
    let content = format!(
        "<?xml version=\"1.0\"?><office:document-content {ODF_NS}><office:body><office:text>{body}"
    );
    // Cut inside a tag, as a download that stopped halfway leaves it.
    let cut = &content.as_bytes()[..content.len() - 40];
    zip(&[("content.xml", cut)])
}

/// A content stream that is one operation: a TJ array of `bytes` bytes of
/// numbers, which decoded whole would be gigabytes of objects. Built to
/// break the piece-by-piece decoding, which can cut only between operations.
pub fn huge_array(bytes: usize) -> Vec<u8> {
    let mut content = b"BT /F1 12 Tf 72 700 Td (before) Tj ET BT [".to_vec();
    content.extend(b"1 ".repeat(bytes / 2));
    content.extend_from_slice(b"] TJ ET");
    content
}

/// A flat spreadsheet whose one row, repeated a million times, repeats a
/// 1 MB cell across all 16,384 columns.
pub fn long_cell_sheet() -> Vec<u8> {
    let cell = "x".repeat(1 << 20);
    format!(
        "<office:document {ODF_NS}><office:body><office:spreadsheet>\
         <table:table table:name=\"S\"><table:table-row table:number-rows-repeated=\"1000000\">\
         <table:table-cell table:number-columns-repeated=\"16384\"><text:p>{cell}</text:p></table:table-cell>\
         </table:table-row></table:table></office:spreadsheet></office:body></office:document>"
    )
    .into_bytes()
}

/// Every document of the corpus.
pub fn corpus() -> Vec<Hostile> {
    let page = b"<html><body><p>The one page</p></body></html>".as_slice();
    let empty = b"<html><body></body></html>".as_slice();
    let zurich = "<p>Z\u{fc}rich</p>";
    let inner_epub = long_spine(1, page);
    let billion = format!(
        "<?xml version=\"1.0\"?><!DOCTYPE d [<!ENTITY a \"lol\">{}]><w:document><w:body><w:p><w:t>&j;ok</w:t></w:p></w:body></w:document>",
        (b'b'..=b'j')
            .map(|c| format!("<!ENTITY {} \"{}\">", c as char, format!("&{};", (c - 1) as char).repeat(10)))
            .collect::<String>()
    );
    let outside = epub(
        "<item id=\"a\" href=\"../../../../etc/passwd\" media-type=\"application/xhtml+xml\"/>\
         <item id=\"b\" href=\"/OEBPS/p.xhtml\" media-type=\"application/xhtml+xml\"/>",
        "<itemref idref=\"a\"/><itemref idref=\"b\"/>",
        &[("OEBPS/p.xhtml", page)],
    );
    let mut all = vec![
        Hostile { name: "odt: 160 footnotes each holding a repeated table", kind: Kind::Office, bytes: footnotes_with_tables(160), expect: Expect::Cut },
        Hostile { name: "odt: 40 footnotes each holding a repeated table", kind: Kind::Office, bytes: footnotes_with_tables(40), expect: Expect::Cut },
        Hostile { name: "odt: 40 comments each holding a repeated table", kind: Kind::Office, bytes: comments_with_tables(40), expect: Expect::Cut },
        Hostile { name: "odt: 60,000 comments", kind: Kind::Office, bytes: many_comments(60_000), expect: Expect::Holds("comment 59999") },
        Hostile { name: "odt: 50,000 headers", kind: Kind::Office, bytes: many_headers(50_000), expect: Expect::Holds("header 49999") },
        Hostile { name: "epub: 8 million spine entries to one empty page", kind: Kind::Office, bytes: long_spine(8_000_000, empty), expect: Expect::Cut },
        Hostile { name: "epub: 1 million spine entries", kind: Kind::Office, bytes: long_spine(1_000_000, page), expect: Expect::Cut },
        Hostile { name: "pdf: a 60 MB content stream", kind: Kind::Pdf, bytes: pdf(shows(60 << 20), false), expect: Expect::Cut },
        Hostile { name: "pdf: a content stream over the cap", kind: Kind::Pdf, bytes: pdf(shows(65 << 20), true), expect: Expect::Holds("[cut: the page's content is over 64 MB]") },
        Hostile { name: "html: labelled iso-2022-kr", kind: Kind::Html, bytes: b"<meta charset=iso-2022-kr><p>Hello there".to_vec(), expect: Expect::Holds("Hello there") },
        Hostile { name: "html: labelled hz-gb-2312", kind: Kind::Html, bytes: b"<meta http-equiv=content-type content='text/html; charset=hz-gb-2312'><p>Hello there".to_vec(), expect: Expect::Holds("Hello there") },
        Hostile { name: "html: charset= in a meta name's content", kind: Kind::Html, bytes: format!("<meta name=x content='charset=koi8-r'>{zurich}").into_bytes(), expect: Expect::Holds("Z\u{fc}rich") },
        Hostile { name: "html: charset= in a comment", kind: Kind::Html, bytes: format!("<!-- <meta charset=koi8-r> -->{zurich}").into_bytes(), expect: Expect::Holds("Z\u{fc}rich") },
        Hostile { name: "epub: a nested epub listed in the spine", kind: Kind::Office, bytes: epub(
            "<item id=\"n\" href=\"n.epub\" media-type=\"application/epub+zip\"/><item id=\"p\" href=\"p.xhtml\" media-type=\"application/xhtml+xml\"/>",
            "<itemref idref=\"n\"/><itemref idref=\"p\"/>",
            &[("OEBPS/n.epub", &inner_epub), ("OEBPS/p.xhtml", page)],
        ), expect: Expect::Lacks("PK") },
        Hostile { name: "zip bomb: a gigabyte of spaces in a megabyte", kind: Kind::Office, bytes: zip_raw(&[("word/document.xml", spaces(1024), 1 << 30, 0)]), expect: Expect::Refused },
        Hostile { name: "zip: 10,001 entries", kind: Kind::Office, bytes: zip_raw(&(0..10_001).map(|i| (format!("f{i}"), vec![3, 0], 0, 0)).collect::<Vec<_>>()), expect: Expect::Refused },
        Hostile { name: "zip: a nested zip (42.zip)", kind: Kind::Office, bytes: zip(&[("inner.zip", &zip_raw(&[("word/document.xml", spaces(64), 64 << 20, 0)]))]), expect: Expect::Refused },
        Hostile { name: "docx: billion laughs", kind: Kind::Office, bytes: docx(&billion), expect: Expect::Holds("ok") },
        Hostile { name: "docx: 2 million deep", kind: Kind::Office, bytes: docx(&format!("<w:document><w:body>{}<w:t>deep</w:t>", "<w:p><w:tbl><w:tr><w:tc>".repeat(2_000_000))), expect: Expect::Holds("deep") },
        Hostile { name: "html: 2 million deep", kind: Kind::Html, bytes: format!("{}deep", "<div><b>".repeat(2_000_000)).into_bytes(), expect: Expect::Holds("deep") },
        Hostile { name: "html: 4 MB of '<'", kind: Kind::Html, bytes: vec![b'<'; 4 << 20], expect: Expect::Ends },
        Hostile { name: "pdf: forms drawing each other in a cycle, 300 times each", kind: Kind::Pdf, bytes: pdf_with_cyclic_forms(), expect: Expect::Holds("x") },
        Hostile { name: "epub: paths out of the archive", kind: Kind::Office, bytes: outside, expect: Expect::Holds("The one page") },
        Hostile { name: "odt: nested notes and comments, each with a repeated table, cut short", kind: Kind::Office, bytes: nested_truncated(), expect: Expect::Cut },
        Hostile { name: "fods: a 1 MB cell repeated across every column of a million rows", kind: Kind::Office, bytes: long_cell_sheet(), expect: Expect::Cut },
        Hostile { name: "pdf: one TJ array of 60 MB, deflated", kind: Kind::Pdf, bytes: pdf(huge_array(60 << 20), true), expect: Expect::Holds("before") },
    ];
    all.extend(attacks::corpus());
    all
}
