//! Hostile PDFs written byte by byte, so they can lie where a PDF writer would
//! not: page counts, lengths, cross-reference chains, filter parameters and
//! nesting the reader has to survive.

use std::io::Write;

use flate2::{write::ZlibEncoder, Compression};

/// A PDF of `objects` (object `i + 1` is `objects[i]`, written as is), whose
/// catalog is object 1, with a true cross-reference table; `trailer` is added
/// to the trailer dictionary.
pub fn raw_pdf(objects: &[Vec<u8>], trailer: &str) -> Vec<u8> {
    let mut out = b"%PDF-1.7\n%\xe2\xe3\xcf\xd3\n".to_vec();
    let mut offsets = Vec::new();
    for (i, body) in objects.iter().enumerate() {
        offsets.push(out.len());
        out.extend_from_slice(format!("{} 0 obj\n", i + 1).as_bytes());
        out.extend_from_slice(body);
        out.extend_from_slice(b"\nendobj\n");
    }
    let xref = out.len();
    out.extend_from_slice(
        format!("xref\n0 {}\n0000000000 65535 f \n", objects.len() + 1).as_bytes(),
    );
    for offset in offsets {
        out.extend_from_slice(format!("{offset:010} 00000 n \n").as_bytes());
    }
    out.extend_from_slice(
        format!(
            "trailer\n<< /Size {} /Root 1 0 R {trailer} >>\nstartxref\n{xref}\n%%EOF\n",
            objects.len() + 1
        )
        .as_bytes(),
    );
    out
}

/// A stream object of `dict` (without its `/Length`) and `data`, its length true.
pub fn stream(dict: &str, data: &[u8]) -> Vec<u8> {
    let mut out = format!("<< {dict} /Length {} >>\nstream\n", data.len()).into_bytes();
    out.extend_from_slice(data);
    out.extend_from_slice(b"\nendstream");
    out
}

/// zlib data for `bytes`, as `/FlateDecode` reads it.
pub fn zlib(bytes: &[u8]) -> Vec<u8> {
    let mut encoder = ZlibEncoder::new(Vec::new(), Compression::best());
    encoder.write_all(bytes).unwrap();
    encoder.finish().unwrap()
}

const FONT: &str =
    "<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica /Encoding /WinAnsiEncoding >>";

/// Objects 1-4 of a one-page PDF: catalog, pages, page, font; the page's
/// content is object 5 and `page_extra` goes in the page's dictionary.
fn one_page(pages: &str, page_extra: &str) -> Vec<Vec<u8>> {
    vec![
        b"<< /Type /Catalog /Pages 2 0 R >>".to_vec(),
        pages.as_bytes().to_vec(),
        format!(
            "<< /Type /Page /Parent 2 0 R /Contents 5 0 R /Resources << /Font << /F1 4 0 R >> >> {page_extra} >>"
        )
        .into_bytes(),
        FONT.as_bytes().to_vec(),
    ]
}

const SAID: &[u8] = b"BT /F1 12 Tf 72 700 Td (readable text) Tj ET";

/// A page tree whose second node claims 2^36 pages: a reader sizing its list
/// of pages by /Count asks for a terabyte.
pub fn count_lie() -> Vec<u8> {
    let mut objects = one_page("<< /Type /Pages /Kids [3 0 R 6 0 R] /Count 2 >>", "");
    objects.push(stream("", SAID));
    objects.push(b"<< /Type /Pages /Parent 2 0 R /Kids [7 0 R] /Count 68719476736 >>".to_vec());
    objects.push(
        b"<< /Type /Page /Parent 6 0 R /Contents 5 0 R /Resources << /Font << /F1 4 0 R >> >> >>"
            .to_vec(),
    );
    raw_pdf(&objects, "")
}

/// A page tree of nodes each listing the next node `fan` times, `levels`
/// deep, the last listing one page `fan` times: `fan^levels` pages from a
/// few kilobytes.
pub fn page_fan(fan: usize, levels: usize) -> Vec<u8> {
    let mut objects = vec![
        b"<< /Type /Catalog /Pages 2 0 R >>".to_vec(),
        Vec::new(),
        b"<< /Type /Page /Contents 5 0 R /Resources << /Font << /F1 4 0 R >> >> >>".to_vec(),
        FONT.as_bytes().to_vec(),
        stream("", SAID),
    ];
    for level in 0..levels {
        let id = if level == 0 { 2 } else { 5 + level };
        let next = if level + 1 == levels { 3 } else { 6 + level };
        let kids = format!("{next} 0 R ").repeat(fan);
        let body = format!(
            "<< /Type /Pages /Kids [{kids}] /Count {} >>",
            fan.pow((levels - level) as u32)
        );
        if id == 2 {
            objects[1] = body.into_bytes();
        } else {
            objects.push(body.into_bytes());
        }
    }
    raw_pdf(&objects, "")
}

/// A page whose parent is itself, and whose resources are inherited from it.
pub fn parent_cycle() -> Vec<u8> {
    let objects = vec![
        b"<< /Type /Catalog /Pages 2 0 R >>".to_vec(),
        b"<< /Type /Pages /Kids [3 0 R] /Count 1 /Parent 2 0 R >>".to_vec(),
        b"<< /Type /Page /Parent 3 0 R /Contents 5 0 R >>".to_vec(),
        FONT.as_bytes().to_vec(),
        stream("", SAID),
    ];
    raw_pdf(&objects, "")
}

/// A trailer whose /Prev is its own cross-reference table, and a second
/// table before it pointing back: a loop of cross-reference sections.
pub fn xref_loop() -> Vec<u8> {
    let mut objects = one_page("<< /Type /Pages /Kids [3 0 R] /Count 1 >>", "");
    objects.push(stream("", SAID));
    let bytes = raw_pdf(&objects, "");
    let at = find(&bytes, b"startxref\n").unwrap() + 10;
    let xref: usize = std::str::from_utf8(&bytes[at..])
        .unwrap()
        .lines()
        .next()
        .unwrap()
        .parse()
        .unwrap();
    raw_pdf(&objects, &format!("/Prev {xref}"))
}

/// An object stream that /Extends itself, and whose objects are all in it.
pub fn object_stream_cycle() -> Vec<u8> {
    let inner = b"<< /Type /Catalog /Pages 2 0 R >> ";
    let header = b"1 0 ";
    let mut data = header.to_vec();
    data.extend_from_slice(inner);
    let mut objects = vec![Vec::new(); 6];
    objects[0] = b"<< /Type /Catalog /Pages 2 0 R >>".to_vec();
    objects[1] = b"<< /Type /Pages /Kids [3 0 R] /Count 1 >>".to_vec();
    objects[2] =
        b"<< /Type /Page /Parent 2 0 R /Contents 5 0 R /Resources << /Font << /F1 4 0 R >> >> >>"
            .to_vec();
    objects[3] = FONT.as_bytes().to_vec();
    objects[4] = stream("", SAID);
    objects[5] = stream(
        &format!(
            "/Type /ObjStm /N 1000000 /First {} /Extends 6 0 R",
            header.len()
        ),
        &data,
    );
    raw_pdf(&objects, "")
}

/// Content streams whose /Length lies: far past the file, negative, and a
/// reference to itself.
pub fn length_lies() -> Vec<u8> {
    let mut objects = one_page("<< /Type /Pages /Kids [3 0 R] /Count 1 >>", "");
    let mut content = b"<< /Length 999999999999 >>\nstream\n".to_vec();
    content.extend_from_slice(SAID);
    content.extend_from_slice(b"\nendstream");
    objects.push(content);
    objects.push(b"<< /Length -5 >>\nstream\nBT (x) Tj ET\nendstream".to_vec());
    objects.push(b"<< /Length 7 0 R >>\nstream\nBT (y) Tj ET\nendstream".to_vec());
    raw_pdf(&objects, "")
}

/// A chain of 100,000 references, each object naming the next, used as a
/// content stream's /Length: a reader following them by recursion overflows
/// its stack.
pub fn reference_chain(n: usize) -> Vec<u8> {
    let mut objects = one_page("<< /Type /Pages /Kids [3 0 R] /Count 1 >>", "");
    let mut content = b"<< /Length 6 0 R >>\nstream\n".to_vec();
    content.extend_from_slice(SAID);
    content.extend_from_slice(b"\nendstream");
    objects.push(content);
    for i in 0..n {
        objects.push(format!("{} 0 R", 7 + i).into_bytes());
    }
    objects.push(format!("{}", SAID.len()).into_bytes());
    raw_pdf(&objects, "")
}

/// A page dictionary holding an array nested `depth` deep.
pub fn deep_object(depth: usize) -> Vec<u8> {
    let nest = format!("/Deep {}{}", "[".repeat(depth), "]".repeat(depth));
    let mut objects = one_page("<< /Type /Pages /Kids [3 0 R] /Count 1 >>", &nest);
    objects.push(stream("", SAID));
    raw_pdf(&objects, "")
}

/// A content stream holding an operand array nested `depth` deep, then text.
pub fn deep_content(depth: usize, dict: bool) -> Vec<u8> {
    let mut content = b"BT /F1 12 Tf 72 700 Td (before) Tj ".to_vec();
    if dict {
        content.extend(b"<< /A ".repeat(depth));
        content.extend(b">> ".repeat(depth));
        content.extend_from_slice(b"BDC ");
    } else {
        content.extend(b"[".repeat(depth));
        content.extend(b"]".repeat(depth));
        content.extend_from_slice(b" TJ ");
    }
    content.extend_from_slice(b"(after) Tj ET");
    let mut objects = one_page("<< /Type /Pages /Kids [3 0 R] /Count 1 >>", "");
    objects.push(stream("/Filter /FlateDecode", &zlib(&content)));
    raw_pdf(&objects, "")
}

/// A page's content behind `filters`, the data encoded for them in turn.
pub fn filtered(filters: &str, params: &str, data: Vec<u8>) -> Vec<u8> {
    let mut objects = one_page("<< /Type /Pages /Kids [3 0 R] /Count 1 >>", "");
    objects.push(stream(&format!("/Filter {filters} {params}"), &data));
    raw_pdf(&objects, "")
}

/// Deflate inside deflate inside hex: a gigabyte of text operations in kilobytes.
pub fn double_flate() -> Vec<u8> {
    let mut ops = Vec::new();
    let mut encoder = ZlibEncoder::new(Vec::new(), Compression::best());
    let chunk = b"(x) Tj ".repeat(1 << 17);
    encoder.write_all(b"BT /F1 12 Tf ").unwrap();
    for _ in 0..(1024 << 20) / chunk.len() {
        encoder.write_all(&chunk).unwrap();
    }
    ops.extend(encoder.finish().unwrap());
    let twice = zlib(&ops);
    let hex: Vec<u8> = twice
        .iter()
        .flat_map(|b| format!("{b:02x}").into_bytes())
        .collect();
    filtered("[/ASCIIHexDecode /FlateDecode /FlateDecode]", "", hex)
}

/// LZW data of `bytes`, with PDF's early change.
pub fn lzw(bytes: &[u8]) -> Vec<u8> {
    weezl::encode::Encoder::with_tiff_size_switch(weezl::BitOrder::Msb, 8)
        .encode(bytes)
        .unwrap()
}

/// Deflate inside LZW inside hex, 512 MB of spaces at its core.
pub fn flate_in_lzw_in_hex() -> Vec<u8> {
    let mut encoder = ZlibEncoder::new(Vec::new(), Compression::best());
    encoder.write_all(b"BT /F1 12 Tf (chain) Tj ET ").unwrap();
    let spaces = vec![b' '; 1 << 20];
    for _ in 0..512 {
        encoder.write_all(&spaces).unwrap();
    }
    let flate = encoder.finish().unwrap();
    let lzw = lzw(&flate);
    let hex: Vec<u8> = lzw
        .iter()
        .flat_map(|b| format!("{b:02x}").into_bytes())
        .collect();
    filtered("[/ASCIIHexDecode /LZWDecode /FlateDecode]", "", hex)
}

/// An LZW stream of 80 MB of one byte: LZW's own bomb, past the 64 MB a
/// stream may inflate to.
pub fn lzw_bomb() -> Vec<u8> {
    filtered("/LZWDecode", "", lzw(&vec![b' '; 80 << 20]))
}

/// Flate with a PNG predictor whose rows are gigabytes wide.
pub fn predictor_lie(columns: u64, colors: u64, bits: u64) -> Vec<u8> {
    filtered(
        "/FlateDecode",
        &format!("/DecodeParms << /Predictor 12 /Columns {columns} /Colors {colors} /BitsPerComponent {bits} >>"),
        zlib(&[2, 0, 0, 0]),
    )
}

/// A font whose ToUnicode map gives `ranges` ranges of 65,536 codes each.
pub fn tounicode_ranges(ranges: usize, array: bool) -> Vec<u8> {
    let mut cmap = b"/CIDInit /ProcSet findresource begin 12 dict begin begincmap \
        1 begincodespacerange <0000> <FFFF> endcodespacerange\n"
        .to_vec();
    for _ in 0..ranges.div_ceil(100) {
        cmap.extend_from_slice(b"100 beginbfrange\n");
        for _ in 0..100 {
            if array {
                cmap.extend_from_slice(b"<0000> <FFFF> [<0041>]\n");
            } else {
                cmap.extend_from_slice(b"<0000> <FFFF> <0041>\n");
            }
        }
        cmap.extend_from_slice(b"endbfrange\n");
    }
    cmap.extend_from_slice(b"endcmap end end");
    let mut objects = vec![
        b"<< /Type /Catalog /Pages 2 0 R >>".to_vec(),
        b"<< /Type /Pages /Kids [3 0 R] /Count 1 >>".to_vec(),
        b"<< /Type /Page /Parent 2 0 R /Contents 5 0 R /Resources << /Font << /F1 4 0 R >> >> >>".to_vec(),
        b"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica /ToUnicode 6 0 R /FirstChar 0 /LastChar 2147483647 /Widths [500] >>".to_vec(),
        stream("", b"BT /F1 12 Tf 72 700 Td (AB) Tj ET"),
    ];
    objects.push(stream("/Filter /FlateDecode", &zlib(&cmap)));
    raw_pdf(&objects, "")
}

/// A Type 3 font whose glyph procedures draw the font again, with resources
/// naming themselves.
pub fn type3_recursion() -> Vec<u8> {
    let objects = vec![
        b"<< /Type /Catalog /Pages 2 0 R >>".to_vec(),
        b"<< /Type /Pages /Kids [3 0 R] /Count 1 >>".to_vec(),
        b"<< /Type /Page /Parent 2 0 R /Contents 5 0 R /Resources 7 0 R >>".to_vec(),
        b"<< /Type /Font /Subtype /Type3 /FontBBox [0 0 1 1] /FontMatrix [1 0 0 1 0 0] \
          /CharProcs << /a 6 0 R >> /Encoding << /Differences [97 /a] >> /FirstChar 97 /LastChar 97 \
          /Widths [1] /Resources 7 0 R >>"
            .to_vec(),
        stream("", b"BT /F1 12 Tf 72 700 Td (aaaa) Tj (readable text) Tj ET"),
        stream("", b"BT /F1 1 Tf (a) Tj ET /Fm Do"),
        b"<< /Font << /F1 4 0 R >> /XObject << /Fm 6 0 R >> >>".to_vec(),
    ];
    raw_pdf(&objects, "")
}

/// An inline image of `bytes` bytes of binary data (holding `EI` and `ET`
/// inside it) between two lines of text.
pub fn inline_image(bytes: usize) -> Vec<u8> {
    let mut content =
        b"BT /F1 12 Tf 72 700 Td (before) Tj ET q BI /W 65535 /H 65535 /BPC 8 /CS /RGB /F /AHx ID "
            .to_vec();
    let mut seed = 7u32;
    for _ in 0..bytes {
        seed = seed.wrapping_mul(1_103_515_245).wrapping_add(12_345);
        content.push((seed >> 16) as u8);
    }
    content.extend_from_slice(b" EI Q BT /F1 12 Tf 72 600 Td (after) Tj ET");
    let mut objects = one_page("<< /Type /Pages /Kids [3 0 R] /Count 1 >>", "");
    objects.push(stream("/Filter /FlateDecode", &zlib(&content)));
    raw_pdf(&objects, "")
}

/// A page whose /Contents lists one stream `n` times.
pub fn many_contents(n: usize) -> Vec<u8> {
    let mut objects = one_page("<< /Type /Pages /Kids [3 0 R] /Count 1 >>", "");
    objects[2] = format!(
        "<< /Type /Page /Parent 2 0 R /Contents [{}] /Resources << /Font << /F1 4 0 R >> >> >>",
        "5 0 R ".repeat(n)
    )
    .into_bytes();
    objects.push(stream(
        "/Filter /FlateDecode",
        &zlib(&b"BT /F1 12 Tf (x) Tj ET ".repeat(4096)),
    ));
    raw_pdf(&objects, "")
}

fn find(haystack: &[u8], needle: &[u8]) -> Option<usize> {
    haystack.windows(needle.len()).rposition(|w| w == needle)
}
