//! The bubblewrap command line: which parts of the machine a run sees, and how.

use std::path::Path;
use std::process::Stdio;

use super::Spec;

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
pub(super) fn wrap(spec: &Spec) -> Vec<String> {
    let mut args: Vec<String> = [
        "bwrap",
        "--unshare-all",
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
    push(&["--proc", "/proc", "--dev", "/dev", "--tmpfs", "/tmp"]);
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
    args
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
    let argv = wrap(&spec);
    let out = std::process::Command::new(&argv[0])
        .args(&argv[1..])
        .current_dir(&dir)
        .stdin(Stdio::null())
        .output();
    match out {
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
            Some("bubblewrap (bwrap) is not installed: install the bubblewrap package".to_string())
        }
        Err(e) => Some(format!("bubblewrap (bwrap) cannot start: {e}")),
        Ok(out) if out.status.success() => None,
        Ok(out) => Some(format!(
            "bubblewrap (bwrap) cannot make a sandbox here: {}",
            String::from_utf8_lossy(&out.stderr).trim()
        )),
    }
}
