//! Streaming XML for the Office formats: one pass over the bytes, no tree, so
//! time is linear and memory flat however deep the nesting.

use std::collections::HashMap;

use quick_xml::escape::resolve_predefined_entity;
use quick_xml::events::{BytesStart, Event};
use quick_xml::{Reader, XmlVersion};

use super::budget::Budget;

/// What the walk hands its visitor: element names are local (no prefix).
pub enum Node<'a, 'b> {
    /// A start tag, or the start of an empty element (a `Close` follows it).
    Open(&'b str, &'b BytesStart<'a>),
    /// An end tag.
    Close(&'b str),
    /// Text, with entity and character references resolved.
    Text(&'b str),
}

/// Walks the XML in `bytes`, calling `visit` for each node until it returns false,
/// the document ends or it stops making sense (then what was seen stands), or
/// the conversion's `budget` stops it: each event is a step.
///
/// What an `mc:Fallback` holds is left out: Office writes the same content twice in
/// an `mc:AlternateContent`, as its `mc:Choice` and again as the Fallback for
/// readers that do not know the Choice's markup (a Word text box is both a
/// `wps:txbx` and a `v:textbox`), and the walk reads the Choice.
pub fn walk(bytes: &[u8], budget: &Budget, mut visit: impl FnMut(Node<'_, '_>) -> bool) {
    let mut reader = Reader::from_reader(bytes);
    let config = reader.config_mut();
    // No stack of open names: memory stays flat on deep nesting.
    config.check_end_names = false;
    config.expand_empty_elements = false;
    // Inside a Fallback: how many elements deep.
    let mut fallback = 0usize;
    loop {
        let event = reader.read_event();
        if fallback > 0 {
            match &event {
                Ok(Event::Start(_)) => fallback += 1,
                Ok(Event::End(_)) => fallback -= 1,
                Ok(Event::Eof) | Err(_) => return,
                _ => {}
            }
            if !budget.step(1) {
                return;
            }
            continue;
        }
        let go_on = match event {
            Ok(Event::Start(tag)) if tag.name().into_inner() == "mc:Fallback" => {
                fallback = 1;
                true
            }
            Ok(Event::Start(tag)) => visit(Node::Open(tag.local_name().into_inner(), &tag)),
            Ok(Event::Empty(tag)) => {
                let name = tag.local_name();
                visit(Node::Open(name.into_inner(), &tag)) && visit(Node::Close(name.into_inner()))
            }
            Ok(Event::End(tag)) => visit(Node::Close(tag.local_name().into_inner())),
            Ok(Event::Text(text)) => visit(Node::Text(&text.xml10_content())),
            Ok(Event::CData(data)) => visit(Node::Text(&data.xml10_content())),
            Ok(Event::GeneralRef(reference)) => {
                let name = reference.xml10_content();
                match reference.resolve_char_ref() {
                    Ok(Some(c)) => visit(Node::Text(c.encode_utf8(&mut [0; 4]))),
                    _ => match resolve_predefined_entity(&name) {
                        Some(text) => visit(Node::Text(text)),
                        None => true,
                    },
                }
            }
            Ok(Event::Eof) | Err(_) => false,
            Ok(_) => true,
        };
        if !(go_on && budget.step(1)) {
            return;
        }
    }
}

/// The value of attribute `local` (any prefix) on `tag`, references resolved.
pub fn attr(tag: &BytesStart<'_>, local: &str) -> Option<String> {
    tag.attributes()
        .flatten()
        .find(|a| a.key.local_name().into_inner() == local)
        .map(|a| {
            a.normalized_value(XmlVersion::Implicit1_0)
                .map_or_else(|_| a.value.clone().into_owned(), |v| v.into_owned())
        })
}

/// The relationships of a part (`_rels/*.rels`): Id to the target's path in the
/// archive, resolved against `dir`, the folder of the part they belong to.
pub fn relationships(bytes: &[u8], dir: &str, budget: &Budget) -> HashMap<String, String> {
    let mut found = HashMap::new();
    walk(bytes, budget, |node| {
        if let Node::Open("Relationship", tag) = node {
            if let (Some(id), Some(target)) = (attr(tag, "Id"), attr(tag, "Target")) {
                found.insert(id, resolve(dir, &target));
            }
        }
        true
    });
    found
}

/// The relationships of a part with their kind (the last word of their `Type`,
/// such as `header` or `footnotes`), in the order the part lists them.
pub fn typed_relationships(bytes: &[u8], dir: &str, budget: &Budget) -> Vec<(String, String)> {
    let mut found = Vec::new();
    walk(bytes, budget, |node| {
        if let Node::Open("Relationship", tag) = node {
            if let (Some(kind), Some(target)) = (attr(tag, "Type"), attr(tag, "Target")) {
                let kind = kind.rsplit('/').next().unwrap_or_default().to_string();
                found.push((kind, resolve(dir, &target)));
            }
        }
        true
    });
    found
}

/// `target` as a path in the archive: absolute when it starts with `/`, else
/// relative to `dir`, with `..` taken into account.
pub fn resolve(dir: &str, target: &str) -> String {
    let mut parts: Vec<&str> = match target.strip_prefix('/') {
        Some(_) => Vec::new(),
        None => dir.split('/').filter(|p| !p.is_empty()).collect(),
    };
    for part in target.split('/') {
        match part {
            "" | "." => {}
            ".." => {
                parts.pop();
            }
            part => parts.push(part),
        }
    }
    parts.join("/")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn resolves_relative_and_absolute_targets() {
        assert_eq!(
            resolve("xl", "worksheets/sheet1.xml"),
            "xl/worksheets/sheet1.xml"
        );
        assert_eq!(
            resolve("xl", "/xl/worksheets/sheet1.xml"),
            "xl/worksheets/sheet1.xml"
        );
        assert_eq!(resolve("ppt/slides", "../media/a.png"), "ppt/media/a.png");
    }

    #[test]
    fn walks_text_with_references() {
        let mut text = String::new();
        walk(
            b"<a><b>x &amp; &#x41;</b><c/>y</a>",
            &Budget::new(),
            |node| {
                if let Node::Text(t) = node {
                    text.push_str(t);
                }
                true
            },
        );
        assert_eq!(text, "x & Ay");
    }
}
