//! The one place core errors become Ruby exceptions. The classes are defined in
//! `lib/ruby_llm/file_store/errors.rb` and looked up once.

use magnus::value::Lazy;
use magnus::{exception, prelude::*, ExceptionClass, Ruby};

use file_store_base::Error as CoreError;

/// The class named `name`, or StandardError if Ruby has none by that name (the
/// Ruby layer defines them all before it loads the extension).
fn lookup(ruby: &Ruby, name: &str) -> ExceptionClass {
    ruby.class_object()
        .funcall::<_, _, ExceptionClass>("const_get", (name,))
        .unwrap_or_else(|_| ruby.exception_standard_error())
}

static NOT_FOUND: Lazy<ExceptionClass> =
    Lazy::new(|ruby| lookup(ruby, "RubyLLM::FileNotFoundError"));
static STORE_ERROR: Lazy<ExceptionClass> =
    Lazy::new(|ruby| lookup(ruby, "RubyLLM::FileStore::Error"));
static UNSAFE_PATH: Lazy<ExceptionClass> =
    Lazy::new(|ruby| lookup(ruby, "RubyLLM::FileStore::UnsafePathError"));
static EDIT_ERROR: Lazy<ExceptionClass> =
    Lazy::new(|ruby| lookup(ruby, "RubyLLM::FileStore::EditError"));
static SANDBOX_ERROR: Lazy<ExceptionClass> =
    Lazy::new(|ruby| lookup(ruby, "RubyLLM::FileStore::SandboxError"));
static PATH_TOO_LONG: Lazy<ExceptionClass> =
    Lazy::new(|ruby| lookup(ruby, "RubyLLM::FileStore::PathTooLongError"));
static DISK_ERROR: Lazy<ExceptionClass> =
    Lazy::new(|ruby| lookup(ruby, "RubyLLM::FileStore::DiskError"));
static FOLDER_GONE: Lazy<ExceptionClass> =
    Lazy::new(|ruby| lookup(ruby, "RubyLLM::FileStore::FolderGoneError"));
static WORKER_ERROR: Lazy<ExceptionClass> =
    Lazy::new(|ruby| lookup(ruby, "RubyLLM::FileStore::WorkerError"));

/// Looks every class up now, as the extension loads: a lookup made later, the first
/// time an error is raised, could meet a pending interrupt and fall back to
/// StandardError for the life of the process.
pub fn init(ruby: &Ruby) {
    for class in [
        &NOT_FOUND,
        &STORE_ERROR,
        &UNSAFE_PATH,
        &EDIT_ERROR,
        &SANDBOX_ERROR,
        &PATH_TOO_LONG,
        &DISK_ERROR,
        &FOLDER_GONE,
        &WORKER_ERROR,
    ] {
        Lazy::force(class, ruby);
    }
}

/// The Ruby exception for a core error.
pub fn map(ruby: &Ruby, error: CoreError) -> magnus::Error {
    let message = error.to_string();
    let class = match error {
        CoreError::NotFound(_) => ruby.get_inner(&NOT_FOUND),
        CoreError::PathTooLong(_) => ruby.get_inner(&PATH_TOO_LONG),
        CoreError::InvalidPath(_)
        | CoreError::IsFolder(_)
        | CoreError::IsFile(_)
        | CoreError::InvalidArgument(_) => exception::arg_error(),
        CoreError::SymbolicLink(_) => ruby.get_inner(&UNSAFE_PATH),
        CoreError::Io { .. } => ruby.get_inner(&DISK_ERROR),
        CoreError::FolderGone { .. } => ruby.get_inner(&FOLDER_GONE),
        CoreError::Sandbox(_) => ruby.get_inner(&SANDBOX_ERROR),
        CoreError::Converter(_) => ruby.get_inner(&WORKER_ERROR),
        // Reached only when an interrupt stopped the work without raising in Ruby.
        CoreError::Cancelled => ruby.get_inner(&STORE_ERROR),
    };
    made(ruby, class, message)
}

/// A `RubyLLM::FileStore::Error` for a failure inside the extension itself.
pub fn internal(ruby: &Ruby, message: String) -> magnus::Error {
    made(
        ruby,
        ruby.get_inner(&STORE_ERROR),
        format!("internal error: {message}"),
    )
}

/// The internal error for a panic caught before it reached Ruby, with the panic's
/// message when it has one.
pub fn panicked(ruby: &Ruby, panic: &Box<dyn std::any::Any + Send>) -> magnus::Error {
    let message = panic
        .downcast_ref::<&str>()
        .map(|s| s.to_string())
        .or_else(|| panic.downcast_ref::<String>().cloned())
        .unwrap_or_else(|| "a panic in the native extension".to_string());
    internal(ruby, message)
}

/// A `RubyLLM::FileStore::EditError`: an edit that does not apply, said for the model.
pub fn edit_refused(ruby: &Ruby, message: String) -> magnus::Error {
    made(ruby, ruby.get_inner(&EDIT_ERROR), message)
}

/// The exception of `class` with `message`, made now rather than by magnus as it
/// raises it. Making it runs the class's `initialize`, Ruby code for the gem's own
/// classes, where a pending interrupt lands: magnus, making it late, cannot raise a
/// `Thread#kill` that lands there and panics (`*very* unexpected error: Fatal`),
/// which ends the process. Made here, the interrupt is what is returned, and raised.
fn made(ruby: &Ruby, class: ExceptionClass, message: String) -> magnus::Error {
    match class.new_instance((ruby.str_new(&message),)) {
        Ok(exception) => magnus::Error::from(exception),
        Err(interrupted) => interrupted,
    }
}
