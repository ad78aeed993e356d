// tests/goldgate.rs
fn main() -> std::process::ExitCode {
    goldgate::Harness::new("cases").rubrics("rubrics").run()
}
