//! The convert worker: `file_store_convert`, started with its pipes as standard
//! input and output. See [`file_store_convert::worker`]. Started as
//! `file_store_convert supervise`, it is the app's supervisor, which starts the
//! workers: see [`file_store_convert::supervisor`]; as `file_store_convert run`,
//! the host of one code run: see [`file_store_convert::host`].

fn main() {
    file_store_convert::modes::serve_supervisor_or_host("file_store_convert");
    if let Err(error) = file_store_convert::worker::serve() {
        // The app reads a worker that ends with an exit code as an operational
        // error, never the document's; the code says why to whoever runs it by hand.
        eprintln!("file_store_convert: {error}");
        std::process::exit(2);
    }
}
