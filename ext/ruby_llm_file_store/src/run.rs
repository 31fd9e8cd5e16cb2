//! Module functions on Native for code runs: `run`, `command`, `sandbox_problem`,
//! the mount links, and copy mode's run folders.

use std::path::PathBuf;
use std::time::Duration;

use magnus::{function, Error, RHash, RModule, Ruby, TryConvert, Value};

use file_store_core::run::{self, folder, mounts, Limits, Spec};

use crate::{errors, nogvl::nogvl, snapshot::Snapshot};

pub fn define(_ruby: &Ruby, native: RModule) -> Result<(), Error> {
    native.define_module_function("run", function!(run_code, 6))?;
    native.define_module_function("run_folder_tmpfs", function!(run_folder_tmpfs, 2))?;
    native.define_module_function("remove_run_folder", function!(remove_run_folder, 1))?;
    native.define_module_function("command", function!(command, 3))?;
    native.define_module_function("sandbox_problem", function!(sandbox_problem, 0))?;
    native.define_module_function("mount_link", function!(mount_link, 3))?;
    native.define_module_function("mount_unlink", function!(mount_unlink, 4))?;
    Ok(())
}

/// The limit `name` from `limits`, or `default` when it is not there.
fn limit<T: TryConvert>(ruby: &Ruby, limits: RHash, name: &str, default: T) -> Result<T, Error> {
    match limits.get(ruby.to_symbol(name)) {
        None => Ok(default),
        Some(value) => T::try_convert(value)
            .map_err(|e| Error::new(ruby.exception_arg_error(), format!("limit {name}: {e}"))),
    }
}

/// Runs `argv` in `dir` with the GVL released and returns a Hash of how it ended,
/// with the folder's snapshots from before and after. `limits` holds any of
/// Limits' fields by name. Positional and thin: `CodeRunner` names and checks the
/// arguments.
fn run_code(
    ruby: &Ruby,
    argv: Vec<String>,
    dir: String,
    read_only: Vec<String>,
    sandbox: bool,
    timeout: f64,
    limits: RHash,
) -> Result<RHash, Error> {
    if !(timeout.is_finite() && timeout > 0.0) {
        return Err(Error::new(
            ruby.exception_arg_error(),
            format!("timeout must be a positive number of seconds, not {timeout}"),
        ));
    }
    let d = Limits::default();
    let limits = Limits {
        timeout: Duration::from_secs_f64(timeout),
        cpu_seconds: limit(ruby, limits, "cpu_seconds", d.cpu_seconds)?,
        cpu_percent: limit(ruby, limits, "cpu_percent", d.cpu_percent)?,
        memory_bytes: limit(ruby, limits, "memory_bytes", d.memory_bytes)?,
        tmp_bytes: limit(ruby, limits, "tmp_bytes", d.tmp_bytes)?,
        file_bytes: limit(ruby, limits, "file_bytes", d.file_bytes)?,
        processes: limit(ruby, limits, "processes", d.processes)?,
        output_bytes: limit(ruby, limits, "output_bytes", d.output_bytes)?,
        digest_bytes: limit(ruby, limits, "digest_bytes", d.digest_bytes)?,
    };
    let spec = Spec {
        argv,
        dir: PathBuf::from(dir),
        read_only: read_only.into_iter().map(PathBuf::from).collect(),
        sandbox,
        limits,
    };
    let outcome = nogvl(ruby, move || run::run(&spec))?.map_err(|e| errors::map(ruby, e))?;
    let hash = ruby.hash_new();
    let set = |key: &str, value: Value| hash.aset(ruby.to_symbol(key), value);
    set("exit_code", ruby.into_value(outcome.exit_code))?;
    set("signal", ruby.into_value(outcome.signal))?;
    set("timed_out", ruby.into_value(outcome.timed_out))?;
    set("stdout", ruby.into_value(outcome.stdout))?;
    set("stderr", ruby.into_value(outcome.stderr))?;
    set("stdout_bytes", ruby.into_value(outcome.stdout_bytes))?;
    set("stderr_bytes", ruby.into_value(outcome.stderr_bytes))?;
    set("seconds", ruby.into_value(outcome.elapsed.as_secs_f64()))?;
    set(
        "processes_limited",
        ruby.into_value(outcome.processes_limited),
    )?;
    set("memory_limited", ruby.into_value(outcome.memory_limited))?;
    set("cpu_limited", ruby.into_value(outcome.cpu_limited))?;
    set("uid", ruby.into_value(outcome.uid))?;
    set("notes", ruby.into_value(outcome.notes))?;
    set("before", ruby.into_value(Snapshot(outcome.before)))?;
    set("after", ruby.into_value(Snapshot(outcome.after)))?;
    Ok(hash)
}

/// Mounts a tmpfs of `bytes` on the empty folder `dir`; false where the app may
/// not (only root may).
fn run_folder_tmpfs(ruby: &Ruby, dir: String, bytes: u64) -> Result<bool, Error> {
    nogvl(ruby, move || {
        folder::mount_tmpfs(&PathBuf::from(dir), bytes)
    })?
    .map_err(|e| errors::map(ruby, e))
}

/// Removes a copy-mode run folder, however deep, never following a link.
fn remove_run_folder(ruby: &Ruby, dir: String) -> Result<(), Error> {
    nogvl(ruby, move || folder::remove(&PathBuf::from(dir)))?.map_err(|e| errors::map(ruby, e))
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
