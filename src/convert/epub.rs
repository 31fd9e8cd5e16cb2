//! EPUB books: `META-INF/container.xml` names the package (OPF), whose spine
//! gives the reading order of its XHTML documents; each is read as HTML.

use std::collections::HashMap;

use super::archive::Archive;
use super::html::html;
use super::out::Out;
use super::xml::{self, attr, resolve, Node};
use super::{Converted, Refusal};

const KIND: &str = "EPUB book";

pub(super) fn epub(archive: &mut Archive<'_>) -> Converted {
    let container = archive
        .read("META-INF/container.xml")?
        .ok_or_else(|| Refusal::unreadable(KIND, "META-INF/container.xml is missing or broken"))?;
    let mut package = None;
    xml::walk(&container, |node| {
        if let Node::Open("rootfile", tag) = node {
            package = attr(tag, "full-path");
        }
        package.is_none()
    });
    let package = package.ok_or_else(|| Refusal::unreadable(KIND, "no package named"))?;
    let opf = archive
        .read(&package)?
        .ok_or_else(|| Refusal::unreadable(KIND, format!("{package} is missing or broken")))?;
    let dir = package.rsplit_once('/').map_or("", |(dir, _)| dir);
    let mut items = HashMap::new();
    let mut spine = Vec::new();
    xml::walk(&opf, |node| {
        match node {
            Node::Open("item", tag) => {
                if let (Some(id), Some(href)) = (attr(tag, "id"), attr(tag, "href")) {
                    items.insert(id, resolve(dir, &unescape(&href)));
                }
            }
            Node::Open("itemref", tag) => spine.extend(attr(tag, "idref")),
            _ => {}
        }
        true
    });
    let mut out = Out::default();
    for id in spine {
        let Some(path) = items.get(&id) else { continue };
        if let Some(page) = archive.read(path)? {
            if let Ok(text) = html(&page) {
                out.newline();
                if !out.text(&text) {
                    break;
                }
            }
        }
    }
    out.finish_text(KIND)
}

/// A manifest href with its percent escapes (`%20`) undone.
fn unescape(href: &str) -> String {
    let bytes = href.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        let hex = bytes
            .get(i + 1..i + 3)
            .and_then(|h| std::str::from_utf8(h).ok());
        match (bytes[i], hex.and_then(|h| u8::from_str_radix(h, 16).ok())) {
            (b'%', Some(byte)) => {
                out.push(byte);
                i += 3;
            }
            (byte, _) => {
                out.push(byte);
                i += 1;
            }
        }
    }
    String::from_utf8_lossy(&out).into_owned()
}
