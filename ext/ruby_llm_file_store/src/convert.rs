//! The binding's value conversions, in one place: Ruby values to the core's
//! inputs (bytes, paths, search options and inputs), and the core's results to
//! Ruby values (search results, text kinds).

use std::sync::Arc;

use magnus::{
    exception, prelude::*, Error, IntoValue, RArray, RHash, RString, Ruby, Symbol, TryConvert,
    Value,
};

use file_store_core::search::{self, SearchInput, SearchOptions, SearchOutput, Source};

/// The bytes of `content`, copied, because another Ruby thread may change the string
/// while the GVL is released.
pub fn owned_bytes(content: RString) -> Vec<u8> {
    // SAFETY: copied before any Ruby code can run.
    unsafe { content.as_slice() }.to_vec()
}

/// A path as Ruby hands it to the folder store: any String whose bytes are UTF-8.
/// The core normalises and refuses it; Ruby raises a refusal again with the
/// name's own `inspect`.
pub struct StorePath(pub String);

impl TryConvert for StorePath {
    fn try_convert(value: Value) -> Result<Self, Error> {
        let name = RString::try_convert(value)?;
        String::from_utf8(owned_bytes(name))
            .map(StorePath)
            .map_err(|_| Error::new(exception::arg_error(), "a path must be UTF-8"))
    }
}

/// The value at `key` of `hash`, `default` when it is missing (or, with no
/// default, an ArgumentError naming the key).
fn option<T: TryConvert>(
    ruby: &Ruby,
    hash: RHash,
    key: &str,
    default: Option<T>,
) -> Result<T, Error> {
    let arg_error = |message: String| Error::new(ruby.exception_arg_error(), message);
    match hash.get(ruby.to_symbol(key)) {
        Some(value) => {
            T::try_convert(value).map_err(|e| arg_error(format!("search option {key}: {e}")))
        }
        None => default.ok_or_else(|| arg_error(format!("search option {key} is missing"))),
    }
}

/// The options of a search from a Hash of `:pattern` and `:max_matches`, and
/// optionally `:literal`, `:ignore_case` (false) and `:context` (0).
pub fn search_options(ruby: &Ruby, hash: RHash) -> Result<SearchOptions, Error> {
    Ok(SearchOptions {
        pattern: option(ruby, hash, "pattern", None)?,
        literal: option(ruby, hash, "literal", Some(false))?,
        ignore_case: option(ruby, hash, "ignore_case", Some(false))?,
        context: option(ruby, hash, "context", Some(0))?,
        max_matches: option(ruby, hash, "max_matches", None)?,
    })
}

/// The search inputs in `entries`, an Array of `[path, bytes]`; an entry whose bytes
/// are nil is opened by `open`, off the GVL, on the thread that searches it.
pub fn search_inputs(
    entries: RArray,
    open: impl Fn(String) -> Source,
) -> Result<Vec<SearchInput>, Error> {
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

/// A search's output as Ruby receives it: a Hash of `:text`, `:shown`, `:total`,
/// `:files_matched`, `:summary` (nil unless matches were left out), `:skipped`
/// and `:skipped_shown` (`[path, why]` pairs).
pub fn found(ruby: &Ruby, out: SearchOutput, options: &SearchOptions) -> Result<RHash, Error> {
    let summary = search::format_summary(&out, options.max_matches);
    let hash = ruby.hash_new();
    let set = |key: &str, value: Value| hash.aset(ruby.to_symbol(key), value);
    set("text", out.text.into_value_with(ruby))?;
    set("shown", out.shown.into_value_with(ruby))?;
    set("total", out.total_matches.into_value_with(ruby))?;
    set("files_matched", out.files_matched.into_value_with(ruby))?;
    set("summary", summary.into_value_with(ruby))?;
    set("skipped", out.skipped.into_value_with(ruby))?;
    set("skipped_shown", out.skipped_shown.into_value_with(ruby))?;
    Ok(hash)
}

/// What the core's text rule says of a type, as Ruby receives it: `:text` for a
/// type that holds text, `:unknown` when the bytes decide, false otherwise.
pub fn text_kind(ruby: &Ruby, holds_text: Option<bool>) -> Value {
    match holds_text {
        Some(true) => Symbol::new("text").into_value_with(ruby),
        None => Symbol::new("unknown").into_value_with(ruby),
        Some(false) => ruby.qfalse().as_value(),
    }
}
