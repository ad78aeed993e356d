//! The `goldgate` command line: thin, it calls the library.

fn main() -> std::process::ExitCode {
    goldgate::cli::main()
}
