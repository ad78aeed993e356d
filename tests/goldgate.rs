//! The repository's own gold set, run as `cargo test` runs a user's.

fn main() -> std::process::ExitCode {
    goldgate::Harness::new("cases").rubrics("rubrics").run()
}
