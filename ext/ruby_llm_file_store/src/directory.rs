//! `Native::Directory`: a folder store, every call off the GVL.

use std::path::PathBuf;

use magnus::{function, method, prelude::*, Error, RModule, RString, Ruby};

use file_store_core::dir::{Entry, Root};

use crate::errors;
use crate::lock::Lock;
use crate::nogvl::nogvl;
use crate::writer::Writer;

/// An entry as Ruby receives it: path, size, mtime seconds, mtime nanoseconds, type.
/// and the digest when the call saw the whole content.
pub type EntryTuple = (String, u64, i64, u32, String, Option<String>);

pub fn tuple(entry: Entry) -> EntryTuple {
    (
        entry.path,
        entry.size,
        entry.mtime_sec,
        entry.mtime_nsec,
        entry.content_type,
        entry.digest,
    )
}

#[magnus::wrap(
    class = "RubyLLM::FileStore::Native::Directory",
    free_immediately,
    size
)]
pub struct Directory {
    root: Root,
}

/// Runs `work` on the root off the GVL and maps its error.
fn off_gvl<T: Send>(
    ruby: &Ruby,
    work: impl FnOnce() -> file_store_core::Result<T> + Send,
) -> Result<T, Error> {
    nogvl(ruby, work)?.map_err(|e| errors::map(ruby, e))
}

impl Directory {
    fn open(ruby: &Ruby, path: String) -> Result<Directory, Error> {
        let path = PathBuf::from(path);
        let root = off_gvl(ruby, move || Root::open(&path))?;
        Ok(Directory { root })
    }

    fn list(ruby: &Ruby, rb_self: &Self, prefix: Option<String>) -> Result<Vec<EntryTuple>, Error> {
        let entries = off_gvl(ruby, || rb_self.root.list(prefix.as_deref()))?;
        Ok(entries.into_iter().map(tuple).collect())
    }

    fn stat(ruby: &Ruby, rb_self: &Self, path: String) -> Result<Option<EntryTuple>, Error> {
        Ok(off_gvl(ruby, || rb_self.root.stat(&path))?.map(tuple))
    }

    fn read(ruby: &Ruby, rb_self: &Self, path: String) -> Result<RString, Error> {
        let bytes = off_gvl(ruby, || rb_self.root.read(&path))?;
        Ok(ruby.str_from_slice(&bytes))
    }

    /// The digest of the file at `path` if it is still the version of that size and
    /// modification time, else nil.
    fn digest_of(
        ruby: &Ruby,
        rb_self: &Self,
        path: String,
        size: u64,
        mtime_sec: i64,
        mtime_nsec: u32,
    ) -> Result<Option<String>, Error> {
        let entry = Entry {
            path,
            size,
            mtime_sec,
            mtime_nsec,
            content_type: String::new(),
            digest: None,
        };
        off_gvl(ruby, || rb_self.root.digest_of(&entry))
    }

    fn write(
        ruby: &Ruby,
        rb_self: &Self,
        path: String,
        content: RString,
    ) -> Result<EntryTuple, Error> {
        let bytes = crate::writer::owned_bytes(content);
        Ok(tuple(off_gvl(ruby, || rb_self.root.write(&path, &bytes))?))
    }

    fn writer(ruby: &Ruby, rb_self: &Self, path: String) -> Result<Writer, Error> {
        Ok(Writer::new(off_gvl(ruby, || rb_self.root.writer(&path))?))
    }

    fn delete(ruby: &Ruby, rb_self: &Self, path: String) -> Result<Option<EntryTuple>, Error> {
        Ok(off_gvl(ruby, || rb_self.root.delete(&path))?.map(tuple))
    }

    fn lock(ruby: &Ruby, rb_self: &Self) -> Result<Lock, Error> {
        Ok(Lock::new(off_gvl(ruby, || rb_self.root.lock())?))
    }
}

pub fn define(ruby: &Ruby, native: RModule) -> Result<(), Error> {
    let class = native.define_class("Directory", ruby.class_object())?;
    class.define_singleton_method("open", function!(Directory::open, 1))?;
    class.define_method("list", method!(Directory::list, 1))?;
    class.define_method("stat", method!(Directory::stat, 1))?;
    class.define_method("read", method!(Directory::read, 1))?;
    class.define_method("digest_of", method!(Directory::digest_of, 4))?;
    class.define_method("write", method!(Directory::write, 2))?;
    class.define_method("writer", method!(Directory::writer, 1))?;
    class.define_method("delete", method!(Directory::delete, 1))?;
    class.define_method("lock", method!(Directory::lock, 0))?;
    Ok(())
}
