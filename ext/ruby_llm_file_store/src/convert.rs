//! The binding's value conversions, in one place: Ruby values to the core's
//! inputs (bytes, paths, search options and inputs, converter plans, run limits),
//! and the core's results to Ruby values (search results, text kinds, read windows
//! and versions, runs).

use std::collections::HashMap;
use std::sync::Arc;
use std::time::Duration;

use magnus::scan_args::{get_kwargs, scan_args, ScanArgsRequired};
use magnus::{
    exception, prelude::*, Error, IntoValue, RArray, RClass, RHash, RString, Ruby, Symbol,
    TryConvert, Value,
};

use file_store_base::text::Shown;
use file_store_base::version::Version;
use file_store_documents::Kind;
use file_store_sandbox::{Limits, Outcome};
use file_store_search::tree::{Given, Plan, Step};
use file_store_search::{self as search, SearchInput, SearchOptions, SearchOutput, Source};

use crate::named::named;
use crate::snapshot::{changes_hash, Snapshot};

/// The bytes of `content`, copied, because another Ruby thread may change the string
/// while the GVL is released.
pub fn owned_bytes(content: RString) -> Vec<u8> {
    // SAFETY: copied before any Ruby code can run.
    unsafe { content.as_slice() }.to_vec()
}

/// The bytes of a String handed in, for work done off the GVL: borrowed when the
/// String is frozen and large, copied otherwise (see `owned_bytes`), so reading a
/// window of a 64 MB text, or converting a large document, does not hold it twice.
pub enum HeldBytes {
    Borrowed(RString),
    Owned(Vec<u8>),
}

/// Strings at least this long keep their bytes outside the object (Ruby embeds
/// only strings of a few hundred bytes), where GC compaction never moves them.
const BORROWED_FROM: usize = 64 * 1024;

pub fn held_bytes(content: RString) -> HeldBytes {
    if content.is_frozen() && content.len() >= BORROWED_FROM {
        HeldBytes::Borrowed(content)
    } else {
        HeldBytes::Owned(owned_bytes(content))
    }
}

impl std::ops::Deref for HeldBytes {
    type Target = [u8];

    fn deref(&self) -> &[u8] {
        match self {
            // SAFETY: no Ruby code can change a frozen String's bytes, and this one's
            // are outside the object (BORROWED_FROM), so neither GC compaction nor
            // another thread moves or frees them while the HeldBytes, kept in the
            // frame that called the work (and with it the String, which the GC sees
            // there), lives.
            HeldBytes::Borrowed(string) => unsafe { string.as_slice() },
            HeldBytes::Owned(bytes) => bytes,
        }
    }
}

/// A converted text as a Ruby String (UTF-8), copied a piece at a time with each
/// piece's memory given back as it goes, so a 64 MB text is never held twice.
pub fn text_string(ruby: &Ruby, text: String) -> RString {
    let string = ruby.str_with_capacity(text.len());
    file_store_base::handing_over::copy_releasing(text.into_bytes(), |piece| string.cat(piece));
    // Frozen, as every text a store keeps is: a read of it borrows it (`held_bytes`).
    string.freeze();
    string
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

/// The `Req` positional arguments of a call and the Hash of its keywords (empty
/// when none were given): every binding function with more than two arguments, or
/// a flag, takes them by name, as `(path, offset:, limit:)`. A call that passes a
/// third argument by position raises ArgumentError, saying how many it takes.
pub fn keywords<Req: ScanArgsRequired>(args: &[Value]) -> Result<(Req, RHash), Error> {
    let args = scan_args::<Req, (), (), (), RHash, ()>(args)?;
    Ok((args.required, args.keywords))
}

/// The value at `key` of `hash`, `default` when it is missing (or, with no
/// default, an ArgumentError naming the key as one of `what`).
pub fn field<T: TryConvert>(
    ruby: &Ruby,
    hash: RHash,
    what: &str,
    key: &str,
    default: Option<T>,
) -> Result<T, Error> {
    let arg_error = |message: String| Error::new(ruby.exception_arg_error(), message);
    match hash.get(ruby.sym_new(key)) {
        Some(value) => T::try_convert(value).map_err(|e| arg_error(format!("{what} {key}: {e}"))),
        None => default.ok_or_else(|| arg_error(format!("{what} {key} is missing"))),
    }
}

/// The names `hash` may hold: an ArgumentError names any other, so a misspelt
/// option is not silently left at its default.
pub fn only(ruby: &Ruby, hash: RHash, what: &str, names: &[&str]) -> Result<(), Error> {
    let keys: RArray = hash.funcall("keys", ())?;
    for key in keys.into_iter() {
        let known = Symbol::from_value(key)
            .and_then(|key| key.name().ok())
            .is_some_and(|key| names.contains(&key.as_ref()));
        if !known {
            let key = key.inspect();
            return Err(Error::new(
                ruby.exception_arg_error(),
                format!("unknown {what} {key}: use {}", names.join(", ")),
            ));
        }
    }
    Ok(())
}

/// A window of lines by name: `offset:`, `limit:` and `max_chars:`, where each
/// line is cut.
pub fn lines_window(kw: RHash) -> Result<(usize, usize, usize), Error> {
    let names = &["offset", "limit", "max_chars"];
    Ok(get_kwargs::<_, (usize, usize, usize), (), ()>(kw, names, &[])?.required)
}

/// A window of characters by name: `offset:` and `limit:`.
pub fn chars_window(kw: RHash) -> Result<(usize, usize), Error> {
    Ok(get_kwargs::<_, (usize, usize), (), ()>(kw, &["offset", "limit"], &[])?.required)
}

/// The names of a search's options.
const SEARCH_OPTIONS: &[&str] = &[
    "pattern",
    "literal",
    "ignore_case",
    "context",
    "max_matches",
];

/// The options of a search from a Hash of `:pattern` and `:max_matches`, and
/// optionally `:literal`, `:ignore_case` (false) and `:context` (0).
pub fn search_options(ruby: &Ruby, hash: RHash) -> Result<SearchOptions, Error> {
    only(ruby, hash, "search option", SEARCH_OPTIONS)?;
    let option = "search option";
    Ok(SearchOptions {
        pattern: field(ruby, hash, option, "pattern", None)?,
        literal: field(ruby, hash, option, "literal", Some(false))?,
        ignore_case: field(ruby, hash, option, "ignore_case", Some(false))?,
        context: field(ruby, hash, option, "context", Some(0))?,
        max_matches: field(ruby, hash, option, "max_matches", None)?,
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
            Some(bytes) => Source::Bytes(owned_bytes(bytes).into()),
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

/// A window `read_file` shows, as one Hash Ruby reads by name: `{text:, trailer:,
/// version:}`, the trailer nil when there is nothing to say and `version` the
/// version the read went through (see `version`), nil where the core cannot tell it.
pub fn shown(ruby: &Ruby, shown: Shown, version: Value) -> Result<RHash, Error> {
    named(
        ruby,
        &[
            ("text", ruby.into_value(shown.text)),
            ("trailer", ruby.into_value(shown.trailer)),
            ("version", version),
        ],
    )
}

/// A version the core computed, in the form `Reads` keeps and compares (see
/// `Reads.size_and_time` in `reads.rb`), so Ruby does not rebuild it: the digest
/// within `DIGEST_LIMIT`, else `[:size_and_time, size, time, stamp]`, whose time is
/// nil when the stamp tells the version (as it does for every read of a folder).
pub fn version(ruby: &Ruby, version: Version) -> Result<Value, Error> {
    if let Some(digest) = version.digest {
        return Ok(ruby.into_value(digest));
    }
    let time = match version.stamp {
        Some(_) => ruby.qnil().as_value(),
        None => {
            let (seconds, nanoseconds) = version.mtime;
            let time: RClass = ruby.class_object().const_get("Time")?;
            time.funcall("at", (seconds, nanoseconds, ruby.sym_new("nsec")))?
        }
    };
    let values = [
        ruby.sym_new("size_and_time").as_value(),
        ruby.into_value(version.size),
        time,
        ruby.into_value(version.stamp),
    ];
    Ok(ruby.ary_new_from_values(&values).as_value())
}

/// The names of `Limits`' fields Ruby passes, all but the timeout.
const LIMITS: &[&str] = &[
    "cpu_seconds",
    "cpu_percent",
    "memory_bytes",
    "tmp_bytes",
    "file_bytes",
    "processes",
    "output_bytes",
    "digest_bytes",
    "new_names",
    "save_files",
    "folder_names",
];

/// The limits of a run from its timeout and a Hash of any of `Limits`' other
/// fields by name, each missing one at its default.
pub fn run_limits(ruby: &Ruby, timeout: f64, limits: RHash) -> Result<Limits, Error> {
    if !(timeout.is_finite() && timeout > 0.0) {
        return Err(Error::new(
            ruby.exception_arg_error(),
            format!("timeout must be a positive number of seconds, not {timeout}"),
        ));
    }
    only(ruby, limits, "limit", LIMITS)?;
    let d = Limits::default();
    let limit = |name, default| field(ruby, limits, "limit", name, Some(default));
    Ok(Limits {
        timeout: Duration::from_secs_f64(timeout),
        cpu_seconds: limit("cpu_seconds", d.cpu_seconds)?,
        cpu_percent: limit("cpu_percent", d.cpu_percent)?,
        memory_bytes: limit("memory_bytes", d.memory_bytes)?,
        tmp_bytes: limit("tmp_bytes", d.tmp_bytes)?,
        file_bytes: limit("file_bytes", d.file_bytes)?,
        processes: limit("processes", d.processes)?,
        output_bytes: field(ruby, limits, "limit", "output_bytes", Some(d.output_bytes))?,
        digest_bytes: limit("digest_bytes", d.digest_bytes)?,
        new_names: limit("new_names", d.new_names)?,
        save_files: limit("save_files", d.save_files)?,
        folder_names: limit("folder_names", d.folder_names)?,
    })
}

/// The core's default limits of a run, by the names `run_limits` takes, and its
/// timeout in seconds as `:timeout`: exported once as `Native::RUN_LIMITS`.
pub fn default_limits(ruby: &Ruby) -> Result<RHash, Error> {
    let d = Limits::default();
    let values: [u64; 11] = [
        d.cpu_seconds,
        d.cpu_percent,
        d.memory_bytes,
        d.tmp_bytes,
        d.file_bytes,
        d.processes,
        d.output_bytes as u64,
        d.digest_bytes,
        d.new_names,
        d.save_files,
        d.folder_names,
    ];
    let hash = ruby.hash_new();
    for (name, value) in LIMITS.iter().zip(values) {
        hash.aset(ruby.sym_new(*name), value)?;
    }
    hash.aset(ruby.sym_new("timeout"), d.timeout.as_secs_f64())?;
    hash.freeze();
    Ok(hash)
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
            ("changes", changes_hash(ruby, outcome.changes)?.as_value()),
        ],
    )
}

/// The plan of `registry`, an Array of `[key, [name, ...]]` where a name is a
/// built-in converter's (`Native::CONVERTERS`) or anything else for a converter of
/// Ruby's.
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
                    format!("{name:?} is no built-in converter: {}", builtin_names()),
                )
            })
        })
        .collect()
}

/// The built-in converters' names, for a refusal.
fn builtin_names() -> String {
    let names: Vec<&str> = Kind::ALL.iter().map(|kind| kind.name()).collect();
    names.join(", ")
}

/// The texts Ruby's converters gave, from `given`, an Array of Hashes of `:path`,
/// `:text` and `:why` (text nil and why given when there is none).
pub fn given_texts(ruby: &Ruby, given: RArray) -> Result<HashMap<String, Given>, Error> {
    let mut texts: HashMap<String, Given> = HashMap::with_capacity(given.len());
    for entry in given.into_iter() {
        let entry = RHash::try_convert(entry)?;
        only(ruby, entry, "given text's", &["path", "text", "why"])?;
        let path: String = field(ruby, entry, "given text's", "path", None)?;
        let text: Option<RString> = field(ruby, entry, "given text's", "text", Some(None))?;
        let why: Option<String> = field(ruby, entry, "given text's", "why", Some(None))?;
        let text = match text {
            Some(text) => Ok(Arc::from(owned_bytes(text))),
            None => Err(why.unwrap_or_else(|| "has no text".into())),
        };
        texts.insert(path, text);
    }
    Ok(texts)
}
