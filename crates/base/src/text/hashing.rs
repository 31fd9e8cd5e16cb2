//! What a read showed, as a version of the file: the SHA-256 of every byte read
//! through the same descriptor, so no other writer's content can stand in for it.

use std::io::{self, Read};

use sha2::{Digest, Sha256};

/// A reader that hashes every byte read through it.
pub struct Hashing<R> {
    inner: R,
    hasher: Sha256,
}

impl<R: Read> Hashing<R> {
    /// Wraps `inner`.
    pub fn new(inner: R) -> Self {
        Hashing {
            inner,
            hasher: Sha256::new(),
        }
    }

    /// Reads the rest, then gives the SHA-256 of everything read, in hex.
    pub fn finish(mut self) -> io::Result<String> {
        io::copy(&mut self, &mut io::sink())?;
        Ok(hex::encode(self.hasher.finalize()))
    }
}

impl<R: Read> Read for Hashing<R> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        let n = self.inner.read(buf)?;
        self.hasher.update(&buf[..n]);
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
    }
}
