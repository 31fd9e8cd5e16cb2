//! HTML text with html5ever's tokenizer (the WHATWG one browsers follow) and no
//! tree: a single pass keeping a few counters, so time is linear and memory flat
//! on any input, `<<<<` runs and a hundred thousand unclosed tags alike.
//!
//! Scripts, styles, templates and hidden elements are left out; block elements
//! start new lines, list items start with `- `, headings with `#`, table cells
//! are separated by ` | `, and whitespace collapses except inside `pre`.

mod attributes;
mod charset;

use std::cell::RefCell;
use std::rc::Rc;

use html5ever::tendril::StrTendril;
use html5ever::tokenizer::states::RawKind;
use html5ever::tokenizer::{
    BufferQueue, Tag, TagKind, Token, TokenSink, TokenSinkResult, Tokenizer, TokenizerOpts,
};
use html5ever::TokenizerResult;

use crate::common::budget::Budget;
use crate::common::out::Out;
use crate::common::refusal::Converted;
use attributes::Attributes;
use charset::decode;

const KIND: &str = "HTML page";

/// Elements on lines of their own.
const BLOCKS: &[&str] = &[
    "address",
    "article",
    "aside",
    "blockquote",
    "body",
    "caption",
    "dd",
    "details",
    "dialog",
    "div",
    "dl",
    "dt",
    "fieldset",
    "figcaption",
    "figure",
    "footer",
    "form",
    "header",
    "hgroup",
    "hr",
    "html",
    "legend",
    "main",
    "nav",
    "ol",
    "option",
    "p",
    "pre",
    "section",
    "summary",
    "table",
    "tbody",
    "tfoot",
    "thead",
    "title",
    "ul",
];

/// Elements whose content is never shown.
const UNSHOWN: &[&str] = &[
    "script", "style", "template", "noscript", "iframe", "noembed", "noframes", "object", "head",
];

/// Elements that have no content, so cannot be skipped past.
const VOID: &[&str] = &[
    "area", "base", "br", "col", "embed", "hr", "img", "input", "link", "meta", "param", "source",
    "track", "wbr",
];

/// The text of the HTML in `bytes`, in the charset a browser would read it in
/// (see `charset::decode`); [`crate::Refusal::NoText`] when it shows none.
pub fn html(bytes: &[u8]) -> Converted {
    read(bytes, &Budget::new()).finish_text(KIND)
}

/// The text of one page of a larger conversion (an EPUB's spine item), drawing
/// on its `budget`; None when the page shows none.
pub(super) fn page(bytes: &[u8], budget: &Rc<Budget>) -> Option<String> {
    let out = read(bytes, budget);
    out.seen().then(|| out.finish())
}

/// How much decoded text the tokenizer is handed at a time: each piece is a
/// step, and what its tags' attributes cost the tokenizer ([`Attributes`]) is
/// taken from the budget before the piece is handed over, so a tag of 200,000
/// attributes, which took minutes in one piece, stops at the same place
/// every time, after about 10,000.
const PIECE: usize = 4 * 1024;

fn read(bytes: &[u8], budget: &Rc<Budget>) -> Out {
    let Some(text) = decode(bytes) else {
        budget.out_of_memory();
        return Out::new(budget);
    };
    let tokenizer = Tokenizer::new(Sink::new(budget), TokenizerOpts::default());
    let input = BufferQueue::default();
    let mut rest: &str = &text;
    let mut attributes = Attributes::default();
    let mut finished = true;
    while !rest.is_empty() {
        let mut end = rest.len().min(PIECE);
        while !rest.is_char_boundary(end) {
            end += 1;
        }
        let (piece, after) = rest.split_at(end);
        rest = after;
        if !budget.step(1 + attributes.cost(piece)) {
            finished = false;
            break;
        }
        input.push_back(StrTendril::from(piece));
        // The sink pauses the tokenizer (as a script would) once the budget
        // is spent: what is left is not read.
        if matches!(tokenizer.feed(&input), TokenizerResult::Script(_)) {
            finished = false;
            break;
        }
    }
    if finished {
        tokenizer.end();
    }
    tokenizer.sink.0.into_inner().out
}

struct Sink(RefCell<State>);

impl Sink {
    fn new(budget: &Rc<Budget>) -> Self {
        Sink(RefCell::new(State {
            out: Out::new(budget),
            skipping: None,
            pre: 0,
            cell_in_row: false,
            cells: 0,
            space: false,
        }))
    }
}

struct State {
    out: Out,
    /// The element being skipped (unshown or hidden) and how many of it are open.
    skipping: Option<(String, usize)>,
    /// How many `pre` are open: whitespace is kept inside one.
    pre: usize,
    /// Whether the current table row has had a cell.
    cell_in_row: bool,
    /// How many cells are open: blocks inside one stay on the row's line.
    cells: usize,
    /// Whitespace was seen and not yet written.
    space: bool,
}

impl TokenSink for Sink {
    type Handle = ();

    fn process_token(&self, token: Token, _line: u64) -> TokenSinkResult<()> {
        let mut state = self.0.borrow_mut();
        if !state.out.budget().step(1) {
            return match token {
                Token::TagToken(_) => TokenSinkResult::Script(()),
                _ => TokenSinkResult::Continue,
            };
        }
        match token {
            Token::TagToken(tag) => return state.tag(&tag),
            Token::CharacterTokens(text) if state.skipping.is_none() && !state.out.full() => {
                state.text(&text)
            }
            _ => {}
        }
        TokenSinkResult::Continue
    }
}

impl State {
    fn tag(&mut self, tag: &Tag) -> TokenSinkResult<()> {
        let name: &str = &tag.name;
        let start = tag.kind == TagKind::StartTag;
        // The tokenizer reads these as raw text, whatever else is going on.
        let raw = match name {
            "script" => Some(RawKind::ScriptData),
            "style" | "iframe" | "noembed" | "noframes" | "noscript" | "xmp" => {
                Some(RawKind::Rawtext)
            }
            "textarea" | "title" => Some(RawKind::Rcdata),
            _ => None,
        };
        let next = match raw {
            Some(kind) if start => TokenSinkResult::RawData(kind),
            _ if start && name == "plaintext" => TokenSinkResult::Plaintext,
            _ => TokenSinkResult::Continue,
        };
        let opens = start && !tag.self_closing && !VOID.contains(&name);
        if let Some((skipped, open)) = &mut self.skipping {
            if skipped == name {
                if opens {
                    *open += 1;
                } else if !start {
                    *open -= 1;
                    if *open == 0 {
                        self.skipping = None;
                    }
                }
            }
            return next;
        }
        if opens && (UNSHOWN.contains(&name) || hidden(tag)) {
            self.skipping = Some((name.to_string(), 1));
            return next;
        }
        self.layout(name, start);
        next
    }

    /// The lines, prefixes and separators an element brings.
    fn layout(&mut self, name: &str, start: bool) {
        match name {
            "br" => self.newline(),
            "pre" if start => self.pre += 1,
            "pre" => self.pre = self.pre.saturating_sub(1),
            "tr" | "table" => {
                self.cell_in_row = false;
                self.cells = 0;
                self.newline();
            }
            "td" | "th" if start => {
                self.space = false;
                self.cells += 1;
                if std::mem::replace(&mut self.cell_in_row, true) {
                    self.out.push(" | ");
                }
            }
            "td" | "th" => self.cells = self.cells.saturating_sub(1),
            "li" if start => {
                self.newline();
                self.out.push("- ");
            }
            "h1" | "h2" | "h3" | "h4" | "h5" | "h6" if start => {
                self.newline();
                let level = usize::from(name.as_bytes()[1] - b'0');
                self.out.push(&"#".repeat(level));
                self.out.push(" ");
            }
            _ => {}
        }
        let item = matches!(name, "li" | "h1" | "h2" | "h3" | "h4" | "h5" | "h6");
        if BLOCKS.contains(&name) || item && !start {
            self.newline();
        }
    }

    fn newline(&mut self) {
        if self.cells > 0 {
            // A paragraph or line break inside a cell keeps to the row's line.
            self.space = true;
            return;
        }
        self.space = false;
        self.out.newline();
    }

    fn text(&mut self, text: &str) {
        if self.pre > 0 {
            self.out.text(text);
            return;
        }
        for (i, word) in text.split(|c: char| c.is_ascii_whitespace()).enumerate() {
            self.space |= i > 0;
            if word.is_empty() {
                continue;
            }
            if std::mem::take(&mut self.space) && !self.out.after_space() {
                self.out.push(" ");
            }
            self.out.text(word);
        }
    }
}

/// Whether a tag hides its element: `hidden`, `aria-hidden="true"`, or an inline
/// style of `display: none` or `visibility: hidden`.
fn hidden(tag: &Tag) -> bool {
    tag.attrs.iter().any(|attr| {
        let value = attr.value.to_ascii_lowercase();
        match &*attr.name.local {
            "hidden" => true,
            "aria-hidden" => value.trim() == "true",
            "style" => {
                let style: String = value.chars().filter(|c| !c.is_whitespace()).collect();
                style.contains("display:none") || style.contains("visibility:hidden")
            }
            _ => false,
        }
    })
}

#[cfg(test)]
mod tests {
    use super::html;
    use crate::common::refusal::Refusal;

    fn text(source: &str) -> String {
        html(source.as_bytes()).unwrap()
    }

    #[test]
    fn a_page_with_no_text_is_left_to_the_next_converter() {
        for page in [
            "",
            "  ",
            "<html><head><title>T</title></head><body>\n<img src=a.png></body>",
        ] {
            assert_eq!(html(page.as_bytes()), Err(Refusal::NoText("HTML page")));
        }
    }

    #[test]
    fn reads_pages_in_their_declared_charset() {
        let latin1 = b"<meta charset=iso-8859-1><p>Caf\xe9 in Z\xfcrich</p>";
        assert_eq!(html(latin1).unwrap(), "Caf\u{e9} in Z\u{fc}rich\n");
        // \u{65e5}\u{672c} ("Japan") in Shift_JIS.
        let sjis = b"<meta http-equiv=Content-Type content='text/html; charset=shift_jis'><p>\x93\xfa\x96\x7b</p>";
        assert_eq!(html(sjis).unwrap(), "\u{65e5}\u{672c}\n");
    }

    #[test]
    fn leaves_out_scripts_styles_and_hidden_elements() {
        let source = "<html><head><title>T</title><style>p{}</style></head><body>\
            <p>One <b>two</b></p><script>if (a < b) { x('</p>') }</script>\
            <div hidden><p>secret</p><div>deeper</div></div>\
            <span style='display: none'>gone</span><p aria-hidden=true>gone too</p><p>three</p>";
        assert_eq!(text(source), "One two\nthree\n");
    }

    #[test]
    fn puts_blocks_on_lines_and_separates_cells() {
        let source = "<h2>Totals</h2><table><tr><th>Region</th><th>Sales</th></tr>\
            <tr><td><p>North</p></td><td>1 200<br>net</td></tr></table><ul><li>a</li><li>b &amp; c</li></ul>\
            <pre>  x\n    y</pre>";
        assert_eq!(
            text(source),
            "## Totals\nRegion | Sales\nNorth | 1 200 net\n- a\n- b & c\n  x\n    y\n"
        );
    }

    #[test]
    fn collapses_whitespace() {
        assert_eq!(text("<p>  a \n\t b  </p>  <p>c</p>"), "a b\nc\n");
    }
}
