//! Arbitrary bytes → `counterlab::verify` against the bundled packs: never a panic, never
//! a hang, and every report has every check in order.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let world = counterlab_fuzz::world();
    let report = counterlab::verify(data, &world.packs, counterlab_fuzz::options());
    counterlab_fuzz::check_report_shape(&report);
});
