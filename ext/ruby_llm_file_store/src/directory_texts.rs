//! `Native::Directory`'s search over its folder with the converters the Ruby
//! registry names, and its converted texts: the core converts, caches and searches,
//! off the GVL, and Ruby hands over only the texts of its own converters.

use std::sync::Arc;

use magnus::scan_args::get_kwargs;
use magnus::{method, prelude::*, Error, RArray, RClass, RHash, Ruby, Value};

use file_store_base::cancel::{self, Reader};
use file_store_base::text;
use file_store_base::version::{self, Version};
use file_store_documents::{cache, pool, Refusal};
use file_store_search::tree;

use crate::convert::{self, StorePath};
use crate::directory::Directory;
use crate::errors;
use crate::named::named;
use crate::nogvl::{nogvl, nogvl_retrying};

pub fn define(class: &RClass) -> Result<(), Error> {
    class.define_method("search_tree", method!(search_tree, -1))?;
    class.define_method("caller_paths", method!(caller_paths, 2))?;
    class.define_method("converted", method!(converted, 2))?;
    class.define_method("converted_window", method!(converted_window, -1))?;
    Ok(())
}

/// `search_tree(prefix, plan:, given:, **options)`: searches every file inside
/// the folder `prefix` (or all) as the search `options` say (see
/// `convert::search_options`) and `plan` reads it (see `convert::plan`); `given`
/// holds `{path:, text:, why:}` for the files Ruby's converters read (text nil and
/// why given when there is none). Returns the search's Hash (see `convert::found`)
/// with `:files`, how many files there were.
fn search_tree(ruby: &Ruby, rb_self: &Directory, args: &[Value]) -> Result<RHash, Error> {
    let ((prefix,), kw) = convert::keywords::<(Option<StorePath>,)>(args)?;
    // The keywords left once the plan and the given texts are taken are the search's.
    let kw = get_kwargs::<_, (RArray, RArray), (), RHash>(kw, &["plan", "given"], &[])?;
    let (registry, given) = kw.required;
    let prefix = prefix.map(|prefix| prefix.0);
    let options = convert::search_options(ruby, kw.splat)?;
    let plan = Arc::new(convert::plan(registry)?);
    let texts = convert::given_texts(ruby, given)?;
    let root = Arc::new(
        rb_self
            .root()
            .try_clone()
            .map_err(|e| errors::map(ruby, e))?,
    );
    // An interrupt sets the flag the search's threads look at, and kills the
    // workers converting for it, so nothing of the search goes on after it.
    // Retried when an interrupt that raises nothing (a signal whose trap returns)
    // stopped it; each try searches with its own copy of the given texts.
    let found = nogvl_retrying(ruby, || {
        tree::search_tree(&root, prefix.as_deref(), &options, &plan, texts.clone())
    })?;
    let (out, count) = found.map_err(|e| errors::map(ruby, e))?;
    let hash = convert::found(ruby, out, &options)?;
    hash.aset(ruby.sym_new("files"), count)?;
    Ok(hash)
}

/// The paths inside `prefix` (or all) whose type a converter of Ruby's reads.
fn caller_paths(
    ruby: &Ruby,
    rb_self: &Directory,
    prefix: Option<StorePath>,
    registry: RArray,
) -> Result<Vec<String>, Error> {
    let prefix = prefix.map(|prefix| prefix.0);
    let plan = convert::plan(registry)?;
    let root = rb_self
        .root()
        .try_clone()
        .map_err(|e| errors::map(ruby, e))?;
    let found = nogvl_retrying(ruby, || tree::caller_paths(&root, prefix.as_deref(), &plan))?;
    found.map_err(|e| errors::map(ruby, e))
}

/// `string`, frozen, as every text a store keeps is (see `convert::held_bytes`).
fn frozen(string: magnus::RString) -> magnus::RString {
    string.freeze();
    string
}

/// The text `names`, built-in converters tried in order, read from the file at
/// `path`, from the cache when this version was converted before: `{text:, why:,
/// stopped:, version:}`, text nil and why given when none read it, stopped true
/// when the document stopped its worker, and the version converted as Ruby keeps
/// it (see `convert::version`).
fn converted(
    ruby: &Ruby,
    rb_self: &Directory,
    path: StorePath,
    names: Vec<String>,
) -> Result<RHash, Error> {
    let (conversion, stamp) = conversion(ruby, rb_self, &path.0, names)?;
    let (text, why) = match &conversion.text {
        // The cache's own text, copied once into Ruby's string.
        Ok(text) => (Some(frozen(ruby.str_new(text))), None),
        Err(refusal) => (None, Some(refusal.to_string())),
    };
    named(
        ruby,
        &[
            ("text", ruby.into_value(text)),
            ("why", ruby.into_value(why)),
            ("stopped", ruby.into_value(stopped(&conversion))),
            ("version", version_of(ruby, &conversion, stamp)?),
        ],
    )
}

/// `converted_window(path, names[, unit:, offset:, limit:, max_chars:])`: as
/// `converted`, with a window of the text (`unit` "lines" or "characters", as
/// `Native.read_lines` and `read_chars` read one; no keywords for none) in place of the
/// text, read in the cache's own copy: `{shown:, why:, stopped:, version:, bytes:,
/// lines:}`, shown `{text:, trailer:}` or nil, bytes and lines the whole text's. Ruby never holds
/// the text whole, which for a large document may be 64 MB.
fn converted_window(ruby: &Ruby, rb_self: &Directory, args: &[Value]) -> Result<RHash, Error> {
    let ((path, names), kw) = convert::keywords::<(StorePath, Vec<String>)>(args)?;
    let unit: Option<Option<String>> = kw.delete(ruby.sym_new("unit"))?;
    let window = match unit.flatten().as_deref() {
        None if kw.is_empty() => None,
        Some("lines") => Some(Window::Lines(convert::lines_window(kw)?)),
        Some("characters") => Some(Window::Chars(convert::chars_window(kw)?)),
        unit => {
            return Err(Error::new(
                ruby.exception_arg_error(),
                format!("unit: must be \"lines\" or \"characters\" with a window, not {unit:?}"),
            ))
        }
    };
    let (conversion, stamp) = conversion(ruby, rb_self, &path.0, names)?;
    let (shown, why, bytes, lines) = match &conversion.text {
        Ok(text) => {
            let text = Arc::clone(text);
            let (shown, lines) = nogvl(ruby, move || window_of(&text, window))?;
            let shown = match shown {
                Some(shown) => {
                    let shown =
                        shown.map_err(|e| errors::map(ruby, cancel::from_io(&path.0, e)))?;
                    Some(named(
                        ruby,
                        &[
                            ("text", ruby.into_value(shown.text)),
                            ("trailer", ruby.into_value(shown.trailer)),
                        ],
                    )?)
                }
                None => None,
            };
            let bytes = conversion.text.as_ref().map_or(0, |text| text.len());
            (shown, None, bytes, lines)
        }
        Err(refusal) => (None, Some(refusal.to_string()), 0, 0),
    };
    named(
        ruby,
        &[
            ("shown", ruby.into_value(shown)),
            ("why", ruby.into_value(why)),
            ("stopped", ruby.into_value(stopped(&conversion))),
            ("version", version_of(ruby, &conversion, stamp)?),
            ("bytes", ruby.into_value(bytes)),
            ("lines", ruby.into_value(lines)),
        ],
    )
}

#[derive(Clone, Copy)]
enum Window {
    /// Offset, limit and the most characters of a line.
    Lines((usize, usize, usize)),
    /// Offset and limit.
    Chars((usize, usize)),
}

/// The window of `text`, if one is asked, and how many lines the whole text has.
type Windowed = (Option<std::io::Result<text::Shown>>, usize);

fn window_of(text: &str, window: Option<Window>) -> Windowed {
    let bytes = text.as_bytes();
    let size = bytes.len() as u64;
    let shown = window.map(|window| match window {
        Window::Lines((offset, limit, max_chars)) => {
            text::lines_shown(Reader::new(bytes), size, offset, limit, max_chars)
        }
        Window::Chars((offset, limit)) => {
            text::chars_shown(Reader::new(bytes), size, offset, limit)
        }
    });
    (shown, bytes.iter().filter(|byte| **byte == b'\n').count())
}

/// What `names` made of the file at `path`, from the cache or converted now, and
/// the stamp of a large file's version.
fn conversion(
    ruby: &Ruby,
    rb_self: &Directory,
    path: &str,
    names: Vec<String>,
) -> Result<(Arc<cache::Conversion>, Option<String>), Error> {
    let chain = convert::chain(ruby, names)?;
    let root = rb_self
        .root()
        .try_clone()
        .map_err(|e| errors::map(ruby, e))?;
    // The store's conversions share one queue for a worker's turn.
    let queue = rb_self as *const Directory as u64;
    let found = nogvl_retrying(ruby, || {
        let file = root.open_file(path)?;
        // Taken before the conversion reads, as a read takes it (see
        // `version::read_versioned`).
        let stamp = version::stamp_if_large(&file, path)?;
        pool::in_queue(queue, || cache::converted(&file, path, &chain))
            .map(|conversion| (conversion, stamp))
    })?;
    found.map_err(|e| errors::map(ruby, e))
}

fn stopped(conversion: &cache::Conversion) -> bool {
    matches!(conversion.text, Err(Refusal::Stopped(_)))
}

/// The version `conversion` came from, as Ruby keeps it (see `convert::version`).
fn version_of(
    ruby: &Ruby,
    conversion: &cache::Conversion,
    stamp: Option<String>,
) -> Result<Value, Error> {
    let digest = Some(conversion.digest.clone());
    convert::version(
        ruby,
        Version::new(conversion.size, conversion.mtime, digest, stamp),
    )
}
