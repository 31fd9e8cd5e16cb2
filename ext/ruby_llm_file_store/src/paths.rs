//! Module functions on Native for paths and content types.

use magnus::{function, Error, RHash, RModule, RString, Ruby};

use file_store_base::{content_type, path, spill as spilling, text};
use file_store_search::tree;

use crate::named::named;

pub fn define(_ruby: &Ruby, native: RModule) -> Result<(), Error> {
    native.define_module_function("cap_result", function!(cap_result, 1))?;
    native.define_module_function("path", function!(normalize, 1))?;
    native.define_module_function("content_type", function!(detect_type, 2))?;
    native.define_module_function("numbered", function!(numbered, 2))?;
    native.define_module_function("spill", function!(spill, 2))?;
    native.define_module_function("text_types", function!(text_types, 0))?;
    native.define_module_function("type_rules", function!(type_rules, 1))?;
    Ok(())
}

/// The store path for `name`, or nil when it is not one; Ruby raises with the name's
/// own `inspect`. A name too long for any file system raises here, saying so.
fn normalize(ruby: &Ruby, name: RString) -> Result<Option<String>, Error> {
    // SAFETY: the bytes are copied before any Ruby code can run.
    let bytes = unsafe { name.as_slice() }.to_vec();
    let Ok(text) = String::from_utf8(bytes) else {
        return Ok(None);
    };
    match path::normalize(&text) {
        Ok(normal) => Ok(Some(normal)),
        Err(e @ file_store_base::Error::PathTooLong(_)) => Err(crate::errors::map(ruby, e)),
        Err(_) => Ok(None),
    }
}

/// The content type of a file called `name` whose content starts with `head`.
fn detect_type(name: String, head: RString) -> String {
    // SAFETY: the slice is read before any Ruby code can run.
    content_type::detect(&name, unsafe { head.as_slice() })
}

/// `report.pdf` as its `n`th version: `report-2.pdf`.
fn numbered(name: String, n: usize) -> String {
    path::numbered(&name, n)
}

/// A long tool result as saved (JSON pretty-printed), its path, and the preview the
/// model gets: `[saved, path, preview]`.
fn spill(ruby: &Ruby, tool: String, result: String) -> Result<RHash, Error> {
    let spilled = spilling::spill(&tool, &result);
    named(
        ruby,
        &[
            ("saved", ruby.into_value(spilled.saved)),
            ("path", ruby.into_value(spilled.path)),
            ("preview", ruby.into_value(spilled.preview)),
        ],
    )
}

/// A tool result cut to the ceiling of what one result gives the model.
fn cap_result(result: String) -> String {
    text::cap_result(&result, text::MAX_RESULT_CHARS)
}

/// The types that hold text although they are not `text/*`.
fn text_types() -> Vec<&'static str> {
    content_type::TEXT_TYPES.to_vec()
}

/// What the core's rules say of files of `content_type`, in one answer, as a read
/// asks both: `{converter_keys:, text:}`, the keys of a converter registry that
/// read it in the order they are tried (the type, its family, `*/*`), and whether
/// it holds text, `:text`, `:unknown` (the bytes decide: text unless they hold a
/// NUL) or false.
fn type_rules(ruby: &Ruby, content_type: String) -> Result<RHash, Error> {
    let keys = tree::converter_keys(&content_type);
    let text = crate::convert::text_kind(ruby, content_type::holds_text(&content_type));
    named(
        ruby,
        &[("converter_keys", ruby.into_value(keys)), ("text", text)],
    )
}
