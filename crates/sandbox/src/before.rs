//! The look before a run, kept in an unlinked file of the app's rather than in
//! its memory. The app's walk writes each entry to the file as it meets it, so
//! what the app holds for the look is the walk's own (a folder's ancestors),
//! whatever the folder holds; the helper after the run (`after`), in the run's
//! cgroups, reads it back whole and compares. The file holds at most
//! `folder_names` entries whose paths come to at most `MAX_PATH_BYTES_HELD`: past
//! them the look stops and the code does not run. It is made with `O_TMPFILE`
//! where the file system has it (else made and unlinked at once) in the app's
//! temporary folder, so no other process can open it by name, and it is gone once
//! the app closes it, or dies.

use std::fs::File;
use std::io::{BufReader, BufWriter, Read, Write};
use std::os::fd::{AsRawFd, BorrowedFd, RawFd};
use std::os::unix::fs::FileExt;

use file_store_base::error::{Error, Result};

use crate::limits::Limits;
use crate::notes::note_gaps;
use crate::records::{self, Record};
use crate::snapshot::{self, Digests, Snapshot};

/// The look before a run, on disk.
pub(crate) struct Before {
    file: File,
}

impl Before {
    /// Looks at the folder open on `root`, with the digests `digests` asks for,
    /// noting what the walk could not see, and keeps the look in a file in the
    /// folder `kept_in`: `None` when the folder holds more names, or bytes of
    /// paths, than a run may start in.
    pub fn take(
        root: BorrowedFd<'_>,
        digests: Digests<'_>,
        limits: &Limits,
        kept_in: &std::path::Path,
        notes: &mut Vec<String>,
    ) -> Result<Option<Before>> {
        let failed = |e: std::io::Error| {
            Error::Sandbox(format!(
                "cannot keep the look at the folder before the run in {}: {e}",
                kept_in.display()
            ))
        };
        let file = tempfile::tempfile_in(kept_in).map_err(failed)?;
        let mut out = BufWriter::with_capacity(64 << 10, &file);
        let mut error = None;
        let walked = snapshot::stream_within(
            root,
            digests,
            limits.folder_names,
            snapshot::MAX_PATH_BYTES_HELD,
            |path, stamp| match records::stamped(&mut out, b's', path, stamp) {
                Ok(()) => true,
                Err(e) => {
                    error = Some(e);
                    false
                }
            },
        );
        if let Some(e) = error {
            return Err(failed(e));
        }
        match walked {
            Ok(Some(gaps)) => note_gaps(&gaps, notes),
            Ok(None) => return Ok(None),
            Err(e) => notes.push(format!(
                "The run folder could not be read ({e}), so the files the run touched are not listed."
            )),
        }
        records::end(&mut out).map_err(failed)?;
        out.flush().map_err(failed)?;
        drop(out);
        Ok(Some(Before { file }))
    }

    /// The look, read back whole.
    pub fn load(&self) -> std::io::Result<Snapshot> {
        let mut input = BufReader::with_capacity(
            64 << 10,
            At {
                file: &self.file,
                offset: 0,
            },
        );
        let mut snapshot = Snapshot::new();
        loop {
            match records::next(&mut input) {
                Some(Record::Stamped(_, path, stamp)) => {
                    snapshot.insert(path, stamp);
                }
                Some(Record::End) => return Ok(snapshot),
                _ => {
                    return Err(std::io::Error::new(
                        std::io::ErrorKind::InvalidData,
                        "the look before the run is cut short",
                    ))
                }
            }
        }
    }

    /// The descriptor the helper after the run keeps open.
    pub fn raw_fd(&self) -> RawFd {
        self.file.as_raw_fd()
    }
}

/// The file read from `offset` on by position, so the app and a helper it forked
/// never share a file offset.
struct At<'a> {
    file: &'a File,
    offset: u64,
}

impl Read for At<'_> {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        let read = self.file.read_at(buf, self.offset)?;
        self.offset += read as u64;
        Ok(read)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rustix::fs::Mode;
    use std::os::fd::AsFd;

    fn look(dir: &std::path::Path, limits: &Limits) -> Option<Before> {
        let fd = rustix::fs::open(dir, file_store_base::tree::DIR_FLAGS, Mode::empty()).unwrap();
        Before::take(
            fd.as_fd(),
            Digests::Budget(1 << 20),
            limits,
            &std::env::temp_dir(),
            &mut Vec::new(),
        )
        .unwrap()
    }

    #[test]
    fn where_the_look_cannot_be_kept_the_error_names_the_folder() {
        let dir = tempfile::tempdir().unwrap();
        let fd =
            rustix::fs::open(dir.path(), file_store_base::tree::DIR_FLAGS, Mode::empty()).unwrap();
        let nowhere = dir.path().join("no/such/folder");
        let Err(err) = Before::take(
            fd.as_fd(),
            Digests::None,
            &Limits::default(),
            &nowhere,
            &mut Vec::new(),
        ) else {
            panic!("kept in a folder that is not there");
        };
        assert!(err.to_string().contains("no/such/folder"), "{err}");
    }

    #[test]
    fn the_look_read_back_is_the_snapshot_and_no_name_of_it_is_left_on_disk() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::create_dir_all(dir.path().join("a/.b")).unwrap();
        std::fs::write(dir.path().join("a/.b/c.txt"), "c").unwrap();
        std::fs::write(dir.path().join("top.csv"), "1,2").unwrap();
        let before = look(dir.path(), &Limits::default()).unwrap();
        let fd =
            rustix::fs::open(dir.path(), file_store_base::tree::DIR_FLAGS, Mode::empty()).unwrap();
        let taken = snapshot::take_fd(fd.as_fd(), Digests::Budget(1 << 20))
            .unwrap()
            .0;
        assert_eq!(before.load().unwrap(), taken);
        assert_eq!(
            before.load().unwrap(),
            taken,
            "read twice, from the start each time"
        );
        let link = std::fs::read_link(format!("/proc/self/fd/{}", before.raw_fd())).unwrap();
        assert!(link.to_string_lossy().ends_with("(deleted)"), "{link:?}");
    }

    #[test]
    fn past_the_folder_names_there_is_no_look() {
        let dir = tempfile::tempdir().unwrap();
        (0..5).for_each(|i| std::fs::write(dir.path().join(i.to_string()), "x").unwrap());
        let limits = |names| Limits {
            folder_names: names,
            ..Limits::default()
        };
        assert!(look(dir.path(), &limits(5)).is_some());
        assert!(look(dir.path(), &limits(4)).is_none());
    }
}
