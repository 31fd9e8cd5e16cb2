//! The code runner: one command, in one folder, under bubblewrap, with limits.
//!
//! A run gets no network, a read-only view of the system, only its folder writable,
//! its own PID namespace, a seccomp filter, an unprivileged host uid even for a root
//! app, limits on CPU, memory, file size and processes, and a wall-clock timeout
//! that kills every process it started. Its output is captured up to a cap, and the
//! folder is looked at before and after (`crate::snapshot`) and repaired after
//! (`owner`). tokio drives the child: the wait, the timeout and both pipes at once.

mod after;
mod before;
mod cgroup;
pub mod folder;
mod held;
mod limits;
mod marks;
pub mod mounts;
mod notes;
mod orphans;
mod output;
mod owner;
mod prepared;
pub mod private;
mod raw;
pub mod records;
pub mod removing;
mod reserve;
mod running;
mod sandbox;
mod seccomp;
pub mod snapshot;
mod spec;
mod tmp;

use std::os::fd::AsFd;
use std::os::unix::process::ExitStatusExt;
use std::time::{Duration, Instant};

use crate::snapshot::{Changes, Digests, Snapshot};
use file_store_base::error::{Error, Result};
use notes::note_gaps;
use prepared::Prepared;
use running::{kill_all, Running};

pub use after::NEW_PATH_BYTES;
pub use limits::Limits;
pub use sandbox::RUN_UID;
pub use spec::Spec;

/// Why bubblewrap cannot run here, or `None` when it can: runs `true` inside it,
/// in a folder of its own, as a run would.
pub fn sandbox_problem() -> Option<String> {
    sandbox_problem_by(run)
}

/// Why bubblewrap cannot run here, or `None` when it can, by running `true` with
/// `run` (this process's [`run`], or a run in a process of its own).
pub fn sandbox_problem_by(run: impl FnOnce(&Spec) -> Result<Outcome>) -> Option<String> {
    let dir = match check_folder() {
        Ok(dir) => dir,
        Err(e) => return Some(format!("cannot make a folder to try bubblewrap in: {e}")),
    };
    let spec = Spec {
        argv: vec!["true".to_string()],
        dir: dir.clone(),
        read_only: Vec::new(),
        sandbox: true,
        limits: Default::default(),
    };
    // Not stopped by the caller's interrupt flag, which Ruby also sets for a
    // signal that raises nothing (a child's SIGCHLD): the check is short.
    let outcome = file_store_base::cancel::with_flag(None, || run(&spec));
    let _ = std::fs::remove_dir(&dir);
    match outcome {
        Err(Error::Sandbox(message)) if message.contains("not installed") => {
            Some(sandbox::NOT_INSTALLED.to_string())
        }
        Err(e) => Some(format!("bubblewrap (bwrap) cannot start: {e}")),
        Ok(out) if out.exit_code == Some(0) => None,
        Ok(out) => Some(format!(
            "bubblewrap (bwrap) cannot make a sandbox here: {}",
            out.stderr.trim()
        )),
    }
}

/// A new folder of a name no one could take first (`mkdtemp`), in the temporary
/// folder, where another user of the host may make names of their own.
fn check_folder() -> std::io::Result<std::path::PathBuf> {
    use std::os::unix::ffi::OsStringExt;
    let mut template = std::env::temp_dir()
        .join("ruby_llm_check_XXXXXX")
        .into_os_string()
        .into_vec();
    template.push(0);
    // SAFETY: a NUL-terminated buffer of ours, which mkdtemp fills in place.
    if unsafe { libc::mkdtemp(template.as_mut_ptr().cast()) }.is_null() {
        return Err(std::io::Error::last_os_error());
    }
    template.pop();
    Ok(std::path::PathBuf::from(std::ffi::OsString::from_vec(
        template,
    )))
}

/// How a run ended and what it printed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Outcome {
    /// The exit code, when the process exited rather than being killed.
    pub exit_code: Option<i32>,
    /// The signal that ended it, when one did.
    pub signal: Option<i32>,
    /// Whether the wall-clock timeout ended it.
    pub timed_out: bool,
    /// Standard output, up to the cap (invalid UTF-8 replaced).
    pub stdout: String,
    /// Standard error, up to the cap.
    pub stderr: String,
    /// How many bytes the run wrote to standard output in all.
    pub stdout_bytes: u64,
    /// How many bytes it wrote to standard error in all.
    pub stderr_bytes: u64,
    /// Wall-clock time from spawn to exit.
    pub elapsed: Duration,
    /// Whether a process-count limit was enforced by the kernel (a pids cgroup,
    /// or RLIMIT_NPROC for a user other than root).
    pub processes_limited: bool,
    /// Whether the run's memory as a whole (its processes and its /tmp) was held to
    /// `memory_bytes` by a memory cgroup; without one, only per process (RLIMIT_AS).
    pub memory_limited: bool,
    /// Whether the run as a whole was held to `cpu_percent` by a cpu cgroup;
    /// without one, each process to `cpu_seconds` (RLIMIT_CPU).
    pub cpu_limited: bool,
    /// The host uid the run's processes had.
    pub uid: u32,
    /// What the folder held just before the run at the paths in `after`: all the
    /// app keeps of the look before the run, which it holds in a file, not in
    /// memory (`before`).
    pub before: Snapshot,
    /// What the run left, once repaired: the entries of the folder after it that
    /// are new or differ from `before`, and the files under hidden or unnamed
    /// names it still holds (`after::kept_by_app`); not what it left untouched.
    pub after: Snapshot,
    /// What changed from `before` to the folder after the run.
    pub changes: Changes,
    /// What the looks at the folder could not see, for the model.
    pub notes: Vec<String>,
}

/// The command line that runs `code` in `language` ("python", "ruby" or "shell"),
/// with `interpreter` in place of the usual program when given.
pub fn command(language: &str, interpreter: Option<&str>, code: &str) -> Result<Vec<String>> {
    let (program, flag) = match language {
        "python" => ("python3", "-c"),
        "ruby" => ("ruby", "-e"),
        "shell" => ("sh", "-c"),
        other => {
            return Err(Error::InvalidArgument(format!(
                "{other:?} is not a language the runner knows: use python, ruby or shell"
            )))
        }
    };
    Ok(vec![
        interpreter.unwrap_or(program).to_string(),
        flag.to_string(),
        code.to_string(),
    ])
}

/// Runs `spec` to the end, or until its timeout, and returns what happened. The
/// timeout counts from this call: what comes before the run (giving a root
/// app's folder back after a killed app, lending it, looking at it) comes out
/// of the run's time.
pub fn run(spec: &Spec) -> Result<Outcome> {
    run_in(spec, private::private_for(&spec.dir))
}

/// [`run`] with the private tmpfs of the run folder given, as a run in a process
/// of its own receives it from the app that made it.
pub fn run_in(
    spec: &Spec,
    private: Option<std::sync::Arc<private::PrivateTmpfs>>,
) -> Result<Outcome> {
    let called = Instant::now();
    if spec.argv.is_empty() {
        return Err(Error::InvalidArgument("the command is empty".to_string()));
    }
    let folder = match &private {
        Some(tmpfs) => owner::Folder::from_fd(tmpfs.root(), &spec.dir)?,
        None => owner::Folder::open(&spec.dir)?,
    };
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .map_err(|e| Error::Sandbox(format!("cannot start the runner: {e}")))?;
    runtime.block_on(run_async(spec, folder, private, called))
}

/// Why code does not run in a folder past `folder_names`.
fn too_many(limits: &Limits) -> String {
    format!(
        "the folder holds more than {} files, folders and links (hidden ones included), or \
         their paths more than {} MiB, which is more than a run may look at: remove some \
         and run the code again",
        limits.folder_names,
        crate::snapshot::MAX_PATH_BYTES_HELD >> 20
    )
}

/// Runs the prepared command and gives the folder back: the steps of [`run`] in
/// order. Every early return leaves what `Groups`' and `Lent`'s drops clean up
/// (the cgroups removed, the folder taken back), and the values below are
/// declared in the order their drops must run in reverse: the command (with the
/// namespaces its child entered), the look before, the lent folder, then the
/// wrapping and the run's /tmp, then the cgroups.
async fn run_async(
    spec: &Spec,
    folder: owner::Folder,
    private: Option<std::sync::Arc<private::PrivateTmpfs>>,
    called: Instant,
) -> Result<Outcome> {
    let mut limits = spec.limits;
    let mut notes = Vec::new();
    // Made before the folder is lent, so it stays the app's.
    if let Some(left) = removing::prepare(folder.fd.as_fd(), limits.new_names) {
        notes.push(notes::leftover(&left, limits.new_names));
        limits.new_names = limits.new_names.saturating_sub(left.names);
    }
    let groups = cgroup::Groups::create(limits.processes, limits.memory_bytes, limits.cpu_percent);
    let mut prepared = Prepared::new(spec, private, groups.memory)?;
    let looking = Instant::now();
    // Taken back when this goes out of scope, also on an early return.
    let lent = prepared
        .drop_to
        .as_ref()
        .map(|to| folder.lend(to.uid, to.gid));
    if let Some(lent) = &lent {
        note_gaps(&lent.gaps, &mut notes);
    }
    // The store's own attributes, which the repair keeps only as they are now.
    let kept = marks::Kept::record(folder.fd.as_fd());
    let taken = before::Before::take(
        folder.fd.as_fd(),
        Digests::Budget(limits.digest_bytes),
        &limits,
        &std::env::temp_dir(),
        &mut notes,
    );
    let Ok(Some(before)) = taken else {
        groups.remove().await;
        return Err(taken
            .err()
            .unwrap_or_else(|| Error::Sandbox(too_many(&limits))));
    };
    let reserve = reserve::Reserve::new(
        folder.fd.as_fd(),
        looking.elapsed(),
        limits.save_files.min(limits.new_names),
    );
    let mut running = Running::spawn(spec, &mut prepared, &groups)?;
    let deadline = called + limits.timeout;
    let (status, timed_out) = running
        .wait(&reserve, &folder, &groups, called, deadline, &mut notes)
        .await;
    let elapsed = running.started.elapsed();
    // Whatever the run left behind (a background child outside a sandbox) goes too.
    running.orphans.look();
    kill_all(running.group, &groups);
    running.orphans.reap().await;
    let status = status.map_err(|e| Error::Sandbox(format!("lost the run: {e}")))?;
    let (stdout, stdout_bytes) = running.stdout.finish().await;
    let (stderr, stderr_bytes) = running.stderr.finish().await;
    let processes_limited = groups.pids || prepared.uid != 0;
    let memory_limited = groups.memory;
    let cpu_limited = groups.cpu;
    drop(prepared.wrapped.take());
    groups.drain().await;
    groups.for_helper();
    // Every process of the run is gone: nothing races the repair, which a
    // helper in the run's cgroups does, sending back only what the app keeps.
    let left = match look_after(&folder, &kept, &before, &limits, &groups, &mut notes) {
        Ok(left) => left,
        Err(e) => {
            groups.remove().await;
            return Err(e);
        }
    };
    groups.remove().await;
    let mut changes = crate::snapshot::diff(&left.was, &left.after);
    changes.deleted = left.deleted;
    if let Some(lent) = lent {
        note_gaps(&lent.take_back(), &mut notes);
    }
    Ok(Outcome {
        exit_code: status.code(),
        signal: status.signal(),
        timed_out,
        stdout,
        stderr,
        stdout_bytes,
        stderr_bytes,
        elapsed,
        processes_limited,
        memory_limited,
        cpu_limited,
        uid: prepared.uid,
        before: left.was,
        after: left.after,
        changes,
        notes,
    })
}

/// What a run left, once repaired: the entries of the folder after it that are
/// new or differ from the look before (`after`), what the folder held at those
/// paths before (`was`), and the files it deleted.
struct Left {
    after: Snapshot,
    was: Snapshot,
    deleted: Vec<String>,
}

/// Repairs the folder and looks at it after the run, once every process of the
/// run is gone: in a helper in the run's cgroups, which sends back only what the
/// app keeps, or in the app where no helper could. An error only when the app
/// does it and cannot read the look before back.
fn look_after(
    folder: &owner::Folder,
    kept: &marks::Kept,
    before: &before::Before,
    limits: &Limits,
    groups: &cgroup::Groups,
    notes: &mut Vec<String>,
) -> Result<Left> {
    match after::look(folder, kept, before, limits, &groups.attach_fds()) {
        Some(looked) => {
            notes.extend(looked.notes);
            Ok(Left {
                after: looked.left,
                was: looked.was,
                deleted: looked.deleted,
            })
        }
        None => {
            notes.push(LOOKED_BY_APP.to_string());
            // Held whole by the app only here, where no helper could.
            let before = before.load().map_err(|e| {
                Error::Sandbox(format!("lost the look at the folder before the run: {e}"))
            })?;
            let after = after::repair_and_look(folder, kept, &before, limits, notes);
            let deleted = crate::snapshot::deleted(&before, &after).cloned().collect();
            let left: Snapshot = after
                .into_iter()
                .filter(|(path, stamp)| after::kept_by_app(&before, path, stamp))
                .collect();
            let was = left
                .keys()
                .filter_map(|path| before.get_key_value(path))
                .map(|(path, stamp)| (path.clone(), *stamp))
                .collect();
            Ok(Left {
                after: left,
                was,
                deleted,
            })
        }
    }
}

/// The note on a run whose helper could not repair and look at the folder after
/// it (none could be started, or it ended before it was done).
const LOOKED_BY_APP: &str = "The helper that repairs and looks at the folder after the run \
     could not start or ended before it was done; the app did its work.";

#[cfg(test)]
mod tests;
