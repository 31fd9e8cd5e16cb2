//! The bubblewrap command line: which parts of the machine a run sees, and how.

use std::path::Path;
use std::process::Stdio;

use super::Spec;
use crate::error::{Error, Result};

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

/// `spec.argv` wrapped in bwrap.
pub(super) fn wrap(spec: &Spec) -> Result<Vec<String>> {
    let bwrap = bwrap_path().ok_or_else(|| Error::Sandbox(NOT_INSTALLED.to_string()))?;
    let mut args: Vec<String> = [
        bwrap.as_str(),
        "--unshare-all",
        // A user namespace with an unprivileged uid and no capabilities, even when
        // the app runs as root: nothing inside can remount, mount a cgroup, ptrace
        // or make a namespace of its own.
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
        "--new-session",
        "--clearenv",
    ]
    .map(String::from)
    .to_vec();
    let mut push = |parts: &[&str]| args.extend(parts.iter().map(|p| p.to_string()));
    for (name, value) in ENV {
        push(&["--setenv", name, value]);
    }
    let tmp = spec.limits.tmp_bytes.to_string();
    push(&[
        "--proc", "/proc", "--dev", "/dev", "--size", &tmp, "--tmpfs", "/tmp",
    ]);
    for path in SYSTEM {
        match std::fs::read_link(path) {
            Ok(target) => push(&["--symlink", &target.to_string_lossy(), path]),
            Err(_) if Path::new(path).is_dir() => push(&["--ro-bind", path, path]),
            Err(_) => {}
        }
    }
    for path in ETC {
        push(&["--ro-bind-try", path, path]);
    }
    let dir = spec.dir.to_string_lossy();
    push(&["--bind", &dir, &dir]);
    for path in &spec.read_only {
        let path = path.to_string_lossy();
        push(&["--ro-bind", &path, &path]);
    }
    // bwrap's own root is a writable tmpfs: only the run folder and /tmp stay writable.
    push(&["--remount-ro", "/", "--chdir", &dir, "--"]);
    args.extend(spec.argv.iter().cloned());
    Ok(args)
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

const NOT_INSTALLED: &str = "bubblewrap (bwrap) is not installed: install the bubblewrap package";

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

/// Why bubblewrap cannot run here, or `None` when it can: tries `true` inside it.
pub fn available() -> Option<String> {
    let dir = std::env::temp_dir();
    let spec = Spec {
        argv: vec!["true".to_string()],
        dir: dir.clone(),
        read_only: Vec::new(),
        sandbox: true,
        limits: Default::default(),
    };
    let argv = match wrap(&spec) {
        Ok(argv) => argv,
        Err(_) => return Some(NOT_INSTALLED.to_string()),
    };
    let out = std::process::Command::new(&argv[0])
        .args(&argv[1..])
        .env_clear()
        .current_dir(&dir)
        .stdin(Stdio::null())
        .output();
    match out {
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Some(NOT_INSTALLED.to_string()),
        Err(e) => Some(format!("bubblewrap (bwrap) cannot start: {e}")),
        Ok(out) if out.status.success() => None,
        Ok(out) => Some(format!(
            "bubblewrap (bwrap) cannot make a sandbox here: {}",
            String::from_utf8_lossy(&out.stderr).trim()
        )),
    }
}
