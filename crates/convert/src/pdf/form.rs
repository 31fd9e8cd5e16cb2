//! The values filled into a PDF's interactive form (AcroForm): what an
//! applicant typed or ticked lives in the fields, not in the pages' content.
//!
//! The field tree is walked once, each field visited at most once (a `Kids`
//! cycle ends there), at most [`MAX_FIELD_DEPTH`] deep and [`MAX_FIELDS`] in all.

use std::collections::HashSet;

use lopdf::{decode_text_string, Dictionary, Document, Object, ObjectId};

use crate::common::out::Out;

/// How deep fields may nest.
const MAX_FIELD_DEPTH: usize = 32;
/// The most fields visited in one document.
const MAX_FIELDS: usize = 100_000;

/// Writes `## Form fields` and a `name: value` line per field that holds a
/// value, in the form's order; nothing when no field does.
pub fn form_fields(document: &Document, out: &mut Out) {
    let Some(fields) = document
        .catalog()
        .ok()
        .and_then(|catalog| catalog.get_deref(b"AcroForm", document).ok())
        .and_then(|form| form.as_dict().ok())
        .and_then(|form| form.get_deref(b"Fields", document).ok())
        .and_then(|fields| fields.as_array().ok())
    else {
        return;
    };
    let mut walk = Fields {
        document,
        seen: HashSet::new(),
        visited: 0,
        lines: Vec::new(),
    };
    for field in fields {
        walk.field(field, "", false, 0);
    }
    if walk.lines.is_empty() || !out.heading("Form fields") {
        return;
    }
    for line in walk.lines {
        if !out.text(&line) || !out.newline() {
            return;
        }
    }
}

struct Fields<'d> {
    document: &'d Document,
    seen: HashSet<ObjectId>,
    visited: usize,
    lines: Vec<String>,
}

impl Fields<'_> {
    /// Notes the value of `field` and its kids. A kid without a name of its own
    /// is a widget showing its parent's value: `given` says whether the parent
    /// had one, so it is not written twice.
    fn field(&mut self, field: &Object, parent: &str, given: bool, depth: usize) {
        if depth >= MAX_FIELD_DEPTH || self.visited >= MAX_FIELDS {
            return;
        }
        self.visited += 1;
        if let Object::Reference(id) = field {
            if !self.seen.insert(*id) {
                return;
            }
        }
        let Ok((_, Object::Dictionary(field))) = self.document.dereference(field) else {
            return;
        };
        let own = field
            .get(b"T")
            .ok()
            .and_then(|t| decode_text_string(t).ok());
        let given = given && own.is_none();
        let name = match own {
            Some(own) if parent.is_empty() => own,
            Some(own) => format!("{parent}.{own}"),
            None => parent.to_string(),
        };
        let value = (!given).then(|| value_of(self.document, field)).flatten();
        if let Some(value) = &value {
            let name = if name.is_empty() { "(unnamed)" } else { &name };
            self.lines.push(format!("{name}: {value}"));
        }
        if let Ok(Object::Array(kids)) = field.get_deref(b"Kids", self.document) {
            for kid in kids {
                self.field(kid, &name, given || value.is_some(), depth + 1);
            }
        }
    }
}

/// A field's value as text: a string, a choice's names, a ticked box's state;
/// None for no value, an empty one or an unticked box (`/Off`).
fn value_of(document: &Document, field: &Dictionary) -> Option<String> {
    let text = |value: &Object| -> Option<String> {
        match value {
            Object::String(..) => decode_text_string(value).ok(),
            Object::Name(name) if name.as_slice() != b"Off" => {
                Some(String::from_utf8_lossy(name).into_owned())
            }
            _ => None,
        }
    };
    let value = match field.get_deref(b"V", document).ok()? {
        Object::Array(values) => values
            .iter()
            .filter_map(|v| document.dereference(v).ok().and_then(|(_, v)| text(v)))
            .collect::<Vec<_>>()
            .join(", "),
        value => text(value)?,
    };
    // A multi-line value stays on its line, so each field is one line.
    let value = value.split_whitespace().collect::<Vec<_>>().join(" ");
    (!value.is_empty()).then_some(value)
}
