//! What the executable is, by its first argument: the app's supervisor
//! (`supervise`), the host of one code run (`run`), or else a convert worker,
//! which each binary serves its own way.

/// Serves as the supervisor or a run's host when the first argument names one,
/// and then ends the process (`program` names it in an error); returns when the
/// executable is to be a worker.
pub fn serve_supervisor_or_host(program: &str) {
    let mode = std::env::args_os().nth(1);
    let served = match mode.as_ref().and_then(|arg| arg.to_str()) {
        Some(crate::host::MODE) => crate::host::serve(),
        Some(crate::supervisor::MODE) => crate::supervisor::serve(),
        _ => return,
    };
    if let Err(error) = served {
        eprintln!(
            "{program} {}: {error}",
            mode.unwrap_or_default().to_string_lossy()
        );
        std::process::exit(2);
    }
    std::process::exit(0);
}
