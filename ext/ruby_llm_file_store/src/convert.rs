//! The binding's value conversions, in one place: Ruby values to the core's
//! inputs (bytes, paths, search options and inputs, converter plans, run limits),
//! and the core's results to Ruby values (search results, text kinds, runs).

use std::collections::HashMap;
use std::sync::Arc;
use std::time::Duration;

use magnus::{
    exception, prelude::*, Error, IntoValue, RArray, RHash, RString, Ruby, Symbol, TryConvert,
    Value,
};

use file_store_core::convert::Kind;
use file_store_core::run::{Limits, Outcome};
use file_store_core::search::tree::{Given, Plan, Step};
use file_store_core::search::{self, SearchInput, SearchOptions, SearchOutput, Source};

use crate::named::named;
use crate::snapshot::Snapshot;

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
/// and `:skipped_shown` (`[path, why]` pairs), `:partial` and `:partial_shown`
/// (the texts their converter cut, `[path, why]`).
pub fn found(ruby: &Ruby, out: SearchOutput, options: &SearchOptions) -> Result<RHash, Error> {
    let summary = search::format_summary(&out, options.max_matches);
    named(
        ruby,
        &[
            ("text", out.text.into_value_with(ruby)),
            ("shown", out.shown.into_value_with(ruby)),
            ("total", out.total_matches.into_value_with(ruby)),
            ("files_matched", out.files_matched.into_value_with(ruby)),
            ("summary", summary.into_value_with(ruby)),
            ("skipped", out.skipped.into_value_with(ruby)),
            ("skipped_shown", out.skipped_shown.into_value_with(ruby)),
            ("partial", out.partial.into_value_with(ruby)),
            ("partial_shown", out.partial_shown.into_value_with(ruby)),
        ],
    )
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

/// The limit `name` from `limits`, or `default` when it is not there.
fn limit<T: TryConvert>(ruby: &Ruby, limits: RHash, name: &str, default: T) -> Result<T, Error> {
    match limits.get(ruby.to_symbol(name)) {
        None => Ok(default),
        Some(value) => T::try_convert(value)
            .map_err(|e| Error::new(ruby.exception_arg_error(), format!("limit {name}: {e}"))),
    }
}

/// The limits of a run from its timeout and a Hash of any of `Limits`' other
/// fields by name, each missing one at its default.
pub fn run_limits(ruby: &Ruby, timeout: f64, limits: RHash) -> Result<Limits, Error> {
    if !(timeout.is_finite() && timeout > 0.0) {
        return Err(Error::new(
            ruby.exception_arg_error(),
            format!("timeout must be a positive number of seconds, not {timeout}"),
        ));
    }
    let d = Limits::default();
    Ok(Limits {
        timeout: Duration::from_secs_f64(timeout),
        cpu_seconds: limit(ruby, limits, "cpu_seconds", d.cpu_seconds)?,
        cpu_percent: limit(ruby, limits, "cpu_percent", d.cpu_percent)?,
        memory_bytes: limit(ruby, limits, "memory_bytes", d.memory_bytes)?,
        tmp_bytes: limit(ruby, limits, "tmp_bytes", d.tmp_bytes)?,
        file_bytes: limit(ruby, limits, "file_bytes", d.file_bytes)?,
        processes: limit(ruby, limits, "processes", d.processes)?,
        output_bytes: limit(ruby, limits, "output_bytes", d.output_bytes)?,
        digest_bytes: limit(ruby, limits, "digest_bytes", d.digest_bytes)?,
        new_names: limit(ruby, limits, "new_names", d.new_names)?,
        save_files: limit(ruby, limits, "save_files", d.save_files)?,
        folder_names: limit(ruby, limits, "folder_names", d.folder_names)?,
    })
}

/// How a run ended, as a Hash, with the folder's snapshots from before and after.
pub fn outcome(ruby: &Ruby, outcome: Outcome) -> Result<RHash, Error> {
    named(
        ruby,
        &[
            ("exit_code", ruby.into_value(outcome.exit_code)),
            ("signal", ruby.into_value(outcome.signal)),
            ("timed_out", ruby.into_value(outcome.timed_out)),
            ("stdout", ruby.into_value(outcome.stdout)),
            ("stderr", ruby.into_value(outcome.stderr)),
            ("stdout_bytes", ruby.into_value(outcome.stdout_bytes)),
            ("stderr_bytes", ruby.into_value(outcome.stderr_bytes)),
            ("seconds", ruby.into_value(outcome.elapsed.as_secs_f64())),
            (
                "processes_limited",
                ruby.into_value(outcome.processes_limited),
            ),
            ("memory_limited", ruby.into_value(outcome.memory_limited)),
            ("cpu_limited", ruby.into_value(outcome.cpu_limited)),
            ("uid", ruby.into_value(outcome.uid)),
            ("notes", ruby.into_value(outcome.notes)),
            ("before", ruby.into_value(Snapshot(outcome.before))),
            ("after", ruby.into_value(Snapshot(outcome.after))),
        ],
    )
}

/// The plan of `registry`, an Array of `[key, [name, ...]]` where a name is a
/// built-in converter's (`"pdf"`, `"office"`, `"html"`) or anything else for a
/// converter of Ruby's.
pub fn plan(registry: RArray) -> Result<Plan, Error> {
    let mut entries = Vec::with_capacity(registry.len());
    for entry in registry.into_iter() {
        let (key, names): (String, Vec<String>) = TryConvert::try_convert(entry)?;
        let steps = names
            .iter()
            .map(|name| Kind::named(name).map_or(Step::Caller, Step::Native))
            .collect();
        entries.push((key, steps));
    }
    Ok(Plan::new(entries))
}

/// A chain of built-in converters by name.
pub fn chain(ruby: &Ruby, names: Vec<String>) -> Result<Vec<Kind>, Error> {
    names
        .iter()
        .map(|name| {
            Kind::named(name).ok_or_else(|| {
                Error::new(
                    ruby.exception_arg_error(),
                    format!("{name:?} is no built-in converter: pdf, office or html"),
                )
            })
        })
        .collect()
}

/// The texts Ruby's converters gave, from `given`, an Array of `[path, text,
/// why]` (text nil and why given when there is none).
pub fn given_texts(given: RArray) -> Result<HashMap<String, Given>, Error> {
    let mut texts: HashMap<String, Given> = HashMap::with_capacity(given.len());
    for entry in given.into_iter() {
        let (path, text, why): (String, Option<RString>, Option<String>) =
            TryConvert::try_convert(entry)?;
        let text = match text {
            Some(text) => Ok(Arc::from(owned_bytes(text))),
            None => Err(why.unwrap_or_else(|| "has no text".into())),
        };
        texts.insert(path, text);
    }
    Ok(texts)
}
