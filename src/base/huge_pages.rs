//! Transparent huge pages: off for goldgate's own process, as they were for the commands it
//! starts.
//!
//! The `goldgate` binary's allocator (mimalloc) asks for huge pages on its arenas; a heap that
//! frees its pages as a run goes had 2 MiB pages zeroed at their first touch, 9 MB more at
//! 100,000 cases and 3–9 % of a run's CPU on two test threads. The setting (`prctl`'s
//! `PR_SET_THP_DISABLE`) passes to child processes and through `exec`: a pipeline's `run:`
//! command, `cargo` and `git` are given back what goldgate had, so a pipeline is measured as it
//! runs without it.

use std::sync::atomic::{AtomicBool, Ordering};

/// Whether [`turn_off`] turned them off (they were on).
static TURNED_OFF: AtomicBool = AtomicBool::new(false);

/// Turns transparent huge pages off for this process, where the system has them (Linux); a
/// process that had them off already keeps them so.
pub fn turn_off() {
    #[cfg(target_os = "linux")]
    // SAFETY: `PR_GET_THP_DISABLE` and `PR_SET_THP_DISABLE` read and set one flag of the process
    // (inherited by its children, which `as_before` restores); a kernel without them refuses
    // the call and nothing changes.
    unsafe {
        if libc::prctl(libc::PR_GET_THP_DISABLE, 0, 0, 0, 0) == 0
            && libc::prctl(libc::PR_SET_THP_DISABLE, 1, 0, 0, 0) == 0
        {
            TURNED_OFF.store(true, Ordering::Relaxed);
        }
    }
}

/// Gives `command`, when it starts, the transparent huge pages this process had before
/// [`turn_off`].
pub(crate) fn as_before(command: &mut std::process::Command) {
    #[cfg(target_os = "linux")]
    if TURNED_OFF.load(Ordering::Relaxed) {
        use std::os::unix::process::CommandExt;
        // SAFETY: between `fork` and `exec` the hook only makes a system call (no allocation,
        // no lock), which is what `pre_exec` allows.
        unsafe {
            command.pre_exec(|| {
                libc::prctl(libc::PR_SET_THP_DISABLE, 0, 0, 0, 0);
                Ok(())
            });
        }
    }
    #[cfg(not(target_os = "linux"))]
    let _ = command;
}

#[cfg(test)]
mod tests {
    /// Whether the process reading its own status has transparent huge pages (`THP_enabled`,
    /// Linux 6.0 on); `None` where the kernel does not say.
    #[cfg(target_os = "linux")]
    fn enabled_in(status: &str) -> Option<bool> {
        let line = status.lines().find(|l| l.starts_with("THP_enabled:"))?;
        Some(line.split_whitespace().nth(1)? == "1")
    }

    /// A command started after `turn_off` has the huge pages the process had before it; the
    /// process itself has them off. (The test's own process is left as it found it.)
    #[cfg(target_os = "linux")]
    #[test]
    fn a_command_gets_back_the_huge_pages_goldgate_turned_off() {
        let before = std::fs::read_to_string("/proc/self/status").unwrap();
        let Some(had) = enabled_in(&before) else {
            return;
        };
        super::turn_off();
        let own = enabled_in(&std::fs::read_to_string("/proc/self/status").unwrap());
        let mut command = std::process::Command::new("cat");
        command.arg("/proc/self/status");
        super::as_before(&mut command);
        let child = String::from_utf8(command.output().unwrap().stdout).unwrap();
        if had {
            // SAFETY: sets back the flag of this test process, as it was.
            unsafe { libc::prctl(libc::PR_SET_THP_DISABLE, 0, 0, 0, 0) };
        }
        assert_eq!(own, Some(false));
        assert_eq!(enabled_in(&child), Some(had));
    }
}
