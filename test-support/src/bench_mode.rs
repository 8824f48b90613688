//! Whether a criterion bench runs in test mode (`cargo bench -- --test`, as CI does): each
//! bench then runs once to prove it still works, and a bench may choose lighter inputs
//! whose time is not what it measures (a smaller K, one thread count) so that the check
//! stays cheap. What the benches measure is the full run without `--test`.

/// True when the bench binary was started with criterion's `--test` flag.
pub fn criterion_test_mode() -> bool {
    std::env::args().skip(1).any(|arg| arg == "--test")
}
