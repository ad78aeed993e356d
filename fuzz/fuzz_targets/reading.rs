//! Two fuzzed values and a tolerance read as numbers and dates, and what that reading promises.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| goldgate::cli::fuzz::reading(data));
