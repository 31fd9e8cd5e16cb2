//! What a worker's end says of the document it was converting: the document's
//! doing (a refusal, kept) or not (an operational error, tried again).

use file_store_convert::supervisor::process::Ended;
use file_store_convert::worker::{CPU_LIMIT, MEMORY_LIMIT};

/// How a worker that ended without answering ended: by its document, or not.
pub enum Stop {
    Document(String),
    Outside(String),
}

/// What a worker's end says of its document.
pub fn stopped(ended: Option<Ended>) -> Stop {
    let Some(Ended { status, cpu }) = ended else {
        return Stop::Outside("the convert supervisor ended while a worker converted".into());
    };
    let cpu_limit = || {
        Stop::Document(format!(
            "the document takes more than {} seconds of CPU to convert",
            CPU_LIMIT.as_secs()
        ))
    };
    if !libc::WIFSIGNALED(status) {
        return Stop::Outside(format!(
            "a convert worker ended with exit code {} without answering",
            libc::WEXITSTATUS(status)
        ));
    }
    match libc::WTERMSIG(status) {
        libc::SIGABRT => Stop::Document(format!(
            "the document needs more than {} GB of memory to convert",
            MEMORY_LIMIT >> 30
        )),
        libc::SIGXCPU => cpu_limit(),
        // The kernel kills at the hard CPU limit, past the soft one.
        libc::SIGKILL if cpu >= CPU_LIMIT => cpu_limit(),
        libc::SIGSYS => Stop::Document("the converter tried a system call it may not make".into()),
        signal @ (libc::SIGSEGV | libc::SIGBUS | libc::SIGILL | libc::SIGFPE | libc::SIGTRAP) => {
            Stop::Document(format!("the converter stopped (signal {signal})"))
        }
        signal => Stop::Outside(format!(
            "a convert worker was stopped from outside (signal {signal}: an operator, or the OOM \
             killer) twice in a row"
        )),
    }
}
