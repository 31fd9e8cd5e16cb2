//! The processes of a run that would come back to the app as zombies. Where the
//! app adopts orphans (the first process of its PID namespace, as in a container
//! without an init, or a child subreaper), a process of the run whose parent
//! ended first (killed with the run, or a daemon it left) is reparented to the
//! app, which no one makes wait for it: each timed-out run left one zombie for
//! good, or one a background child. There the run's first process is made a
//! subreaper too, so its orphans stay below it while it lives, the run's
//! processes are looked at as the run goes on, and once the run has ended, those
//! that came back to the app are reaped: by pid and start time, so no child of
//! the app's own is ever waited for.

use std::collections::HashMap;
use std::time::{Duration, Instant};

/// How long the app waits, after the kill, for the run's processes to end.
const SETTLE: Duration = Duration::from_millis(500);

/// The run's processes seen so far, by pid, with their start time.
pub(crate) struct Orphans {
    root: Option<i32>,
    seen: HashMap<i32, u64>,
}

impl Orphans {
    /// The watch over the run whose first process is `root`; none where the app
    /// adopts no orphan.
    pub(crate) fn new(root: Option<i32>) -> Orphans {
        Orphans {
            root: root.filter(|_| crate::removing::adopts_orphans()),
            seen: HashMap::new(),
        }
    }

    /// Keeps every process now below the run's first one.
    pub(crate) fn look(&mut self) {
        let Some(root) = self.root else {
            return;
        };
        let mut children: HashMap<i32, Vec<(i32, u64)>> = HashMap::new();
        for (pid, stat) in processes() {
            children
                .entry(stat.parent)
                .or_default()
                .push((pid, stat.started));
        }
        let mut below = vec![root];
        while let Some(parent) = below.pop() {
            for &(pid, started) in children.get(&parent).into_iter().flatten() {
                if let std::collections::hash_map::Entry::Vacant(entry) = self.seen.entry(pid) {
                    entry.insert(started);
                    below.push(pid);
                }
            }
        }
    }

    /// Once the run has ended and been killed: reaps those of its processes that
    /// came back to the app, and those of the app's children still in the run's
    /// process group (`root`'s), waiting up to `SETTLE` for the killed to end.
    pub(crate) async fn reap(&mut self) {
        let Some(root) = self.root else {
            return;
        };
        let me = std::process::id() as i32;
        let until = Instant::now() + SETTLE;
        loop {
            let mut waiting = false;
            for (pid, stat) in processes() {
                let ours = self.seen.get(&pid) == Some(&stat.started) || stat.group == root;
                if !ours || stat.parent != me || pid == root {
                    continue;
                }
                if stat.state == 'Z' {
                    let mut status = 0;
                    // SAFETY: waits for `pid`, a child of this process that has ended,
                    // without blocking; the status is written to a local.
                    unsafe { libc::waitpid(pid, &mut status, libc::WNOHANG) };
                    self.seen.remove(&pid);
                } else {
                    waiting = true;
                }
            }
            if !waiting || Instant::now() >= until {
                return;
            }
            tokio::time::sleep(Duration::from_millis(5)).await;
        }
    }
}

/// What /proc says of one process.
struct Stat {
    state: char,
    parent: i32,
    group: i32,
    started: u64,
}

/// Every process this one can see.
fn processes() -> Vec<(i32, Stat)> {
    let Ok(entries) = std::fs::read_dir("/proc") else {
        return Vec::new();
    };
    entries
        .flatten()
        .filter_map(|entry| {
            let pid = entry.file_name().to_str()?.parse::<i32>().ok()?;
            let stat = std::fs::read_to_string(entry.path().join("stat")).ok()?;
            Some((pid, parse(&stat)?))
        })
        .collect()
}

/// The fields after the name (which may hold spaces and parentheses): state,
/// parent, group, ... and the start time, the 22nd field of the line.
fn parse(stat: &str) -> Option<Stat> {
    let fields: Vec<&str> = stat.rsplit_once(") ")?.1.split(' ').collect();
    Some(Stat {
        state: fields.first()?.chars().next()?,
        parent: fields.get(1)?.parse().ok()?,
        group: fields.get(2)?.parse().ok()?,
        started: fields.get(19)?.parse().ok()?,
    })
}
