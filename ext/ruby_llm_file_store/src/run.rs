//! Module functions on Native for code runs: `run`, `command`, `sandbox_problem`,
//! the mount links, and copy mode's run folders.

use std::path::PathBuf;

use magnus::{function, Error, RHash, RModule, Ruby};

use file_store_core::run::{self, folder, mounts, Spec};

use crate::{convert, errors, nogvl::nogvl};

pub fn define(_ruby: &Ruby, native: RModule) -> Result<(), Error> {
    native.define_module_function("run", function!(run_code, 6))?;
    native.define_module_function("run_folder_tmpfs", function!(run_folder_tmpfs, 3))?;
    native.define_module_function("remove_run_folder", function!(remove_run_folder, 1))?;
    native.define_module_function("command", function!(command, 3))?;
    native.define_module_function("sandbox_problem", function!(sandbox_problem, 0))?;
    native.define_module_function("mount_link", function!(mount_link, 3))?;
    native.define_module_function("mount_unlink", function!(mount_unlink, 4))?;
    Ok(())
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
    let limits = convert::run_limits(ruby, timeout, limits)?;
    let spec = Spec {
        argv,
        dir: PathBuf::from(dir),
        read_only: read_only.into_iter().map(PathBuf::from).collect(),
        sandbox,
        limits,
    };
    let outcome = nogvl(ruby, move || run::run(&spec))?.map_err(|e| errors::map(ruby, e))?;
    convert::outcome(ruby, outcome)
}

/// Makes the empty folder `dir` a tmpfs of `bytes` and `inodes` and returns the path the app
/// reaches its files by (`dir` itself for a root app, its private tmpfs's root for
/// any other); nil where the kernel allows neither.
fn run_folder_tmpfs(
    ruby: &Ruby,
    dir: String,
    bytes: u64,
    inodes: u64,
) -> Result<Option<String>, Error> {
    let reach = nogvl(ruby, move || {
        folder::mount_tmpfs(&PathBuf::from(dir), bytes, inodes)
    })?
    .map_err(|e| errors::map(ruby, e))?;
    Ok(reach.map(|path| path.to_string_lossy().into_owned()))
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
