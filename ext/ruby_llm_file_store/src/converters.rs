//! Module functions on Native for the document converters: each takes the file's
//! bytes and returns `{text:, refusal:}`: the text, or nil and why the converter
//! refuses the file. The work runs off the GVL; a panic becomes a Ruby error, never `fatal`.
//! An interrupt (`Timeout`, `Thread#kill`) returns at once, and sets the flag the
//! conversion's budget looks at every step, so the abandoned work stops and
//! frees its memory within moments instead of running on to its end.

use magnus::{function, Error, RHash, RModule, RString, Ruby};

use file_store_core::convert::{self, Converted};

use crate::convert::owned_bytes;
use crate::named::named;
use crate::nogvl::nogvl_abandonable;

pub fn define(_ruby: &Ruby, native: RModule) -> Result<(), Error> {
    native.define_module_function("convert_pdf", function!(pdf, 1))?;
    native.define_module_function("convert_office", function!(office, 1))?;
    native.define_module_function("convert_html", function!(html, 1))?;
    Ok(())
}

fn run(ruby: &Ruby, bytes: RString, convert: fn(&[u8]) -> Converted) -> Result<RHash, Error> {
    let bytes = owned_bytes(bytes);
    let converted = nogvl_abandonable(ruby, move || convert(&bytes))?;
    let (text, refusal) = match converted {
        Ok(text) => (Some(text), None),
        Err(refusal) => (None, Some(refusal.to_string())),
    };
    named(
        ruby,
        &[
            ("text", ruby.into_value(text)),
            ("refusal", ruby.into_value(refusal)),
        ],
    )
}

fn pdf(ruby: &Ruby, bytes: RString) -> Result<RHash, Error> {
    run(ruby, bytes, convert::pdf)
}

fn office(ruby: &Ruby, bytes: RString) -> Result<RHash, Error> {
    run(ruby, bytes, convert::office)
}

fn html(ruby: &Ruby, bytes: RString) -> Result<RHash, Error> {
    run(ruby, bytes, convert::html)
}
