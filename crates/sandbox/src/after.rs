//! What a run left, looked at in a process of its own, inside the run's cgroups
//! where it has them: the run pays for the look, not the app.
//!
//! Once every process of the run is gone, the app forks a helper. It joins the
//! run's cgroups (raised for it by `Groups::for_helper`: memory of its own, no
//! CPU ceiling, whatever the run had), repairs the
//! folder (`owner`), takes the snapshot after the run, and sends back over a pipe
//! only what the app needs, one record at a time: the notes, the entries that
//! are new or changed (and the hidden or unnamed files still there, which count
//! against a run's limits), and the files deleted. What the folder held and the
//! run left untouched never reaches the app, and what the run may add to it is
//! bounded by the repair: `new_names` names and `NEW_PATH_BYTES` of their paths.
//!
//! The helper runs no program: glibc's `fork` hands the child a usable allocator
//! (it takes and resets malloc's locks around the fork), and the child takes no
//! other lock, touches no Ruby value and leaves by `_exit`. It first closes every
//! descriptor but its own, as the tmpfs maker does, so no pipe end of another
//! run's child stays open in it.

use std::io::{BufReader, BufWriter, Write};
use std::os::fd::{AsFd, AsRawFd, BorrowedFd, FromRawFd, OwnedFd, RawFd};

use super::before::Before;
use super::limits::Limits;
use super::marks::Kept;
use super::notes;
use super::owner::Folder;
use super::raw::close_all_but;
use crate::records::{self, Record};
use crate::snapshot::{Digests, Snapshot, Stamp};

/// The most bytes of paths the new names a run leaves may add up to; past them
/// the repair removes the rest, as past `new_names`. With the store's paths of at
/// most 4,096 bytes, 1,024 of the longest; with paths of 200 bytes, every one of
/// the 20,000 new names a run keeps by default.
pub const NEW_PATH_BYTES: u64 = 4 << 20;

/// What the helper found, as the app keeps it.
#[derive(Debug, Default)]
pub(super) struct Looked {
    /// Notes for the model: the repair's and the look's.
    pub notes: Vec<String>,
    /// The entries of the snapshot after the run that are new, or differ from
    /// those before, and the hidden or unnamed files the folder still holds.
    pub left: Snapshot,
    /// What the look before the run held of the paths in `left`: all the app
    /// keeps of it.
    pub was: Snapshot,
    /// The files of the snapshot before that the one after lacks (listable
    /// ones only, as `snapshot::diff` counts them).
    pub deleted: Vec<String>,
}

/// Repairs the folder and looks at it after a run, in a helper joined to the
/// cgroups whose `cgroup.procs` are open on `groups`, which reads the look before
/// the run back from `before`. `None` when no helper could be started or it ended
/// before it was done (killed at the run's memory ceiling): the app then does
/// both itself.
pub(super) fn look(
    folder: &Folder,
    kept: &Kept,
    before: &Before,
    limits: &Limits,
    groups: &[RawFd],
) -> Option<Looked> {
    let mut ends = [0 as libc::c_int; 2];
    // SAFETY: pipe2 fills the two descriptors it was given room for.
    if unsafe { libc::pipe2(ends.as_mut_ptr(), libc::O_CLOEXEC) } != 0 {
        return None;
    }
    // SAFETY: both are new descriptors, owned by nothing else.
    let (read, write) = unsafe { (OwnedFd::from_raw_fd(ends[0]), OwnedFd::from_raw_fd(ends[1])) };
    let mut own: Vec<RawFd> = vec![folder.fd.as_raw_fd(), write.as_raw_fd(), before.raw_fd()];
    own.extend_from_slice(groups);
    own.sort_unstable();
    // SAFETY: see the module's doc; the child ends in `_exit`, never returning.
    let pid = unsafe { libc::fork() };
    if pid < 0 {
        return None;
    }
    if pid == 0 {
        // SAFETY: in the forked child, which leaves only by the `_exit` below: `own` is
        // the sorted array `close_all_but` needs, made before the fork, and the call only
        // closes numbers. The copies of the parent's OwnedFds whose numbers it closes are
        // never used or dropped here, since the child never returns from this block.
        let ok = unsafe { close_all_but(&own) }.is_ok()
            && groups.iter().all(|fd| super::cgroup::join(*fd).is_ok());
        let sent = ok && helper(folder, kept, before, limits, write.as_fd()).is_ok();
        // SAFETY: _exit takes an integer and ends the child at once, without running the
        // app's exit handlers or dropping the parent's values copied into it.
        unsafe { libc::_exit(if sent { 0 } else { 1 }) }
    }
    drop(write);
    let looked = receive(read);
    let mut status = 0;
    loop {
        // SAFETY: waits for the child just forked.
        let reaped = unsafe { libc::waitpid(pid, &mut status, 0) };
        if reaped == pid
            || (reaped < 0
                && std::io::Error::last_os_error().kind() != std::io::ErrorKind::Interrupted)
        {
            break;
        }
    }
    looked.filter(|_| libc::WIFEXITED(status) && libc::WEXITSTATUS(status) == 0)
}

/// The helper's work, in the child: the look before read back, the repair, the
/// look after, and the records.
fn helper(
    folder: &Folder,
    kept: &Kept,
    before: &Before,
    limits: &Limits,
    out: BorrowedFd<'_>,
) -> std::io::Result<()> {
    let before = before.load()?;
    let mut notes = Vec::new();
    let after = repair_and_look(folder, kept, &before, limits, &mut notes);
    let mut out = BufWriter::with_capacity(64 << 10, Pipe(out));
    for note in &notes {
        records::record(&mut out, b'n', note.as_bytes())?;
    }
    for (path, stamp) in &after {
        if kept_by_app(&before, path, stamp) {
            records::stamped(&mut out, b's', path, stamp)?;
            if let Some(was) = before.get(path) {
                records::stamped(&mut out, b'b', path, was)?;
            }
        }
    }
    for path in crate::snapshot::deleted(&before, &after) {
        records::record(&mut out, b'd', path.as_bytes())?;
    }
    records::end(&mut out)?;
    out.flush()
}

/// The repair after a run and the snapshot after it, with their notes: what the
/// helper does, and the app itself where no helper could.
pub(super) fn repair_and_look(
    folder: &Folder,
    kept: &Kept,
    before: &Snapshot,
    limits: &Limits,
    notes: &mut Vec<String>,
) -> Snapshot {
    let repaired = folder.repair_within(kept, before, limits.new_names, NEW_PATH_BYTES);
    notes::note_gaps(&repaired.gaps, notes);
    notes::note_too_deep(&repaired.too_deep, notes);
    if repaired.over > 0 {
        notes.push(format!(
            "The run left more than {} new files, folders and links, or {} MiB of their paths: \
             {} more were removed, in the order the folders list them.",
            limits.new_names,
            NEW_PATH_BYTES >> 20,
            repaired.over
        ));
    }
    snapshot_of(folder, Digests::Touched(before), notes)
}

/// Takes a snapshot of `folder` with the digests `digests` asks for, noting what
/// it could not see.
fn snapshot_of(folder: &Folder, digests: Digests<'_>, notes: &mut Vec<String>) -> Snapshot {
    match crate::snapshot::take_fd(folder.fd.as_fd(), digests) {
        Ok((snapshot, gaps)) => {
            notes::note_gaps(&gaps, notes);
            snapshot
        }
        Err(e) => {
            notes.push(format!(
                "The run folder could not be read ({e}), so the files the run touched are not listed."
            ));
            Snapshot::new()
        }
    }
}

/// Whether the entry at `path` after the run reaches the app: when it is new or
/// differs from before, or is a file under a hidden or unnamed name, which
/// counts against a run's limits whether or not this run touched it.
pub(super) fn kept_by_app(before: &Snapshot, path: &str, stamp: &Stamp) -> bool {
    (stamp.file && (stamp.hidden || stamp.unnamed))
        || before.get(path).is_none_or(|old| !old.same(stamp))
}

/// The write end of the helper's pipe.
struct Pipe<'a>(BorrowedFd<'a>);

impl Write for Pipe<'_> {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        loop {
            match rustix::io::write(self.0, buf) {
                Err(rustix::io::Errno::INTR) => continue,
                other => return other.map_err(Into::into),
            }
        }
    }

    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

/// The records from the helper, as they come; `None` unless they end with the
/// end mark.
fn receive(read: OwnedFd) -> Option<Looked> {
    let mut input = BufReader::with_capacity(64 << 10, std::fs::File::from(read));
    let mut looked = Looked::default();
    loop {
        match records::next(&mut input)? {
            Record::End => return Some(looked),
            Record::Text(b'n', note) => looked.notes.push(note),
            Record::Text(b'd', path) => looked.deleted.push(path),
            Record::Stamped(b's', path, stamp) => {
                looked.left.insert(path, stamp);
            }
            Record::Stamped(b'b', path, stamp) => {
                looked.was.insert(path, stamp);
            }
            _ => return None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_records_come_to_the_app_and_a_cut_stream_is_none() {
        let stamp = Stamp {
            file: true,
            size: 1,
            mtime_ns: 2,
            ctime_ns: 3,
            unnamed: false,
            hidden: false,
            digest: None,
        };
        let mut bytes = Vec::new();
        records::record(&mut bytes, b'n', b"a note").unwrap();
        records::record(&mut bytes, b'd', b"gone.txt").unwrap();
        records::stamped(&mut bytes, b's', "new.txt", &stamp).unwrap();
        records::stamped(&mut bytes, b'b', "new.txt", &Stamp { size: 9, ..stamp }).unwrap();
        let through = |bytes: &[u8]| {
            let mut ends = [0 as libc::c_int; 2];
            assert_eq!(
                // SAFETY: pipe2 writes two descriptors into `ends`, an array of two.
                unsafe { libc::pipe2(ends.as_mut_ptr(), libc::O_CLOEXEC) },
                0
            );
            // SAFETY: pipe2 succeeded (asserted): both are new descriptors that nothing
            // else owns.
            let (read, write) =
                unsafe { (OwnedFd::from_raw_fd(ends[0]), OwnedFd::from_raw_fd(ends[1])) };
            std::fs::File::from(write).write_all(bytes).unwrap();
            receive(read)
        };
        assert!(through(&bytes).is_none());
        records::end(&mut bytes).unwrap();
        let looked = through(&bytes).unwrap();
        assert_eq!(looked.notes, vec!["a note"]);
        assert_eq!(looked.deleted, vec!["gone.txt"]);
        assert_eq!(looked.left["new.txt"], stamp);
        assert_eq!(looked.was["new.txt"].size, 9);
    }
}
