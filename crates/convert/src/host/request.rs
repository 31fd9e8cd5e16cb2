//! A run as the app sends it to its host: one byte carrying the descriptors of
//! the run folder's private tmpfs (`SCM_RIGHTS`), then records
//! ([`file_store_sandbox::records`]) of the spec and of the environment the run
//! reads (PATH, TMPDIR), paths made absolute, then the end mark.

use std::ffi::{CString, OsString};
use std::io::{self, BufWriter, Read, Write};
use std::os::fd::{AsRawFd, BorrowedFd};
use std::os::unix::ffi::OsStringExt;
use std::path::PathBuf;
use std::time::Duration;

use file_store_sandbox::private::{self, PrivateTmpfs};
use file_store_sandbox::records;
use file_store_sandbox::{Limits, Spec};

use crate::supervisor::message;

/// The variables of the app's environment a run reads.
const ENVIRONMENT: [&str; 2] = ["PATH", "TMPDIR"];

/// What the host receives: the spec, the run folder's tmpfs, the environment.
pub(super) type Received = (Spec, Option<PrivateTmpfs>, Vec<(OsString, OsString)>);

pub(super) fn send(socket: BorrowedFd, spec: &Spec) -> io::Result<()> {
    let tmpfs = private::private_for(&spec.dir);
    let mut fds = Vec::new();
    let mut dir_inside = None;
    if let Some(tmpfs) = &tmpfs {
        let (user, mount, root, dir) = tmpfs.parts();
        fds.extend([mount, root]);
        fds.extend(user);
        dir_inside = Some(dir.as_bytes().to_vec());
    }
    message::send(socket, &[fds.len() as u8], &fds)?;
    let mut out = BufWriter::with_capacity(64 << 10, Socket(socket));
    for arg in &spec.argv {
        records::record(&mut out, b'a', arg.as_bytes())?;
    }
    records::record(
        &mut out,
        b'd',
        absolute(&spec.dir)?.as_os_str().as_encoded_bytes(),
    )?;
    for path in &spec.read_only {
        records::record(
            &mut out,
            b'r',
            absolute(path)?.as_os_str().as_encoded_bytes(),
        )?;
    }
    records::record(&mut out, b's', &[u8::from(spec.sandbox)])?;
    records::record(&mut out, b'l', &limits_bytes(&spec.limits))?;
    if let Some(dir) = dir_inside {
        records::record(&mut out, b'p', &dir)?;
    }
    for name in ENVIRONMENT {
        if let Some(value) = std::env::var_os(name) {
            let mut entry = name.as_bytes().to_vec();
            entry.push(0);
            entry.extend(value.as_encoded_bytes());
            records::record(&mut out, b'e', &entry)?;
        }
    }
    records::end(&mut out)?;
    out.flush()
}

pub(super) fn receive(socket: BorrowedFd) -> io::Result<Received> {
    let (first, fds) = message::receive_at_most(socket, 1)?;
    let mut input = io::BufReader::new(Stream(socket));
    let mut spec = Spec {
        argv: Vec::new(),
        dir: PathBuf::new(),
        read_only: Vec::new(),
        sandbox: true,
        limits: Limits::default(),
    };
    let mut dir_inside = None;
    let mut env = Vec::new();
    while let Some((kind, bytes)) = records::next_bytes(&mut input).ok_or_else(cut)? {
        match kind {
            b'a' => spec.argv.push(String::from_utf8(bytes).map_err(|_| cut())?),
            b'd' => spec.dir = path(bytes),
            b'r' => spec.read_only.push(path(bytes)),
            b's' => spec.sandbox = bytes.first() == Some(&1),
            b'l' => spec.limits = limits_from(&bytes).ok_or_else(cut)?,
            b'p' => dir_inside = Some(CString::new(bytes).map_err(|_| cut())?),
            b'e' => {
                let at = bytes.iter().position(|b| *b == 0).ok_or_else(cut)?;
                let value = bytes[at + 1..].to_vec();
                let name = bytes[..at].to_vec();
                env.push((OsString::from_vec(name), OsString::from_vec(value)));
            }
            _ => return Err(cut()),
        }
    }
    let tmpfs = match (first.first(), dir_inside) {
        (Some(0), None) => None,
        (Some(2 | 3), Some(dir)) if fds.len() == first[0] as usize => {
            let mut fds = fds.into_iter();
            let (mount, root) = (fds.next().ok_or_else(cut)?, fds.next().ok_or_else(cut)?);
            Some(PrivateTmpfs::from_parts(fds.next(), mount, root, dir))
        }
        _ => return Err(cut()),
    };
    Ok((spec, tmpfs, env))
}

/// `path` as the host finds it from its own working folder: a relative one joined
/// to this process's (asked only then, so an app whose working folder is gone
/// still runs code in an absolute one).
fn absolute(path: &std::path::Path) -> io::Result<PathBuf> {
    if path.is_absolute() {
        return Ok(path.to_path_buf());
    }
    Ok(std::env::current_dir()?.join(path))
}

fn path(bytes: Vec<u8>) -> PathBuf {
    PathBuf::from(OsString::from_vec(bytes))
}

fn cut() -> io::Error {
    io::Error::new(
        io::ErrorKind::InvalidData,
        "the run's request is cut or garbled",
    )
}

/// The limits' fields in the order they are declared, each as a u64.
fn limits_bytes(limits: &Limits) -> Vec<u8> {
    [
        limits.timeout.as_nanos() as u64,
        limits.cpu_seconds,
        limits.cpu_percent,
        limits.memory_bytes,
        limits.tmp_bytes,
        limits.file_bytes,
        limits.processes,
        limits.output_bytes as u64,
        limits.digest_bytes,
        limits.new_names,
        limits.save_files,
        limits.folder_names,
    ]
    .iter()
    .flat_map(|field| field.to_le_bytes())
    .collect()
}

fn limits_from(bytes: &[u8]) -> Option<Limits> {
    let field = |n: usize| message::u64_at(bytes, n * 8);
    Some(Limits {
        timeout: Duration::from_nanos(field(0)?),
        cpu_seconds: field(1)?,
        cpu_percent: field(2)?,
        memory_bytes: field(3)?,
        tmp_bytes: field(4)?,
        file_bytes: field(5)?,
        processes: field(6)?,
        output_bytes: field(7)? as usize,
        digest_bytes: field(8)?,
        new_names: field(9)?,
        save_files: field(10)?,
        folder_names: field(11)?,
    })
}

/// Reads the rest of the request from the socket.
struct Stream<'a>(BorrowedFd<'a>);

impl Read for Stream<'_> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        loop {
            match rustix::io::read(self.0, &mut *buf) {
                Err(rustix::io::Errno::INTR) => continue,
                other => return other.map_err(Into::into),
            }
        }
    }
}

/// Writes to a socket without SIGPIPE: a host that has gone is EPIPE.
struct Socket<'a>(BorrowedFd<'a>);

impl Write for Socket<'_> {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        loop {
            // SAFETY: send reads at most `buf.len()` bytes of `buf`, a live slice, from
            // the descriptor the borrow keeps open.
            let sent = unsafe {
                libc::send(
                    self.0.as_raw_fd(),
                    buf.as_ptr().cast(),
                    buf.len(),
                    libc::MSG_NOSIGNAL,
                )
            };
            if sent >= 0 {
                return Ok(sent as usize);
            }
            let error = io::Error::last_os_error();
            if error.kind() != io::ErrorKind::Interrupted {
                return Err(error);
            }
        }
    }

    fn flush(&mut self) -> io::Result<()> {
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::os::fd::AsFd;

    #[test]
    fn limits_come_back_as_they_went() {
        let limits = Limits {
            timeout: Duration::from_millis(1500),
            output_bytes: 7,
            ..Limits::default()
        };
        assert_eq!(limits_from(&limits_bytes(&limits)), Some(limits));
    }

    #[test]
    fn a_spec_comes_back_as_it_went() {
        let (app, host) = message::stream_pair().unwrap();
        let spec = Spec {
            argv: vec!["sh".into(), "-c".into(), "echo 1".into()],
            dir: PathBuf::from("/tmp/x"),
            read_only: vec![PathBuf::from("/opt/y")],
            sandbox: false,
            limits: Limits::default(),
        };
        send(app.as_fd(), &spec).unwrap();
        let (got, tmpfs, env) = receive(host.as_fd()).unwrap();
        assert_eq!(got.argv, spec.argv);
        assert_eq!(got.dir, spec.dir);
        assert_eq!(got.read_only, spec.read_only);
        assert!(!got.sandbox);
        assert!(tmpfs.is_none());
        assert!(env.iter().any(|(name, _)| name == "PATH"));
    }
}
