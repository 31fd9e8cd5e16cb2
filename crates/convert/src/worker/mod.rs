//! The convert worker's side: a process that converts the documents it is sent
//! on standard input and answers on standard output ([`crate::wire`]), one at a
//! time, until its input closes.
//!
//! Before it reads a byte it asks the OOM killer to take it first, closes every
//! other descriptor, takes the limits of [`limits`], gives up every capability
//! ([`privileges`]) and installs a seccomp filter ([`filter`]) that lets it do
//! nothing but read and write its pipes, manage its memory and end: no file can
//! be opened, no socket made, no program run, no process started or signalled.
//! What a document can cost is then this process: past [`MEMORY_LIMIT`] an
//! allocation aborts it, past [`CPU_LIMIT`] the kernel kills it, and the app
//! reads either as a refusal.

mod filter;
mod limits;
mod privileges;

use std::io::{self, BufReader, BufWriter};
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::time::Duration;

use crate::{convert_with, wire, Refusal};

/// The address space a worker may use: 1 GiB.
pub const MEMORY_LIMIT: u64 = 1 << 30;

/// The CPU time one conversion may take in a worker, everything included: 10
/// seconds, ten times that in an unoptimised build. An outer ceiling, which
/// refuses the document rather than cut it: the budget's steps
/// ([`crate::budget::MAX_WORK`]) stop the converters' own loops first; this
/// stops the work no step counts, such as the parse of a PDF's objects. Past it
/// the kernel ends the worker with SIGXCPU, and a second later with SIGKILL.
pub const CPU_LIMIT: Duration = if cfg!(debug_assertions) {
    Duration::from_secs(100)
} else {
    Duration::from_secs(10)
};

/// The most conversions one worker is given a full [`CPU_LIMIT`] for. Its hard
/// CPU limit can only be lowered, so it is set as what the conversions left may
/// take together; a worker sent more gives the later ones less. The pool
/// replaces a worker after as many.
pub const MAX_CONVERSIONS: u32 = 100;

/// Confines this process and serves requests until its input closes. Returns
/// what went wrong with the pipes or the confinement; a document's failure is an
/// answer, never an error here.
pub fn serve() -> io::Result<()> {
    confine()?;
    answer()
}

/// [`serve`] with the limits of [`confine`] but without its capabilities given
/// up or its seccomp filter, for the aarch64 gem's check under qemu-user alone
/// (the `file_store_convert_emulated` program, which no gem holds): qemu-user runs
/// the guest's system calls as its own, so it refuses to install a guest's filter
/// (`seccomp(2)` is not emulated, `prctl(PR_SET_SECCOMP)` answers EINVAL), and it
/// applies no address-space limit (`setrlimit(RLIMIT_AS)` is taken and ignored).
/// The gem's worker runs [`serve`], which ends rather than convert unconfined.
pub fn serve_unfiltered_under_emulation() -> io::Result<()> {
    limit()?;
    answer()
}

/// Answers requests until the input closes.
fn answer() -> io::Result<()> {
    let mut input = BufReader::new(io::stdin().lock());
    let mut output = BufWriter::new(io::stdout().lock());
    let mut served = 0u32;
    while let Some((chain, bytes)) = wire::read_request(&mut input)? {
        served = served.saturating_add(1);
        limits::limit_cpu(CPU_LIMIT, MAX_CONVERSIONS.saturating_sub(served))?;
        let converted = catch_unwind(AssertUnwindSafe(|| convert_with(&chain, &bytes)))
            .unwrap_or_else(|_| Err(Refusal::Stopped("the converter failed on it".into())));
        drop(bytes);
        wire::write_answer(&mut output, &converted)?;
    }
    Ok(())
}

/// Sets the limits, gives up every capability and installs the filter: what the
/// worker does before it reads a byte.
pub fn confine() -> io::Result<()> {
    limit()?;
    privileges::drop_all()?;
    filter::install(std::process::id() as libc::pid_t)
}

/// Asks the OOM killer to take this process first, lets SIGXCPU end it, closes
/// every descriptor but the pipes and sets the limits.
fn limit() -> io::Result<()> {
    // A panic is answered as a refusal; nothing is written to standard error. An
    // allocation that fails prints one line there and aborts, without the
    // backtrace these variables ask for, whose symbols would be read from files.
    std::panic::set_hook(Box::new(|_| {}));
    std::env::remove_var("RUST_BACKTRACE");
    std::env::remove_var("RUST_LIB_BACKTRACE");
    limits::prefer_to_be_killed()?;
    limits::end_at_cpu_limit()?;
    limits::close_descriptors()?;
    limits::set_fixed(MEMORY_LIMIT)
}
