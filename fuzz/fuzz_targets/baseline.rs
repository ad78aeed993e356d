//! A fuzzed baseline file: read, written back, read again.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| goldgate::cli::fuzz::baseline(data));
