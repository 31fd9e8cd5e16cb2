//! The run's command, started, watched and ended: its process, its output, and
//! the looks at what it adds to its folder while it runs.

use std::os::fd::AsFd;
use std::process::Stdio;
use std::time::{Duration, Instant};

use crate::orphans::Orphans;
use crate::prepared::Prepared;
use crate::spec::Spec;
use crate::{cgroup, limits, output, owner, reserve, sandbox};
use file_store_base::error::{Error, Result};

/// The run's command, started, and its output being read. The fields drop in
/// the order they are declared: the captures, the child, then the command,
/// whose `pre_exec` closure holds the namespaces the child entered until the
/// call ends.
pub(crate) struct Running {
    pub(crate) stderr: output::Capture,
    pub(crate) stdout: output::Capture,
    child: tokio::process::Child,
    /// The child's process group (its pid), which `kill_all` kills.
    pub(crate) group: Option<i32>,
    /// When it was spawned.
    pub(crate) started: Instant,
    /// Its processes that would come back to the app as zombies.
    pub(crate) orphans: Orphans,
    /// Held for its drop, which comes last: its `pre_exec` closure holds the
    /// namespaces the child entered.
    _command: tokio::process::Command,
}

impl Running {
    /// Starts the prepared command in its folder, with no input, its output
    /// piped, in a process group of its own and confined by the `pre_exec` below
    /// (the child takes `keep`, `drop_to` and `entered` from `prepared`).
    pub(crate) fn spawn(
        spec: &Spec,
        prepared: &mut Prepared,
        groups: &cgroup::Groups,
    ) -> Result<Running> {
        let argv = &prepared.argv;
        let mut command = tokio::process::Command::new(&argv[0]);
        command
            .args(&argv[1..])
            .current_dir(&spec.dir)
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .process_group(0)
            .kill_on_drop(true);
        if spec.sandbox {
            sandbox::bwrap_env(&mut command);
        } else {
            sandbox::plain_env(&mut command);
        }
        let applied = limits::Applied::new(&spec.limits, prepared.uid);
        let attach = groups.attach_fds();
        let entered = prepared.entered.take();
        let keep = std::mem::take(&mut prepared.keep);
        let drop_to = prepared.drop_to.take();
        let adopts = crate::removing::adopts_orphans();
        // SAFETY: the closure runs in the forked child before exec and only makes raw
        // system calls (setrlimit, write, setns, chdir, close_range, keyctl, fcntl, and
        // for a root app unshare, mount, mkdir, open, setgroups and setres[ug]id on
        // strings made before the fork), which are async-signal-safe.
        unsafe {
            command.pre_exec(move || {
                // Kept across exec: the run's orphans stay below its first process
                // rather than come back to an app that adopts them.
                if adopts && libc::prctl(libc::PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0) != 0 {
                    return Err(std::io::Error::last_os_error());
                }
                limits::apply(&applied)?;
                for fd in &attach {
                    cgroup::join(*fd)?;
                }
                if let Some(tmpfs) = &entered {
                    tmpfs.enter()?;
                }
                limits::isolate(&keep)?;
                if let Some(to) = &drop_to {
                    to.apply()?;
                }
                Ok(())
            });
        }
        let started = Instant::now();
        let mut child = command.spawn().map_err(|e| {
            if e.kind() == std::io::ErrorKind::NotFound {
                Error::Sandbox(format!("{} is not installed or not on PATH", argv[0]))
            } else {
                Error::Sandbox(format!("cannot start {}: {e}", argv[0]))
            }
        })?;
        let group = child.id().map(|id| id as i32);
        let stdout = output::capture(child.stdout.take(), spec.limits.output_bytes);
        let stderr = output::capture(child.stderr.take(), spec.limits.output_bytes);
        Ok(Running {
            stderr,
            stdout,
            child,
            group,
            started,
            orphans: Orphans::new(group),
            _command: command,
        })
    }

    /// Waits for the run to end, looking every `POLL` at what it has added to
    /// `folder`, and ends it, killing every process it started, once the caller
    /// gives up or the repair and look after it would no longer fit before
    /// `deadline` (its timeout, counted from `called`). Its exit status and
    /// whether it was ended.
    pub(crate) async fn wait(
        &mut self,
        reserve: &reserve::Reserve,
        folder: &owner::Folder,
        groups: &cgroup::Groups,
        called: Instant,
        deadline: Instant,
        notes: &mut Vec<String>,
    ) -> (std::io::Result<std::process::ExitStatus>, bool) {
        let mut added = reserve::Used::default();
        // The wait is cancel-safe: each look at the folder cuts it short and it
        // starts again.
        loop {
            let stop = deadline
                .checked_sub(reserve.needed(added))
                .unwrap_or(called);
            let wait = stop.saturating_duration_since(Instant::now()).min(POLL);
            if let Ok(status) = tokio::time::timeout(wait, self.child.wait()).await {
                return (status, false);
            }
            self.orphans.look();
            let last = std::mem::replace(&mut added, reserve.added(folder.fd.as_fd()));
            // Stopped at this look when the next would come too late at this pace.
            let next = reserve::Used {
                names: added.names + added.names.saturating_sub(last.names),
                blocks: added.blocks + added.blocks.saturating_sub(last.blocks),
            };
            let now = Instant::now();
            // The caller gave up on the call (the binding, once a Ruby interrupt
            // raised): the run ends now, and the repair still gives the folder back.
            if file_store_base::cancel::cancelled() {
                self.orphans.look();
                kill_all(self.group, groups);
                return (self.child.wait().await, true);
            }
            if now + POLL + reserve.needed(next) >= deadline {
                self.orphans.look();
                kill_all(self.group, groups);
                let early = deadline.saturating_duration_since(now);
                if early >= NOTED_EARLY {
                    notes.push(stopped_early(early, added.names));
                }
                return (self.child.wait().await, true);
            }
        }
    }
}

/// How often the app looks at what the run has added to its folder.
const POLL: Duration = Duration::from_millis(50);
/// A run stopped this much before its timeout, or more, gets a note saying why.
const NOTED_EARLY: Duration = Duration::from_millis(500);

/// The note on a run stopped `early` before its timeout, having added `added`
/// names to the folder's file system.
fn stopped_early(early: Duration, added: u64) -> String {
    format!(
        "The run was stopped {:.1} s before its timeout: the repair and the look at the folder \
         after it, which grow with the files it holds and the {added} names the run added, and \
         the removal of those past the limits, must fit in the timeout too.",
        early.as_secs_f64()
    )
}

/// Kills the run's process group and, where there is one, every process in its
/// cgroup. Killing bubblewrap ends its PID namespace, and with it everything inside.
pub(crate) fn kill_all(group: Option<i32>, groups: &cgroup::Groups) {
    if let Some(group) = group.and_then(rustix::process::Pid::from_raw) {
        let _ = rustix::process::kill_process_group(group, rustix::process::Signal::Kill);
    }
    groups.kill_all();
}
