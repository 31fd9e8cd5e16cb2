//! The time a run leaves for what follows it, so that the timeout holds for the
//! whole call.
//!
//! After the code ends, the folder is repaired and looked at again, and what is
//! past the limits is removed: a cost that grows with what the run made, and
//! that can be far larger than the making. On an ext4 mounted with `discard`
//! an empty folder takes 0.2 ms to make and 3 ms to remove, so a run of 5 s
//! that made 31,000 folders kept its call busy for 75 s. While the code runs,
//! the app counts the names the folder's file system gained (its used inodes,
//! from `statfs`: no walk) and stops the run, as at its timeout, once what
//! follows would no longer fit in the time left: twice the look before the run
//! (the repair and the look after it walk the same names again), a look at
//! each new name, and a removal, at the file system's own measured cost, of
//! each new name past those a run may keep. Those names are set aside at once
//! (a rename each, `removing`) and removed after, which the call waits for
//! only while its time lasts: where this estimate errs short (a disk slower
//! than when it was measured), the removals go on after the call returns
//! rather than keeping it past its timeout.

use std::collections::HashMap;
use std::os::fd::BorrowedFd;
use std::sync::Mutex;
use std::time::{Duration, Instant};

use rustix::fs::{AtFlags, Mode};

/// What the repair and the look after a run take for each new name, beside its
/// removal (a few stat, attribute and flag calls; 10 to 40 µs measured).
const LOOK_PER_NAME: Duration = Duration::from_micros(50);
/// Killing the run, removing its cgroups, the steps of a run that cost no walk.
const MARGIN: Duration = Duration::from_millis(50);
/// A removal where none can be measured: of a name, and of a block with it.
const UNMEASURED: Costs = Costs {
    name: Duration::from_millis(1),
    block: Duration::from_millis(4),
};

/// What a file system's removals cost.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Costs {
    /// Removing an empty file.
    name: Duration,
    /// What removing a name that holds a block (a folder, a file with data)
    /// costs beyond that: a file system mounted with `discard` hands the block
    /// back to the disk then and there.
    block: Duration,
}

/// What a file system holds in use: inodes and blocks.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub(super) struct Used {
    /// Names (inodes).
    pub names: u64,
    /// Blocks.
    pub blocks: u64,
}

/// The time kept back from a run for what follows it.
#[derive(Debug, Clone)]
pub(super) struct Reserve {
    /// What the file system held in use when the run started, where it counts.
    start: Option<Used>,
    /// What follows the run whatever it makes.
    fixed: Duration,
    /// The file system's removals.
    costs: Costs,
    /// The new names a run may keep, which are looked at but not removed.
    free: u64,
}

impl Reserve {
    /// The reserve for a run in the folder open on `dir`, whose look before the
    /// run took `before`, and which may keep `free` new names.
    pub fn new(dir: BorrowedFd<'_>, before: Duration, free: u64) -> Reserve {
        Reserve {
            start: used(dir),
            fixed: before * 2 + MARGIN,
            costs: removal_costs(dir),
            free,
        }
    }

    /// What the folder's file system gained since the run started (the run's,
    /// and what any other process writing to it added meanwhile).
    pub fn added(&self, dir: BorrowedFd<'_>) -> Used {
        match (self.start, used(dir)) {
            (Some(start), Some(now)) => Used {
                names: now.names.saturating_sub(start.names),
                blocks: now.blocks.saturating_sub(start.blocks),
            },
            _ => Used::default(),
        }
    }

    /// The time what follows the run takes once it has added `added`: a look at
    /// each new name, and a removal of each past those a run may keep, with its
    /// block where the file system gained as many.
    pub fn needed(&self, added: Used) -> Duration {
        let times =
            |cost: Duration, count: u64| cost.saturating_mul(count.min(u32::MAX as u64) as u32);
        let over = added.names.saturating_sub(self.free);
        self.fixed
            + times(LOOK_PER_NAME, added.names)
            + times(self.costs.name, over)
            + times(self.costs.block, over.min(added.blocks))
    }
}

/// The used inodes and blocks of the file system `dir` is on; `None` where it
/// keeps no count of inodes (btrfs reports none).
fn used(dir: BorrowedFd<'_>) -> Option<Used> {
    let stat = rustix::fs::fstatfs(dir).ok()?;
    let files = stat.f_files as u64;
    (files > 0).then(|| Used {
        names: files.saturating_sub(stat.f_ffree as u64),
        blocks: (stat.f_blocks as u64).saturating_sub(stat.f_bfree as u64),
    })
}

/// What removals cost on the file system `dir` is on, measured once per file
/// system and process: five empty files, and five empty folders (each holding
/// a block), made and removed in `dir`. A name costs the files' median; a
/// block, twice the folders' median, as removals one after another took up to
/// twice what one alone did (ext4 with `discard`: 3.7 ms a folder against 2.2;
/// one alone varies from 0.2 to 8 ms, mostly 3.9, and on a busy machine more,
/// which the median leaves out).
fn removal_costs(dir: BorrowedFd<'_>) -> Costs {
    static MEASURED: Mutex<Option<HashMap<u64, Costs>>> = Mutex::new(None);
    let Ok(stat) = rustix::fs::fstat(dir) else {
        return UNMEASURED;
    };
    let device = stat.st_dev;
    if let Some(costs) = MEASURED
        .lock()
        .ok()
        .and_then(|known| known.as_ref()?.get(&device).copied())
    {
        return costs;
    }
    let taken = |folder: bool| {
        let mut taken: Vec<Duration> = (0..PROBES).filter_map(|i| probe(dir, folder, i)).collect();
        taken.sort();
        (taken.len() == PROBES as usize).then_some(taken)
    };
    let (Some(files), Some(folders)) = (taken(false), taken(true)) else {
        return UNMEASURED;
    };
    let middle = PROBES as usize / 2;
    let name = files[middle];
    let folder = folders[middle] * 2;
    let costs = Costs {
        name,
        block: folder.saturating_sub(name),
    };
    if let Ok(mut known) = MEASURED.lock() {
        let known = known.get_or_insert_with(HashMap::new);
        // Each copy-mode run is a tmpfs of its own, a device number the kernel
        // hands out again later: the table stays small.
        if known.len() >= KNOWN_DEVICES {
            known.clear();
        }
        known.insert(device, costs);
    }
    costs
}

/// How many files, and folders, a file system's removals are measured with.
const PROBES: u32 = 5;
/// How many file systems' costs are kept at most.
const KNOWN_DEVICES: usize = 64;

/// The time an empty file's or folder's removal took in `dir`, or `None` where
/// one could not be made.
fn probe(dir: BorrowedFd<'_>, folder: bool, i: u32) -> Option<Duration> {
    let name = format!(".ruby_llm_probe_{}_{i}", std::process::id());
    let name = name.as_str();
    let flags = if folder {
        rustix::fs::mkdirat(dir, name, Mode::RWXU).ok()?;
        AtFlags::REMOVEDIR
    } else {
        let flags =
            rustix::fs::OFlags::CREATE | rustix::fs::OFlags::EXCL | rustix::fs::OFlags::CLOEXEC;
        drop(rustix::fs::openat(dir, name, flags | rustix::fs::OFlags::WRONLY, Mode::RUSR).ok()?);
        AtFlags::empty()
    };
    let started = Instant::now();
    rustix::fs::unlinkat(dir, name, flags).ok()?;
    Some(started.elapsed())
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::os::fd::AsFd;

    #[test]
    fn counts_the_names_a_folder_gains_and_leaves_no_probe_behind() {
        let dir = tempfile::tempdir().unwrap();
        let fd = std::fs::File::open(dir.path()).unwrap();
        let reserve = Reserve::new(fd.as_fd(), Duration::ZERO, 0);
        assert!(std::fs::read_dir(dir.path()).unwrap().next().is_none());
        // Other processes of the host (other tests) make and remove names and
        // blocks on the same file system meanwhile (a 200 MB file removed takes
        // 51,200 blocks at once; the escape suite removes folders by the
        // hundred thousand): some round must see its own names, and some its
        // own blocks. Ten rounds in a row were once all met by removals on a
        // busy machine, so the rounds are spread over about ten seconds.
        let (mut names, mut blocks) = (false, false);
        for round in 0..100 {
            if round > 0 {
                std::thread::sleep(Duration::from_millis(100));
            }
            let start = reserve.added(fd.as_fd());
            for i in 0..200 {
                std::fs::create_dir(dir.path().join(format!("d{round}_{i}"))).unwrap();
            }
            let end = reserve.added(fd.as_fd());
            names |= end.names >= start.names + 150;
            blocks |= end.blocks >= start.blocks + 150;
            if names && blocks {
                break;
            }
        }
        assert!(
            names && blocks,
            "names seen: {names}, blocks seen: {blocks}"
        );
    }

    #[test]
    fn keeps_back_more_the_more_names_and_blocks_past_those_a_run_keeps() {
        let reserve = Reserve {
            start: None,
            fixed: Duration::from_millis(100),
            costs: Costs {
                name: Duration::from_micros(10),
                block: Duration::from_millis(3),
            },
            free: 1000,
        };
        let added = |names, blocks| Used { names, blocks };
        assert_eq!(reserve.needed(added(0, 0)), Duration::from_millis(100));
        assert_eq!(
            reserve.needed(added(1000, 1000)),
            Duration::from_millis(150)
        );
        // Empty files past the count cost their names; folders, their blocks too.
        assert_eq!(reserve.needed(added(2000, 10)), Duration::from_millis(240));
        assert_eq!(
            reserve.needed(added(2000, 2000)),
            Duration::from_millis(3210)
        );
    }
}
