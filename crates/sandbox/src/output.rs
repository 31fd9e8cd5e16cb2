//! Reading a run's output pipe up to a cap while counting all of it, so a run that
//! prints gigabytes neither fills memory nor blocks on a full pipe.

use std::sync::{Arc, Mutex};
use std::time::Duration;

use tokio::io::{AsyncRead, AsyncReadExt};
use tokio::task::JoinHandle;

/// How long the pipe may stay open after the run ended: only a process that left
/// the run's process group outside a sandbox could still hold it.
const DRAIN: Duration = Duration::from_millis(500);

/// A pipe being read in the background.
pub(super) struct Capture {
    task: Option<JoinHandle<()>>,
    kept: Arc<Mutex<(Vec<u8>, u64)>>,
}

/// Starts reading `pipe`, keeping its first `cap` bytes.
pub(super) fn capture<R>(pipe: Option<R>, cap: usize) -> Capture
where
    R: AsyncRead + Unpin + Send + 'static,
{
    let kept = Arc::new(Mutex::new((Vec::new(), 0u64)));
    let task = pipe.map(|mut pipe| {
        let kept = Arc::clone(&kept);
        tokio::spawn(async move {
            let mut chunk = vec![0u8; 64 * 1024];
            while let Ok(n) = pipe.read(&mut chunk).await {
                if n == 0 {
                    break;
                }
                let mut kept = kept.lock().unwrap_or_else(|e| e.into_inner());
                let room = cap.saturating_sub(kept.0.len()).min(n);
                kept.0.extend_from_slice(&chunk[..room]);
                kept.1 += n as u64;
            }
        })
    });
    Capture { task, kept }
}

impl Capture {
    /// The text kept (invalid UTF-8 replaced) and the bytes written in all.
    pub async fn finish(mut self) -> (String, u64) {
        if let Some(mut task) = self.task.take() {
            if tokio::time::timeout(DRAIN, &mut task).await.is_err() {
                task.abort();
            }
        }
        let kept = self.kept.lock().unwrap_or_else(|e| e.into_inner());
        (String::from_utf8_lossy(&kept.0).into_owned(), kept.1)
    }
}
