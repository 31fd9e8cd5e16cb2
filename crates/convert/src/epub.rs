//! EPUB books: `META-INF/container.xml` names the package (OPF), whose spine
//! gives the reading order of its XHTML documents; each is read as HTML, once
//! however often the spine lists it, and only when the manifest says it is
//! (X)HTML (a nested book or an image listed in the spine is not text).

use std::collections::{HashMap, HashSet};

use super::html;
use crate::common::archive::{Archive, MAX_ENTRIES};
use crate::common::budget::Budget;
use crate::common::out::Out;
use crate::common::refusal::{Converted, Refusal};
use crate::common::xml::{self, attr, resolve, Node};

const KIND: &str = "EPUB book";

/// The most spine entries read, repeats included: no archive has more items.
pub const MAX_SPINE: usize = MAX_ENTRIES;

/// The manifest types read as pages.
const PAGE_TYPES: &[&str] = &["application/xhtml+xml", "text/html"];

pub(super) fn epub(archive: &mut Archive<'_>) -> Converted {
    let budget = archive.budget().clone();
    let container = archive
        .read("META-INF/container.xml")?
        .ok_or_else(|| Refusal::unreadable(KIND, "META-INF/container.xml is missing or broken"))?;
    let mut package = None;
    xml::walk(&container, &budget, |node| {
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
    let mut listed = HashSet::new();
    let mut entries = 0;
    xml::walk(&opf, &budget, |node| {
        match node {
            Node::Open("item", tag) => {
                // A type may carry parameters: `application/xhtml+xml; charset=utf-8`.
                let page = attr(tag, "media-type").is_some_and(|t| {
                    let essence = t.split(';').next().unwrap_or_default();
                    PAGE_TYPES.contains(&essence.trim().to_ascii_lowercase().as_str())
                });
                if let (true, Some(id), Some(href)) = (page, attr(tag, "id"), attr(tag, "href")) {
                    items.insert(id, resolve(dir, &unescape(&href)));
                }
            }
            Node::Open("itemref", _) if entries >= MAX_SPINE => {
                budget.cut(format!("the spine has more than {MAX_SPINE} entries"));
                return false;
            }
            Node::Open("itemref", tag) => {
                entries += 1;
                // Each page once, where the spine first lists it.
                if let Some(id) = attr(tag, "idref") {
                    if listed.insert(id.clone()) {
                        spine.push(id);
                    }
                }
            }
            _ => {}
        }
        true
    });
    let encrypted = encrypted(archive, &budget)?;
    let mut out = Out::new(&budget);
    let mut read = HashSet::new();
    let mut skipped = 0;
    for id in spine {
        let Some(path) = items.get(&id) else { continue };
        // Two ids for one file are still one page.
        if !read.insert(path.as_str()) {
            continue;
        }
        // Ciphertext is no text: it was read out as a page of gibberish.
        if encrypted.contains(path.as_str()) {
            skipped += 1;
            continue;
        }
        if let Some(page) = archive.read(path)? {
            if let Some(text) = html::page(&page, &budget) {
                out.newline();
                // Paid for as the page was read.
                out.copy(&text);
            }
        }
        if out.full() {
            break;
        }
    }
    if skipped > 0 {
        if !out.seen() {
            return Err(Refusal::unreadable(KIND, "its pages are encrypted (DRM)"));
        }
        out.newline();
        out.push(&format!("[pages not read, encrypted: {skipped}]"));
    }
    out.finish_text(KIND)
}

/// The paths `META-INF/encryption.xml` lists as encrypted (its
/// `CipherReference` URIs, from the archive's root).
fn encrypted(archive: &mut Archive<'_>, budget: &Budget) -> Result<HashSet<String>, Refusal> {
    let mut found = HashSet::new();
    if let Some(bytes) = archive.read("META-INF/encryption.xml")? {
        xml::walk(&bytes, budget, |node| {
            if let Node::Open("CipherReference", tag) = node {
                if let Some(uri) = attr(tag, "URI") {
                    found.insert(resolve("", &unescape(&uri)));
                }
            }
            true
        });
    }
    Ok(found)
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
