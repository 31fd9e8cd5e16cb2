//! The convert worker as a test starts it: its own process, fed on its pipes.

#![allow(dead_code)]

use std::io::BufReader;
use std::os::unix::process::ExitStatusExt;
use std::process::{Child, ChildStdin, ChildStdout, Command, Stdio};

use file_store_convert::{wire, Converted, Kind};

/// Taken by the tests that load the machine (a document that takes seconds,
/// sixteen workers at once, spinning threads) or time a worker on the wall
/// clock, so they run one at a time.
pub fn one_heavy_test_at_a_time() -> std::sync::MutexGuard<'static, ()> {
    static HEAVY: std::sync::Mutex<()> = std::sync::Mutex::new(());
    HEAVY.lock().unwrap_or_else(|e| e.into_inner())
}

pub struct Worker {
    pub child: Child,
    input: ChildStdin,
    output: BufReader<ChildStdout>,
}

impl Worker {
    pub fn start() -> Worker {
        Worker::start_with(Command::new(env!("CARGO_BIN_EXE_file_store_convert")))
    }

    pub fn start_with(mut command: Command) -> Worker {
        let mut child = command
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .unwrap();
        let input = child.stdin.take().unwrap();
        let output = BufReader::new(child.stdout.take().unwrap());
        Worker {
            child,
            input,
            output,
        }
    }

    /// The answer, or the signal that ended the worker.
    pub fn convert(&mut self, kind: Kind, bytes: &[u8]) -> Result<Converted, i32> {
        let sent = wire::write_request(&mut self.input, &[kind], bytes);
        match sent.and_then(|_| wire::read_answer(&mut self.output)) {
            Ok(converted) => Ok(converted),
            Err(_) => {
                let status = self.child.wait().unwrap();
                Err(status.signal().unwrap_or(-1))
            }
        }
    }
}

impl Drop for Worker {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// A line of `/proc/<pid>/status`, such as `CapEff`, as a number.
pub fn status_mask(pid: u32, name: &str) -> u64 {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).unwrap();
    let value = status
        .lines()
        .find_map(|line| line.strip_prefix(&format!("{name}:\t")))
        .unwrap_or_else(|| panic!("no {name} in {status}"));
    u64::from_str_radix(value.trim(), 16).unwrap()
}
