//! The binding: defines `RubyLLM::FileStore::Native` over the core crate. It only
//! converts values (all in `convert`), releases the GVL around work on the disk,
//! and maps errors (all in `errors`); every limit and rule is the core's.
//!
//! A file that defines a class is named after it (`directory.rs` for
//! `Native::Directory`; `directory_texts.rs` for its texts and searches, as in
//! Ruby); the others define `Native`'s module functions by subject.

mod convert;
mod converters;
mod directory;
mod directory_texts;
mod entry;
mod errors;
mod lock;
mod named;
mod nogvl;
mod passage_index;
mod paths;
mod run;
mod snapshot;
mod text;
mod writer;

use magnus::{prelude::*, Error, RModule, Ruby};

use file_store_base::{text as texts, version};
use file_store_sandbox as running;
use file_store_search as search;

#[magnus::init(name = "file_store_native")]
fn init(ruby: &Ruby) -> Result<(), Error> {
    let native = ruby
        .define_module("RubyLLM")?
        .define_class("FileStore", ruby.class_object())?
        .define_module("Native")?;
    constants(ruby, native)?;
    errors::init(ruby);
    nogvl::init(ruby);
    paths::define(ruby, native)?;
    entry::define(ruby, native)?;
    let directory = directory::define(ruby, native)?;
    directory_texts::define(&directory)?;
    writer::define(ruby, native)?;
    lock::define(ruby, native)?;
    text::define(ruby, native)?;
    run::define(ruby, native)?;
    snapshot::define(ruby, native)?;
    converters::define(ruby, native)?;
    passage_index::define(ruby, native)?;
    wrapped_classes(ruby);
    Ok(())
}

/// Looks up now, as the extension loads, the class of each wrapped type: magnus
/// looks one up the first time a value of it is returned and unwraps the lookup, so
/// an interrupt pending then (a Timeout's throw, a Thread#kill) made it panic.
fn wrapped_classes(ruby: &Ruby) {
    use magnus::TypedData;
    entry::Entry::class(ruby);
    directory::Directory::class(ruby);
    writer::Writer::class(ruby);
    lock::Lock::class(ruby);
    snapshot::Snapshot::class(ruby);
    passage_index::PassageIndex::class(ruby);
}

/// The core's limits Ruby needs, exported once, under the core's names;
/// `RUN_LIMITS` holds a run's default limits by name (`src/run/limits.rs`).
fn constants(ruby: &Ruby, native: RModule) -> Result<(), Error> {
    native.const_set("MAX_RESULT_CHARS", texts::MAX_RESULT_CHARS)?;
    native.const_set("TRAILER_ROOM", texts::TRAILER_ROOM)?;
    native.const_set("MAX_READ_CHARS", texts::MAX_READ_CHARS)?;
    native.const_set("COUNT_BUDGET", texts::COUNT_BUDGET)?;
    native.const_set("DIGEST_LIMIT", version::DIGEST_LIMIT)?;
    native.const_set("MAX_SKIPPED_SHOWN", search::MAX_SKIPPED_SHOWN)?;
    native.const_set("RUN_UID", running::RUN_UID)?;
    native.const_set("RUN_LIMITS", convert::default_limits(ruby)?)?;
    // Why a file is no text, as the search and the tools say it.
    let not_text = ruby.hash_new();
    not_text.aset(ruby.sym_new("no_converter"), search::tree::NO_CONVERTER)?;
    not_text.aset(ruby.sym_new("binary"), search::BINARY)?;
    not_text.freeze();
    native.const_set("NOT_TEXT", not_text)?;
    Ok(())
}
