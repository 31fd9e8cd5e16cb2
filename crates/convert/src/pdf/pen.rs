//! The pen of a PDF's text: where text is drawn, in the text space of the
//! current matrix scaled to the page, enough to tell one line from the next,
//! a subscript from a new line, and a space between words from a letter's
//! neighbour; and how what it shows is written out.

use lopdf::Object;

use super::resources::Resources;
use crate::common::out::Out;

/// A kerning gap (in thousandths of an em) wide enough to be a space between
/// words: a tenth of an em, as poppler takes it. Justified lines shrink spaces
/// to a fifth of an em, while kerning inside a word stays under a twentieth.
const WORD_GAP: f32 = 100.0;

/// `text` with typographic ligatures (U+FB00 to U+FB06: ff, fi, fl, ffi, ffl, st)
/// written out as their letters, as a reader searching for "file" expects.
pub(super) fn unligature(text: String) -> String {
    if !text.chars().any(|c| ('\u{fb00}'..='\u{fb06}').contains(&c)) {
        return text;
    }
    let mut plain = String::with_capacity(text.len() + 8);
    for c in text.chars() {
        match c {
            '\u{fb00}' => plain.push_str("ff"),
            '\u{fb01}' => plain.push_str("fi"),
            '\u{fb02}' => plain.push_str("fl"),
            '\u{fb03}' => plain.push_str("ffi"),
            '\u{fb04}' => plain.push_str("ffl"),
            '\u{fb05}' | '\u{fb06}' => plain.push_str("st"),
            c => plain.push(c),
        }
    }
    plain
}

pub(super) fn operand(operands: &[Object], index: usize) -> f32 {
    operands
        .get(index)
        .and_then(|n| n.as_float().ok())
        .unwrap_or(0.0)
}

/// Where the text is, in the text space of the current matrix scaled to the
/// page: enough to tell one line from the next, a subscript from a new line,
/// and a space between words from a letter's neighbour.
pub(super) struct Pen {
    /// The resource name of the current font, and its size.
    pub(super) font: Option<Vec<u8>>,
    pub(super) size: f32,
    /// Text state: character and word spacing, horizontal scaling, leading.
    pub(super) char_spacing: f32,
    pub(super) word_spacing: f32,
    pub(super) h_scaling: f32,
    pub(super) leading: f32,
    /// The text matrix's scale, across and up.
    pub(super) scale: (f32, f32),
    /// The start of the current line, and the pen's position.
    pub(super) line: (f32, f32),
    pub(super) x: f32,
    pub(super) y: f32,
    /// The last text shown.
    pub(super) shown: Option<Shown>,
    /// The position was set since the last text (for fonts without widths).
    pub(super) moved: bool,
    /// `T*`, `'` or `"` began a new line, wherever it is.
    pub(super) new_line: bool,
    /// A word broken by a hyphen at the end of the line before was joined:
    /// the line breaks at the next space instead.
    pub(super) joined: bool,
}

/// The last text shown: its baseline, where it ended along it (None when its
/// font gives no widths) and its font size, all in the pen's units.
pub(super) struct Shown {
    pub(super) y: f32,
    pub(super) end: Option<f32>,
    pub(super) size: f32,
}

impl Default for Pen {
    fn default() -> Self {
        Pen {
            font: None,
            size: 0.0,
            char_spacing: 0.0,
            word_spacing: 0.0,
            h_scaling: 1.0,
            leading: 0.0,
            scale: (1.0, 1.0),
            line: (0.0, 0.0),
            x: 0.0,
            y: 0.0,
            shown: None,
            moved: false,
            new_line: false,
            joined: false,
        }
    }
}

/// The length of the vector (a, b). Not `f32::hypot`: that calls libm's `hypotf`,
/// whose only version on glibc 2.35 and later is 2.35's, so the precompiled gem would
/// need glibc 2.35; in `f64` the squares of any `f32` cannot overflow, and `sqrt` is
/// one instruction.
fn length(a: f32, b: f32) -> f32 {
    (f64::from(a) * f64::from(a) + f64::from(b) * f64::from(b)).sqrt() as f32
}

impl Pen {
    /// `Td`: the next line, offset from the start of this one.
    pub(super) fn next_line(&mut self, tx: f32, ty: f32) {
        self.line = (
            self.line.0 + tx * self.scale.0,
            self.line.1 + ty * self.scale.1,
        );
        (self.x, self.y) = self.line;
        self.moved = true;
    }

    /// `Tm`: a new text matrix.
    pub(super) fn matrix(&mut self, m: [f32; 6]) {
        self.scale = (length(m[0], m[1]), length(m[2], m[3]));
        self.line = (m[4], m[5]);
        (self.x, self.y) = self.line;
        self.moved = true;
    }

    /// A TJ adjustment: thousandths of an em, a positive one moving left.
    pub(super) fn adjust(&mut self, thousandths: f32, out: &mut Out) {
        self.x -= thousandths / 1000.0 * self.size * self.h_scaling * self.scale.0;
        // Without widths, only a wide gap tells words apart.
        let blind = self.shown.as_ref().is_some_and(|shown| shown.end.is_none());
        if blind && -thousandths > WORD_GAP {
            self.space(out);
        }
    }

    /// Writes a string operand in the current font's encoding: on a new line
    /// when the baseline moved by half a line or more (less is a subscript or
    /// superscript, on the same line), after a space when the text starts
    /// past a tenth of an em from where the last ended. A word hyphenated at
    /// the end of a line is written whole, as a reader searching for it
    /// expects, and the line ends after it.
    pub(super) fn show(
        &mut self,
        resources: &Resources<'_, '_>,
        operand: Option<&Object>,
        out: &mut Out,
    ) {
        let font = self.font.as_ref().and_then(|font| resources.encoding(font));
        let (Some(font), Some(Object::String(bytes, _))) = (font, operand) else {
            return;
        };
        let mut text = String::new();
        if !font.write(bytes, &mut text) {
            return;
        }
        let text = unligature(text);
        let size = self.size.abs();
        if let Some(shown) = &self.shown {
            let rise = (self.y - shown.y).abs();
            let line = shown.size.max(size) * self.scale.1;
            if self.new_line || (rise > 0.01 && rise >= 0.5 * line) {
                let first = text.chars().next();
                let caps = first.is_some_and(char::is_uppercase);
                let word = caps || first.is_some_and(char::is_lowercase);
                if word && !self.joined && out.unhyphenate(caps) {
                    self.joined = true;
                } else {
                    self.joined = false;
                    out.newline();
                }
            } else {
                let em = size * self.h_scaling * self.scale.0;
                let apart = match shown.end {
                    Some(end) => self.x - end > WORD_GAP / 1000.0 * em || end - self.x > em / 2.0,
                    None => self.moved || rise > 0.01,
                };
                if apart {
                    self.space(out);
                }
            }
        }
        let end = font.advance(bytes).map(|advance| {
            let across = advance.ems * self.size
                + advance.glyphs as f32 * self.char_spacing
                + advance.spaces as f32 * self.word_spacing;
            self.x += across * self.h_scaling * self.scale.0;
            self.x
        });
        self.shown = Some(Shown {
            y: self.y,
            end,
            size,
        });
        self.moved = false;
        self.new_line = false;
        match text.split_once(' ') {
            Some((word, rest)) if self.joined => {
                self.joined = false;
                out.text(word);
                out.newline();
                out.text(rest.trim_start());
            }
            _ => {
                out.text(&text);
            }
        }
    }

    /// A space between words, or the line break a joined word put off.
    fn space(&mut self, out: &mut Out) {
        if self.joined {
            self.joined = false;
            out.newline();
        } else if !out.after_space() {
            out.push(" ");
        }
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn writes_ligatures_as_letters() {
        assert_eq!(
            super::unligature("con\u{fb01}guration \u{fb00}".into()),
            "configuration ff"
        );
    }
}
