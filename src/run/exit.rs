//! The exit codes of goldgate's commands, in one place: libtest's (0 all passed, 101 a test
//! failed), 2 for a usage error of the command line or the environment, 1 for a command that
//! could not do its work (`lint` that found mistakes, `report` that could not read a run).

use std::process::ExitCode;

/// How a command ends.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Exit {
    /// Everything passed, or the command did its work.
    Success = 0,
    /// The command could not do its work, or found mistakes.
    Error = 1,
    /// A usage error: a flag, an argument or an environment variable that cannot be used.
    Usage = 2,
    /// A test failed, or a test's run could not write what it had to (libtest's code).
    TestFailed = 101,
}

impl From<Exit> for ExitCode {
    fn from(exit: Exit) -> ExitCode {
        ExitCode::from(exit as u8)
    }
}
