//! The convert worker: `file_store_convert`, started with its pipes as standard
//! input and output. See [`file_store_convert::worker`]. Started as
//! `file_store_convert supervise`, it is the app's supervisor, which starts the
//! workers: see [`file_store_convert::supervisor`].

fn main() {
    if std::env::args_os()
        .nth(1)
        .is_some_and(|arg| arg == file_store_convert::supervisor::MODE)
    {
        if let Err(error) = file_store_convert::supervisor::serve() {
            eprintln!("file_store_convert supervise: {error}");
            std::process::exit(2);
        }
        return;
    }
    if let Err(error) = file_store_convert::worker::serve() {
        // The app reads a worker that ends with an exit code as an operational
        // error, never the document's; the code says why to whoever runs it by hand.
        eprintln!("file_store_convert: {error}");
        std::process::exit(2);
    }
}
