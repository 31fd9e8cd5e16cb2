//! What a run needs before its command starts: its /tmp, the namespaces it
//! enters, and the bubblewrap command line.

use crate::spec::Spec;
use crate::{private, sandbox, tmp, RUN_UID};
use file_store_base::error::Result;

/// What a run needs before its command starts: its /tmp, the namespaces it
/// enters, and the bubblewrap command line. The fields drop in the order they are
/// declared: the wrapping's seccomp descriptors close, then the namespaces go,
/// then the /tmp folder on the host.
pub(crate) struct Prepared {
    /// The host uid the run's processes have.
    pub(crate) uid: u32,
    /// Descriptors bwrap inherits (the wrapping's); the child takes them.
    pub(crate) keep: Vec<std::os::fd::RawFd>,
    /// For a root app, the user bwrap runs as; the child takes it.
    pub(crate) drop_to: Option<sandbox::DropTo>,
    /// The command line: `spec.argv`, wrapped in bwrap for a sandboxed run.
    pub(crate) argv: Vec<String>,
    /// The bwrap command line and the descriptors it needs, for a sandboxed run.
    pub(crate) wrapped: Option<sandbox::Wrapped>,
    /// The namespaces (copy mode's, or the run's /tmp's own) the child enters;
    /// the child takes them.
    pub(crate) entered: Option<std::sync::Arc<private::PrivateTmpfs>>,
    /// The run's own /tmp, for a sandboxed run where the kernel allows it: held
    /// for its drop, which removes its folder on the host.
    _run_tmp: Option<tmp::RunTmp>,
}

impl Prepared {
    /// Makes the run's /tmp and wraps `spec` in bubblewrap, for a run whose
    /// memory is held by a cgroup or not (`memory_limited`).
    pub(crate) fn new(
        spec: &Spec,
        private: Option<std::sync::Arc<private::PrivateTmpfs>>,
        memory_limited: bool,
    ) -> Result<Prepared> {
        // Its /tmp, in copy mode's namespaces or in new ones, which the run enters;
        // where the kernel allows no such namespace, bubblewrap's own (a size only).
        let run_tmp = if spec.sandbox {
            let uid = sandbox::run_uid(true);
            let gid = if uid == RUN_UID {
                RUN_UID
            } else {
                rustix::process::getegid().as_raw()
            };
            tmp::RunTmp::make(private.as_deref(), spec.limits.tmp_bytes, uid, gid).ok()
        } else {
            None
        };
        let entered = private.or_else(|| run_tmp.as_ref().and_then(tmp::RunTmp::namespaces));
        let wrapped = if spec.sandbox {
            let tmp = run_tmp.as_ref().map(tmp::RunTmp::path);
            Some(sandbox::wrap(spec, memory_limited, tmp)?)
        } else {
            None
        };
        let argv = wrapped
            .as_ref()
            .map_or_else(|| spec.argv.clone(), |w| w.argv.clone());
        let drop_to = wrapped.as_ref().and_then(|w| w.drop_to.clone());
        let keep = wrapped.as_ref().map(|w| w.keep.clone()).unwrap_or_default();
        let uid = sandbox::run_uid(spec.sandbox);
        Ok(Prepared {
            uid,
            keep,
            drop_to,
            argv,
            wrapped,
            entered,
            _run_tmp: run_tmp,
        })
    }
}
