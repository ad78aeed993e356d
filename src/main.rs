//! The `goldgate` command line: thin, it calls the library.

/// mimalloc, not the system's allocator: reading and scoring a case is many small allocations
/// (a gold tree, a prediction's fields, a record), where glibc's malloc and free cost a fifth of
/// the run's instructions; mimalloc's thread-local pages also keep the test threads from
/// fragmenting the heap (see the README's speed section for the figures).
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

fn main() -> std::process::ExitCode {
    goldgate::cli::main()
}
