//! What the converters read of documents LibreOffice wrote from the flat ODF
//! sources in spec/fixtures/documents (see its `generate`): dates, hidden
//! sheets, headers, notes and comments, OpenDocument and EPUB.

mod hostile;

use file_store_convert::{self as convert, Refusal};
use hostile::{saved, with_one_page};

fn fixture(name: &str) -> Vec<u8> {
    let path = format!(
        "{}/../../spec/fixtures/documents/{name}",
        env!("CARGO_MANIFEST_DIR")
    );
    std::fs::read(&path).unwrap_or_else(|e| panic!("{path}: {e}"))
}

const DATES: &str = "## Invoices\nInvoice\tIssued\tDue\tAmount\n\
    INV-101\t2024-03-15\t2024-04-14\t1250.5\n\
    INV-102\t2024-02-29\t2024-03-30\t980\n\n\
    ## Shifts\nStarts\tLogged\n14:30:00\t2024-03-15T09:45:00\n\n\
    ## Rates (hidden)\nInternal rate\t0.07\n";

#[test]
fn reads_excel_dates_and_marks_hidden_sheets() {
    assert_eq!(convert::office(&fixture("dates.xlsx")).unwrap(), DATES);
}

#[test]
fn reads_excel_dates_in_the_1904_date_system() {
    assert_eq!(convert::office(&fixture("dates1904.xlsx")).unwrap(), DATES);
}

#[test]
fn an_empty_word_document_is_left_to_the_next_converter() {
    assert_eq!(
        convert::office(&fixture("empty.docx")),
        Err(Refusal::NoText("Office document"))
    );
}

const NOTES: &str = "# Board Minutes\n\
    The board met in Lyon on a rainy Tuesday[^1] and approved the budget.\n\
    Decisions taken:\n- Open a warehouse in Porto\n- Freeze hiring until autumn\n\
    Motion | Result\nWarehouse | Carried unanimously\n\
    ## Next meeting\nThe next meeting is in Zürich[^e1] in June.\n\n\
    ## Headers and footers\nAcme Corporation confidential\nPrepared for the supervisory board\n\n\
    ## Footnotes\n[^1] Minutes taken by the company secretary.\n\n\
    ## Endnotes\n[^e1] Travel booked through the usual agency.\n\n\
    ## Comments\nAna Ruiz: Please confirm the venue before publishing.\n";

#[test]
fn reads_word_headers_footers_notes_and_comments() {
    let text = convert::office(&fixture("notes.docx")).unwrap();
    assert_eq!(text, NOTES);
}

#[test]
fn reads_opendocument_text_zipped_and_flat() {
    for name in ["notes.odt", "notes.fodt"] {
        let text = convert::office(&fixture(name)).unwrap();
        // The same as the .docx LibreOffice wrote from it, the comment's author aside.
        assert_eq!(text, NOTES, "{name}");
    }
}

#[test]
fn reads_opendocument_spreadsheets_with_dates_and_hidden_sheets() {
    let expected = DATES
        .replace("1250.5", "1,250.50")
        .replace("\t980\n", "\t980.00\n");
    for name in ["dates.ods", "dates.fods"] {
        assert_eq!(convert::office(&fixture(name)).unwrap(), expected, "{name}");
    }
}

#[test]
fn reads_opendocument_presentations() {
    for name in ["deck.odp", "deck.fodp"] {
        assert_eq!(
            convert::office(&fixture(name)).unwrap(),
            "## Slide 1\nLaunch Plan\nShip the beta in March\nHire two engineers\n\n\
             ## Slide 2\nBudget\nItem | Cost\nServers | 4000\n",
            "{name}"
        );
    }
}

#[test]
fn reads_epub_books_in_spine_order() {
    let text = convert::office(&fixture("notes.epub")).unwrap();
    assert!(text.contains("The board met in Lyon"), "{text}");
    let order = [
        "Board Minutes",
        "Open a warehouse in Porto",
        "Carried unanimously",
        "Next meeting",
    ];
    let at: Vec<usize> = order.iter().map(|w| text.find(w).unwrap()).collect();
    assert!(at.windows(2).all(|w| w[0] < w[1]), "{text}");
}

/// A one-page PDF whose page draws form `Fm1`, which shows text and draws `Fm2`,
/// which shows text and draws `Fm1` again (a cycle) and itself.
fn pdf_with_forms() -> Vec<u8> {
    use lopdf::{dictionary, Document, Object, Stream};
    let mut doc = Document::with_version("1.5");
    let font = doc.add_object(dictionary! {
        "Type" => "Font", "Subtype" => "Type1", "BaseFont" => "Helvetica", "Encoding" => "WinAnsiEncoding",
    });
    let fm1 = doc.new_object_id();
    let fm2 = doc.new_object_id();
    let form = |content: &str, fonts: bool| {
        let mut resources = dictionary! { "XObject" => dictionary! { "Fm1" => fm1, "Fm2" => fm2 } };
        if fonts {
            resources.set("Font", dictionary! { "F2" => font });
        }
        Object::Stream(Stream::new(
            dictionary! { "Type" => "XObject", "Subtype" => "Form", "BBox" => vec![0.into(), 0.into(), 600.into(), 800.into()], "Resources" => resources },
            content.as_bytes().to_vec(),
        ))
    };
    doc.objects.insert(
        fm1,
        form(
            "BT /F1 12 Tf 72 700 Td (Drawn by the first form) Tj ET /Fm2 Do",
            false,
        ),
    );
    doc.objects.insert(
        fm2,
        form(
            "BT /F2 12 Tf 72 600 Td (Drawn by the second form) Tj ET /Fm1 Do /Fm2 Do",
            true,
        ),
    );
    let pages = doc.new_object_id();
    let content = doc.add_object(Stream::new(
        dictionary! {},
        b"BT /F1 12 Tf 72 750 Td (On the page) Tj ET /Fm1 Do".to_vec(),
    ));
    let page = doc.add_object(dictionary! {
        "Type" => "Page", "Parent" => pages, "Contents" => content,
        "Resources" => dictionary! { "Font" => dictionary! { "F1" => font }, "XObject" => dictionary! { "Fm1" => fm1 } },
        "MediaBox" => vec![0.into(), 0.into(), 600.into(), 800.into()],
    });
    with_one_page(&mut doc, pages, page)
}

#[test]
fn reads_text_inside_pdf_form_xobjects_and_survives_their_cycles() {
    let text = convert::pdf(&pdf_with_forms()).unwrap();
    assert_eq!(
        text,
        "## Page 1\nOn the page\nDrawn by the first form\nDrawn by the second form\n"
    );
}

/// A page drawing form 0 once, where each of 8 forms draws the next 300 times:
/// 300^8 drawings if nothing held it back.
fn pdf_with_a_fan_of_forms() -> Vec<u8> {
    use lopdf::{dictionary, Document, Object, Stream};
    let mut doc = Document::with_version("1.5");
    let font = doc.add_object(dictionary! {
        "Type" => "Font", "Subtype" => "Type1", "BaseFont" => "Helvetica",
    });
    let ids: Vec<_> = (0..9).map(|_| doc.new_object_id()).collect();
    for level in 0..9 {
        let mut content = String::from("BT /F1 12 Tf (x) Tj ET ");
        let mut xobjects = lopdf::Dictionary::new();
        if level < 8 {
            content.push_str(&"/Fm Do ".repeat(300));
            xobjects.set("Fm", ids[level + 1]);
        }
        let dict = dictionary! {
            "Subtype" => "Form",
            "Resources" => dictionary! { "XObject" => xobjects, "Font" => dictionary! { "F1" => font } },
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

#[test]
fn a_fan_of_pdf_forms_ends_at_the_form_budget() {
    let bytes = pdf_with_a_fan_of_forms();
    let started = std::time::Instant::now();
    let text = convert::pdf(&bytes).unwrap();
    let took = started.elapsed();
    assert!(text.starts_with("## Page 1\nx"), "{}", &text[..40]);
    // 10,000 drawings at most, in a debug build on a shared machine.
    assert!(took < std::time::Duration::from_secs(10), "{took:?}");
}

/// A one-page PDF showing `content` with font `/F1`, a Type 1 font that names
/// no encoding and embeds a program whose own encoding puts `fi` at code 12
/// and `“` `”` at 92 and 34, as TeX's Computer Modern fonts do.
fn pdf_in_a_tex_font(content: &str) -> Vec<u8> {
    use lopdf::{dictionary, Document, Stream};
    let mut doc = Document::with_version("1.5");
    let mut program =
        b"%!PS-AdobeFont-1.0: CMR10 003.002\n/FontName /CMR10 def\n/Encoding 256 array\n\
0 1 255 {1 index exch /.notdef put} for\ndup 12 /fi put\ndup 34 /quotedblright put\n"
            .to_vec();
    for c in (b'a'..=b'z').chain(b'A'..=b'Z') {
        program.extend_from_slice(format!("dup {c} /{} put\n", c as char).as_bytes());
    }
    program.extend_from_slice(
        b"dup 45 /hyphen put\ndup 92 /quotedblleft put\nreadonly def\ncurrentfile eexec\n",
    );
    let clear = program.len() as i64;
    program.extend_from_slice(&[0x80; 64]);
    let file = doc.add_object(Stream::new(
        dictionary! { "Length1" => clear, "Length2" => 64, "Length3" => 0 },
        program,
    ));
    let descriptor = doc.add_object(dictionary! {
        "Type" => "FontDescriptor", "FontName" => "CMR10", "Flags" => 4, "FontFile" => file,
    });
    let font = doc.add_object(dictionary! {
        "Type" => "Font", "Subtype" => "Type1", "BaseFont" => "CMR10", "FontDescriptor" => descriptor,
    });
    let pages = doc.new_object_id();
    let content = doc.add_object(Stream::new(dictionary! {}, content.as_bytes().to_vec()));
    let page = doc.add_object(dictionary! {
        "Type" => "Page", "Parent" => pages, "Contents" => content,
        "Resources" => dictionary! { "Font" => dictionary! { "F1" => font } },
    });
    with_one_page(&mut doc, pages, page)
}

#[test]
fn reads_a_type1_font_by_the_encoding_its_program_carries() {
    let text = convert::pdf(&pdf_in_a_tex_font(
        "BT /F1 10 Tf 72 700 Td (\\134de\\014nition\") Tj ET",
    ))
    .unwrap();
    assert_eq!(text, "## Page 1\n\u{201c}definition\u{201d}\n");
}

#[test]
fn a_shrunk_space_in_a_justified_line_still_parts_words() {
    // TeX shrinks spaces to a fifth of an em on a tight line; kerning inside
    // a word (`-20`, `18`) stays far below a tenth.
    let text = convert::pdf(&pdf_in_a_tex_font(
        "BT /F1 10 Tf 72 700 Td [(sure)-199(that)-150(pr)18(op)-20(erties)] TJ ET",
    ))
    .unwrap();
    assert_eq!(text, "## Page 1\nsure that properties\n");
}

#[test]
fn a_font_program_bomb_is_inflated_only_as_far_as_its_encoding() {
    use std::io::Write;
    let mut doc =
        lopdf::Document::load_mem(&pdf_in_a_tex_font("BT /F1 10 Tf 72 700 Td (word) Tj ET"))
            .unwrap();
    // 64 MB of spaces, declared a gigabyte of clear text, deflated to 64 KB.
    let mut deflate = flate2::write::ZlibEncoder::new(Vec::new(), flate2::Compression::best());
    let block = vec![b' '; 1 << 20];
    for _ in 0..64 {
        deflate.write_all(&block).unwrap();
    }
    let bomb = deflate.finish().unwrap();
    for object in doc.objects.values_mut() {
        if let lopdf::Object::Stream(stream) = object {
            if stream.dict.has(b"Length1") {
                stream.dict.set("Length1", 1_i64 << 30);
                stream.dict.set("Filter", "FlateDecode");
                stream.set_content(bomb.clone());
            }
        }
    }
    let bytes = saved(&mut doc);
    let started = std::time::Instant::now();
    let text = convert::pdf(&bytes).unwrap();
    assert!(text.contains("word"), "{text}");
    assert!(
        started.elapsed() < std::time::Duration::from_secs(2),
        "{:?}",
        started.elapsed()
    );
}

#[test]
fn a_word_hyphenated_at_the_end_of_a_line_is_written_whole() {
    let text = convert::pdf(&pdf_in_a_tex_font(
        "BT /F1 10 Tf 72 700 Td [(the)-333(con-)] TJ 0 -12 Td [(\\014gu)-10(ration)-333(of)-333(non-)] TJ \
         0 -12 Td (Unix) Tj 0 -12 Td (pat-) Tj 0 -12 Td (tern) Tj 0 -12 Td [(an)-333(ELE-)] TJ \
         0 -12 Td (MENT) Tj ET",
    ))
    .unwrap();
    // The line ends after the joined word; `non-Unix` keeps its hyphen, a
    // word in capitals is joined.
    assert_eq!(
        text,
        "## Page 1\nthe configuration\nof non-\nUnix\npattern\nan ELEMENT\n"
    );
}

/// [`pdf_in_a_tex_font`] with every glyph half an em wide, as the font's
/// `Widths` say.
fn pdf_with_widths(content: &str) -> Vec<u8> {
    let mut doc = lopdf::Document::load_mem(&pdf_in_a_tex_font(content)).unwrap();
    for object in doc.objects.values_mut() {
        if let Ok(font) = object.as_dict_mut() {
            if font.get(b"Subtype").and_then(lopdf::Object::as_name).ok() == Some(b"Type1") {
                font.set("FirstChar", 0);
                font.set("Widths", vec![lopdf::Object::Integer(500); 256]);
            }
        }
    }
    saved(&mut doc)
}

#[test]
fn places_words_by_the_widths_of_their_glyphs() {
    // m with subscript k, then a word a tenth of an em on, then a word set
    // letter by letter, then the next line.
    let text = convert::pdf(&pdf_with_widths(
        "BT /F1 10 Tf 72 700 Td (m) Tj 5 -2 Td /F1 7 Tf (k) Tj 6 2 Td /F1 10 Tf (is) Tj \
         12 0 Td (w) Tj 5 0 Td (o) Tj 5 0 Td (rd) Tj 0 -12 Td (next) Tj ET",
    ))
    .unwrap();
    assert_eq!(text, "## Page 1\nmk is word\nnext\n");
}

#[test]
fn reads_the_values_filled_into_a_pdf_form() {
    use lopdf::{dictionary, Object, StringFormat};
    let mut doc = lopdf::Document::load_mem(&pdf_in_a_tex_font(
        "BT /F1 10 Tf 72 700 Td (application) Tj ET",
    ))
    .unwrap();
    let text = |s: &str| Object::String(s.as_bytes().to_vec(), StringFormat::Literal);
    let utf16 = |s: &str| {
        let mut bytes = vec![0xfe, 0xff];
        bytes.extend(s.encode_utf16().flat_map(u16::to_be_bytes));
        Object::String(bytes, StringFormat::Hexadecimal)
    };
    let name = doc.add_object(dictionary! { "T" => text("name"), "V" => text("Ada\nLovelace") });
    let agree = doc.add_object(dictionary! { "T" => text("agree"), "V" => "Yes" });
    let spam = doc.add_object(dictionary! { "T" => text("spam"), "V" => "Off" });
    let address = doc.new_object_id();
    // A widget showing the city's value, and a kid that is the address itself (a cycle).
    let widget = doc.add_object(dictionary! { "Subtype" => "Widget", "V" => text("Zürich") });
    let city = doc.add_object(dictionary! {
        "T" => text("city"), "V" => utf16("Zürich"), "Kids" => vec![widget.into(), address.into()],
    });
    let empty = doc.add_object(dictionary! { "T" => text("street"), "V" => text("") });
    doc.objects.insert(
        address,
        Object::Dictionary(
            dictionary! { "T" => text("address"), "Kids" => vec![city.into(), empty.into()] },
        ),
    );
    let form = doc.add_object(dictionary! {
        "Fields" => vec![name.into(), agree.into(), spam.into(), address.into()],
    });
    let root = doc.trailer.get(b"Root").unwrap().as_reference().unwrap();
    doc.get_dictionary_mut(root).unwrap().set("AcroForm", form);
    let bytes = saved(&mut doc);
    assert_eq!(
        convert::pdf(&bytes).unwrap(),
        "## Page 1\napplication\n\n## Form fields\nname: Ada Lovelace\nagree: Yes\naddress.city: Zürich\n"
    );
}

#[test]
fn a_simple_fonts_unicode_map_comes_before_its_encoding() {
    use lopdf::{dictionary, Object, Stream};
    let mut doc =
        lopdf::Document::load_mem(&pdf_in_a_tex_font("BT /F1 10 Tf 72 700 Td (ABC) Tj ET"))
            .unwrap();
    let cmap = b"/CIDInit /ProcSet findresource begin\n12 dict begin\nbegincmap\n\
/CIDSystemInfo << /Registry (Adobe) /Ordering (UCS) /Supplement 0 >> def\n\
/CMapName /Adobe-Identity-UCS def\n/CMapType 2 def\n\
1 begincodespacerange\n<00> <FF>\nendcodespacerange\n\
2 beginbfchar\n<41> <00DC>\n<42> <0062>\nendbfchar\n\
endcmap\nCMapName currentdict /CMap defineresource pop\nend\nend\n";
    let map = doc.add_object(Stream::new(dictionary! {}, cmap.to_vec()));
    // `g7` is no glyph name lopdf knows: alone, it would read the font as Standard.
    let encoding = dictionary! { "Type" => "Encoding", "Differences" => vec![65.into(), Object::Name(b"g7".to_vec())] };
    for object in doc.objects.values_mut() {
        if let Ok(font) = object.as_dict_mut() {
            if font.get(b"Subtype").and_then(Object::as_name).ok() == Some(b"Type1") {
                font.set("Encoding", encoding.clone());
                font.set("ToUnicode", map);
            }
        }
    }
    let bytes = saved(&mut doc);
    // A and B from the map, C (not in it) from the encoding.
    assert_eq!(convert::pdf(&bytes).unwrap(), "## Page 1\nÜbC\n");
}
