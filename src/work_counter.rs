//! Test-only counts of the work behind a computation: arms prepared and models fitted.
//!
//! A count is started on the calling thread ([`start`]) and followed into every worker
//! that [`crate::parallel::parallel_map`] spawns from it, so it sees all of a verification
//! whatever its thread count, and nothing of the tests running beside it on other
//! threads. The formula the counts must equal is in docs/VERDICTS.md ("Work").

use std::cell::RefCell;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;

/// The counts of one [`start`].
#[derive(Debug, Default)]
pub(crate) struct Counts {
    preparations: AtomicU64,
    fits: AtomicU64,
}

impl Counts {
    /// (arms prepared, model fits) so far.
    pub(crate) fn get(&self) -> (u64, u64) {
        (
            self.preparations.load(Ordering::SeqCst),
            self.fits.load(Ordering::SeqCst),
        )
    }
}

thread_local! {
    static CURRENT: RefCell<Option<Arc<Counts>>> = const { RefCell::new(None) };
}

/// Starts counting on this thread (and the workers spawned from it), from zero.
pub(crate) fn start() -> Arc<Counts> {
    let counts = Arc::new(Counts::default());
    install(Some(counts.clone()));
    counts
}

/// The count this thread adds to, to hand to a worker.
pub(crate) fn current() -> Option<Arc<Counts>> {
    CURRENT.with(|c| c.borrow().clone())
}

/// Makes this thread add to `counts` (a worker, with its spawner's [`current`]).
pub(crate) fn install(counts: Option<Arc<Counts>>) {
    CURRENT.with(|c| *c.borrow_mut() = counts);
}

/// One arm prepared: split, overlap and every feature set standardised.
pub(crate) fn preparation() {
    if let Some(c) = current() {
        c.preparations.fetch_add(1, Ordering::SeqCst);
    }
}

/// One model fitted.
pub(crate) fn fit() {
    if let Some(c) = current() {
        c.fits.fetch_add(1, Ordering::SeqCst);
    }
}
