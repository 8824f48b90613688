//! Work spread over scoped threads with outputs in input order: every result is a pure
//! function of its item, so the outputs never depend on the thread count.

/// The most worker threads any computation uses; a larger request is capped here.
pub const MAX_THREADS: usize = 64;

/// Applies `f` to every item on up to `threads` scoped threads (at most [`MAX_THREADS`]);
/// outputs keep input order. A thread the system refuses to spawn (a thread or memory
/// limit) is no error: its share of the items runs on the calling thread, so the outputs
/// are the same whatever could be spawned.
pub fn parallel_map<T: Sync, U: Send>(
    items: &[T],
    threads: usize,
    f: impl Fn(&T) -> U + Sync,
) -> Vec<U> {
    let threads = threads.clamp(1, MAX_THREADS).min(items.len().max(1));
    if threads == 1 {
        return items.iter().map(f).collect();
    }
    let mut slots: Vec<Option<U>> = (0..items.len()).map(|_| None).collect();
    let chunk = items.len().div_ceil(threads);
    std::thread::scope(|scope| {
        for (item_chunk, slot_chunk) in items.chunks(chunk).zip(slots.chunks_mut(chunk)) {
            let f = &f;
            #[cfg(test)]
            let counts = crate::work_counter::current();
            // A refused spawn drops the closure unrun: its slots stay empty (below).
            let _ = std::thread::Builder::new().spawn_scoped(scope, move || {
                #[cfg(test)]
                crate::work_counter::install(counts);
                for (item, slot) in item_chunk.iter().zip(slot_chunk) {
                    *slot = Some(f(item));
                }
            });
        }
    });
    // The items of a thread that could not be spawned: computed here, in order.
    for (item, slot) in items.iter().zip(slots.iter_mut()) {
        if slot.is_none() {
            *slot = Some(f(item));
        }
    }
    slots
        .into_iter()
        .map(|slot| slot.expect("every slot is filled"))
        .collect()
}
