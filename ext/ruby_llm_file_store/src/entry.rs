//! `Native::Entry`: what the folder store tells of one file, with readers.

use magnus::{method, prelude::*, Error, RClass, RModule, RString, Ruby};

use file_store_folder as dir;

/// One file as a listing, a look-up or a write saw it.
#[magnus::wrap(class = "RubyLLM::FileStore::Native::Entry", free_immediately, size)]
pub struct Entry(pub dir::Entry);

impl Entry {
    fn path(&self) -> String {
        self.0.path.clone()
    }

    fn size(&self) -> u64 {
        self.0.size
    }

    fn mtime_sec(&self) -> i64 {
        self.0.mtime_sec
    }

    fn mtime_nsec(&self) -> u32 {
        self.0.mtime_nsec
    }

    /// The type as one frozen String Ruby shares among all the entries of that
    /// type: a listing of 50,000 files holds a handful of types, not 50,000.
    fn content_type(ruby: &Ruby, rb_self: &Self) -> RString {
        ruby.str_new(&rb_self.0.content_type)
            .to_interned_str()
            .as_r_string()
    }

    /// The SHA-256 of the content, when the call that made the entry saw all of it.
    fn digest(&self) -> Option<String> {
        self.0.digest.clone()
    }
}

pub fn define(ruby: &Ruby, native: RModule) -> Result<RClass, Error> {
    let class = native.define_class("Entry", ruby.class_object())?;
    class.define_method("path", method!(Entry::path, 0))?;
    class.define_method("size", method!(Entry::size, 0))?;
    class.define_method("mtime_sec", method!(Entry::mtime_sec, 0))?;
    class.define_method("mtime_nsec", method!(Entry::mtime_nsec, 0))?;
    class.define_method("content_type", method!(Entry::content_type, 0))?;
    class.define_method("digest", method!(Entry::digest, 0))?;
    Ok(class)
}
