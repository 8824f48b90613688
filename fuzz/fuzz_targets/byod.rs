//! Arbitrary CSV bytes → `init` (with and without a time and a test column), `pack check`
//! and `audit` within small load limits: never a panic, never more than the budgets; what
//! init writes loads, and an audit's own payload never verifies REJECTED.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|input: (bool, bool, &[u8])| {
    let (with_time, with_test, csv) = input;
    counterlab_test_support::byod::exercise(csv, with_time, with_test);
});
