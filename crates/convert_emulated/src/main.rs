//! The convert worker as the aarch64 gem's check runs it under qemu-user, where
//! the worker's seccomp filter cannot be installed (see
//! [`file_store_convert::worker::serve_unfiltered_under_emulation`]): the same
//! converters and limits, without the filter. `rake native PLATFORM=aarch64-linux`
//! builds it beside the gem, never into it; the gem's worker refuses to run
//! unfiltered.

fn main() {
    // The supervisor is the gem's own: it starts whichever worker it is named.
    if std::env::args_os()
        .nth(1)
        .is_some_and(|arg| arg == file_store_convert::supervisor::MODE)
    {
        if let Err(error) = file_store_convert::supervisor::serve() {
            eprintln!("file_store_convert_emulated supervise: {error}");
            std::process::exit(2);
        }
        return;
    }
    if let Err(error) = file_store_convert::worker::serve_unfiltered_under_emulation() {
        eprintln!("file_store_convert_emulated: {error}");
        std::process::exit(2);
    }
}
