//! A walk over a folder that code may have shaped: descriptor-relative, never
//! through a link, holding the descriptors of the current folder's ancestors only.
//!
//! A folder's names are read whole and its stream closed before any of its
//! subfolders is opened, so a folder of 100,000 subfolders costs one descriptor, and
//! a chain of folders costs one per level down to `MAX_DEPTH`, past which the walk
//! does not go and says so. Every name is visited, hidden ones included: callers
//! leave out what they do not want.

use std::ffi::CString;
use std::os::fd::{AsFd, BorrowedFd, OwnedFd};

use rustix::fs::{AtFlags, Dir, FileType, Mode, OFlags, Stat};
use rustix::io::Errno;

/// Levels of folders below the root a walk enters: one descriptor each, well
/// below the 1,024 a process is often allowed, or even 256, and more levels than
/// anyone's folders have.
pub const MAX_DEPTH: usize = 128;

/// Flags for opening a folder in a walk: never through a link.
pub const DIR_FLAGS: OFlags = OFlags::RDONLY
    .union(OFlags::DIRECTORY)
    .union(OFlags::NOFOLLOW)
    .union(OFlags::CLOEXEC);

/// One name met by a walk.
pub struct Item<'a> {
    /// The folder holding it.
    pub dir: BorrowedFd<'a>,
    /// Its name there.
    pub name: &'a CString,
    /// Its path below the root, names joined with `/` (lossy where not UTF-8).
    pub path: &'a str,
    /// Whether a name on the way, or its own, is not UTF-8.
    pub unnamed: bool,
    /// Its status, links not followed.
    pub stat: &'a Stat,
    /// 1 for a name in the root itself.
    pub depth: usize,
}

/// What a walk could not do; it went on past each of these.
#[derive(Debug, Default, Clone, PartialEq, Eq)]
pub struct Gaps {
    /// Folders not entered because they lie `MAX_DEPTH` levels down.
    pub too_deep: Vec<String>,
    /// Folders that could not be opened or read, with why.
    pub unreadable: Vec<(String, Errno)>,
}

impl Gaps {
    /// Whether the walk saw everything.
    pub fn is_empty(&self) -> bool {
        self.too_deep.is_empty() && self.unreadable.is_empty()
    }
}

/// What a visit asks of the walk for a folder.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Descend {
    /// Walk into it.
    Yes,
    /// Leave it out.
    No,
}

struct Frame {
    fd: OwnedFd,
    prefix: String,
    unnamed: bool,
    names: std::vec::IntoIter<CString>,
}

/// Reads the names in `fd`, less `.` and `..`.
fn names_in(fd: &OwnedFd) -> Result<Vec<CString>, Errno> {
    let mut names = Vec::new();
    for item in Dir::read_from(fd)? {
        let item = item?;
        let name = item.file_name();
        if name.to_bytes() != b"." && name.to_bytes() != b".." {
            names.push(name.to_owned());
        }
    }
    Ok(names)
}

/// Walks everything below `root` in pre-order, calling `visit` for each name (its
/// status taken without following a link) and entering each folder it says to.
/// A name gone since it was listed is skipped; `post` is called for each folder
/// once everything below it was visited, with the folder's own descriptor.
pub fn walk(
    root: BorrowedFd<'_>,
    mut visit: impl FnMut(&Item<'_>) -> Descend,
    mut post: impl FnMut(BorrowedFd<'_>, &str),
) -> Result<Gaps, Errno> {
    let mut gaps = Gaps::default();
    let root = rustix::fs::openat(root, ".", DIR_FLAGS, Mode::empty())?;
    let names = names_in(&root)?;
    let mut stack = vec![Frame {
        fd: root,
        prefix: String::new(),
        unnamed: false,
        names: names.into_iter(),
    }];
    while !stack.is_empty() {
        let depth = stack.len();
        let frame = stack.last_mut().expect("the stack is not empty");
        let Some(name) = frame.names.next() else {
            let done = stack.pop().expect("the loop saw a frame");
            post(done.fd.as_fd(), &done.prefix);
            continue;
        };
        let (shown, bad) = match name.to_str() {
            Ok(shown) => (shown.to_string(), false),
            Err(_) => (String::from_utf8_lossy(name.to_bytes()).into_owned(), true),
        };
        let path = if frame.prefix.is_empty() {
            shown
        } else {
            format!("{}/{shown}", frame.prefix)
        };
        let unnamed = frame.unnamed || bad;
        let stat = match rustix::fs::statat(frame.fd.as_fd(), &name, AtFlags::SYMLINK_NOFOLLOW) {
            Ok(stat) => stat,
            Err(Errno::NOENT) => continue,
            Err(e) => {
                gaps.unreadable.push((path, e));
                continue;
            }
        };
        let item = Item {
            dir: frame.fd.as_fd(),
            name: &name,
            path: &path,
            unnamed,
            stat: &stat,
            depth,
        };
        let wanted = visit(&item);
        if FileType::from_raw_mode(stat.st_mode) != FileType::Directory || wanted == Descend::No {
            continue;
        }
        if depth >= MAX_DEPTH {
            gaps.too_deep.push(path);
            continue;
        }
        let opened = rustix::fs::openat(frame.fd.as_fd(), &name, DIR_FLAGS, Mode::empty())
            .and_then(|fd| names_in(&fd).map(|names| (fd, names)));
        match opened {
            Ok((fd, names)) => stack.push(Frame {
                fd,
                prefix: path,
                unnamed,
                names: names.into_iter(),
            }),
            // Gone, or swapped for a link or a file since the stat: nothing to walk.
            Err(Errno::NOENT | Errno::LOOP | Errno::NOTDIR) => {}
            Err(e) => gaps.unreadable.push((path, e)),
        }
    }
    Ok(gaps)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::fs;

    fn open(path: &std::path::Path) -> OwnedFd {
        rustix::fs::open(path, DIR_FLAGS, Mode::empty()).unwrap()
    }

    /// The descriptors this process holds on `dir` or below it: other tests, on
    /// other threads, open and close their own at the same time.
    fn fds_on(dir: &std::path::Path) -> usize {
        fs::read_dir("/proc/self/fd")
            .unwrap()
            .filter_map(|entry| fs::read_link(entry.ok()?.path()).ok())
            .filter(|target| target.starts_with(dir))
            .count()
    }

    #[test]
    fn a_wide_tree_costs_one_descriptor_per_level() {
        let dir = tempfile::tempdir().unwrap();
        for i in 0..3000 {
            fs::create_dir(dir.path().join(format!("d{i}"))).unwrap();
            fs::write(dir.path().join(format!("d{i}/f")), "x").unwrap();
        }
        let root = open(dir.path());
        let before = fds_on(dir.path());
        let mut most = 0;
        let mut files = 0;
        let gaps = walk(
            root.as_fd(),
            |item| {
                most = most.max(fds_on(dir.path()) - before);
                files += usize::from(item.path.ends_with("/f"));
                Descend::Yes
            },
            |_, _| {},
        )
        .unwrap();
        assert!(gaps.is_empty());
        assert_eq!(files, 3000);
        // The root's own copy and one subfolder.
        assert!(most <= 3, "{most} descriptors held at once");
    }

    #[test]
    fn a_chain_past_max_depth_stops_there_and_says_so() {
        let dir = tempfile::tempdir().unwrap();
        let mut path = dir.path().to_path_buf();
        for _ in 0..MAX_DEPTH + 5 {
            path.push("d");
        }
        fs::create_dir_all(&path).unwrap();
        let root = open(dir.path());
        let mut deepest = 0;
        let gaps = walk(
            root.as_fd(),
            |item| {
                deepest = deepest.max(item.depth);
                Descend::Yes
            },
            |_, _| {},
        )
        .unwrap();
        assert_eq!(deepest, MAX_DEPTH);
        assert_eq!(gaps.too_deep.len(), 1);
        assert_eq!(gaps.too_deep[0].matches('/').count(), MAX_DEPTH - 1);
    }
}
