//! A document as a conversion sends it to a worker: bytes the caller already
//! holds (a memory store's), or an open file read a piece at a time (a folder
//! store's), so the app never holds a file's bytes whole on their way to the
//! worker; the worker holds them, under its own memory limit.

use std::fs::File;
use std::io;
use std::os::unix::fs::FileExt;

use file_store_base::cancel;

/// How much of a file is read and sent at a time.
const PIECE: usize = 64 * 1024;

#[derive(Clone, Copy)]
pub enum Document<'a> {
    Bytes(&'a [u8]),
    /// The first `size` bytes of `file`, the version measured; `path` names it
    /// in errors.
    File {
        file: &'a File,
        size: u64,
        path: &'a str,
    },
}

impl Document<'_> {
    pub fn size(&self) -> u64 {
        match self {
            Document::Bytes(bytes) => bytes.len() as u64,
            Document::File { size, .. } => *size,
        }
    }

    /// Writes the document's bytes to `out`. A file read past its end before
    /// `size` (it shrank while read) or that cannot be read is an [`Unread`]
    /// error, which says it is the document's and not the pipe's.
    pub fn send(&self, out: &mut impl io::Write) -> io::Result<()> {
        let (file, size) = match self {
            Document::Bytes(bytes) => return out.write_all(bytes),
            Document::File { file, size, .. } => (*file, *size),
        };
        let mut piece = vec![0u8; PIECE.min(size as usize)];
        let mut at = 0u64;
        while at < size {
            let want = piece.len().min((size - at) as usize);
            let read = read_at(file, &mut piece[..want], at)?;
            out.write_all(&piece[..read])?;
            at += read as u64;
        }
        Ok(())
    }

    /// The SHA-256 of the document's bytes, in hex, read as [`Document::send`]
    /// reads them.
    pub fn digest(&self) -> io::Result<String> {
        use sha2::Digest;
        let mut hasher = sha2::Sha256::new();
        self.send(&mut Hashing(&mut hasher))?;
        Ok(hex::encode(hasher.finalize()))
    }
}

/// Reads at `at` until at least one byte comes, watching the caller's flag.
fn read_at(file: &File, buf: &mut [u8], at: u64) -> io::Result<usize> {
    loop {
        if cancel::cancelled() {
            return Err(cancel::io_cancelled());
        }
        match file.read_at(buf, at) {
            Ok(0) => {
                return Err(Unread::wrap(io::Error::new(
                    io::ErrorKind::UnexpectedEof,
                    "the file became shorter while it was read (changed by another writer)",
                )))
            }
            Ok(read) => return Ok(read),
            Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
            Err(e) => return Err(Unread::wrap(e)),
        }
    }
}

/// A document that could not be read, told apart from a pipe to a worker that
/// broke: the document's error is the caller's, not the worker's end.
#[derive(Debug)]
pub struct Unread(pub io::Error);

impl Unread {
    fn wrap(error: io::Error) -> io::Error {
        io::Error::new(error.kind(), Unread(error))
    }

    /// The read error inside `error`, when it is an [`Unread`] one.
    pub fn of(error: &io::Error) -> Option<&io::Error> {
        error
            .get_ref()
            .and_then(|inner| inner.downcast_ref::<Unread>())
            .map(|unread| &unread.0)
    }

    /// The read error inside `error`, or `error` itself.
    pub fn into_read_error(error: io::Error) -> io::Error {
        if Unread::of(&error).is_none() {
            return error;
        }
        match error.into_inner().map(|inner| inner.downcast::<Unread>()) {
            Some(Ok(unread)) => unread.0,
            _ => io::ErrorKind::Other.into(),
        }
    }
}

impl std::fmt::Display for Unread {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        self.0.fmt(f)
    }
}

impl std::error::Error for Unread {}

struct Hashing<'a>(&'a mut sha2::Sha256);

impl io::Write for Hashing<'_> {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        sha2::Digest::update(self.0, buf);
        Ok(buf.len())
    }

    fn flush(&mut self) -> io::Result<()> {
        Ok(())
    }
}
