//! `cargo goldgate`: runs a project's tests under one run id, then writes the run's files and
//! prints the end of the run (as `cargo insta test` does). Thin: it calls the library.

#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

fn main() -> std::process::ExitCode {
    goldgate::cli::cargo::main()
}
