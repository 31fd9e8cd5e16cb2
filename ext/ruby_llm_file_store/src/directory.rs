//! `Native::Directory`: a folder store, every call off the GVL.

use std::collections::HashMap;
use std::io::Read;
use std::path::PathBuf;
use std::sync::Arc;

use magnus::rb_sys::AsRawValue;
use magnus::{function, method, prelude::*, Error, RArray, RModule, RString, Ruby};

use file_store_core::dir::{Entry, Root};
use file_store_core::search::Source;
use file_store_core::{cancel, Error as CoreError};

/// How much a read fills between checks for an interrupt.
const READ_CHUNK: usize = 4 * 1024 * 1024;

use crate::errors;
use crate::lock::Lock;
use crate::nogvl::{nogvl, nogvl_retrying};
use crate::paths::StorePath;
use crate::text;
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
/// Runs `work` on the root off the GVL and maps its error. Work that an interrupt
/// stopped without raising (a signal trap that returns) runs again.
fn off_gvl<T: Send>(
    ruby: &Ruby,
    work: impl Fn() -> file_store_core::Result<T> + Sync,
) -> Result<T, Error> {
    nogvl_retrying(ruby, work)?.map_err(|e| errors::map(ruby, e))
}

impl Directory {
    /// The folder this store works in.
    pub fn root(&self) -> &Root {
        &self.root
    }

    fn open(ruby: &Ruby, path: String) -> Result<Directory, Error> {
        let path = PathBuf::from(path);
        let root = off_gvl(ruby, move || Root::open(&path))?;
        Ok(Directory { root })
    }

    fn list(ruby: &Ruby, rb_self: &Self, prefix: Option<StorePath>) -> Result<RArray, Error> {
        let prefix = prefix.map(|prefix| prefix.0);

        let entries = off_gvl(ruby, || rb_self.root.list(prefix.as_deref()))?;
        listed(ruby, entries)
    }

    fn stat(ruby: &Ruby, rb_self: &Self, path: StorePath) -> Result<Option<EntryTuple>, Error> {
        let path = path.0;

        Ok(off_gvl(ruby, || rb_self.root.stat(&path))?.map(tuple))
    }

    /// Reads the file straight into a Ruby string of its size, so a large file is
    /// held once, not in a Rust buffer and then a copy.
    fn read(ruby: &Ruby, rb_self: &Self, path: StorePath) -> Result<RString, Error> {
        let path = path.0;

        let (file, size) = off_gvl(ruby, || {
            let file = rb_self.root.open_file(&path)?;
            let size = file.metadata().map_err(|e| CoreError::io(&path, e))?.len();
            Ok((file, size as usize))
        })?;
        let string = ruby.str_buf_new(size);
        // SAFETY: the string has room for `size` bytes and stays on this stack, so
        // the GC neither frees nor moves its buffer while the read fills it.
        let buffer = unsafe { rb_sys::RSTRING_PTR(string.as_raw()) } as usize;
        let filled = nogvl(ruby, || {
            let target = unsafe { std::slice::from_raw_parts_mut(buffer as *mut u8, size) };
            let mut reader = cancel::Reader::new(&file);
            let mut filled = 0;
            while filled < size {
                let end = (filled + READ_CHUNK).min(size);
                match reader.read(&mut target[filled..end]) {
                    Ok(0) => break,
                    Ok(n) => filled += n,
                    Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
                    Err(e) => return Err(cancel::from_io(&path, e)),
                }
            }
            Ok(filled)
        })?
        .map_err(|e| errors::map(ruby, e))?;
        unsafe { rb_sys::rb_str_set_len(string.as_raw(), filled as _) };
        // A file that grew since it was measured is read to its end.
        let rest = nogvl(ruby, || {
            let mut rest = Vec::new();
            cancel::Reader::new(&file)
                .read_to_end(&mut rest)
                .map_err(|e| cancel::from_io(&path, e))?;
            Ok(rest)
        })?
        .map_err(|e| errors::map(ruby, e))?;
        if !rest.is_empty() {
            string.cat(&rest);
        }
        Ok(string)
    }

    /// The digest of the file at `path` if it is still the version of that size and
    /// modification time, else nil.
    /// The first `bytes` bytes of the file at `path`.
    fn head(ruby: &Ruby, rb_self: &Self, path: StorePath, bytes: u64) -> Result<RString, Error> {
        let path = path.0;

        let head = off_gvl(ruby, || {
            let mut head = Vec::new();
            let file = rb_self.root.open_file(&path)?;
            file.take(bytes)
                .read_to_end(&mut head)
                .map_err(|e| CoreError::io(&path, e))?;
            Ok(head)
        })?;
        Ok(ruby.str_from_slice(&head))
    }

    fn digest_of(
        ruby: &Ruby,
        rb_self: &Self,
        path: StorePath,
        size: u64,
        mtime_sec: i64,
        mtime_nsec: u32,
    ) -> Result<Option<String>, Error> {
        let path = path.0;

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
        path: StorePath,
        content: RString,
        content_type: Option<String>,
    ) -> Result<EntryTuple, Error> {
        let path = path.0;

        let bytes = crate::writer::owned_bytes(content);
        Ok(tuple(off_gvl(ruby, || {
            rb_self
                .root
                .write_typed(&path, &bytes, content_type.clone())
        })?))
    }

    fn writer(
        ruby: &Ruby,
        rb_self: &Self,
        path: StorePath,
        content_type: Option<String>,
    ) -> Result<Writer, Error> {
        let path = path.0;

        let mut writer = off_gvl(ruby, || rb_self.root.writer(&path))?;
        writer.keep_content_type(content_type);
        Ok(Writer::new(writer))
    }

    fn delete(ruby: &Ruby, rb_self: &Self, path: StorePath) -> Result<Option<EntryTuple>, Error> {
        let path = path.0;

        Ok(off_gvl(ruby, || rb_self.root.delete(&path))?.map(tuple))
    }

    fn read_lines(
        ruby: &Ruby,
        rb_self: &Self,
        path: StorePath,
        offset: usize,
        limit: usize,
        max_chars: usize,
    ) -> Result<(text::LinesTuple, Version), Error> {
        let path = path.0;

        off_gvl(ruby, || {
            shown(&rb_self.root, &path, |reader, size| {
                text::lines_of(reader, size, offset, limit, max_chars)
            })
        })
    }

    fn read_chars(
        ruby: &Ruby,
        rb_self: &Self,
        path: StorePath,
        offset: usize,
        limit: usize,
    ) -> Result<(text::CharsTuple, Version), Error> {
        let path = path.0;

        off_gvl(ruby, || {
            shown(&rb_self.root, &path, |reader, _| {
                text::chars_of(reader, offset, limit)
            })
        })
    }

    /// Searches `entries`, `[path, bytes]` pairs; a pair whose bytes are nil is read
    /// from the folder.
    #[allow(clippy::too_many_arguments)]
    fn search(
        ruby: &Ruby,
        rb_self: &Self,
        entries: RArray,
        pattern: String,
        literal: bool,
        ignore_case: bool,
        context: usize,
        max_matches: usize,
    ) -> Result<text::SearchTuple, Error> {
        let root = Arc::new(rb_self.root.try_clone().map_err(|e| errors::map(ruby, e))?);
        let inputs = text::inputs(entries, |path| file_source(&root, path))?;
        text::run_search(
            ruby,
            inputs,
            text::options(pattern, literal, ignore_case, context, max_matches),
        )
    }

    /// Removes crashed writes' temporary files unchanged for `grace` seconds.
    fn sweep_leftovers(ruby: &Ruby, rb_self: &Self, grace: f64) -> Result<usize, Error> {
        let grace = std::time::Duration::from_secs_f64(grace.max(0.0));
        nogvl(ruby, || rb_self.root.sweep_leftovers(grace))
    }

    fn lock(ruby: &Ruby, rb_self: &Self) -> Result<Lock, Error> {
        Ok(Lock::new(off_gvl(ruby, || rb_self.root.lock())?))
    }
}

/// The largest file a read hashes whole to know which version it showed; a larger
/// one is known by its size and time of change (`Reads::DIGEST_LIMIT` in Ruby).
pub const DIGEST_LIMIT: u64 = 16 * 1024 * 1024;

/// The version of the file a read showed: its digest, or for a large file its
/// size and time of change; both from the descriptor the read went through.
pub type Version = (Option<String>, u64, i64, u32);

/// Runs `slice` over the file at `path`, and gives what it returns with the
/// version it read.
fn shown<T>(
    root: &Root,
    path: &str,
    slice: impl FnOnce(&mut dyn Read, u64) -> std::io::Result<T>,
) -> file_store_core::Result<(T, Version)> {
    let file = root.open_file(path)?;
    let stat = file.metadata().map_err(|e| CoreError::io(path, e))?;
    let size = stat.len();
    let (sec, nsec) = (
        std::os::unix::fs::MetadataExt::mtime(&stat),
        std::os::unix::fs::MetadataExt::mtime_nsec(&stat) as u32,
    );
    let failed = |e| cancel::from_io(path, e);
    if size > DIGEST_LIMIT {
        let value = slice(&mut cancel::Reader::new(&file), size).map_err(failed)?;
        return Ok((value, (None, size, sec, nsec)));
    }
    let mut reader = file_store_core::text::Hashing::new(cancel::Reader::new(&file));
    let value = slice(&mut reader, size).map_err(failed)?;
    let digest = reader.finish().map_err(failed)?;
    Ok((value, (Some(digest), size, sec, nsec)))
}

/// The file at `path` in `root` as a search input, opened on the searching thread.
pub fn file_source(root: &Arc<Root>, path: String) -> Source {
    let root = Arc::clone(root);
    Source::File(Box::new(move || {
        root.open_file(&path).map_err(std::io::Error::other)
    }))
}

/// `entries` as Ruby arrays, sharing one frozen String per content type: a listing
/// of 50,000 files holds a handful of types, not 50,000 copies of them.
fn listed(ruby: &Ruby, entries: Vec<Entry>) -> Result<RArray, Error> {
    let mut types: HashMap<String, RString> = HashMap::new();
    let list = ruby.ary_new_capa(entries.len());
    for entry in entries {
        let content_type = *types.entry(entry.content_type).or_insert_with_key(|name| {
            let string = ruby.str_new(name);
            string.freeze();
            string
        });
        let row = ruby.ary_new_capa(6);
        row.push(entry.path)?;
        row.push(entry.size)?;
        row.push(entry.mtime_sec)?;
        row.push(entry.mtime_nsec)?;
        row.push(content_type)?;
        row.push(entry.digest)?;
        list.push(row)?;
    }
    Ok(list)
}

pub fn define(ruby: &Ruby, native: RModule) -> Result<(), Error> {
    let class = native.define_class("Directory", ruby.class_object())?;
    class.define_singleton_method("open", function!(Directory::open, 1))?;
    class.define_method("list", method!(Directory::list, 1))?;
    class.define_method("stat", method!(Directory::stat, 1))?;
    class.define_method("read", method!(Directory::read, 1))?;
    class.define_method("digest_of", method!(Directory::digest_of, 4))?;
    class.define_method("write", method!(Directory::write, 3))?;
    class.define_method("writer", method!(Directory::writer, 2))?;
    class.define_method("delete", method!(Directory::delete, 1))?;
    class.define_method("lock", method!(Directory::lock, 0))?;
    class.define_method("sweep_leftovers", method!(Directory::sweep_leftovers, 1))?;
    class.define_method("head", method!(Directory::head, 2))?;
    class.define_method("read_lines", method!(Directory::read_lines, 4))?;
    class.define_method("read_chars", method!(Directory::read_chars, 3))?;
    class.define_method("search", method!(Directory::search, 6))?;
    crate::tree::define(&class)?;
    Ok(())
}
