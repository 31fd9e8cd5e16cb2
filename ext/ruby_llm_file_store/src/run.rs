//! Module functions on Native for code runs: `run`, `command`, `sandbox_problem`,
//! the mount links, and copy mode's run folders.

use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{mpsc, Arc, Mutex};
use std::time::Duration;

use magnus::scan_args::get_kwargs;
use magnus::{function, Error, RHash, RModule, Ruby, Value};

use file_store_base::{cancel, Error as CoreError};
use file_store_documents::runs;
use file_store_sandbox::{self as run, folder, mounts, Spec};

use crate::{convert, errors, nogvl::nogvl};

pub fn define(_ruby: &Ruby, native: RModule) -> Result<(), Error> {
    native.define_module_function("run", function!(run_code, -1))?;
    native.define_module_function("check_run_limits", function!(check_run_limits, 2))?;
    native.define_module_function("run_folder_tmpfs", function!(run_folder_tmpfs, -1))?;
    native.define_module_function("remove_run_folder", function!(remove_run_folder, 1))?;
    native.define_module_function("command", function!(command, -1))?;
    native.define_module_function("sandbox_problem", function!(sandbox_problem, 0))?;
    native.define_module_function("empty_removing", function!(empty_removing, -1))?;
    native.define_module_function("mount_link", function!(mount_link, -1))?;
    native.define_module_function("mount_unlink", function!(mount_unlink, -1))?;
    Ok(())
}

/// `check_run_limits(timeout, limits)`: nil, or the ArgumentError `run` would
/// raise for them, so a runner refuses them when it is set up, not at every run.
fn check_run_limits(ruby: &Ruby, timeout: f64, limits: RHash) -> Result<(), Error> {
    convert::run_limits(ruby, timeout, limits).map(drop)
}

/// `run(argv:, dir:, sandbox:, timeout:, read_only: [], limits: {})`: runs
/// `argv` in `dir` with the GVL released and returns a Hash of how it ended, with
/// the folder's snapshots from before and after. `limits` holds any of Limits'
/// fields by name (`Native::RUN_LIMITS` has their defaults). Thin: `CodeRunner`
/// adds the defaults of its own and checks the arguments.
fn run_code(ruby: &Ruby, args: &[Value]) -> Result<RHash, Error> {
    let ((), kw) = convert::keywords::<()>(args)?;
    let kw = get_kwargs::<
        _,
        (Vec<String>, String, bool, f64),
        (Option<Vec<String>>, Option<RHash>),
        (),
    >(
        kw,
        &["argv", "dir", "sandbox", "timeout"],
        &["read_only", "limits"],
    )?;
    let (argv, dir, sandbox, timeout) = kw.required;
    let (read_only, limits) = kw.optional;
    let limits = convert::run_limits(ruby, timeout, limits.unwrap_or_else(|| ruby.hash_new()))?;
    let spec = Spec {
        argv,
        dir: PathBuf::from(dir),
        read_only: read_only
            .unwrap_or_default()
            .into_iter()
            .map(PathBuf::from)
            .collect(),
        sandbox,
        limits,
    };
    let outcome = run_interruptible(ruby, spec)?.map_err(|e| errors::map(ruby, e))?;
    convert::outcome(ruby, outcome)
}

type Ran = file_store_base::Result<run::Outcome>;

/// Runs `spec` on a thread of its own, in a host process the supervisor starts
/// (`runs`), and waits for it without the GVL. Ruby's
/// unblocking function also fires for a signal whose trap raises nothing (a
/// child's SIGCHLD), so a woken wait asks Ruby first: only an interrupt that
/// raises (Timeout, Thread#kill, Ctrl-C) stops the run, which then still
/// repairs the folder and gives it back before the exception goes on.
fn run_interruptible(ruby: &Ruby, spec: Spec) -> Result<Ran, Error> {
    let stop = Arc::new(AtomicBool::new(false));
    let (done, ran) = mpsc::channel::<Ran>();
    // Waited on from whichever thread Ruby runs the wait without the GVL on.
    let ran = Mutex::new(ran);
    let flag = stop.clone();
    std::thread::Builder::new()
        .name("ruby_llm_run".to_string())
        .spawn(move || {
            let _ = done.send(cancel::with_flag(Some(flag), || runs::run(&spec)));
        })
        .map_err(|e| errors::map(ruby, CoreError::Sandbox(format!("cannot start a run: {e}"))))?;
    loop {
        match nogvl(ruby, || wait_or_woken(&lock(&ran))) {
            Ok(Some(outcome)) => return Ok(outcome),
            Ok(None) => continue,
            Err(interrupt) => {
                stop.store(true, Ordering::SeqCst);
                // Each try either takes the stopped run's end or sees a further
                // interrupt, which is handled, and tries again.
                while nogvl(ruby, || lock(&ran).recv()).is_err() {}
                return Err(interrupt);
            }
        }
    }
}

fn lock<T>(mutex: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    mutex
        .lock()
        .unwrap_or_else(|poisoned| poisoned.into_inner())
}

/// The run's end, or `None` once Ruby has woken the wait (its unblocking function
/// set this thread's flag). A run thread that panicked is an error.
fn wait_or_woken(ran: &mpsc::Receiver<Ran>) -> Option<Ran> {
    loop {
        if cancel::cancelled() {
            return None;
        }
        match ran.recv_timeout(Duration::from_millis(20)) {
            Ok(outcome) => return Some(outcome),
            Err(mpsc::RecvTimeoutError::Timeout) => {}
            Err(mpsc::RecvTimeoutError::Disconnected) => {
                return Some(Err(CoreError::Sandbox(
                    "the run ended unexpectedly".to_string(),
                )))
            }
        }
    }
}

/// `run_folder_tmpfs(dir, bytes:, inodes:)`: makes the empty folder `dir` a tmpfs (the supervisor mounts it)
/// of `bytes` and `inodes` and returns the path the app reaches its files by
/// (`dir` itself for a root app, its private tmpfs's root for any other); nil where
/// the kernel allows neither.
fn run_folder_tmpfs(ruby: &Ruby, args: &[Value]) -> Result<Option<String>, Error> {
    let ((dir,), kw) = convert::keywords::<(String,)>(args)?;
    let kw = get_kwargs::<_, (u64, u64), (), ()>(kw, &["bytes", "inodes"], &[])?;
    let (bytes, inodes) = kw.required;
    let reach = nogvl(ruby, move || {
        folder::mount_tmpfs_by(&PathBuf::from(dir), bytes, inodes, runs::make_tmpfs)
    })?
    .map_err(|e| errors::map(ruby, e))?;
    Ok(reach.map(|path| path.to_string_lossy().into_owned()))
}

/// Removes a copy-mode run folder, however deep, never following a link.
fn remove_run_folder(ruby: &Ruby, dir: String) -> Result<(), Error> {
    nogvl(ruby, move || folder::remove(&PathBuf::from(dir)))?.map_err(|e| errors::map(ruby, e))
}

/// `command(language:, code:, interpreter: nil)`: the command line for `code` in
/// `language`, with `interpreter` when given.
fn command(ruby: &Ruby, args: &[Value]) -> Result<Vec<String>, Error> {
    let ((), kw) = convert::keywords::<()>(args)?;
    let kw = get_kwargs::<_, (String, String), (Option<Option<String>>,), ()>(
        kw,
        &["language", "code"],
        &["interpreter"],
    )?;
    let (language, code) = kw.required;
    let interpreter = kw.optional.0.flatten();
    run::command(&language, interpreter.as_deref(), &code).map_err(|e| errors::map(ruby, e))
}

/// `empty_removing(dir, wait:)`: removes what the calls in the run folder `dir`
/// set aside past a run's limits, in a process the supervisor starts, waiting for it at
/// most `wait` seconds; whether it was done by then.
fn empty_removing(ruby: &Ruby, args: &[Value]) -> Result<bool, Error> {
    let ((dir,), kw) = convert::keywords::<(String,)>(args)?;
    let kw = get_kwargs::<_, (f64,), (), ()>(kw, &["wait"], &[])?;
    let wait = std::time::Duration::from_secs_f64(kw.required.0.clamp(0.0, 86_400.0));
    nogvl(ruby, move || {
        runs::empty_removing(&PathBuf::from(dir), wait)
    })
}

/// Why bubblewrap cannot run here, or nil. Where no code can run at all (the
/// executable that starts runs cannot run), which is not bubblewrap's doing, it
/// raises WorkerError naming the executable and why.
fn sandbox_problem(ruby: &Ruby) -> Result<Option<String>, Error> {
    nogvl(ruby, || {
        let mut no_host = None;
        let problem = run::sandbox_problem_by(|spec| {
            runs::run(spec).inspect_err(|error| {
                if let CoreError::Converter(why) = error {
                    no_host = Some(CoreError::Converter(why.clone()));
                }
            })
        });
        no_host.map_or(Ok(problem), Err)
    })?
    .map_err(|e| errors::map(ruby, e))
}

/// `mount_link(root:, path:, source:)`: links `source` at `path` in `root` with no
/// link followed: the folders made for it, or nil when the folder has something of
/// its own on the way.
fn mount_link(ruby: &Ruby, args: &[Value]) -> Result<Option<Vec<String>>, Error> {
    let ((), kw) = convert::keywords::<()>(args)?;
    let kw =
        get_kwargs::<_, (String, String, String), (), ()>(kw, &["root", "path", "source"], &[])?;
    let (root, path, source) = kw.required;
    let linked = nogvl(ruby, move || {
        mounts::link(&PathBuf::from(root), &path, &PathBuf::from(source))
    })?
    .map_err(|e| errors::map(ruby, e))?;
    Ok(match linked {
        mounts::Linked::Made(folders) => Some(folders),
        mounts::Linked::Taken => None,
    })
}

/// `mount_unlink(root:, path:, source:, folders:)`: removes a link `mount_link`
/// made, if it still points at `source`, and the `folders` made for it that are
/// empty.
fn mount_unlink(ruby: &Ruby, args: &[Value]) -> Result<(), Error> {
    let ((), kw) = convert::keywords::<()>(args)?;
    let kw = get_kwargs::<_, (String, String, String, Vec<String>), (), ()>(
        kw,
        &["root", "path", "source", "folders"],
        &[],
    )?;
    let (root, path, source, folders) = kw.required;
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
