//! Module functions on Native for the document converters: each takes the file's
//! bytes, or the file open (a File or Tempfile, sent to the worker a piece at a
//! time: an Active Storage blob downloaded to disk), and returns `{text:, refusal:, stopped:}`: the text, or nil and why the
//! converter refuses the file, `stopped` true when the document stopped its
//! worker (more memory or CPU time than a conversion may have). The conversion runs in a convert worker process (the core's
//! `convert::pool`), waited for off the GVL; an interrupt (`Timeout`,
//! `Thread#kill`) kills the worker and returns at once. An optional second
//! argument names the queue (a store's number) whose turn the conversion waits
//! for when every worker is busy. `converter_program=` names the worker
//! executable the gem ships, `converter_wall_limit=` how many seconds one
//! conversion may take on the wall clock, `converter_prestart` starts a worker
//! ahead of the first conversion. Which converters read a type is
//! asked here too (`reading`); the registry's lookup order for a type is in
//! `paths.rs`' `type_rules`.

use std::fs::File;
use std::os::fd::BorrowedFd;
use std::path::PathBuf;
use std::time::Duration;

use magnus::scan_args::scan_args;
use magnus::{function, prelude::*, Error, RArray, RHash, RModule, RString, Ruby, Value};

use file_store_base::cancel;
use file_store_documents::pool::{document::Unread, Document};
use file_store_documents::{pool, Kind, Refusal};
use file_store_search::tree::Reading;

use crate::convert;
use crate::errors;
use crate::named::named;
use crate::nogvl::nogvl_retrying;

pub fn define(_ruby: &Ruby, native: RModule) -> Result<(), Error> {
    native.define_module_function("convert_pdf", function!(pdf, -1))?;
    native.define_module_function("convert_office", function!(office, -1))?;
    native.define_module_function("convert_html", function!(html, -1))?;
    native.define_module_function("digest_of_io", function!(digest_of_io, 1))?;
    native.define_module_function("converter_wall_limit=", function!(set_wall_limit, 1))?;
    native.define_module_function("converter_wall_limit", function!(wall_limit, 0))?;
    native.define_module_function("converter_program=", function!(set_program, 1))?;
    native.define_module_function("converter_program", function!(program, 0))?;
    native.define_module_function("converter_workers", function!(pool::running, 0))?;
    native.define_module_function("converter_prestart", function!(pool::prestart, 0))?;
    native.define_module_function("reading", function!(reading, 2))?;
    native.define_module_function("document_too_large", function!(document_too_large, 1))?;
    let names: Vec<&str> = Kind::ALL.iter().map(|kind| kind.name()).collect();
    native.const_set("CONVERTERS", names)?;
    Ok(())
}

/// `document_too_large(bytes)`: why a document of `bytes` is not converted, when
/// it is past the size a conversion takes, or nil; a caller that must fetch a
/// document to convert it asks first.
fn document_too_large(bytes: u64) -> Option<String> {
    pool::too_large(bytes).map(|refusal| refusal.to_string())
}

fn set_program(path: String) {
    pool::set_program(PathBuf::from(path));
}

fn program() -> Option<String> {
    pool::program().map(|path| path.display().to_string())
}

fn set_wall_limit(ruby: &Ruby, seconds: f64) -> Result<(), Error> {
    if !(seconds.is_finite() && seconds > 0.0) {
        return Err(Error::new(
            ruby.exception_arg_error(),
            format!("the wall limit must be a positive number of seconds, not {seconds}"),
        ));
    }
    pool::set_wall_limit(Duration::from_secs_f64(seconds));
    Ok(())
}

fn wall_limit() -> f64 {
    pool::wall_limit().as_secs_f64()
}

fn run(ruby: &Ruby, args: &[Value], kind: Kind) -> Result<RHash, Error> {
    let args = scan_args::<(Value,), (Option<u64>,), (), (), (), ()>(args)?;
    let queue = args.optional.0.unwrap_or(0);
    let converted = match RString::from_value(args.required.0) {
        Some(bytes) => {
            let held = convert::held_bytes(bytes);
            let bytes: &[u8] = &held;
            nogvl_retrying(ruby, || {
                pool::in_queue(queue, || pool::convert(&[kind], bytes))
            })?
        }
        None => {
            let (file, size) = opened(ruby, args.required.0)?;
            let document = of_file(&file, size);
            nogvl_retrying(ruby, || {
                pool::in_queue(queue, || pool::convert_document(&[kind], document))
            })?
        }
    }
    .map_err(|e| errors::map(ruby, e))?;
    let stopped = matches!(converted, Err(Refusal::Stopped(_)));
    let (text, refusal) = match converted {
        Ok(text) => (Some(convert::text_string(ruby, text)), None),
        Err(refusal) => (None, Some(refusal.to_string())),
    };
    named(
        ruby,
        &[
            ("text", ruby.into_value(text)),
            ("refusal", ruby.into_value(refusal)),
            ("stopped", ruby.into_value(stopped)),
        ],
    )
}

/// `digest_of_io(io)`: the SHA-256, in hex, of the bytes of the file open as `io`
/// (a File, a Tempfile), read from its start a piece at a time off the GVL.
fn digest_of_io(ruby: &Ruby, io: Value) -> Result<String, Error> {
    let (file, size) = opened(ruby, io)?;
    let document = of_file(&file, size);
    let digest = nogvl_retrying(ruby, || {
        document
            .digest()
            .map_err(|e| cancel::from_io("the document", Unread::into_read_error(e)))
    })?;
    digest.map_err(|e| errors::map(ruby, e))
}

/// The first `size` bytes of `file`, a document the app gave as an IO.
fn of_file(file: &File, size: u64) -> Document<'_> {
    Document::File {
        file,
        size,
        path: "the document",
    }
}

/// The file open as the Ruby IO `io`, on a descriptor of its own (its `fileno`
/// duplicated), so Ruby closing `io` meanwhile cannot pull it from the read, and
/// its size.
fn opened(ruby: &Ruby, io: Value) -> Result<(File, u64), Error> {
    let fd: i32 = io.funcall("fileno", ()).map_err(|_| {
        Error::new(
            ruby.exception_type_error(),
            "a document must be a String of bytes or an open File",
        )
    })?;
    // SAFETY: `fd` is a descriptor Ruby holds open for the length of this call;
    // it is only borrowed, to be duplicated (close-on-exec) into one of our own.
    let borrowed = unsafe { BorrowedFd::borrow_raw(fd) };
    let owned = borrowed
        .try_clone_to_owned()
        .map_err(|e| errors::map(ruby, io_error(e)))?;
    let file = File::from(owned);
    let size = file
        .metadata()
        .map_err(|e| errors::map(ruby, io_error(e)))?
        .len();
    Ok((file, size))
}

fn io_error(error: std::io::Error) -> file_store_base::Error {
    file_store_base::Error::io("the document", error)
}

fn pdf(ruby: &Ruby, args: &[Value]) -> Result<RHash, Error> {
    run(ruby, args, Kind::Pdf)
}

fn office(ruby: &Ruby, args: &[Value]) -> Result<RHash, Error> {
    run(ruby, args, Kind::Office)
}

fn html(ruby: &Ruby, args: &[Value]) -> Result<RHash, Error> {
    run(ruby, args, Kind::Html)
}

/// What reads a file of `content_type` by `plan` (see `convert::plan`): nil when no
/// converter does (the file is read as it is), the names of the built-in
/// converters tried in order, or `:ruby` when one of Ruby's is among them.
fn reading(ruby: &Ruby, plan: RArray, content_type: String) -> Result<Value, Error> {
    Ok(match convert::plan(plan)?.reading(&content_type) {
        Reading::AsIs => ruby.qnil().as_value(),
        Reading::Native(kinds) => ruby
            .ary_from_iter(kinds.into_iter().map(Kind::name))
            .as_value(),
        Reading::Caller => ruby.sym_new("ruby").as_value(),
    })
}
