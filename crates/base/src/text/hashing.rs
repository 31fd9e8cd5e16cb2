//! What a read showed, as a version of the file: the SHA-256 of every byte read
//! through the same descriptor, so no other writer's content can stand in for it.

use std::io::{self, Read};

use sha2::{Digest, Sha256};

/// A reader that hashes every byte read through it.
pub struct Hashing<R> {
    inner: R,
    hasher: Sha256,
    /// Whether a read found the end: then there is no rest to read.
    ended: bool,
}

impl<R: Read> Hashing<R> {
    /// Wraps `inner`.
    pub fn new(inner: R) -> Self {
        Hashing {
            inner,
            hasher: Sha256::new(),
            ended: false,
        }
    }

    /// Reads the rest, unless a read found the end already, then gives the
    /// SHA-256 of everything read, in hex.
    pub fn finish(mut self) -> io::Result<String> {
        if !self.ended {
            io::copy(&mut self, &mut io::sink())?;
        }
        Ok(hex::encode(self.hasher.finalize()))
    }
}

impl<R: Read> Read for Hashing<R> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        let n = self.inner.read(buf)?;
        self.hasher.update(&buf[..n]);
        self.ended |= n == 0 && !buf.is_empty();
        Ok(n)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hashes_what_was_read_and_the_rest() {
        let mut reader = Hashing::new(&b"hello world"[..]);
        let mut head = [0; 5];
        reader.read_exact(&mut head).unwrap();
        assert_eq!(
            reader.finish().unwrap(),
            hex::encode(Sha256::digest(b"hello world"))
        );
        // Read to its end already: nothing is read again.
        let mut reader = Hashing::new(&b"abc"[..]);
        io::copy(&mut reader, &mut io::sink()).unwrap();
        assert!(reader.ended);
        assert_eq!(
            reader.finish().unwrap(),
            hex::encode(Sha256::digest(b"abc"))
        );
    }
}
