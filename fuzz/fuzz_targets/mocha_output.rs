#![no_main]
//! Fuzz target: see `pith_runner::fuzzing::mocha_output` for what it feeds and to which parsers.

libfuzzer_sys::fuzz_target!(|data: &[u8]| pith_runner::fuzzing::mocha_output(data));
