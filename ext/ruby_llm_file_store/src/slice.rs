//! `Native::Slice`: a window of a text as `read_file` shows it, with the version
//! of the file it came from.

use magnus::{method, prelude::*, Error, RModule, Ruby};

use file_store_base::text::Shown;
use file_store_base::version::Version;

/// A window of lines or characters, its trailer, and what the read saw.
#[magnus::wrap(class = "RubyLLM::FileStore::Native::Slice", free_immediately, size)]
pub struct Slice {
    shown: Shown,
    version: Option<Version>,
}

impl Slice {
    /// A window read from a file, at `version`.
    pub fn of_file(shown: Shown, version: Version) -> Slice {
        Slice {
            shown,
            version: Some(version),
        }
    }

    /// A window of bytes Ruby handed in, whose version Ruby knows.
    pub fn of_bytes(shown: Shown) -> Slice {
        Slice {
            shown,
            version: None,
        }
    }

    fn text(&self) -> String {
        self.shown.text.clone()
    }

    /// The note after the window, nil when there is nothing to say.
    fn trailer(&self) -> Option<String> {
        self.shown.trailer.clone()
    }

    /// The digest of the file read, nil past `DIGEST_LIMIT` or for bytes handed in.
    fn digest(&self) -> Option<String> {
        self.version.as_ref().and_then(|v| v.digest.clone())
    }

    /// The size of the file read, nil for bytes handed in.
    fn size(&self) -> Option<u64> {
        self.version.as_ref().map(|v| v.size)
    }

    /// The file's time of change as `[seconds, nanoseconds]`, nil for bytes.
    fn mtime(&self) -> Option<(i64, u32)> {
        self.version.as_ref().map(|v| v.mtime)
    }

    /// The file's stamp (see `version::stamp`), nil within `DIGEST_LIMIT` or for bytes.
    fn stamp(&self) -> Option<String> {
        self.version.as_ref().and_then(|v| v.stamp.clone())
    }
}

pub fn define(ruby: &Ruby, native: RModule) -> Result<(), Error> {
    let class = native.define_class("Slice", ruby.class_object())?;
    class.define_method("text", method!(Slice::text, 0))?;
    class.define_method("trailer", method!(Slice::trailer, 0))?;
    class.define_method("digest", method!(Slice::digest, 0))?;
    class.define_method("size", method!(Slice::size, 0))?;
    class.define_method("mtime", method!(Slice::mtime, 0))?;
    class.define_method("stamp", method!(Slice::stamp, 0))?;
    Ok(())
}
