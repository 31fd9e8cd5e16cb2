//! `Native::PassageIndex`: a store's ranked search in words (`file_store_rank`),
//! held in memory. Putting a file and searching run without the GVL (`nogvl`),
//! so Ruby can interrupt them and a Fiber scheduler's other fibers go on.

use std::sync::Mutex;

use magnus::scan_args::get_kwargs;
use magnus::{function, method, prelude::*, Error, RArray, RHash, RModule, RString, Ruby, Value};

use file_store_rank::{Hit, Index};

use crate::convert;
use crate::errors;
use crate::nogvl::nogvl;

#[magnus::wrap(
    class = "RubyLLM::FileStore::Native::PassageIndex",
    free_immediately,
    size
)]
pub struct PassageIndex {
    index: Mutex<Index>,
}

impl PassageIndex {
    fn new() -> PassageIndex {
        PassageIndex {
            index: Mutex::new(Index::new()),
        }
    }

    fn with<T>(&self, work: impl FnOnce(&mut Index) -> T) -> T {
        work(&mut self.index.lock().unwrap_or_else(|e| e.into_inner()))
    }

    /// `put(path, text, version:)`: indexes `text` as the file at `path` at
    /// `version`; returns the note of a bound reached, or nil, and the passages to
    /// embed (`embed_with`), each `[position, text]`.
    #[allow(clippy::type_complexity)]
    fn put(
        ruby: &Ruby,
        rb_self: &Self,
        args: &[Value],
    ) -> Result<(Option<String>, Vec<(usize, String)>), Error> {
        let ((path, text), kw) = convert::keywords::<(String, RString)>(args)?;
        let kw = get_kwargs::<_, (String,), (), ()>(kw, &["version"], &[])?;
        let version = kw.required.0;
        // SAFETY: copied before the GVL is released; nothing Ruby runs meanwhile.
        let text = String::from_utf8_lossy(unsafe { text.as_slice() }).into_owned();
        let put = nogvl(ruby, || {
            rb_self.with(|index| index.put(&path, &version, &text))
        })?;
        put.map(|put| (put.note, put.unembedded))
            .map_err(|e| errors::map(ruby, e))
    }

    /// `embed_with(model)`: names the embedding model whose vectors the index holds
    /// (nil: none); a change drops the vectors and makes every file stale. Whether it
    /// changed.
    fn embed_with(&self, model: Option<String>) -> bool {
        self.with(|index| index.embed_with(model.as_deref()))
    }

    fn embedding_model(&self) -> Option<String> {
        self.with(|index| index.embedding_model().map(str::to_string))
    }

    /// `set_vectors(path, vectors)`: each of `vectors` a passage's position among the
    /// file's and its vector, `[position, [Float, ...]]`; how many were left out for
    /// the bound of the vectors an index holds.
    fn set_vectors(
        ruby: &Ruby,
        rb_self: &Self,
        path: String,
        vectors: RArray,
    ) -> Result<usize, Error> {
        let vectors: Vec<(usize, Vec<f32>)> = vectors.to_vec()?;
        let set = nogvl(ruby, || {
            rb_self.with(|index| index.set_vectors(&path, &vectors))
        })?;
        set.map_err(|e| errors::map(ruby, e))
    }

    fn embedded(&self) -> usize {
        self.with(|index| index.embedded())
    }

    /// `save`: the index as bytes (a binary String) for `PassageIndex.load`.
    fn save(ruby: &Ruby, rb_self: &Self) -> Result<RString, Error> {
        let bytes = nogvl(ruby, || rb_self.with(|index| index.save()))?;
        Ok(ruby.str_from_slice(&bytes))
    }

    /// `PassageIndex.load(bytes)`: the index `save` made those bytes of; an
    /// ArgumentError saying what is wrong with bytes that are not such an index.
    fn load(ruby: &Ruby, bytes: RString) -> Result<PassageIndex, Error> {
        // SAFETY: copied before the GVL is released; nothing Ruby runs meanwhile.
        let bytes = unsafe { bytes.as_slice() }.to_vec();
        let index = nogvl(ruby, || Index::load(&bytes))?;
        match index {
            Ok(index) => Ok(PassageIndex {
                index: Mutex::new(index),
            }),
            Err(why) => Err(Error::new(ruby.exception_arg_error(), why)),
        }
    }

    fn remove(&self, path: String) -> bool {
        self.with(|index| index.remove(&path))
    }

    /// `set_version(path, version)`: notes the file at `path` as indexed at
    /// `version`; false when it is not indexed.
    fn set_version(&self, path: String, version: String) -> bool {
        self.with(|index| index.set_version(&path, &version))
    }

    fn version(&self, path: String) -> Option<String> {
        self.with(|index| index.version(&path).map(str::to_string))
    }

    fn paths(&self) -> Vec<String> {
        self.with(|index| index.paths())
    }

    fn size(&self) -> usize {
        self.with(|index| index.passages())
    }

    /// `search(question, limit:, within: nil, vector: nil)`: the best `limit`
    /// passages for `question`, as Hashes, best first; with `within`, among the files
    /// at that path (a file, or a folder and everything under it) alone; with
    /// `vector`, the question's from the index's embedding model, its words'
    /// ranking fused with its meaning's.
    fn search(ruby: &Ruby, rb_self: &Self, args: &[Value]) -> Result<RArray, Error> {
        let ((question,), kw) = convert::keywords::<(String,)>(args)?;
        let kw = get_kwargs::<_, (usize,), (Option<Option<String>>, Option<Option<Vec<f32>>>), ()>(
            kw,
            &["limit"],
            &["within", "vector"],
        )?;
        let limit = kw.required.0;
        let within = kw.optional.0.flatten();
        let vector = kw.optional.1.flatten();
        let hits = nogvl(ruby, || {
            rb_self.with(|index| {
                index.search_hybrid(&question, vector.as_deref(), limit, within.as_deref())
            })
        })?;
        let hits = hits.map_err(|e| errors::map(ruby, e))?;
        let array = ruby.ary_new_capa(hits.len());
        for hit in hits {
            array.push(hash(ruby, hit)?)?;
        }
        Ok(array)
    }
}

fn hash(ruby: &Ruby, hit: Hit) -> Result<RHash, Error> {
    crate::named::named(
        ruby,
        &[
            ("path", ruby.into_value(hit.path)),
            ("first_line", ruby.into_value(hit.first_line)),
            ("last_line", ruby.into_value(hit.last_line)),
            ("text", ruby.into_value(hit.text)),
            ("score", ruby.into_value(hit.score)),
        ],
    )
}

pub fn define(ruby: &Ruby, native: RModule) -> Result<(), Error> {
    let class = native.define_class("PassageIndex", ruby.class_object())?;
    class.define_singleton_method("new", function!(PassageIndex::new, 0))?;
    class.define_singleton_method("load", function!(PassageIndex::load, 1))?;
    class.define_method("put", method!(PassageIndex::put, -1))?;
    class.define_method("save", method!(PassageIndex::save, 0))?;
    class.define_method("remove", method!(PassageIndex::remove, 1))?;
    class.define_method("version", method!(PassageIndex::version, 1))?;
    class.define_method("set_version", method!(PassageIndex::set_version, 2))?;
    class.define_method("paths", method!(PassageIndex::paths, 0))?;
    class.define_method("size", method!(PassageIndex::size, 0))?;
    class.define_method("search", method!(PassageIndex::search, -1))?;
    class.define_method("embed_with", method!(PassageIndex::embed_with, 1))?;
    class.define_method("embedding_model", method!(PassageIndex::embedding_model, 0))?;
    class.define_method("set_vectors", method!(PassageIndex::set_vectors, 2))?;
    class.define_method("embedded", method!(PassageIndex::embedded, 0))?;
    native.const_set("MAX_EMBEDDING_DIMENSIONS", file_store_rank::MAX_DIMENSIONS)?;
    native.const_set("MAX_VECTOR_BYTES", file_store_rank::MAX_VECTOR_BYTES)?;
    native.const_set("MAX_PASSAGES", file_store_rank::MAX_PASSAGES)?;
    native.const_set("MAX_PASSAGE_TERMS", file_store_rank::MAX_TERMS)?;
    native.const_set("MAX_INDEX_BYTES", file_store_rank::MAX_INDEX_BYTES)?;
    native.const_set("MAX_INDEX_FILE_BYTES", file_store_rank::MAX_FILE_BYTES)?;
    Ok(())
}
