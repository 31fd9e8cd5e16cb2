//! The bubblewrap command line: which parts of the machine a run sees, and how.

use std::ffi::CString;
use std::os::fd::{AsRawFd, OwnedFd, RawFd};
use std::path::Path;

use super::raw::{check, make_mounts_private};
use super::seccomp;
use super::spec::Spec;
use file_store_base::error::{Error, Result};

/// The system folders a program needs, read-only. A link among them (a merged
/// /usr makes /bin a link to usr/bin) is recreated as the same link.
const SYSTEM: &[&str] = &[
    "/usr", "/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32",
];

/// The parts of /etc that programs read; the rest (/etc/shadow, keys, the host's
/// configuration) is not there at all.
const ETC: &[&str] = &[
    "/etc/alternatives",
    "/etc/ld.so.cache",
    "/etc/ld.so.conf",
    "/etc/ld.so.conf.d",
    "/etc/localtime",
    "/etc/passwd",
    "/etc/group",
    "/etc/nsswitch.conf",
    "/etc/mime.types",
    "/etc/ssl",
    "/etc/ca-certificates",
    "/etc/fonts",
    "/etc/matplotlibrc",
    "/etc/python3",
];

/// The environment of every run: nothing of the caller's (no API keys), a PATH,
/// a home and a temporary folder in the sandbox's own /tmp.
const ENV: &[(&str, &str)] = &[
    ("PATH", "/usr/local/bin:/usr/bin:/bin"),
    ("HOME", "/tmp"),
    ("TMPDIR", "/tmp"),
    ("LANG", "C.UTF-8"),
    // Compiled-bytecode folders would show up as files the run wrote.
    ("PYTHONDONTWRITEBYTECODE", "1"),
    // Charts go to files; there is no display.
    ("MPLBACKEND", "Agg"),
];

/// The size of the sandbox's /dev/shm, in bytes: /dev itself is read-only.
pub(super) const SHM_BYTES: u64 = 64 << 20;

/// Where the sources of the sandbox's mounts are shown to bubblewrap when it runs
/// as the unprivileged uid of a root app: a tmpfs over it in the run's own mount
/// namespace, so the host's never changes. Any folder every user may search does.
const STAGE: &str = "/tmp";

/// The uid (and gid) a sandboxed run of a root app runs as: nobody's.
pub const RUN_UID: u32 = 65534;

/// The uid the run's processes have on the host: RUN_UID for a root app's
/// sandboxed run, else the app's own.
pub(super) fn run_uid(sandbox: bool) -> u32 {
    let uid = rustix::process::geteuid().as_raw();
    if sandbox && uid == 0 {
        RUN_UID
    } else {
        uid
    }
}

/// `spec.argv` wrapped in bwrap, with the descriptors and mounts the wrapping needs.
pub(super) struct Wrapped {
    /// The command line.
    pub argv: Vec<String>,
    /// Descriptors bwrap must inherit.
    pub keep: Vec<RawFd>,
    /// For a root app: the user to run bwrap as and the sources to show it.
    pub drop_to: Option<DropTo>,
    _fds: Vec<OwnedFd>,
}

/// How the child of a root app becomes an unprivileged user before bwrap starts.
#[derive(Clone)]
pub(super) struct DropTo {
    /// The uid and gid.
    pub uid: u32,
    /// The gid.
    pub gid: u32,
    stage: CString,
    /// (source path, staged path, whether a folder), mounted in the child.
    binds: Vec<(CString, CString, bool)>,
}

/// `spec.argv` wrapped in bwrap: the code sees the run folder at
/// `spec.dir`, writable, and nothing else of the host's that is writable, under the
/// seccomp programs for a run `memory_limited` by a memory cgroup or not, with the
/// tmpfs mounted at `tmp` (in the namespaces the run enters) as its /tmp.
pub(super) fn wrap(spec: &Spec, memory_limited: bool, tmp: Option<&Path>) -> Result<Wrapped> {
    let bwrap = bwrap_path().ok_or_else(|| Error::Sandbox(NOT_INSTALLED.to_string()))?;
    let fds = seccomp::files(memory_limited)?;
    let keep: Vec<RawFd> = fds.iter().map(|fd| fd.as_raw_fd()).collect();
    let mut staging = Staging {
        root: rustix::process::geteuid().is_root(),
        binds: Vec::new(),
    };
    let dir_source = staging.source(&spec.dir)?;
    let tmp_source = tmp.map(|path| staging.source(path)).transpose()?;
    let read_only: Vec<(String, String)> = spec
        .read_only
        .iter()
        .map(|path| Ok((staging.source(path)?, path.to_string_lossy().into_owned())))
        .collect::<Result<_>>()?;
    let mut args: Vec<String> = vec![bwrap];
    push_confinement(&mut args, &keep);
    push_devices_and_tmp(&mut args, spec.limits.tmp_bytes, tmp_source.as_deref());
    push_system(&mut args);
    push_run_folder(&mut args, &spec.dir, &dir_source, &read_only);
    args.extend(spec.argv.iter().cloned());
    Ok(Wrapped {
        argv: args,
        keep,
        drop_to: staging.drop_to()?,
        _fds: fds,
    })
}

/// The sources of the sandbox's mounts as bwrap is shown them. A root app's bwrap
/// runs as RUN_UID, which may not search the folders on the way to the run folder
/// or an interpreter: each source is opened in the child, as root, and shown to
/// bwrap at a staged path (`DropTo::apply`).
struct Staging {
    /// Whether the app runs as root.
    root: bool,
    /// (source path, staged path, whether a folder), for a root app.
    binds: Vec<(CString, CString, bool)>,
}

impl Staging {
    /// The path bwrap is shown for `path`: itself, or for a root app its staged path.
    fn source(&mut self, path: &Path) -> Result<String> {
        if !self.root {
            return Ok(path.to_string_lossy().into_owned());
        }
        let shown = path.display().to_string();
        let stat = rustix::fs::stat(path).map_err(|e| Error::io(&shown, e))?;
        let is_dir =
            rustix::fs::FileType::from_raw_mode(stat.st_mode) == rustix::fs::FileType::Directory;
        let staged = format!("{STAGE}/{}", self.binds.len());
        self.binds
            .push((cstring(&path.to_string_lossy())?, cstring(&staged)?, is_dir));
        Ok(staged)
    }

    /// For a root app, the user the child becomes and the sources it stages.
    fn drop_to(self) -> Result<Option<DropTo>> {
        if !self.root {
            return Ok(None);
        }
        Ok(Some(DropTo {
            uid: RUN_UID,
            gid: RUN_UID,
            stage: cstring(STAGE)?,
            binds: self.binds,
        }))
    }
}

/// Adds `parts` to the command line.
fn push(args: &mut Vec<String>, parts: &[&str]) {
    args.extend(parts.iter().map(|p| p.to_string()));
}

/// The namespaces, the user and the session the run gets, the seccomp programs
/// on the descriptors `keep`, and its environment.
fn push_confinement(args: &mut Vec<String>, keep: &[RawFd]) {
    push(
        args,
        &[
            "--unshare-all",
            // A user namespace with an unprivileged uid and no capabilities: nothing
            // inside can remount, mount a cgroup, ptrace or make a namespace of its own.
            "--unshare-user",
            "--uid",
            "65534",
            "--gid",
            "65534",
            "--cap-drop",
            "ALL",
            "--disable-userns",
            // The code is pid 1 itself: no process of bubblewrap's stays inside to be
            // traced, and when the code ends the kernel ends everything it left.
            "--as-pid-1",
            "--die-with-parent",
            // No controlling terminal to push input into (CVE-2017-5226).
            "--new-session",
            "--clearenv",
        ],
    );
    for fd in keep {
        push(args, &["--add-seccomp-fd", &fd.to_string()]);
    }
    for (name, value) in ENV {
        push(args, &["--setenv", name, value]);
    }
}

/// /proc, a read-only /dev with no pty and no view of the keys, /dev/shm, and
/// /tmp: the run's own tmpfs shown at `tmp_source`, or bubblewrap's of `tmp_bytes`.
fn push_devices_and_tmp(args: &mut Vec<String>, tmp_bytes: u64, tmp_source: Option<&str>) {
    let tmp_bytes = tmp_bytes.to_string();
    let shm = SHM_BYTES.to_string();
    // No pty: each one a run opens through /dev/ptmx is one of the host's
    // (kernel.pty.max counts every devpts instance), so /dev/pts is an empty,
    // read-only tmpfs and /dev/ptmx, its link, leads nowhere.
    push(args, &["--proc", "/proc", "--dev", "/dev"]);
    push(
        args,
        &[
            "--size",
            "4096",
            "--tmpfs",
            "/dev/pts",
            "--remount-ro",
            "/dev/pts",
        ],
    );
    push(args, &["--remount-ro", "/dev"]);
    // The kernel lists every key the user may view there, the host's too.
    push(args, &["--ro-bind", "/dev/null", "/proc/keys"]);
    push(args, &["--ro-bind", "/dev/null", "/proc/key-users"]);
    push(args, &["--size", &shm, "--tmpfs", "/dev/shm"]);
    match tmp_source {
        // The run's own tmpfs, which caps its names too (`tmp`).
        Some(own) => push(args, &["--bind", own, "/tmp"]),
        None => push(args, &["--size", &tmp_bytes, "--tmpfs", "/tmp"]),
    }
}

/// The system folders and the parts of /etc that programs read, read-only.
fn push_system(args: &mut Vec<String>) {
    for path in SYSTEM {
        match std::fs::read_link(path) {
            Ok(target) => push(args, &["--symlink", &target.to_string_lossy(), path]),
            Err(_) if Path::new(path).is_dir() => push(args, &["--ro-bind", path, path]),
            Err(_) => {}
        }
    }
    for path in ETC {
        push(args, &["--ro-bind-try", path, path]);
    }
}

/// The run folder `dir`, writable, from `dir_source`, the gem's folders in it
/// covered; the `read_only` paths, each
/// from its source; then everything else read-only, the run folder as the working
/// directory, and the end of bwrap's options.
fn push_run_folder(
    args: &mut Vec<String>,
    dir: &Path,
    dir_source: &str,
    read_only: &[(String, String)],
) {
    let made: Vec<&str> = crate::removing::GEMS_FOLDERS
        .into_iter()
        .filter(|name| {
            dir.join(name)
                .symlink_metadata()
                .is_ok_and(|meta| meta.is_dir())
        })
        .collect();
    let dir = dir.to_string_lossy();
    push(args, &["--bind", dir_source, &dir]);
    // The gem's folders (made before the run where the folder could be written),
    // covered: empty and read-only, and mount points the run can neither rename
    // nor remove (`removing`).
    for name in made {
        let held = format!("{}/{name}", dir.trim_end_matches('/'));
        push(
            args,
            &["--size", "4096", "--tmpfs", &held, "--remount-ro", &held],
        );
    }
    for (source, path) in read_only {
        push(args, &["--ro-bind", source, path]);
    }
    // bwrap's own root is a writable tmpfs: only the run folder, /tmp and /dev/shm
    // stay writable.
    push(args, &["--remount-ro", "/", "--chdir", &dir, "--"]);
}

/// "/proc/self/fd/N" NUL-terminated, made without allocating (between fork and exec).
fn fd_path(fd: libc::c_int) -> [u8; 32] {
    let mut out = [0u8; 32];
    let prefix = b"/proc/self/fd/";
    out[..prefix.len()].copy_from_slice(prefix);
    let mut digits = [0u8; 12];
    let (mut n, mut len) = (fd.unsigned_abs(), 0);
    loop {
        digits[len] = b'0' + (n % 10) as u8;
        len += 1;
        n /= 10;
        if n == 0 {
            break;
        }
    }
    for i in 0..len {
        out[prefix.len() + i] = digits[len - 1 - i];
    }
    out
}

fn cstring(s: &str) -> Result<CString> {
    CString::new(s).map_err(|_| Error::InvalidArgument(format!("{s:?} holds a NUL byte")))
}

impl DropTo {
    /// In the child, between fork and exec: a mount namespace of its own with the
    /// sources staged, then the unprivileged user. Raw system calls only.
    pub fn apply(&self) -> std::io::Result<()> {
        let null = std::ptr::null::<libc::c_char>();
        // SAFETY: raw system calls on NUL-terminated strings made before the fork.
        unsafe {
            check(libc::unshare(libc::CLONE_NEWNS))?;
            make_mounts_private()?;
            // Opened in the run's own mount namespace, where a bind may come from,
            // before the tmpfs hides the ones below STAGE.
            let mut opened = [0 as libc::c_int; 64];
            if self.binds.len() > opened.len() {
                return Err(std::io::Error::from_raw_os_error(libc::E2BIG));
            }
            for (i, (source, _, _)) in self.binds.iter().enumerate() {
                opened[i] = libc::open(source.as_ptr(), libc::O_PATH | libc::O_CLOEXEC);
                if opened[i] < 0 {
                    return Err(std::io::Error::last_os_error());
                }
            }
            check(libc::mount(
                c"tmpfs".as_ptr(),
                self.stage.as_ptr(),
                c"tmpfs".as_ptr(),
                libc::MS_NOSUID | libc::MS_NODEV,
                c"mode=0711,size=1m".as_ptr().cast(),
            ))?;
            for (i, (_, target, is_dir)) in self.binds.iter().enumerate() {
                if *is_dir {
                    check(libc::mkdir(target.as_ptr(), 0o700))?;
                } else {
                    let fd = libc::open(target.as_ptr(), libc::O_CREAT | libc::O_WRONLY, 0o600);
                    if fd < 0 {
                        return Err(std::io::Error::last_os_error());
                    }
                    libc::close(fd);
                }
                let by_fd = fd_path(opened[i]);
                check(libc::mount(
                    by_fd.as_ptr().cast(),
                    target.as_ptr(),
                    null,
                    libc::MS_BIND | libc::MS_REC,
                    std::ptr::null(),
                ))?;
            }
            let none: *const libc::gid_t = std::ptr::null();
            check(libc::syscall(libc::SYS_setgroups, 0, none) as libc::c_int)?;
            check(libc::syscall(libc::SYS_setresgid, self.gid, self.gid, self.gid) as libc::c_int)?;
            check(libc::syscall(libc::SYS_setresuid, self.uid, self.uid, self.uid) as libc::c_int)?;
        }
        Ok(())
    }
}

/// bwrap's full path, found on the caller's PATH: bwrap itself starts with an empty
/// environment, so that its own /proc/<pid>/environ (pid 1 in the sandbox) holds
/// none of the app's secrets, and an empty environment has no PATH to search.
fn bwrap_path() -> Option<String> {
    let path = std::env::var_os("PATH").unwrap_or_default();
    std::env::split_paths(&path)
        .map(|dir| dir.join("bwrap"))
        .find(|candidate| candidate.is_file())
        .map(|p| p.to_string_lossy().into_owned())
}

pub(super) const NOT_INSTALLED: &str =
    "bubblewrap (bwrap) is not installed: install the bubblewrap package";

/// The environment bwrap starts with: none. The run's own comes from --setenv.
pub(super) fn bwrap_env(command: &mut tokio::process::Command) {
    command.env_clear();
}

/// The same environment for a run outside the sandbox, with the caller's PATH so
/// the interpreters found are the ones the app uses.
pub(super) fn plain_env(command: &mut tokio::process::Command) {
    command.env_clear();
    for (name, value) in ENV {
        command.env(name, value);
    }
    if let Some(path) = std::env::var_os("PATH") {
        command.env("PATH", path);
    }
}
