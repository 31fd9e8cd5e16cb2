//! The convert worker as the aarch64 gem's check runs it under qemu-user, where
//! the worker's seccomp filter cannot be installed (see
//! [`file_store_convert::worker::serve_unfiltered_under_emulation`]): the same
//! converters and limits, without the filter. `rake native PLATFORM=aarch64-linux`
//! builds it beside the gem, never into it; the gem's worker refuses to run
//! unfiltered.

fn main() {
    // The supervisor and a run's host are the gem's own: the supervisor starts
    // whichever worker it is named.
    file_store_convert::modes::serve_supervisor_or_host("file_store_convert_emulated");
    if let Err(error) = file_store_convert::worker::serve_unfiltered_under_emulation() {
        eprintln!("file_store_convert_emulated: {error}");
        std::process::exit(2);
    }
}
