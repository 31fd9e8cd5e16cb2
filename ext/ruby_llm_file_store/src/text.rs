//! Module functions on Native for text Ruby hands in as bytes: windows of lines or
//! characters, binary detection, search and edits.

use magnus::scan_args::get_kwargs;
use magnus::{function, prelude::*, Error, RArray, RHash, RModule, RString, Ruby, Value};

use file_store_base::cancel::{self, Reader};
use file_store_base::edit::{self, Edited};
use file_store_base::text;
use file_store_base::version;
use file_store_search::{self as search, Source};

use crate::convert::{self, held_bytes, owned_bytes};
use crate::errors;
use crate::named::named;
use crate::nogvl::nogvl;

pub fn define(_ruby: &Ruby, native: RModule) -> Result<(), Error> {
    native.define_module_function("read_lines", function!(read_lines, -1))?;
    native.define_module_function("read_chars", function!(read_chars, -1))?;
    native.define_module_function("version_of_bytes", function!(version_of_bytes, 1))?;
    native.define_module_function("binary?", function!(binary, 1))?;
    native.define_module_function("cut_reason", function!(cut_reason, 1))?;
    native.define_module_function("search", function!(search_bytes, 2))?;
    native.define_module_function("edit", function!(edit_bytes, -1))?;
    Ok(())
}

/// `read_lines(bytes, offset:, limit:, max_chars:)`: lines `offset..offset +
/// limit` of `bytes`, each cut at `max_chars`, as `{text:, trailer:, version:}`
/// (see `convert::shown`), the version that of the bytes (`version::of_bytes`).
fn read_lines(ruby: &Ruby, args: &[Value]) -> Result<RHash, Error> {
    let ((bytes,), kw) = convert::keywords::<(RString,)>(args)?;
    let (offset, limit, max_chars) = convert::lines_window(kw)?;
    let held = held_bytes(bytes);
    let bytes: &[u8] = &held;
    let size = bytes.len() as u64;
    let read = nogvl(ruby, || {
        let shown = text::lines_shown(Reader::new(bytes), size, offset, limit, max_chars)?;
        Ok((shown, version::of_bytes(bytes)))
    })?;
    of_bytes(ruby, read)
}

/// `read_chars(bytes, offset:, limit:)`: characters `offset..offset + limit` of
/// `bytes`, as `read_lines` gives its lines.
fn read_chars(ruby: &Ruby, args: &[Value]) -> Result<RHash, Error> {
    let ((bytes,), kw) = convert::keywords::<(RString,)>(args)?;
    let (offset, limit) = convert::chars_window(kw)?;
    let held = held_bytes(bytes);
    let bytes: &[u8] = &held;
    let size = bytes.len() as u64;
    let read = nogvl(ruby, || {
        let shown = text::chars_shown(Reader::new(bytes), size, offset, limit)?;
        Ok((shown, version::of_bytes(bytes)))
    })?;
    of_bytes(ruby, read)
}

/// A window read from bytes handed in, with their version, as Ruby reads it.
fn of_bytes(
    ruby: &Ruby,
    read: std::io::Result<(text::Shown, Option<String>)>,
) -> Result<RHash, Error> {
    let (shown, digest) = read.map_err(|e| errors::map(ruby, cancel::from_io("text", e)))?;
    convert::shown(ruby, shown, ruby.into_value(digest))
}

/// The version of `bytes` (`version::of_bytes`): their digest, or nil past the
/// digest limit. Hashed off the GVL (see `convert::held_bytes`).
fn version_of_bytes(ruby: &Ruby, bytes: RString) -> Result<Option<String>, Error> {
    let held = held_bytes(bytes);
    let bytes: &[u8] = &held;
    nogvl(ruby, || version::of_bytes(bytes))
}

fn binary(bytes: RString) -> bool {
    // SAFETY: read before any Ruby code can run.
    text::looks_binary(unsafe { bytes.as_slice() })
}

/// Searches `entries`, `[path, bytes]` pairs, as `options` says (see
/// `convert::search_options`).
fn search_bytes(ruby: &Ruby, entries: RArray, options: RHash) -> Result<RHash, Error> {
    let options = convert::search_options(ruby, options)?;
    // Every entry brings its bytes here; one without has nothing to search.
    let inputs = convert::search_inputs(entries, |_| Source::Bytes(Vec::new().into()))?;
    let (out, options) = nogvl(ruby, move || {
        search::search(inputs, &options).map(|out| (out, options))
    })?
    .map_err(|e| errors::map(ruby, e))?;
    convert::found(ruby, out, &options)
}

/// `edit(content, old_text:, new_text:, max_size:, replace_all: false)`: `content`
/// with `old_text` replaced by `new_text` (every one with `replace_all`), as
/// `{content:, replacements:, changed:}`; EditRefusedError says why not.
fn edit_bytes(ruby: &Ruby, args: &[Value]) -> Result<RHash, Error> {
    let ((content,), kw) = convert::keywords::<(RString,)>(args)?;
    let kw = get_kwargs::<_, (String, String, u64), (Option<bool>,), ()>(
        kw,
        &["old_text", "new_text", "max_size"],
        &["replace_all"],
    )?;
    let (old_text, new_text, max_size) = kw.required;
    let replace_all = kw.optional.0.unwrap_or(false);
    let content = owned_bytes(content);
    let max_size = usize::try_from(max_size).unwrap_or(usize::MAX);
    let result = nogvl(ruby, move || {
        edit::edit_within(&content, &old_text, &new_text, replace_all, max_size)
    })?;
    match result {
        Ok(Edited {
            content,
            replacements,
            changed,
        }) => named(
            ruby,
            &[
                ("content", ruby.str_from_slice(&content).as_value()),
                ("replacements", ruby.into_value(replacements)),
                ("changed", ruby.into_value(changed)),
            ],
        ),
        Err(refusal) => Err(errors::edit_refused(ruby, refusal.to_string())),
    }
}

/// Why a converted text was cut short (its last line `[cut: why]`), or nil. Only
/// the text's end is looked at.
fn cut_reason(text: RString) -> Option<String> {
    // SAFETY: the slice is read, and its tail copied, before any Ruby code can run and
    // change or free the string.
    let bytes = unsafe { text.as_slice() };
    let tail = &bytes[bytes.len().saturating_sub(1024)..];
    let tail = String::from_utf8_lossy(tail);
    file_store_documents::cut_reason(&tail).map(String::from)
}
