//! Module functions on Native for code runs: `run`, `command`, `sandbox_problem`.

use std::path::PathBuf;
use std::time::Duration;

use magnus::{function, Error, RHash, RModule, Ruby};

use file_store_core::run::{self, mounts, Limits, Spec};

use crate::{errors, nogvl::nogvl};

pub fn define(_ruby: &Ruby, native: RModule) -> Result<(), Error> {
    native.define_module_function("run", function!(run_code, 11))?;
    native.define_module_function("command", function!(command, 3))?;
    native.define_module_function("sandbox_problem", function!(sandbox_problem, 0))?;
    native.define_module_function("mount_link", function!(mount_link, 3))?;
    native.define_module_function("mount_unlink", function!(mount_unlink, 4))?;
    Ok(())
}

/// Runs `argv` in `dir` with the GVL released and returns a Hash of how it ended.
/// Positional and thin: `CodeRunner` names and checks the arguments.
#[allow(clippy::too_many_arguments)]
fn run_code(
    ruby: &Ruby,
    argv: Vec<String>,
    dir: String,
    read_only: Vec<String>,
    sandbox: bool,
    timeout: f64,
    cpu_seconds: u64,
    memory_bytes: u64,
    tmp_bytes: u64,
    file_bytes: u64,
    processes: u64,
    output_bytes: usize,
) -> Result<RHash, Error> {
    if !(timeout.is_finite() && timeout > 0.0) {
        return Err(Error::new(
            ruby.exception_arg_error(),
            format!("timeout must be a positive number of seconds, not {timeout}"),
        ));
    }
    let spec = Spec {
        argv,
        dir: PathBuf::from(dir),
        read_only: read_only.into_iter().map(PathBuf::from).collect(),
        sandbox,
        limits: Limits {
            timeout: Duration::from_secs_f64(timeout),
            cpu_seconds,
            memory_bytes,
            tmp_bytes,
            file_bytes,
            processes,
            output_bytes,
        },
    };
    let outcome = nogvl(ruby, move || run::run(&spec))?.map_err(|e| errors::map(ruby, e))?;
    let hash = ruby.hash_new();
    hash.aset(ruby.to_symbol("exit_code"), outcome.exit_code)?;
    hash.aset(ruby.to_symbol("signal"), outcome.signal)?;
    hash.aset(ruby.to_symbol("timed_out"), outcome.timed_out)?;
    hash.aset(ruby.to_symbol("stdout"), outcome.stdout)?;
    hash.aset(ruby.to_symbol("stderr"), outcome.stderr)?;
    hash.aset(ruby.to_symbol("stdout_bytes"), outcome.stdout_bytes)?;
    hash.aset(ruby.to_symbol("stderr_bytes"), outcome.stderr_bytes)?;
    hash.aset(ruby.to_symbol("seconds"), outcome.elapsed.as_secs_f64())?;
    hash.aset(
        ruby.to_symbol("processes_limited"),
        outcome.processes_limited,
    )?;
    hash.aset(ruby.to_symbol("memory_limited"), outcome.memory_limited)?;
    Ok(hash)
}

/// The command line for `code` in `language`, with `interpreter` when given.
fn command(
    ruby: &Ruby,
    language: String,
    interpreter: Option<String>,
    code: String,
) -> Result<Vec<String>, Error> {
    run::command(&language, interpreter.as_deref(), &code).map_err(|e| errors::map(ruby, e))
}

/// Why bubblewrap cannot run here, or nil.
fn sandbox_problem(ruby: &Ruby) -> Result<Option<String>, Error> {
    nogvl(ruby, run::sandbox_problem)
}

/// Links `source` at `path` in `root` with no link followed: the folders made for
/// it, or nil when the folder has something of its own on the way.
fn mount_link(
    ruby: &Ruby,
    root: String,
    path: String,
    source: String,
) -> Result<Option<Vec<String>>, Error> {
    let linked = nogvl(ruby, move || {
        mounts::link(&PathBuf::from(root), &path, &PathBuf::from(source))
    })?
    .map_err(|e| errors::map(ruby, e))?;
    Ok(match linked {
        mounts::Linked::Made(folders) => Some(folders),
        mounts::Linked::Taken => None,
    })
}

/// Removes a link `mount_link` made, if it still points at `source`, and the
/// folders made for it that are empty.
fn mount_unlink(
    ruby: &Ruby,
    root: String,
    path: String,
    source: String,
    folders: Vec<String>,
) -> Result<(), Error> {
    nogvl(ruby, move || {
        mounts::unlink(
            &PathBuf::from(root),
            &path,
            &PathBuf::from(source),
            &folders,
        )
    })?
    .map_err(|e| errors::map(ruby, e))
}
