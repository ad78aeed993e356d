//! A fuzzed line of `goldgate score` and `goldgate calibrate`.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| goldgate::cli::fuzz::score_line(data));
