//! `Native::Directory`: a folder store, every call off the GVL.

use std::io::Read;
use std::path::PathBuf;
use std::sync::Arc;

use magnus::rb_sys::AsRawValue;
use magnus::scan_args::get_kwargs;
use magnus::{
    function, method, prelude::*, Error, IntoValue, RArray, RClass, RHash, RModule, RString, Ruby,
    Value,
};

use file_store_base::version::read_versioned;
use file_store_base::{cancel, text, Error as CoreError};
use file_store_folder::Root;
use file_store_search::{self as search, Source};

use crate::convert::{self, owned_bytes, StorePath};
use crate::entry::Entry;
use crate::errors;
use crate::lock::Lock;
use crate::named::named;
use crate::nogvl::{nogvl, nogvl_retrying};
use crate::writer::Writer;

/// How much a read fills between checks for an interrupt.
const READ_CHUNK: usize = 4 * 1024 * 1024;

#[magnus::wrap(
    class = "RubyLLM::FileStore::Native::Directory",
    free_immediately,
    size
)]
pub struct Directory {
    root: Root,
}

/// Runs `work` on the root off the GVL and maps its error. Work that an interrupt
/// stopped without raising (a signal trap that returns) runs again.
fn off_gvl<T: Send>(
    ruby: &Ruby,
    work: impl Fn() -> file_store_base::Result<T> + Sync,
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
        Ok(ruby.ary_from_iter(entries.into_iter().map(Entry)))
    }

    /// The first `limit` files of the folder `prefix` (or all) and how many there
    /// are: `{entries:, total:}`, in memory that does not grow with the tree.
    fn list_first(
        ruby: &Ruby,
        rb_self: &Self,
        prefix: Option<StorePath>,
        limit: usize,
    ) -> Result<RHash, Error> {
        let prefix = prefix.map(|prefix| prefix.0);

        let listing = off_gvl(ruby, || rb_self.root.list_first(prefix.as_deref(), limit))?;
        let entries = ruby.ary_from_iter(listing.entries.into_iter().map(Entry));
        named(
            ruby,
            &[
                ("entries", entries.as_value()),
                ("total", listing.total.into_value_with(ruby)),
            ],
        )
    }

    /// The file at `path` as one Hash (see `Entry::named`), nil when there is none.
    fn stat(ruby: &Ruby, rb_self: &Self, path: StorePath) -> Result<Option<RHash>, Error> {
        let path = path.0;

        let entry = off_gvl(ruby, || rb_self.root.stat(&path))?;
        entry.map(|entry| Entry(entry).named(ruby)).transpose()
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
            // SAFETY: `buffer` is the start of `string`'s buffer, made with room for `size`
            // bytes above; the string is new, held on the calling thread's stack until the
            // read is done (so the GC, which scans that stack, neither frees nor moves it)
            // and reached by no other Ruby code, so this is the only reference to those
            // bytes while the slice lives.
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
        // SAFETY: `string` is a live String of this frame with room for `size` bytes, of
        // which the read filled the first `filled` (at most `size`); this runs holding the
        // GVL.
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

    /// The digest of the file `entry` names if it is still the version of that
    /// size and time of change, else nil.
    fn digest_of(ruby: &Ruby, rb_self: &Self, entry: &Entry) -> Result<Option<String>, Error> {
        off_gvl(ruby, || rb_self.root.digest_of(&entry.0))
    }

    /// The stamp of the file `entry` names (see `version::stamp`) if it is still
    /// that file, same inode and times, else nil.
    fn stamp_of(ruby: &Ruby, rb_self: &Self, entry: &Entry) -> Result<Option<String>, Error> {
        off_gvl(ruby, || rb_self.root.stamp_of(&entry.0))
    }

    /// `write(path, content, content_type: nil)`: writes `content` at `path`
    /// atomically, keeping `content_type` where given.
    fn write(ruby: &Ruby, rb_self: &Self, args: &[Value]) -> Result<Entry, Error> {
        let ((path, content), kw) = convert::keywords::<(StorePath, RString)>(args)?;
        let kw = get_kwargs::<_, (), (Option<Option<String>>,), ()>(kw, &[], &["content_type"])?;
        let (path, content_type) = (path.0, kw.optional.0.flatten());

        let bytes = owned_bytes(content);
        Ok(Entry(off_gvl(ruby, || {
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

    fn delete(ruby: &Ruby, rb_self: &Self, path: StorePath) -> Result<Option<Entry>, Error> {
        let path = path.0;

        Ok(off_gvl(ruby, || rb_self.root.delete(&path))?.map(Entry))
    }

    /// `read_lines(path, offset:, limit:, max_chars:)`: lines `offset..offset +
    /// limit` of the file at `path`, each cut at `max_chars`, as `{text:, trailer:,
    /// version:}`, the version the one descriptor read (see `convert::shown`).
    fn read_lines(ruby: &Ruby, rb_self: &Self, args: &[Value]) -> Result<RHash, Error> {
        let ((path,), kw) = convert::keywords::<(StorePath,)>(args)?;
        let (offset, limit, max_chars) = convert::lines_window(kw)?;
        let path = path.0;

        let (shown, version) = off_gvl(ruby, || {
            let file = rb_self.root.open_file(&path)?;
            read_versioned(&file, &path, |reader, size| {
                text::lines_shown(reader, size, offset, limit, max_chars)
            })
        })?;
        convert::shown(ruby, shown, convert::version(ruby, version)?)
    }

    /// `read_chars(path, offset:, limit:)`: characters `offset..offset + limit` of
    /// the file at `path`, as `read_lines` gives its lines.
    fn read_chars(ruby: &Ruby, rb_self: &Self, args: &[Value]) -> Result<RHash, Error> {
        let ((path,), kw) = convert::keywords::<(StorePath,)>(args)?;
        let (offset, limit) = convert::chars_window(kw)?;
        let path = path.0;

        let (shown, version) = off_gvl(ruby, || {
            let file = rb_self.root.open_file(&path)?;
            read_versioned(&file, &path, |reader, size| {
                text::chars_shown(reader, size, offset, limit)
            })
        })?;
        convert::shown(ruby, shown, convert::version(ruby, version)?)
    }

    /// Searches `entries`, `[path, bytes]` pairs, as `options` (see
    /// `convert::search_options`) says; a pair whose bytes are nil is read from the
    /// folder.
    fn search(
        ruby: &Ruby,
        rb_self: &Self,
        entries: RArray,
        options: RHash,
    ) -> Result<RHash, Error> {
        let options = convert::search_options(ruby, options)?;
        let root = Arc::new(rb_self.root.try_clone().map_err(|e| errors::map(ruby, e))?);
        let inputs = convert::search_inputs(entries, |path| file_source(&root, path))?;
        let (out, options) = nogvl(ruby, move || {
            search::search(inputs, &options).map(|out| (out, options))
        })?
        .map_err(|e| errors::map(ruby, e))?;
        convert::found(ruby, out, &options)
    }

    /// Removes crashed writes' temporary files unchanged for `grace` seconds.
    fn sweep_leftovers(ruby: &Ruby, rb_self: &Self, grace: f64) -> Result<usize, Error> {
        let grace = std::time::Duration::from_secs_f64(grace.max(0.0));
        nogvl(ruby, || rb_self.root.sweep_leftovers(grace))
    }

    /// The store's lock if it is free, else nil, without waiting: Ruby takes it
    /// with interrupts deferred and waits between tries with them allowed, so no
    /// interrupt lands between the lock being taken and Ruby holding it. Holds the
    /// GVL: it only opens the folder and asks `flock` without blocking.
    /// `read_saved(name, most)`: the bytes the store saved of its own under `name`
    /// (its index), or nil where there are none, or more than `most`.
    fn read_saved(
        ruby: &Ruby,
        rb_self: &Self,
        name: String,
        most: u64,
    ) -> Result<Option<RString>, Error> {
        let bytes = off_gvl(ruby, || rb_self.root.read_saved(&name, most))?;
        Ok(bytes.map(|bytes| ruby.str_from_slice(&bytes)))
    }

    /// `save(name, bytes)`: keeps `bytes` under `name` in the store's own folder.
    fn save(ruby: &Ruby, rb_self: &Self, name: String, bytes: RString) -> Result<(), Error> {
        // SAFETY: copied before the GVL is released; nothing Ruby runs meanwhile.
        let bytes = unsafe { bytes.as_slice() }.to_vec();
        off_gvl(ruby, || rb_self.root.save(&name, &bytes))
    }

    fn try_lock(ruby: &Ruby, rb_self: &Self) -> Result<Option<Lock>, Error> {
        let guard = rb_self.root.try_lock().map_err(|e| errors::map(ruby, e))?;
        Ok(guard.map(Lock::new))
    }

    /// Waits for the store's lock and puts it into `ticket`, an empty `Native::Lock`
    /// that Ruby made, and gives back, with interrupts deferred: the wait can be
    /// interrupted, and once it ends the lock is the ticket's before an interrupt can
    /// land, so none leaves it held. The wait is a blocking `flock`, so the lock is
    /// handed over as soon as it is free (see `file_store_folder`'s `lock.rs`).
    fn lock(ruby: &Ruby, rb_self: &Self, ticket: &Lock) -> Result<(), Error> {
        let guard = off_gvl(ruby, || rb_self.root.lock())?;
        ticket.hold(guard);
        Ok(())
    }
}

/// The file at `path` in `root` as a search input, opened on the searching thread.
pub fn file_source(root: &Arc<Root>, path: String) -> Source {
    let root = Arc::clone(root);
    Source::File(Box::new(move || {
        root.open_file(&path).map_err(std::io::Error::other)
    }))
}

pub fn define(ruby: &Ruby, native: RModule) -> Result<RClass, Error> {
    let class = native.define_class("Directory", ruby.class_object())?;
    class.define_singleton_method("open", function!(Directory::open, 1))?;
    class.define_method("list", method!(Directory::list, 1))?;
    class.define_method("list_first", method!(Directory::list_first, 2))?;
    class.define_method("stat", method!(Directory::stat, 1))?;
    class.define_method("read", method!(Directory::read, 1))?;
    class.define_method("digest_of", method!(Directory::digest_of, 1))?;
    class.define_method("stamp_of", method!(Directory::stamp_of, 1))?;
    class.define_method("write", method!(Directory::write, -1))?;
    class.define_method("writer", method!(Directory::writer, 2))?;
    class.define_method("delete", method!(Directory::delete, 1))?;
    class.define_method("try_lock", method!(Directory::try_lock, 0))?;
    class.define_method("read_saved", method!(Directory::read_saved, 2))?;
    class.define_method("save", method!(Directory::save, 2))?;
    class.define_method("lock", method!(Directory::lock, 1))?;
    class.define_method("sweep_leftovers", method!(Directory::sweep_leftovers, 1))?;
    class.define_method("head", method!(Directory::head, 2))?;
    class.define_method("read_lines", method!(Directory::read_lines, -1))?;
    class.define_method("read_chars", method!(Directory::read_chars, -1))?;
    class.define_method("search", method!(Directory::search, 2))?;
    Ok(class)
}
