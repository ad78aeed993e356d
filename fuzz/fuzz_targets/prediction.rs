//! A fuzzed prediction, run the way `goldgate test` runs it.
#![no_main]

use std::sync::OnceLock;

use goldgate::cli::fuzz::Project;
use libfuzzer_sys::fuzz_target;

static PROJECT: OnceLock<Project> = OnceLock::new();

fuzz_target!(|data: &[u8]| PROJECT.get_or_init(Project::new).prediction(data));
