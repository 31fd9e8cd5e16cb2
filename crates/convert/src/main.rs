//! The convert worker: `file_store_convert`, started by the app with its pipes as
//! standard input and output. See [`file_store_convert::worker`].

fn main() {
    if let Err(error) = file_store_convert::worker::serve() {
        // The app reads a worker that ends without an answer as a refusal; the
        // code says why to whoever runs it by hand.
        eprintln!("file_store_convert: {error}");
        std::process::exit(2);
    }
}
