#![no_main]
//! Fuzz target: see `pith_runner::fuzzing::unittest_records` for what it feeds and to which parsers.

libfuzzer_sys::fuzz_target!(|data: &[u8]| pith_runner::fuzzing::unittest_records(data));
