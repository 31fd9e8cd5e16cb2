//! `Native::Writer`: an atomic write fed in chunks, for content that comes from an IO.

use std::sync::Mutex;

use magnus::{method, prelude::*, Error, RModule, RString, Ruby};

use file_store_folder::AtomicWriter;

use crate::convert::owned_bytes;
use crate::entry::Entry;
use crate::errors;
use crate::nogvl::nogvl;

#[magnus::wrap(class = "RubyLLM::FileStore::Native::Writer", free_immediately, size)]
pub struct Writer {
    inner: Mutex<Option<AtomicWriter>>,
}

impl Writer {
    pub fn new(writer: AtomicWriter) -> Writer {
        Writer {
            inner: Mutex::new(Some(writer)),
        }
    }

    fn write(ruby: &Ruby, rb_self: &Self, chunk: RString) -> Result<usize, Error> {
        let bytes = owned_bytes(chunk);
        let result = nogvl(ruby, || {
            let mut guard = rb_self.inner.lock().unwrap_or_else(|e| e.into_inner());
            match guard.as_mut() {
                Some(writer) => writer.write_all(&bytes).map(|()| bytes.len()),
                None => Err(finished()),
            }
        })?;
        result.map_err(|e| errors::map(ruby, e))
    }

    fn commit(ruby: &Ruby, rb_self: &Self) -> Result<Entry, Error> {
        let result = nogvl(ruby, || {
            let taken = rb_self
                .inner
                .lock()
                .unwrap_or_else(|e| e.into_inner())
                .take();
            taken.ok_or_else(finished).and_then(AtomicWriter::commit)
        })?;
        result.map(Entry).map_err(|e| errors::map(ruby, e))
    }

    fn abort(ruby: &Ruby, rb_self: &Self) -> Result<(), Error> {
        nogvl(ruby, || {
            drop(
                rb_self
                    .inner
                    .lock()
                    .unwrap_or_else(|e| e.into_inner())
                    .take(),
            )
        })
    }
}

fn finished() -> file_store_base::Error {
    file_store_base::Error::InvalidArgument("the write is already finished".to_string())
}

pub fn define(ruby: &Ruby, native: RModule) -> Result<(), Error> {
    let class = native.define_class("Writer", ruby.class_object())?;
    class.define_method("write", method!(Writer::write, 1))?;
    class.define_method("commit", method!(Writer::commit, 0))?;
    class.define_method("abort", method!(Writer::abort, 0))?;
    Ok(())
}
