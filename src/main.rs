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

fn main() -> std::process::ExitCode {
    // Freed pages go back 20 ms after they are freed, not at once: a test frees pages that the
    // next one takes again, and given back at once (2,700 `madvise` calls in a run of 10,000
    // cases, 500 with the delay) each made the kernel stop the other test thread's core to flush
    // its TLB and fault the pages in again: a fifth of the run's CPU, as the allocation order of
    // a run happened to fall. 100,000 cases peak at 109 MB with it (96 MB without).
    // SAFETY: mimalloc reads its options at any time; setting one is thread-safe.
    unsafe { mi_option_set(PURGE_DELAY, 20) };
    // No transparent huge pages for goldgate itself (see `goldgate::cli::no_huge_pages`).
    goldgate::cli::no_huge_pages();
    goldgate::cli::main()
}
