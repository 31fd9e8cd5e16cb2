//! Giving up every capability, whatever uid the worker runs as. An app run as
//! root starts its workers as root, and a root process keeps every capability
//! across execve: without this, code running in a worker (a memory-safety bug a
//! document reaches) would act with all of them, within what the filter lets
//! through.

use std::io;

/// `_LINUX_CAPABILITY_VERSION_3`: two 32-bit words per set.
const VERSION_3: u32 = 0x2008_0522;
/// `CAP_SETPCAP`, which emptying the bounding set needs.
const CAP_SETPCAP: u32 = 8;

#[repr(C)]
struct Header {
    version: u32,
    pid: libc::c_int,
}

#[repr(C)]
#[derive(Clone, Copy, Default)]
struct Sets {
    effective: u32,
    permitted: u32,
    inheritable: u32,
}

/// Empties the bounding, ambient, inheritable, permitted and effective sets,
/// then reads them back. The bounding set can only be emptied by a process
/// holding `CAP_SETPCAP` (root's worker does); one without it is left as it is,
/// which grants nothing to a process that holds no capability, sets
/// `no_new_privs` and may not call execve.
pub fn drop_all() -> io::Result<()> {
    let held = get()?;
    if held[0].effective & (1 << CAP_SETPCAP) != 0 {
        empty_bounding_set()?;
    }
    // EINVAL: a kernel before 4.3, which has no ambient set.
    let none: libc::c_ulong = 0;
    let clear_all = libc::PR_CAP_AMBIENT_CLEAR_ALL as libc::c_ulong;
    // SAFETY: prctl(PR_CAP_AMBIENT) takes integers, reads no memory, and changes only this
    // process's own capability sets.
    let cleared = unsafe { libc::prctl(libc::PR_CAP_AMBIENT, clear_all, none, none, none) };
    if cleared != 0 && io::Error::last_os_error().raw_os_error() != Some(libc::EINVAL) {
        return Err(io::Error::last_os_error());
    }
    set([Sets::default(); 2])?;
    let left = get()?;
    if left
        .iter()
        .any(|s| s.effective | s.permitted | s.inheritable != 0)
    {
        return Err(io::Error::other("a capability is still held"));
    }
    Ok(())
}

fn empty_bounding_set() -> io::Result<()> {
    // prctl reads its arguments as unsigned longs.
    let none: libc::c_ulong = 0;
    for capability in 0..64 as libc::c_ulong {
        // SAFETY: prctl(PR_CAPBSET_READ) takes integers and reads no memory.
        match unsafe { libc::prctl(libc::PR_CAPBSET_READ, capability, none, none, none) } {
            // Past the last capability this kernel knows.
            -1 => return Ok(()),
            0 => {}
            _ => {
                // SAFETY: prctl(PR_CAPBSET_DROP) takes integers, reads no memory, and
                // changes only this process's own bounding set.
                if unsafe { libc::prctl(libc::PR_CAPBSET_DROP, capability, none, none, none) } != 0
                {
                    return Err(io::Error::last_os_error());
                }
            }
        }
    }
    Ok(())
}

fn get() -> io::Result<[Sets; 2]> {
    let mut header = Header {
        version: VERSION_3,
        pid: 0,
    };
    let mut sets = [Sets::default(); 2];
    // SAFETY: `header` is the kernel's #[repr(C)] cap_user_header for version 3, for which
    // capget writes two cap_user_data structs (`Sets`, #[repr(C)], three u32s): `sets` has
    // room for exactly two.
    if unsafe { libc::syscall(libc::SYS_capget, &mut header, sets.as_mut_ptr()) } != 0 {
        return Err(io::Error::last_os_error());
    }
    Ok(sets)
}

fn set(sets: [Sets; 2]) -> io::Result<()> {
    let mut header = Header {
        version: VERSION_3,
        pid: 0,
    };
    // SAFETY: `header` is the kernel's #[repr(C)] cap_user_header for version 3, for which
    // capset reads two cap_user_data structs (`Sets`), and `sets` holds two.
    if unsafe { libc::syscall(libc::SYS_capset, &mut header, sets.as_ptr()) } != 0 {
        return Err(io::Error::last_os_error());
    }
    Ok(())
}
