//! PowerPoint presentations: each slide as `## Slide N`, in the order the
//! presentation lists them, its text as [`Body`] reads it.

use super::parts::{attr_rid, part, Body, KIND};
use crate::common::archive::Archive;
use crate::common::out::Out;
use crate::common::refusal::Converted;
use crate::common::xml::{self, Node};

/// The text of a .pptx archive.
pub(crate) fn slides(archive: &mut Archive<'_>) -> Converted {
    let budget = archive.budget().clone();
    let presentation = part(archive, "ppt/presentation.xml")?;
    let rels = archive
        .read("ppt/_rels/presentation.xml.rels")?
        .map(|r| xml::relationships(&r, "ppt", &budget))
        .unwrap_or_default();
    let mut order = Vec::new();
    // Each slide once: a presentation listing one slide a million times read
    // it a million times.
    let mut listed = std::collections::HashSet::new();
    xml::walk(&presentation, &budget, |node| {
        if let Node::Open("sldId", tag) = node {
            if let Some(path) = attr_rid(tag).and_then(|id| rels.get(&id)) {
                if listed.insert(path.as_str()) {
                    order.push(path.clone());
                }
            }
        }
        true
    });
    let mut out = Out::new(&budget);
    for (number, path) in order.iter().enumerate() {
        if !out.heading(&format!("Slide {}", number + 1)) {
            break;
        }
        // A slide that cannot be read leaves its heading, and the rest go on.
        if let Some(slide) = archive.read(path)? {
            let mut body = Body::new("t", "p");
            xml::walk(&slide, &budget, |node| body.visit(node, &mut out));
        }
    }
    out.finish_text(KIND)
}
