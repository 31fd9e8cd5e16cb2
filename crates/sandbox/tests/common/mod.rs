//! What the tests that stand in for an app adopting orphans share.

/// The pids of this process's children that have ended and wait to be reaped.
pub fn zombies() -> Vec<String> {
    let me = std::process::id().to_string();
    std::fs::read_dir("/proc")
        .unwrap()
        .filter_map(|entry| std::fs::read_to_string(entry.ok()?.path().join("stat")).ok())
        .filter_map(|stat| {
            let (pid, rest) = stat.split_once(" (")?;
            let fields: Vec<&str> = rest.rsplit_once(") ")?.1.split(' ').collect();
            (fields[0] == "Z" && fields[1] == me).then(|| pid.to_string())
        })
        .collect()
}

/// Makes this test process a child subreaper, as an app that is a container's PID 1
/// without an init adopts orphans.
pub fn adopt_orphans() {
    assert_eq!(
        // SAFETY: prctl(PR_SET_CHILD_SUBREAPER) takes integers, reads no memory and
        // only sets a flag of this test process.
        unsafe { libc::prctl(libc::PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0) },
        0
    );
}
