//! Code runs in this process's name: each runs in a host process
//! ([`file_store_convert::host`]) that this process's supervisor starts, as it
//! starts the convert workers, and the supervisor also makes a copy-mode run
//! folder's tmpfs and starts the remover of what a run set aside, so that no
//! process of a run is ever the app's child. The supervisor is the one
//! [`crate::pool`] speaks to; a process forked from the app has its own.

use std::ffi::CString;
use std::os::fd::AsFd;
use std::path::Path;
use std::time::Duration;

use file_store_base::error::{Error, Result};
use file_store_convert::supervisor::message::{EMPTY, OK, TMPFS};
use file_store_sandbox::private::PrivateTmpfs;
use file_store_sandbox::removing;
use file_store_sandbox::{Outcome, Spec};

use crate::pool;

/// Runs `spec` in a host and returns how it ended; the caller's cancellation
/// flag stops it, and the folder is given back before this returns. No host able
/// to start is [`Error::Converter`], naming the program and why, as for a worker:
/// an operational error, not the code's.
pub fn run(spec: &Spec) -> Result<Outcome> {
    let program = pool::program().ok_or_else(|| {
        Error::Converter(
            "code cannot run now: no file_store_convert executable is named".to_string(),
        )
    })?;
    let started = pool::start_host(&program)
        .map_err(|why| Error::Converter(format!("code cannot run now: {why}")))?;
    let _host = Host(started.id, started.generation);
    file_store_convert::host::ask(started.input, started.output, spec)
}

/// A host started: killed, if it still runs, and reaped when dropped.
struct Host(u64, u64);

impl Drop for Host {
    fn drop(&mut self) {
        pool::end_host(self.0, self.1);
    }
}

/// A private tmpfs with the mount `options` on the empty folder `dir`, made by
/// the supervisor (which forks the process that makes its namespaces).
pub fn make_tmpfs(dir: &Path, options: &str) -> Result<PrivateTmpfs> {
    let fail =
        |why: String| Error::Sandbox(format!("cannot make a tmpfs for {}: {why}", dir.display()));
    let target = CString::new(dir.as_os_str().as_encoded_bytes())
        .map_err(|_| Error::InvalidArgument(format!("{} holds a NUL byte", dir.display())))?;
    let mut request = vec![TMPFS];
    request.extend(options.as_bytes());
    request.push(0);
    request.extend(target.as_bytes());
    let (answer, fds) = pool::ask_supervisor(&request).map_err(|e| fail(e.to_string()))?;
    if answer.first() != Some(&OK) {
        return Err(fail(
            String::from_utf8_lossy(answer.get(1..).unwrap_or_default()).into_owned(),
        ));
    }
    let mut fds = fds.into_iter();
    match (fds.next(), fds.next()) {
        (Some(mount), Some(root)) => Ok(PrivateTmpfs::from_parts(fds.next(), mount, root, target)),
        _ => Err(fail("the supervisor's answer is garbled".to_string())),
    }
}

/// Empties what a run set aside in the run folder `dir`, in a remover the
/// supervisor starts, waiting for it at most `wait`: whether it was done by then
/// (past it the remover goes on alone).
pub fn empty_removing(dir: &Path, wait: Duration) -> bool {
    let held = std::fs::read_dir(dir.join(removing::REMOVING));
    if held.map_or(true, |mut names| names.next().is_none()) {
        return true;
    }
    let mut request = vec![EMPTY];
    request.extend(dir.as_os_str().as_encoded_bytes());
    match pool::ask_supervisor(&request) {
        Ok((answer, fds)) if answer.first() == Some(&OK) => match fds.first() {
            Some(done) => removing::done_within(done.as_fd(), wait),
            None => true,
        },
        _ => false,
    }
}

#[cfg(test)]
mod tests;
