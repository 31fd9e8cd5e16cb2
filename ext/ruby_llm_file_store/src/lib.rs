//! The binding: defines `RubyLLM::FileStore::Native` over the core crate. It only
//! converts values, releases the GVL around work on the disk, and maps errors.

mod convert;
mod directory;
mod errors;
mod lock;
mod nogvl;
mod paths;
mod run;
mod snapshot;
mod text;
mod tree;
mod writer;

use magnus::{prelude::*, Error, Ruby};

#[magnus::init(name = "file_store_native")]
fn init(ruby: &Ruby) -> Result<(), Error> {
    let native = ruby
        .define_module("RubyLLM")?
        .define_class("FileStore", ruby.class_object())?
        .define_module("Native")?;
    paths::define(ruby, native)?;
    directory::define(ruby, native)?;
    writer::define(ruby, native)?;
    lock::define(ruby, native)?;
    text::define(ruby, native)?;
    run::define(ruby, native)?;
    snapshot::define(ruby, native)?;
    convert::define(ruby, native)?;
    Ok(())
}
