//! Module functions on Native for text: slicing by lines or characters, binary
//! detection, search and edits over bytes Ruby hands in.

use std::io::{BufReader, Read};
use std::sync::Arc;

use magnus::{function, prelude::*, Error, RArray, RModule, RString, Ruby, TryConvert};

use file_store_core::edit::{self, Edited};
use file_store_core::search::{self, SearchInput, SearchOptions, Source};
use file_store_core::text;

use crate::errors;
use crate::nogvl::nogvl;
use crate::writer::owned_bytes;

/// A line slice as Ruby receives it: text, first line, last line, total lines (nil
/// when more follow), lines cut short, and the trailer (nil when nothing to say).
pub type LinesTuple = (String, usize, usize, Option<usize>, usize, Option<String>);

/// A character slice: text, offset, characters returned, total (nil when more follow).
pub type CharsTuple = (String, usize, usize, Option<usize>);

/// A search result: text, lines shown, total matching lines, files matched, summary,
/// files skipped, and the first of them as `[path, why]`.
pub type SearchTuple = (
    String,
    usize,
    usize,
    usize,
    Option<String>,
    usize,
    Vec<(String, String)>,
);

pub fn define(_ruby: &Ruby, native: RModule) -> Result<(), Error> {
    native.define_module_function("read_lines", function!(read_lines, 4))?;
    native.define_module_function("read_chars", function!(read_chars, 3))?;
    native.define_module_function("binary?", function!(binary, 1))?;
    native.define_module_function("search", function!(search_bytes, 6))?;
    native.define_module_function("edit", function!(edit_bytes, 5))?;
    native.const_set("MAX_SKIPPED_SHOWN", search::MAX_SKIPPED_SHOWN)?;
    Ok(())
}

/// The largest file whose lines are all counted, so its trailer says how many it
/// has: a few milliseconds of work. A larger file is never read past the slice, and
/// its trailer says only that more lines follow.
const COUNT_BUDGET: u64 = 8 * 1024 * 1024;

/// Lines `offset..offset + limit` of any reader, with the trailer.
pub fn lines_of(
    reader: impl Read,
    size: u64,
    offset: usize,
    limit: usize,
    max_chars: usize,
) -> std::io::Result<LinesTuple> {
    let budget = if size <= COUNT_BUDGET {
        COUNT_BUDGET
    } else {
        0
    };
    let slice = text::read_lines_counted(
        BufReader::with_capacity(256 * 1024, reader),
        offset,
        limit,
        max_chars,
        budget,
    )?;
    let trailer = text::trailer_for_lines(&slice, offset);
    Ok((
        slice.text,
        slice.first,
        slice.last,
        slice.total,
        slice.truncated_lines,
        trailer,
    ))
}

/// Characters `offset..offset + limit` of any reader.
pub fn chars_of(reader: impl Read, offset: usize, limit: usize) -> std::io::Result<CharsTuple> {
    let slice = text::read_chars(BufReader::with_capacity(256 * 1024, reader), offset, limit)?;
    Ok((slice.text, slice.offset, slice.returned, slice.total))
}

fn read_lines(
    ruby: &Ruby,
    bytes: RString,
    offset: usize,
    limit: usize,
    max_chars: usize,
) -> Result<LinesTuple, Error> {
    let bytes = owned_bytes(bytes);
    nogvl(ruby, || {
        lines_of(
            file_store_core::cancel::Reader::new(bytes.as_slice()),
            bytes.len() as u64,
            offset,
            limit,
            max_chars,
        )
    })?
    .map_err(|e| errors::map(ruby, file_store_core::cancel::from_io("text", e)))
}

fn read_chars(
    ruby: &Ruby,
    bytes: RString,
    offset: usize,
    limit: usize,
) -> Result<CharsTuple, Error> {
    let bytes = owned_bytes(bytes);
    nogvl(ruby, || {
        chars_of(
            file_store_core::cancel::Reader::new(bytes.as_slice()),
            offset,
            limit,
        )
    })?
    .map_err(|e| errors::map(ruby, file_store_core::cancel::from_io("text", e)))
}

fn binary(bytes: RString) -> bool {
    // SAFETY: read before any Ruby code can run.
    text::looks_binary(unsafe { bytes.as_slice() })
}

/// The search inputs in `entries`, an Array of `[path, bytes]`; an entry whose bytes
/// are nil is opened by `open`, off the GVL, on the thread that searches it.
pub fn inputs(entries: RArray, open: impl Fn(String) -> Source) -> Result<Vec<SearchInput>, Error> {
    let mut inputs = Vec::with_capacity(entries.len());
    for entry in entries.into_iter() {
        let (path, bytes): (String, Option<RString>) = TryConvert::try_convert(entry)?;
        let source = match bytes {
            Some(bytes) => Source::Bytes(Arc::from(owned_bytes(bytes))),
            None => open(path.clone()),
        };
        inputs.push(SearchInput { path, source });
    }
    Ok(inputs)
}

/// Runs a search off the GVL.
pub fn run_search(
    ruby: &Ruby,
    inputs: Vec<SearchInput>,
    options: SearchOptions,
) -> Result<SearchTuple, Error> {
    let found = nogvl(ruby, move || searched(inputs, &options))?;
    found.map_err(|e| errors::map(ruby, e))
}

/// Searches `inputs` and gives the result as Ruby receives it, with the summary
/// of what was left out.
pub fn searched(
    inputs: Vec<SearchInput>,
    options: &SearchOptions,
) -> file_store_core::Result<SearchTuple> {
    Ok(tuple(search::search(inputs, options)?, options))
}

/// A search's output as Ruby receives it.
pub fn tuple(out: search::SearchOutput, options: &SearchOptions) -> SearchTuple {
    let summary = search::format_summary(&out, options.max_matches);
    (
        out.text,
        out.shown,
        out.total_matches,
        out.files_matched,
        summary,
        out.skipped,
        out.skipped_shown,
    )
}

/// The options of a search, from its positional arguments.
pub fn options(
    pattern: String,
    literal: bool,
    ignore_case: bool,
    context: usize,
    max_matches: usize,
) -> SearchOptions {
    SearchOptions {
        pattern,
        literal,
        ignore_case,
        context,
        max_matches,
    }
}

fn search_bytes(
    ruby: &Ruby,
    entries: RArray,
    pattern: String,
    literal: bool,
    ignore_case: bool,
    context: usize,
    max_matches: usize,
) -> Result<SearchTuple, Error> {
    // Every entry brings its bytes here; one without has nothing to search.
    let inputs = inputs(entries, |_| Source::Bytes(Arc::from(Vec::new())))?;
    run_search(
        ruby,
        inputs,
        options(pattern, literal, ignore_case, context, max_matches),
    )
}

fn edit_bytes(
    ruby: &Ruby,
    content: RString,
    old_text: String,
    new_text: String,
    replace_all: bool,
    max_size: u64,
) -> Result<(RString, usize, String), Error> {
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
        }) => Ok((ruby.str_from_slice(&content), replacements, changed)),
        Err(refusal) => Err(errors::edit_refused(ruby, refusal.to_string())),
    }
}
