//! The `goldgate` command line: thin, it calls the library.

/// mimalloc, not the system's allocator: reading and scoring a case is many small allocations
/// (a gold tree, a prediction's fields, a record), where glibc's malloc and free cost a fifth of
/// the run's instructions; mimalloc's thread-local pages also keep the test threads from
/// fragmenting the heap (see the README's speed section for the figures).
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

unsafe extern "C" {
    /// mimalloc's own setter of its options (in the library `mimalloc` links).
    fn mi_option_set(option: std::ffi::c_int, value: std::ffi::c_long);
}

/// `mi_option_purge_delay` of mimalloc 3 (`mimalloc.h`; the environment's
/// `MIMALLOC_PURGE_DELAY`): how many milliseconds freed pages wait before they go back to the
/// system.
const PURGE_DELAY: std::ffi::c_int = 15;

/// No transparent huge pages for this process (what `MIMALLOC_ALLOW_THP=0` does, which mimalloc
/// reads before `main`): mimalloc asks for them on its arenas, and a 2 MiB page zeroed at its
/// first touch, for a heap that frees its pages as it goes, cost 9 MB more at 100,000 cases and
/// up to a tenth of a run's CPU on two test threads (the kernel zeroing whole huge pages).
fn no_huge_pages() {
    // SAFETY: `prctl(PR_SET_THP_DISABLE)` only sets a flag of the process; a kernel without
    // it refuses the call, and huge pages stay as they were.
    #[cfg(target_os = "linux")]
    unsafe {
        libc::prctl(libc::PR_SET_THP_DISABLE, 1, 0, 0, 0);
    }
}

fn main() -> std::process::ExitCode {
    // Freed pages go back at once, not 10 ms later: a test's parse and scoring free their pages
    // while the next test's fill new ones, and with the delay a run of 100,000 cases held
    // 125 MB for a heap of 70 MB (109 MB without it; the same CPU within noise).
    // SAFETY: mimalloc reads its options at any time; setting one is thread-safe.
    unsafe { mi_option_set(PURGE_DELAY, 0) };
    no_huge_pages();
    goldgate::cli::main()
}
