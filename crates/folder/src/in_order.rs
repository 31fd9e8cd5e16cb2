//! A walk that finds a folder's files in the order sorting their paths gives, so
//! a caller can start on the first files while the walk goes on to the rest.

use std::os::fd::BorrowedFd;

use rustix::fs::FileType;

use super::walk::{below, join, read_folder};
use file_store_base::error::Result;

/// A folder being walked: where it is, and its names not yet walked, each a
/// subfolder's with a `/` after it, in reverse order so the next is popped.
struct Frame {
    relative: String,
    path: String,
    names: Vec<String>,
}

/// Reads the folder `relative` to `start` into a frame; `None` as
/// [`read_folder`] says.
fn frame(start: BorrowedFd<'_>, base: &str, relative: String) -> Result<Option<Frame>> {
    let path = below(base, &relative);
    let Some((_, listed)) = read_folder(start, &relative, &path)? else {
        return Ok(None);
    };
    let mut names: Vec<String> = listed
        .into_iter()
        .map(|(name, kind)| match kind {
            FileType::Directory => name + "/",
            _ => name,
        })
        .collect();
    // A folder's files sort as its name with a `/` after it, since that is how
    // every path inside it starts: sorted so, the walk meets the paths in order.
    names.sort_unstable_by(|a, b| b.cmp(a));
    Ok(Some(Frame {
        relative,
        path,
        names,
    }))
}

/// Calls `visit` with the store path of every regular file below `start` (whose
/// path is `base`), in the order sorting all the paths gives, leaving out what
/// `walk_files` leaves out. No folder's descriptor is held once its names are
/// read: a walk holds `start` and one folder being read, whatever the tree's
/// shape, and the names of each folder on the way down.
pub(super) fn walk_paths_in_order(
    start: BorrowedFd<'_>,
    base: &str,
    mut visit: impl FnMut(String) -> Result<()>,
) -> Result<()> {
    let mut stack: Vec<Frame> = frame(start, base, String::new())?.into_iter().collect();
    while let Some(top) = stack.last_mut() {
        let Some(name) = top.names.pop() else {
            stack.pop();
            continue;
        };
        match name.strip_suffix('/') {
            Some(folder) => {
                let relative = join(&top.relative, folder);
                if let Some(inner) = frame(start, base, relative)? {
                    stack.push(inner);
                }
            }
            None => visit(join(&top.path, &name))?,
        }
    }
    Ok(())
}
