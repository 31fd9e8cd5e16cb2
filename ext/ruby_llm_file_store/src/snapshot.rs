//! `Native::Snapshot`: the size and times of every file in a folder (and which
//! folders and other entries it holds), to compare.

use std::path::PathBuf;

use magnus::{function, method, prelude::*, Error, RHash, RModule, Ruby};

use file_store_sandbox::snapshot;

use crate::{errors, named::named, nogvl::nogvl};

#[magnus::wrap(class = "RubyLLM::FileStore::Native::Snapshot", free_immediately, size)]
pub struct Snapshot(pub snapshot::Snapshot);

impl Snapshot {
    /// Takes the snapshot of `dir`, with the GVL released.
    fn take(ruby: &Ruby, dir: String) -> Result<Snapshot, Error> {
        let dir = PathBuf::from(dir);
        let taken = nogvl(ruby, move || snapshot::take(&dir))?;
        taken.map(Snapshot).map_err(|e| errors::map(ruby, e))
    }

    /// `{created:, changed:, deleted:, unnamed:, hidden:, entries:}` from this
    /// snapshot to `later`: `entries` are the new folders, links and other entries.
    fn changes(ruby: &Ruby, rb_self: &Snapshot, later: &Snapshot) -> Result<RHash, Error> {
        changes_hash(ruby, snapshot::diff(&rb_self.0, &later.0))
    }

    /// Removes the regular file at `path` (as a snapshot lists it) below `dir`,
    /// never through a link; whether one was removed.
    fn remove(ruby: &Ruby, dir: String, path: String) -> Result<bool, Error> {
        let dir = PathBuf::from(dir);
        let removed = nogvl(ruby, move || snapshot::remove(&dir, &path))?;
        removed.map_err(|e| errors::map(ruby, e))
    }

    /// Removes the entries at `paths` (folders when empty, links, FIFOs, sockets;
    /// no regular file) below `dir`, in the order given, never through a link; how
    /// many were removed.
    fn remove_entries(ruby: &Ruby, dir: String, paths: Vec<String>) -> Result<usize, Error> {
        let dir = PathBuf::from(dir);
        let removed = nogvl(ruby, move || -> file_store_base::Result<usize> {
            let mut removed = 0;
            for path in &paths {
                removed += usize::from(snapshot::remove_entry(&dir, path)?);
            }
            Ok(removed)
        })?;
        removed.map_err(|e| errors::map(ruby, e))
    }

    /// The size of the regular file at `path` when the snapshot was taken, or nil.
    fn size(&self, path: String) -> Option<u64> {
        self.0
            .get(&path)
            .filter(|stamp| stamp.file)
            .map(|stamp| stamp.size)
    }

    /// Whether the regular file at `path` is under a name the store does not
    /// list (`path::seen`: hidden, or no store path holds it).
    fn unseen(&self, path: String) -> bool {
        self.0
            .get(&path)
            .is_some_and(|stamp| stamp.file && (stamp.hidden || stamp.unnamed))
    }

    /// The paths of the regular files in the snapshot, sorted.
    fn paths(&self) -> Vec<String> {
        self.0
            .iter()
            .filter(|(_, stamp)| stamp.file)
            .map(|(path, _)| path.clone())
            .collect()
    }
}

/// `{created:, changed:, deleted:, unnamed:, hidden:, entries:}` of `changes`.
pub fn changes_hash(ruby: &Ruby, changes: snapshot::Changes) -> Result<RHash, Error> {
    named(
        ruby,
        &[
            ("created", ruby.into_value(changes.created)),
            ("changed", ruby.into_value(changes.changed)),
            ("deleted", ruby.into_value(changes.deleted)),
            ("unnamed", ruby.into_value(changes.unnamed)),
            ("hidden", ruby.into_value(changes.hidden)),
            ("entries", ruby.into_value(changes.entries)),
        ],
    )
}

pub fn define(ruby: &Ruby, native: RModule) -> Result<(), Error> {
    let class = native.define_class("Snapshot", ruby.class_object())?;
    class.define_singleton_method("take", function!(Snapshot::take, 1))?;
    class.define_singleton_method("remove", function!(Snapshot::remove, 2))?;
    class.define_singleton_method("remove_entries", function!(Snapshot::remove_entries, 2))?;
    class.define_method("changes", method!(Snapshot::changes, 1))?;
    class.define_method("paths", method!(Snapshot::paths, 0))?;
    class.define_method("size", method!(Snapshot::size, 1))?;
    class.define_method("unseen?", method!(Snapshot::unseen, 1))?;
    Ok(())
}
