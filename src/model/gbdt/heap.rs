//! Python's `heapq` (`heappush`/`heappop`, `_siftdown`/`_siftup`), move for move.
//!
//! scikit-learn keeps the nodes that can still be split in a `heapq` ordered by split gain
//! (`TreeNode.__lt__` is `self.gain > other.gain`) and splits the one it pops. Two nodes of
//! equal gain leave the choice to the heap's layout, so a different heap (`BinaryHeap`,
//! or a sort) could split another node first and grow another tree. This one makes the same
//! moves as CPython's, so ties go the same way.

/// A min-heap under `less` with CPython's `heapq` layout.
#[derive(Debug)]
pub(super) struct PyHeap<T> {
    items: Vec<T>,
}

impl<T: Copy> PyHeap<T> {
    /// An empty heap.
    pub(super) fn new() -> Self {
        PyHeap { items: Vec::new() }
    }

    /// The number of items.
    pub(super) fn len(&self) -> usize {
        self.items.len()
    }

    /// `heappush`: append, then `_siftdown(heap, 0, len − 1)`.
    pub(super) fn push(&mut self, item: T, less: impl Fn(&T, &T) -> bool) {
        self.items.push(item);
        let last = self.items.len() - 1;
        self.sift_down(0, last, &less);
    }

    /// `heappop`: the smallest item; the last item takes its place and `_siftup` runs.
    pub(super) fn pop(&mut self, less: impl Fn(&T, &T) -> bool) -> Option<T> {
        let last = self.items.pop()?;
        if self.items.is_empty() {
            return Some(last);
        }
        let top = std::mem::replace(&mut self.items[0], last);
        self.sift_up(0, &less);
        Some(top)
    }

    /// `list.pop()`: the last item in the heap's array (scikit-learn's
    /// `_finalize_splittable_nodes` empties the heap this way).
    pub(super) fn pop_last(&mut self) -> Option<T> {
        self.items.pop()
    }

    /// CPython's `_siftdown`: move the item at `pos` up towards `start` while it is less
    /// than its parent.
    fn sift_down(&mut self, start: usize, mut pos: usize, less: &impl Fn(&T, &T) -> bool) {
        let item = self.items[pos];
        while pos > start {
            let parent = (pos - 1) >> 1;
            if less(&item, &self.items[parent]) {
                self.items[pos] = self.items[parent];
                pos = parent;
                continue;
            }
            break;
        }
        self.items[pos] = item;
    }

    /// CPython's `_siftup`: move the smaller child up until a leaf is reached, put the item
    /// there, then `_siftdown` it.
    fn sift_up(&mut self, mut pos: usize, less: &impl Fn(&T, &T) -> bool) {
        let end = self.items.len();
        let start = pos;
        let item = self.items[pos];
        let mut child = 2 * pos + 1;
        while child < end {
            let right = child + 1;
            if right < end && !less(&self.items[child], &self.items[right]) {
                child = right;
            }
            self.items[pos] = self.items[child];
            pos = child;
            child = 2 * pos + 1;
        }
        self.items[pos] = item;
        self.sift_down(start, pos, less);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The pop order of CPython 3.11's `heapq` on (gain, id) items compared by gain alone,
    /// greater first (scikit-learn's `__lt__`), from:
    /// ```python
    /// import heapq
    /// class N:
    ///     def __init__(s, g, i): s.g, s.i = g, i
    ///     def __lt__(s, o): return s.g > o.g
    /// h = []
    /// for i, g in enumerate([1, 3, 3, 1, 2, 3, 1, 2, 3]): heapq.heappush(h, N(g, i))
    /// out = [heapq.heappop(h).i for _ in range(4)]
    /// for i, g in enumerate([3, 2, 3], start=9): heapq.heappush(h, N(g, i))
    /// out += [heapq.heappop(h).i for _ in range(len(h))]
    /// ```
    #[test]
    fn ties_pop_in_cpythons_order() {
        let less = |a: &(u32, usize), b: &(u32, usize)| a.0 > b.0;
        let mut heap = PyHeap::new();
        for (i, g) in [1, 3, 3, 1, 2, 3, 1, 2, 3].into_iter().enumerate() {
            heap.push((g, i), less);
        }
        let mut out: Vec<usize> = (0..4).map(|_| heap.pop(less).unwrap().1).collect();
        for (i, g) in [3, 2, 3].into_iter().enumerate() {
            heap.push((g, i + 9), less);
        }
        while let Some((_, i)) = heap.pop(less) {
            out.push(i);
        }
        assert_eq!(out, EXPECTED);
    }

    const EXPECTED: [usize; 12] = [1, 2, 5, 8, 9, 11, 7, 10, 4, 3, 6, 0];
}
