//! PDFs that name one large object many times, so a reader that copies what it
//! resolves asks for the large object's size times the count: small files that
//! asked for tens of gigabytes, in the PDF parser's first pass over the objects
//! and xref entries and in the form and font passes, before any budget could
//! count them. Each ends a worker at its memory or CPU limit, or is cut.

use super::pdfs::{raw_pdf, stream, zlib};

const PAGE: &str =
    "<< /Type /Page /Parent 2 0 R /Contents 4 0 R /Resources << /Font << /F1 5 0 R >> >> >>";
const FONT: &str = "<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>";
const SAID: &[u8] = b"BT /F1 12 Tf 72 700 Td (readable text) Tj ET";

/// Objects 1-5: a catalog with `catalog_extra`, one page, its content and font.
fn base(catalog_extra: &str) -> Vec<Vec<u8>> {
    vec![
        format!("<< /Type /Catalog /Pages 2 0 R {catalog_extra} >>").into_bytes(),
        b"<< /Type /Pages /Kids [3 0 R] /Count 1 >>".to_vec(),
        PAGE.as_bytes().to_vec(),
        stream("", SAID),
        FONT.as_bytes().to_vec(),
    ]
}

fn string_of(bytes: usize) -> Vec<u8> {
    let mut out = b"(".to_vec();
    out.resize(bytes + 1, b'A');
    out.push(b')');
    out
}

fn references(id: usize, count: usize) -> String {
    format!("[{}]", format!("{id} 0 R ").repeat(count))
}

/// One form field whose `/V` is an array of `count` references to one string of
/// `bytes`.
pub fn form_value_array(count: usize, bytes: usize) -> Vec<u8> {
    let mut objects = base("/AcroForm << /Fields [6 0 R] >>");
    objects.push(format!("<< /FT /Tx /T (f) /V {} >>", references(7, count)).into_bytes());
    objects.push(string_of(bytes));
    raw_pdf(&objects, "")
}

/// `count` form fields sharing one value of `bytes`.
pub fn form_fields_sharing_value(count: usize, bytes: usize) -> Vec<u8> {
    let fields: String = (0..count).map(|i| format!("{} 0 R ", 7 + i)).collect();
    let mut objects = base(&format!("/AcroForm << /Fields [{fields}] >>"));
    objects.push(string_of(bytes));
    for i in 0..count {
        objects.push(format!("<< /FT /Tx /T (f{i}) /V 6 0 R >>").into_bytes());
    }
    raw_pdf(&objects, "")
}

/// An object stream (compressed) whose index lists `ids`, each at offset 0, over
/// one string of `bytes`: the same object `count` times, or `count` objects at
/// one place.
pub fn object_stream_fan(count: usize, bytes: usize, same_id: bool) -> Vec<u8> {
    let index: String = (0..count)
        .map(|i| format!("{} 0 ", if same_id { 7 } else { 7 + i }))
        .collect();
    let mut data = index.clone().into_bytes();
    data.extend_from_slice(&string_of(bytes));
    let mut objects = base("");
    objects.push(stream(
        &format!(
            "/Type /ObjStm /N {count} /First {} /Filter /FlateDecode",
            index.len()
        ),
        &zlib(&data),
    ));
    raw_pdf(&objects, "")
}

/// A cross-reference table of `count` more entries, all at one object of `bytes`.
pub fn xref_fan(count: usize, bytes: usize) -> Vec<u8> {
    let mut objects = base("");
    objects.push(string_of(bytes));
    let pdf = raw_pdf(&objects, "");
    // Rewrite the table: entries 7.. all at object 6's offset.
    let at = find(&pdf, b"\n6 0 obj\n").unwrap() + 1;
    let xref = find(&pdf, b"xref\n").unwrap();
    let mut out = pdf[..xref].to_vec();
    let table = &pdf[xref..find(&pdf, b"trailer\n").unwrap()];
    let mut lines: Vec<String> = String::from_utf8_lossy(table)
        .lines()
        .map(String::from)
        .collect();
    lines[1] = format!("0 {}", 7 + count);
    lines.extend((0..count).map(|_| format!("{at:010} 00000 n ")));
    out.extend_from_slice(lines.join("\n").as_bytes());
    out.extend_from_slice(
        format!(
            "\ntrailer\n<< /Size {} /Root 1 0 R >>\nstartxref\n{xref}\n%%EOF\n",
            7 + count
        )
        .as_bytes(),
    );
    out
}

/// `count` fonts on one page, sharing one `/Widths` array of `widths` numbers.
pub fn fonts_sharing_widths(count: usize, widths: usize) -> Vec<u8> {
    let names: String = (0..count)
        .map(|i| format!("/F{i} {} 0 R ", 7 + i))
        .collect();
    let shows: String = (0..count).map(|i| format!("/F{i} 12 Tf (a) Tj ")).collect();
    let mut objects = vec![
        b"<< /Type /Catalog /Pages 2 0 R >>".to_vec(),
        b"<< /Type /Pages /Kids [3 0 R] /Count 1 >>".to_vec(),
        format!(
            "<< /Type /Page /Parent 2 0 R /Contents 4 0 R /Resources << /Font << {names} >> >> >>"
        )
        .into_bytes(),
        stream("", format!("BT 72 700 Td {shows}ET").as_bytes()),
        FONT.as_bytes().to_vec(),
        format!("[{}]", "500 ".repeat(widths)).into_bytes(),
    ];
    for _ in 0..count {
        objects.push(
            b"<< /Type /Font /Subtype /TrueType /BaseFont /Arial /FirstChar 0 /LastChar 255 /Widths 6 0 R >>"
                .to_vec(),
        );
    }
    raw_pdf(&objects, "")
}

/// `count` fonts sharing one /Widths of `widths` references, each the start of
/// a chain of `chain` references to the number: every width read follows the
/// chain, which no step of the budget counts, so the conversion costs CPU time
/// in proportion to `count * widths * chain` and memory to `count * widths`.
pub fn fonts_sharing_chained_widths(count: usize, widths: usize, chain: usize) -> Vec<u8> {
    let mut objects = Vec::new();
    let names: String = (0..count)
        .map(|i| format!("/F{i} {} 0 R ", 7 + chain + i))
        .collect();
    let shows: String = (0..count).map(|i| format!("/F{i} 12 Tf (a) Tj ")).collect();
    objects.extend([
        b"<< /Type /Catalog /Pages 2 0 R >>".to_vec(),
        b"<< /Type /Pages /Kids [3 0 R] /Count 1 >>".to_vec(),
        format!(
            "<< /Type /Page /Parent 2 0 R /Contents 4 0 R /Resources << /Font << {names} >> >> >>"
        )
        .into_bytes(),
        stream("", format!("BT 72 700 Td {shows}ET").as_bytes()),
        FONT.as_bytes().to_vec(),
        format!("[{}]", "7 0 R ".repeat(widths)).into_bytes(),
    ]);
    // Objects 7 to 6 + chain: each names the next, the last the number.
    for link in 0..chain {
        let next = 8 + link;
        objects.push(if link + 1 == chain {
            b"500".to_vec()
        } else {
            format!("{next} 0 R").into_bytes()
        });
    }
    for _ in 0..count {
        objects.push(
            b"<< /Type /Font /Subtype /TrueType /BaseFont /Arial /FirstChar 0 /LastChar 255 /Widths 6 0 R >>"
                .to_vec(),
        );
    }
    raw_pdf(&objects, "")
}

/// `count` pages of one word each, sharing one content stream.
pub fn many_pages(count: usize) -> Vec<u8> {
    let kids: String = (0..count).map(|i| format!("{} 0 R ", 6 + i)).collect();
    let mut objects = base("");
    objects[1] = format!("<< /Type /Pages /Kids [{kids}] /Count {count} >>").into_bytes();
    objects.push(b"null".to_vec());
    for _ in 0..count {
        objects.push(PAGE.as_bytes().to_vec());
    }
    raw_pdf(&objects, "")
}

fn find(haystack: &[u8], needle: &[u8]) -> Option<usize> {
    haystack.windows(needle.len()).position(|w| w == needle)
}
