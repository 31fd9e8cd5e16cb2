//! Temporary files a crashed write left behind (`.name.PID-NANOS-N.tmp`): removed
//! once their writer is gone and they have not changed for a while.
//!
//! A file is removed when no process of its PID is alive and it is older than
//! the grace period, or when it is older than a week whatever its PID says (a PID
//! reused, or a writer in another PID namespace sharing the folder). A live
//! writer keeps changing its file, so the grace period keeps it safe.

use std::collections::HashSet;
use std::os::fd::{AsFd, BorrowedFd, OwnedFd};
use std::sync::Mutex;
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use rustix::fs::{AtFlags, Dir, FileType, Mode, OFlags};

/// How long a dead writer's temporary file is left alone before it is removed.
pub const GRACE: Duration = Duration::from_secs(15 * 60);
/// How old a temporary file is removed even if a process of its PID is alive.
const ABANDONED: Duration = Duration::from_secs(7 * 24 * 3600);
/// How deep folders are searched.
const MAX_DEPTH: usize = 64;

/// The PID in a temporary file's name, when `name` is one.
fn writer_pid(name: &str) -> Option<i32> {
    let stem = name.strip_prefix('.')?.strip_suffix(".tmp")?;
    let (_, tail) = stem.rsplit_once('.')?;
    let mut parts = tail.split('-');
    let pid = parts.next()?.parse().ok()?;
    let nanos = parts.next()?;
    let count = parts.next()?;
    let valid = parts.next().is_none()
        && u32::from_str_radix(nanos, 16).is_ok()
        && count.parse::<u64>().is_ok();
    valid.then_some(pid)
}

fn alive(pid: i32) -> bool {
    match rustix::process::Pid::from_raw(pid) {
        Some(pid) => !matches!(
            rustix::process::test_kill_process(pid),
            Err(rustix::io::Errno::SRCH)
        ),
        None => false,
    }
}

/// Removes the leftovers under `dir` older than `grace`; returns how many.
pub fn sweep(dir: BorrowedFd<'_>, grace: Duration) -> usize {
    sweep_in(dir, grace, 0)
}

fn sweep_in(dir: BorrowedFd<'_>, grace: Duration, depth: usize) -> usize {
    let Ok(own) = rustix::io::fcntl_dupfd_cloexec(dir, 0) else {
        return 0;
    };
    let Ok(entries) = Dir::read_from(&own) else {
        return 0;
    };
    let now = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .unwrap_or_default();
    let mut removed = 0;
    for entry in entries.flatten() {
        let Ok(name) = entry.file_name().to_str().map(str::to_string) else {
            continue;
        };
        if name == "." || name == ".." {
            continue;
        }
        match entry.file_type() {
            FileType::Directory if depth < MAX_DEPTH && !name.starts_with('.') => {
                if let Ok(child) = open_folder(dir, &name) {
                    removed += sweep_in(child.as_fd(), grace, depth + 1);
                }
            }
            FileType::RegularFile | FileType::Unknown => {
                let Some(pid) = writer_pid(&name) else {
                    continue;
                };
                let Ok(stat) = rustix::fs::statat(dir, name.as_str(), AtFlags::SYMLINK_NOFOLLOW)
                else {
                    continue;
                };
                if FileType::from_raw_mode(stat.st_mode) != FileType::RegularFile {
                    continue;
                }
                // `st_mtime` is signed on some targets and unsigned on others.
                #[allow(clippy::unnecessary_cast, clippy::unnecessary_min_or_max)]
                let mtime = (stat.st_mtime as i64).max(0) as u64;
                let age = now.saturating_sub(Duration::from_secs(mtime));
                if (age >= grace && !alive(pid)) || age >= ABANDONED {
                    removed += usize::from(
                        rustix::fs::unlinkat(dir, name.as_str(), AtFlags::empty()).is_ok(),
                    );
                }
            }
            _ => {}
        }
    }
    removed
}

fn open_folder(dir: BorrowedFd<'_>, name: &str) -> rustix::io::Result<OwnedFd> {
    rustix::fs::openat(
        dir,
        name,
        OFlags::RDONLY | OFlags::DIRECTORY | OFlags::NOFOLLOW | OFlags::CLOEXEC,
        Mode::empty(),
    )
}

/// Sweeps the folder of `fd` on a thread of its own, once per folder per process,
/// so opening a store costs no walk of it.
pub fn sweep_once_in_background(fd: OwnedFd) {
    static SWEPT: Mutex<Option<HashSet<(u64, u64)>>> = Mutex::new(None);
    let Ok(stat) = rustix::fs::fstat(&fd) else {
        return;
    };
    let key = (stat.st_dev, stat.st_ino);
    {
        let mut swept = SWEPT.lock().unwrap_or_else(|e| e.into_inner());
        if !swept.get_or_insert_with(HashSet::new).insert(key) {
            return;
        }
    }
    let _ = std::thread::Builder::new()
        .name("file_store_sweep".into())
        .spawn(move || sweep(fd.as_fd(), GRACE));
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn knows_the_names_of_temporary_files() {
        assert_eq!(writer_pid(".report.pdf.4242-1a2b-7.tmp"), Some(4242));
        assert_eq!(writer_pid(".a.1-0-0.tmp"), Some(1));
        for other in [
            "report.tmp",
            ".x.tmp",
            ".a.b-c-d.tmp",
            ".a.1-zz-0.tmp",
            "a.1-0-0.tmp",
        ] {
            assert_eq!(writer_pid(other), None, "{other}");
        }
    }
}
