//! Arbitrary pack.toml text and fixture bytes → `Pack::from_parts` within small load
//! limits: never a panic, never more than the budgets, and a table that loads is
//! canonical (presented again in a shuffled row order, it comes back bit for bit).
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|input: counterlab_fuzz::PackInput| {
    counterlab_fuzz::check_pack_load(&input);
});
