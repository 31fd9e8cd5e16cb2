//! Content Office writes twice, or where a reader does not look first: each read
//! once, and none lost.

mod hostile;

use file_store_convert as convert;
use hostile::zip;

const W: &str = r#"xmlns:w="http://schemas.openxmlformats.org/wordprocessingml/2006/main" xmlns:mc="http://schemas.openxmlformats.org/markup-compatibility/2006" xmlns:wps="http://schemas.microsoft.com/office/word/2010/wordprocessingShape" xmlns:v="urn:schemas-microsoft-com:vml""#;

/// A Word text box as Word writes it: the Choice a current reader takes, and the
/// same text again as the Fallback for older ones.
#[test]
fn a_word_text_box_is_read_once() {
    let document = format!(
        r#"<w:document {W}><w:body>
<w:p><w:r><w:t>Before the box.</w:t></w:r></w:p>
<w:p><w:r><mc:AlternateContent>
  <mc:Choice Requires="wps"><w:drawing><wps:txbx><w:txbxContent><w:p><w:r><w:t>Inside the box.</w:t></w:r></w:p></w:txbxContent></wps:txbx></w:drawing></mc:Choice>
  <mc:Fallback><w:pict><v:shape><v:textbox><w:txbxContent><w:p><w:r><w:t>Inside the box.</w:t></w:r></w:p></w:txbxContent></v:textbox></v:shape></w:pict></mc:Fallback>
</mc:AlternateContent></w:r></w:p>
<w:p><w:r><w:t>After the box.</w:t></w:r></w:p>
</w:body></w:document>"#
    );
    let docx = zip(&[("word/document.xml", document.as_bytes())]);
    let text = convert::office(&docx).unwrap();
    assert_eq!(text.matches("Inside the box.").count(), 1, "{text}");
    assert!(
        text.contains("Before the box.") && text.contains("After the box."),
        "{text}"
    );
}

/// An empty Fallback, a nested one, and an AlternateContent without a Choice
/// leave the rest of the document as it was.
#[test]
fn what_follows_a_fallback_is_read() {
    let document = format!(
        r#"<w:document {W}><w:body>
<w:p><mc:AlternateContent><mc:Fallback/></mc:AlternateContent><w:r><w:t>one</w:t></w:r></w:p>
<w:p><mc:AlternateContent><mc:Fallback><mc:AlternateContent><mc:Fallback><w:t>hidden</w:t></mc:Fallback></mc:AlternateContent><w:t>hidden too</w:t></mc:Fallback></mc:AlternateContent><w:r><w:t>two</w:t></w:r></w:p>
</w:body></w:document>"#
    );
    let docx = zip(&[("word/document.xml", document.as_bytes())]);
    assert_eq!(convert::office(&docx).unwrap(), "one\ntwo\n");
}

/// A Word document whose main part is not `word/document.xml`: the package's
/// relationships name it, and its own relationships sit beside it.
#[test]
fn a_main_part_the_package_names_is_read() {
    let rels = r#"<Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships"><Relationship Id="rId1" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/officeDocument" Target="word/document2.xml"/></Relationships>"#;
    let document = format!(
        r#"<w:document {W}><w:body><w:p><w:r><w:t>From the second part.</w:t></w:r></w:p></w:body></w:document>"#
    );
    let docx = zip(&[
        ("_rels/.rels", rels.as_bytes()),
        ("word/document2.xml", document.as_bytes()),
    ]);
    assert_eq!(convert::office(&docx).unwrap(), "From the second part.\n");
}

/// Chunks of other formats a Word document embeds (`w:altChunk`): HTML and text
/// read in place, others named as not read.
#[test]
fn embedded_chunks_are_read_in_place_or_named() {
    let document = format!(
        r#"<w:document {W} xmlns:r="http://schemas.openxmlformats.org/officeDocument/2006/relationships"><w:body>
<w:p><w:r><w:t>Before.</w:t></w:r></w:p>
<w:altChunk r:id="rIdHtml"/>
<w:altChunk r:id="rIdText"/>
<w:altChunk r:id="rIdRtf"/>
<w:p><w:r><w:t>After.</w:t></w:r></w:p>
</w:body></w:document>"#
    );
    let rels = r#"<Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships">
<Relationship Id="rIdHtml" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/aFChunk" Target="chunk.html"/>
<Relationship Id="rIdText" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/aFChunk" Target="chunk.txt"/>
<Relationship Id="rIdRtf" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/aFChunk" Target="chunk.rtf"/>
</Relationships>"#;
    let docx = zip(&[
        ("word/document.xml", document.as_bytes()),
        ("word/_rels/document.xml.rels", rels.as_bytes()),
        (
            "word/chunk.html",
            b"<html><body><p>From HTML.</p><script>x()</script></body></html>",
        ),
        ("word/chunk.txt", b"From text.\n"),
        ("word/chunk.rtf", br"{\rtf1 From RTF.}"),
    ]);
    let text = convert::office(&docx).unwrap();
    assert_eq!(
        text,
        "Before.\nFrom HTML.\nFrom text.\n[an embedded .rtf document, not read]\nAfter.\n"
    );
}

/// An EPUB whose manifest gives its pages' type with parameters.
#[test]
fn epub_pages_typed_with_parameters_are_read() {
    let container =
        r#"<container><rootfiles><rootfile full-path="OEBPS/book.opf"/></rootfiles></container>"#;
    let opf = r#"<package><manifest><item id="p" href="p.xhtml" media-type="application/xhtml+xml; charset=utf-8"/></manifest><spine><itemref idref="p"/></spine></package>"#;
    let epub = zip(&[
        ("META-INF/container.xml", container.as_bytes()),
        ("OEBPS/book.opf", opf.as_bytes()),
        (
            "OEBPS/p.xhtml",
            b"<html><body><p>The chapter.</p></body></html>",
        ),
    ]);
    assert!(convert::office(&epub).unwrap().contains("The chapter."));
}
