//! A second attack run's documents: Office Open XML bombs (shared strings,
//! styles, references to the last column, slides and sheets listed again and
//! again), zip archives that lie about themselves, HTML tags with enormous
//! attribute lists, and hostile PDFs (see `pdfs`).

use super::pdfs;
use super::{deflate, epub, zip, zip_raw, Expect, Hostile, Kind};

/// A .xlsx of `sheet` (its sheetData), with `strings` (sharedStrings.xml
/// items) and `styles` (styles.xml's content), its workbook listing the sheet
/// `listed` times.
pub fn xlsx(sheet: &str, strings: &str, styles: &str, listed: usize) -> Vec<u8> {
    let workbook = format!(
        "<workbook xmlns:r=\"r\"><sheets>{}</sheets></workbook>",
        (0..listed)
            .map(|i| format!("<sheet name=\"S{i}\" r:id=\"rId1\"/>"))
            .collect::<String>()
    );
    let rels = "<Relationships><Relationship Id=\"rId1\" Target=\"worksheets/sheet1.xml\"/></Relationships>";
    let sheet = format!("<worksheet><sheetData>{sheet}</sheetData></worksheet>");
    let strings = format!("<sst>{strings}</sst>");
    let styles = format!("<styleSheet>{styles}</styleSheet>");
    zip(&[
        ("xl/workbook.xml", workbook.as_bytes()),
        ("xl/_rels/workbook.xml.rels", rels.as_bytes()),
        ("xl/worksheets/sheet1.xml", sheet.as_bytes()),
        ("xl/sharedStrings.xml", strings.as_bytes()),
        ("xl/styles.xml", styles.as_bytes()),
    ])
}

/// A .pptx whose presentation lists one slide `n` times.
pub fn pptx_repeated(n: usize) -> Vec<u8> {
    let presentation = format!(
        "<p:presentation xmlns:p=\"p\" xmlns:r=\"r\"><p:sldIdLst>{}</p:sldIdLst></p:presentation>",
        "<p:sldId r:id=\"rId1\"/>".repeat(n)
    );
    let rels =
        "<Relationships><Relationship Id=\"rId1\" Target=\"slides/slide1.xml\"/></Relationships>";
    let slide = format!(
        "<p:sld xmlns:a=\"a\" xmlns:p=\"p\">{}</p:sld>",
        "<a:p><a:r><a:t>slide text</a:t></a:r></a:p>".repeat(500)
    );
    zip(&[
        ("ppt/presentation.xml", presentation.as_bytes()),
        ("ppt/_rels/presentation.xml.rels", rels.as_bytes()),
        ("ppt/slides/slide1.xml", slide.as_bytes()),
    ])
}

/// A .docx whose body is `body` and whose relationships are `rels`, with
/// `parts` beside them.
pub fn docx_with(body: &str, rels: &str, parts: &[(&str, &[u8])]) -> Vec<u8> {
    let document = format!("<w:document xmlns:w=\"w\"><w:body>{body}</w:body></w:document>");
    let rels = format!("<Relationships>{rels}</Relationships>");
    let mut all: Vec<(&str, &[u8])> = vec![
        ("word/document.xml", document.as_bytes()),
        ("word/_rels/document.xml.rels", rels.as_bytes()),
    ];
    all.extend_from_slice(parts);
    zip(&all)
}

/// A tag of `n` distinct attributes, then text: a reader checking each new
/// attribute against all before it takes n² steps inside one tag.
fn attributes(n: usize) -> String {
    (0..n).map(|i| format!(" a{i}=\"\"")).collect()
}

/// An end of central directory record claiming `entries` entries in a
/// directory of `size` bytes at `offset`, after a real one-entry zip.
fn eocd_lie(entries: u16, size: u32, offset: u32) -> Vec<u8> {
    let mut bytes = zip(&[(
        "word/document.xml",
        b"<w:document><w:body><w:p><w:t>lie</w:t></w:p></w:body></w:document>",
    )]);
    let at = bytes.len() - 22;
    bytes.truncate(at);
    bytes.extend_from_slice(b"PK\x05\x06\0\0\0\0");
    bytes.extend_from_slice(&entries.to_le_bytes());
    bytes.extend_from_slice(&entries.to_le_bytes());
    bytes.extend_from_slice(&size.to_le_bytes());
    bytes.extend_from_slice(&offset.to_le_bytes());
    bytes.extend_from_slice(&[0, 0]);
    bytes
}

/// A zip whose end record points at a ZIP64 record claiming 2^62 entries.
fn zip64_lie() -> Vec<u8> {
    let mut bytes = zip(&[(
        "word/document.xml",
        b"<w:document><w:body><w:p><w:t>lie</w:t></w:p></w:body></w:document>",
    )]);
    let eocd = bytes.len() - 22;
    let central = u32::from_le_bytes(bytes[eocd + 16..eocd + 20].try_into().unwrap()) as u64;
    bytes.truncate(eocd);
    let record = bytes.len() as u64;
    bytes.extend_from_slice(b"PK\x06\x06");
    bytes.extend_from_slice(&44u64.to_le_bytes());
    bytes.extend_from_slice(&[45, 0, 45, 0, 0, 0, 0, 0, 0, 0, 0, 0]);
    bytes.extend_from_slice(&(1u64 << 62).to_le_bytes());
    bytes.extend_from_slice(&(1u64 << 62).to_le_bytes());
    bytes.extend_from_slice(&(1u64 << 40).to_le_bytes());
    bytes.extend_from_slice(&central.to_le_bytes());
    bytes.extend_from_slice(b"PK\x06\x07\0\0\0\0");
    bytes.extend_from_slice(&record.to_le_bytes());
    bytes.extend_from_slice(&1u32.to_le_bytes());
    bytes.extend_from_slice(
        b"PK\x05\x06\0\0\0\0\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\0\0",
    );
    bytes
}

/// 9,000 sheets of a workbook whose entries all point at one 1 MB-deflated
/// local entry that inflates to 50 MB (the overlapping-entries zip bomb).
fn overlapping() -> Vec<u8> {
    let sheet = format!(
        "<worksheet><sheetData><row><c t=\"inlineStr\"><is><t>{}</t></is></c></row></sheetData></worksheet>",
        "y".repeat(50 << 20)
    );
    let workbook = format!(
        "<workbook xmlns:r=\"r\"><sheets>{}</sheets></workbook>",
        (0..9000)
            .map(|i| format!("<sheet name=\"S{i}\" r:id=\"rId{i}\"/>"))
            .collect::<String>()
    );
    let rels = format!(
        "<Relationships>{}</Relationships>",
        (0..9000)
            .map(|i| format!("<Relationship Id=\"rId{i}\" Target=\"worksheets/s{i}.xml\"/>"))
            .collect::<String>()
    );
    let mut crc = flate2::Crc::new();
    crc.update(sheet.as_bytes());
    let data = deflate(sheet.as_bytes());
    let mut entries = vec![
        (
            "xl/workbook.xml".to_string(),
            deflate(workbook.as_bytes()),
            workbook.len() as u64,
            {
                let mut c = flate2::Crc::new();
                c.update(workbook.as_bytes());
                c.sum()
            },
        ),
        (
            "xl/_rels/workbook.xml.rels".to_string(),
            deflate(rels.as_bytes()),
            rels.len() as u64,
            {
                let mut c = flate2::Crc::new();
                c.update(rels.as_bytes());
                c.sum()
            },
        ),
    ];
    // Written once, listed 9,000 times: the central directory points each
    // name at the same local entry.
    entries.push((
        "xl/worksheets/s0.xml".into(),
        data,
        sheet.len() as u64,
        crc.sum(),
    ));
    let mut bytes = zip_raw(&entries);
    let eocd = bytes.len() - 22;
    let central_at = u32::from_le_bytes(bytes[eocd + 16..eocd + 20].try_into().unwrap()) as usize;
    let mut central = bytes[central_at..eocd].to_vec();
    let last = find_last(&central, b"PK\x01\x02").unwrap();
    let record = central[last..].to_vec();
    for i in 1..9000 {
        let mut named = record[..46].to_vec();
        let name = format!("xl/worksheets/s{i}.xml");
        named[28..30].copy_from_slice(&(name.len() as u16).to_le_bytes());
        named.extend_from_slice(name.as_bytes());
        central.extend_from_slice(&named);
    }
    bytes.truncate(central_at);
    bytes.extend_from_slice(&central);
    bytes.extend_from_slice(b"PK\x05\x06\0\0\0\0");
    let count = (9002u16).to_le_bytes();
    bytes.extend_from_slice(&count);
    bytes.extend_from_slice(&count);
    bytes.extend_from_slice(&(central.len() as u32).to_le_bytes());
    bytes.extend_from_slice(&(central_at as u32).to_le_bytes());
    bytes.extend_from_slice(&[0, 0]);
    bytes
}

fn find_last(haystack: &[u8], needle: &[u8]) -> Option<usize> {
    haystack.windows(needle.len()).rposition(|w| w == needle)
}

/// An EPUB whose pages are listed as encrypted (META-INF/encryption.xml):
/// their bytes are ciphertext, not text.
fn encrypted_epub() -> Vec<u8> {
    let encryption = "<encryption xmlns=\"urn:oasis:names:tc:opendocument:xmlns:container\" \
        xmlns:enc=\"http://www.w3.org/2001/04/xmlenc#\"><enc:EncryptedData>\
        <enc:EncryptionMethod Algorithm=\"http://www.w3.org/2001/04/xmlenc#aes128-cbc\"/>\
        <enc:CipherData><enc:CipherReference URI=\"OEBPS/p.xhtml\"/></enc:CipherData>\
        </enc:EncryptedData></encryption>";
    let mut cipher = Vec::new();
    let mut seed = 99u32;
    for _ in 0..4096 {
        seed = seed.wrapping_mul(1_103_515_245).wrapping_add(12_345);
        cipher.push(b'A' + ((seed >> 16) % 26) as u8);
    }
    epub(
        "<item id=\"p\" href=\"p.xhtml\" media-type=\"application/xhtml+xml\"/>\
         <item id=\"q\" href=\"q.xhtml\" media-type=\"application/xhtml+xml\"/>",
        "<itemref idref=\"p\"/><itemref idref=\"q\"/>",
        &[
            ("META-INF/encryption.xml", encryption.as_bytes()),
            ("OEBPS/p.xhtml", &cipher),
            (
                "OEBPS/q.xhtml",
                b"<html><body><p>Clear page</p></body></html>",
            ),
        ],
    )
}

/// Every document of this run.
pub fn corpus() -> Vec<Hostile> {
    let doc = |name, kind, bytes, expect| Hostile {
        name,
        kind,
        bytes,
        expect,
    };
    let big_string = format!("<si><t>{}</t></si>", "s".repeat(80 << 20));
    let numfmts: String = (0..400_000)
        .map(|i| {
            format!(
                "<numFmt numFmtId=\"{}\" formatCode=\"yyyy-mm-dd\"/>",
                1000 + i
            )
        })
        .collect();
    let xfs = "<xf numFmtId=\"1000\"/>".repeat(1_000_000);
    let wide: String = "<row><c r=\"XFD1048576\"><v>1</v></c></row>".repeat(200_000);
    let header = b"<w:hdr xmlns:w=\"w\"><w:p><w:r><w:t>head</w:t></w:r></w:p></w:hdr>".as_slice();
    let self_rels: String = (0..5000)
        .map(|i| {
            format!(
                "<Relationship Id=\"r{i}\" Type=\"x/header\" Target=\"{}\"/>",
                if i % 2 == 0 {
                    "document.xml"
                } else {
                    "../word/./header1.xml"
                }
            )
        })
        .collect();
    vec![
        doc("xlsx: an 80 MB shared string used by 1,000 cells", Kind::Office, xlsx(&"<row><c t=\"s\"><v>0</v></c></row>".repeat(1000), &big_string, "", 1), Expect::Cut),
        doc("xlsx: 200,000 rows with a cell at XFD1048576", Kind::Office, xlsx(&wide, "", "", 1), Expect::Cut),
        doc("xlsx: one sheet listed 100,000 times", Kind::Office, xlsx(&"<row><c><v>7</v></c></row>".repeat(200), "", "", 100_000), Expect::Ends),
        doc("xlsx: 400,000 number formats, 1 million cell styles", Kind::Office, xlsx("<row><c s=\"999999\"><v>45000</v></c></row>", "", &format!("<numFmts>{numfmts}</numFmts><cellXfs>{xfs}</cellXfs>"), 1), Expect::Holds("2023-03-15")),
        doc("xlsx: a date cell of 1e308 and NaN", Kind::Office, xlsx("<row><c s=\"0\"><v>1e308</v></c><c s=\"0\"><v>NaN</v></c><c s=\"0\"><v>-1e308</v></c><c s=\"0\"><v>2958466</v></c><c><v>ok</v></c></row>", "", "<cellXfs><xf numFmtId=\"22\"/></cellXfs>", 1), Expect::Holds("ok")),
        doc("xlsx: a cell of 200,000 attributes", Kind::Office, xlsx(&format!("<row><c{} r=\"B1\"><v>attrs</v></c></row>", attributes(200_000)), "", "", 1), Expect::Holds("attrs")),
        doc("docx: a paragraph of 200,000 attributes", Kind::Office, docx_with(&format!("<w:p{}><w:r><w:t>attrs</w:t></w:r></w:p>", attributes(200_000)), "", &[]), Expect::Holds("attrs")),
        doc("docx: 1 million distinct footnote references", Kind::Office, docx_with(&format!("<w:p>{}</w:p>", (0..1_000_000).map(|i| format!("<w:footnoteReference w:id=\"{i}\"/>")).collect::<String>()), "", &[]), Expect::Ends),
        doc("docx: 1 million references cycling through 20,000 notes, past the numbered ones", Kind::Office, docx_with(&format!("<w:p>{}<w:r><w:t>after</w:t></w:r></w:p>", (0..1_000_000).map(|i| format!("<w:footnoteReference w:id=\"{}\"/>", i % 20_000)).collect::<String>()), "", &[]), Expect::Holds("[^10000]")),
        doc("docx: 5,000 header relationships to itself and one header", Kind::Office, docx_with("<w:p><w:r><w:t>body</w:t></w:r></w:p>", &self_rels, &[("word/header1.xml", header)]), Expect::Holds("head")),
        doc("docx: text boxes nested 1 million deep", Kind::Office, docx_with(&format!("{}<w:t>deep</w:t>", "<w:p><w:r><w:pict><w:txbxContent>".repeat(1_000_000)), "", &[]), Expect::Holds("deep")),
        doc("pptx: one slide listed 1 million times", Kind::Office, pptx_repeated(1_000_000), Expect::Ends),
        doc("zip: end record claiming 65,535 entries", Kind::Office, eocd_lie(65535, 0xffff_fff0, 0), Expect::Ends),
        doc("zip: ZIP64 record claiming 2^62 entries", Kind::Office, zip64_lie(), Expect::Ends),
        doc("zip: 9,000 entries overlapping one 50 MB entry", Kind::Office, overlapping(), Expect::Ends),
        doc("zip: two entries named word/document.xml", Kind::Office, zip(&[("word/document.xml", b"<w:document><w:body><w:p><w:t>first</w:t></w:p></w:body></w:document>"), ("word/document.xml", b"<w:document><w:body><w:p><w:t>second</w:t></w:p></w:body></w:document>")]), Expect::Ends),
        doc("epub: a page listed as encrypted", Kind::Office, encrypted_epub(), Expect::Holds("Clear page\n[pages not read, encrypted: 1]")),
        doc("epub: the rootfile is container.xml itself", Kind::Office, zip(&[("META-INF/container.xml", b"<container><rootfiles><rootfile full-path=\"META-INF/container.xml\"/></rootfiles></container>")]), Expect::Ends),
        doc("html: a tag of 200,000 attributes", Kind::Html, format!("<p{}>attrs</p>", attributes(200_000)).into_bytes(), Expect::Cut),
        doc("html: 5 million entities", Kind::Html, format!("<p>{}end</p>", "&amp;&#x10FFFF;&#0;&notin".repeat(1_000_000)).into_bytes(), Expect::Holds("end")),
        doc("html: an unclosed 20 MB comment and attribute", Kind::Html, format!("<p>start</p><a href=\"{}\"><!--{}", "h".repeat(10 << 20), "c".repeat(10 << 20)).into_bytes(), Expect::Holds("start")),
        doc("html: 1 million cells in one row", Kind::Html, format!("<table><tr>{}</tr></table>", "<td>c".repeat(1_000_000)).into_bytes(), Expect::Holds("c | c")),
        doc("html: templates nested 500,000 deep", Kind::Html, format!("{}hidden", "<template>".repeat(500_000)).into_bytes(), Expect::Ends),
        doc("pdf: a /Count of 2^36 pages", Kind::Pdf, pdfs::count_lie(), Expect::Holds("readable text")),
        doc("pdf: a page tree fanning out to 10^12 pages", Kind::Pdf, pdfs::page_fan(1000, 4), Expect::Ends),
        doc("pdf: a page tree whose node is its own parent", Kind::Pdf, pdfs::parent_cycle(), Expect::Ends),
        doc("pdf: cross-reference sections in a loop", Kind::Pdf, pdfs::xref_loop(), Expect::Holds("readable text")),
        doc("pdf: an object stream extending itself", Kind::Pdf, pdfs::object_stream_cycle(), Expect::Ends),
        doc("pdf: stream lengths past the file, negative, self-referring", Kind::Pdf, pdfs::length_lies(), Expect::Ends),
        doc("pdf: a /Length behind 100,000 references", Kind::Pdf, pdfs::reference_chain(100_000), Expect::Ends),
        doc("pdf: an array nested 1 million deep in a page", Kind::Pdf, pdfs::deep_object(1_000_000), Expect::Ends),
        doc("pdf: a content array nested 1 million deep", Kind::Pdf, pdfs::deep_content(1_000_000, false), Expect::Ends),
        doc("pdf: a content dictionary nested 500,000 deep", Kind::Pdf, pdfs::deep_content(500_000, true), Expect::Ends),
        doc("pdf: deflate in deflate in hex, a gigabyte", Kind::Pdf, pdfs::double_flate(), Expect::Ends),
        doc("pdf: deflate in LZW in hex, 512 MB", Kind::Pdf, pdfs::flate_in_lzw_in_hex(), Expect::Ends),
        doc("pdf: LZW of 80 MB of spaces", Kind::Pdf, pdfs::lzw_bomb(), Expect::Ends),
        doc("pdf: a predictor with rows 2^40 bytes wide", Kind::Pdf, pdfs::predictor_lie(1 << 37, 8, 8), Expect::Ends),
        doc("pdf: a predictor overflowing usize", Kind::Pdf, pdfs::predictor_lie(u64::MAX / 2, 255, 16), Expect::Ends),
        doc("pdf: a ToUnicode map of 20,000 full ranges", Kind::Pdf, pdfs::tounicode_ranges(20_000, false), Expect::Ends),
        doc("pdf: a ToUnicode map of 20,000 full array ranges", Kind::Pdf, pdfs::tounicode_ranges(20_000, true), Expect::Ends),
        doc("pdf: a Type 3 font drawing itself", Kind::Pdf, pdfs::type3_recursion(), Expect::Holds("readable text")),
        doc("pdf: a 30 MB inline image holding EI", Kind::Pdf, pdfs::inline_image(30 << 20), Expect::Ends),
        doc("pdf: one content stream listed 100,000 times", Kind::Pdf, pdfs::many_contents(100_000), Expect::Ends),
    ]
}
