//! `Native::Entry`: what the folder store tells of one file, with readers; and the
//! same as one Hash, for a look-up whose fields Ruby reads at once.

use magnus::{method, prelude::*, Error, RClass, RHash, RModule, RString, Ruby};

use file_store_folder as dir;

use crate::named::named;

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
        interned(ruby, &rb_self.0.content_type)
    }

    /// The entry as one Hash, `{path:, size:, content_type:, mtime: [seconds,
    /// nanoseconds], digest:, entry:}`, `entry` the entry itself for a later
    /// `digest_of` or `stamp_of`: a look-up's answer in one call, where reading
    /// each field would cross into the binding once a field.
    pub fn named(self, ruby: &Ruby) -> Result<RHash, Error> {
        let dir::Entry {
            ref path,
            size,
            mtime_sec,
            mtime_nsec,
            ref content_type,
            ref digest,
            ..
        } = self.0;
        let (path, digest) = (
            ruby.into_value(path.as_str()),
            ruby.into_value(digest.clone()),
        );
        let content_type = interned(ruby, content_type).as_value();
        let mtime = ruby.into_value((mtime_sec, mtime_nsec));
        named(
            ruby,
            &[
                ("path", path),
                ("size", ruby.into_value(size)),
                ("content_type", content_type),
                ("mtime", mtime),
                ("digest", digest),
                ("entry", ruby.into_value(self)),
            ],
        )
    }

    /// The SHA-256 of the content, when the call that made the entry saw all of it.
    fn digest(&self) -> Option<String> {
        self.0.digest.clone()
    }
}

/// `text` as the one frozen String Ruby keeps for it.
fn interned(ruby: &Ruby, text: &str) -> RString {
    ruby.str_new(text).to_interned_str().as_r_string()
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
