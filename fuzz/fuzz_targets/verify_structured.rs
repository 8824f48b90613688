//! Structured edits of a valid payload (see `counterlab_fuzz::build`) → `verify`: never a
//! panic, and SUPPORTS only when the edit left the payload's canonical value unchanged.
#![no_main]

use arbitrary::Unstructured;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let world = counterlab_fuzz::world();
    let mut u = Unstructured::new(data);
    let Ok(edited) = counterlab_fuzz::build(&mut u, world) else {
        return;
    };
    // COUNTERLAB_FUZZ_DEBUG=1 prints each edit; =describe prints it and skips verify
    // (used to pick seeds that cover every edit kind, see docs/FUZZING.md).
    if let Some(debug) = std::env::var_os("COUNTERLAB_FUZZ_DEBUG") {
        eprintln!("EDIT {}", edited.description);
        if debug == "describe" {
            return;
        }
    }
    let report = counterlab::verify(&edited.bytes, &world.packs, counterlab_fuzz::options());
    counterlab_fuzz::check_report_shape(&report);
    counterlab_fuzz::check_only_noop_supports(world, &edited, &report);
});
