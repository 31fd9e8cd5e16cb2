//! What the converters read of documents LibreOffice wrote from the flat ODF
//! sources in spec/fixtures/documents (see its `generate`): dates, hidden
//! sheets, headers, notes and comments, OpenDocument and EPUB.

use file_store_core::convert::{self, Refusal};

fn fixture(name: &str) -> Vec<u8> {
    let path = format!(
        "{}/spec/fixtures/documents/{name}",
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
