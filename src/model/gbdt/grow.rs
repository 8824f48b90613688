//! Growing one tree: scikit-learn's `TreeGrower` (`grower.py`) with one thread.
//!
//! Best-first: the root's best split is found; while some node can be split, the one of
//! greatest gain is popped from a heap (CPython's `heapq`, so ties go its way: `heap.rs`),
//! its rows are partitioned, and each child that may still be split gets its histograms —
//! the smaller child's summed over its rows, the larger child's by subtraction from the
//! parent's (on equal sizes the right child is summed) — and its own best split. A child
//! becomes a leaf when it has fewer than `2·min_samples_leaf` rows, when its best split has
//! no positive gain, or when the tree reaches `max_leaf_nodes` leaves (every splittable node
//! then becomes a leaf too). At the end each leaf's value is multiplied by the learning rate.
//!
//! The partition keeps each node's rows contiguous in one array. scikit-learn with one
//! thread splits a node's rows stably (left rows in their order, then right rows in theirs),
//! and so does [`Grower::partition`]: the row order of every node, hence of every histogram
//! sum, is scikit-learn's.
//!
//! Buffers live as long as the grower, so that growing a tree allocates little: the
//! partition, the gathered gradients, the split search's candidates, and the histograms,
//! which go back to a pool when their node no longer needs them.

use super::binning::{BinThresholds, Binned};
use super::heap::PyHeap;
use super::histogram::{numpy_sum, Histograms, RootCounts};
use super::split::{SplitInfo, Splitter};
use super::tree::{Node, Split, Tree};
use super::{HistGradientBoosting, MIN_HESSIAN_TO_SPLIT};

/// The most histogram entries numpy sums for the root's totals (`max_bins + 1 <= 256`).
const ROOT_ENTRIES: usize = 256;

/// Grows the trees of one fit, keeping its buffers between trees.
#[derive(Debug)]
pub(super) struct Grower<'a> {
    binned: &'a Binned,
    thresholds: &'a BinThresholds,
    splitter: Splitter,
    max_leaf_nodes: usize,
    /// `2·min_samples_leaf`, saturated: a node with fewer rows is not split.
    min_samples_split: usize,
    learning_rate: f64,
    /// Histogram entries per feature in scikit-learn, missing-value bin included
    /// (`max_bins + 1`): the root's totals are numpy sums over this many.
    n_bins: usize,
    /// Every row index, each node's rows contiguous (scikit-learn's `splitter.partition`).
    partition: Vec<u32>,
    /// The right rows of the node being partitioned (one slot per row: written without a
    /// branch, see [`Grower::partition`]).
    right_rows: Vec<u32>,
    /// The gradients and hessians of a node's rows in partition order, `[g, h]` per row.
    ordered_gradient_hessians: Vec<[f32; 2]>,
    /// The root's bin counts, the same in every tree.
    root_counts: RootCounts,
    /// Histograms no node holds any more, reused instead of allocated.
    spare: Vec<Histograms>,
}

/// A node while the tree grows (scikit-learn's `TreeNode`).
#[derive(Debug)]
struct GrowNode {
    depth: usize,
    /// The node's rows are `partition[start..stop]`.
    start: usize,
    stop: usize,
    sum_gradients: f64,
    sum_hessians: f64,
    /// Unshrunk until the leaves are shrunk at the end.
    value: f64,
    /// The best split found, once searched.
    split: Option<SplitInfo>,
    is_leaf: bool,
    children: Option<(usize, usize)>,
    missing_go_to_left: bool,
    histograms: Option<Histograms>,
}

impl GrowNode {
    fn new(
        depth: usize,
        (start, stop): (usize, usize),
        (sum_gradients, sum_hessians): (f64, f64),
        value: f64,
    ) -> Self {
        GrowNode {
            depth,
            start,
            stop,
            sum_gradients,
            sum_hessians,
            value,
            split: None,
            is_leaf: false,
            children: None,
            missing_go_to_left: false,
            histograms: None,
        }
    }

    fn n_samples(&self) -> usize {
        self.stop - self.start
    }
}

/// The state of one tree's growth.
struct Growth {
    nodes: Vec<GrowNode>,
    /// Splittable nodes as (gain, node), greatest gain first.
    heap: PyHeap<(f64, usize)>,
    /// The leaves, in the order they were made (scikit-learn's `finalized_leaves`).
    leaves: Vec<usize>,
}

/// scikit-learn's `TreeNode.__lt__`: a greater gain is "less", so it pops first.
fn greater_gain(a: &(f64, usize), b: &(f64, usize)) -> bool {
    a.0 > b.0
}

impl<'a> Grower<'a> {
    /// A grower for the binned training rows with the fit's parameters.
    pub(super) fn new(
        params: &HistGradientBoosting,
        binned: &'a Binned,
        thresholds: &'a BinThresholds,
    ) -> Self {
        let n = binned.rows();
        Grower {
            binned,
            thresholds,
            splitter: Splitter::new(
                (0..thresholds.features())
                    .map(|k| thresholds.feature(k).len() + 1)
                    .collect(),
                params.l2_regularization,
                params.min_samples_leaf,
            ),
            max_leaf_nodes: params.max_leaf_nodes,
            min_samples_split: params.min_samples_leaf.saturating_mul(2),
            learning_rate: params.learning_rate,
            n_bins: params.max_bins + 1,
            partition: Vec::with_capacity(n),
            right_rows: vec![0; n],
            ordered_gradient_hessians: vec![[0.0; 2]; n],
            root_counts: RootCounts::new(binned),
            spare: Vec::new(),
        }
    }

    /// Grows one tree on the rows' gradients and hessians (`[g, h]` per row), adds its leaf
    /// values to the rows' raw predictions `raw` (scikit-learn's `_update_raw_predictions`:
    /// one addition per row) and returns it.
    #[inline(always)]
    pub(super) fn grow(&mut self, gradient_hessians: &[[f32; 2]], raw: &mut [f64]) -> Tree {
        let n = self.binned.rows();
        self.partition.clear();
        self.partition
            .extend(0..u32::try_from(n).expect("the fit checked n <= u32::MAX"));
        let mut growth = Growth {
            nodes: Vec::new(),
            heap: PyHeap::new(),
            leaves: Vec::new(),
        };
        self.initialize_root(&mut growth, gradient_hessians);
        while let Some((_, id)) = growth.heap.pop(greater_gain) {
            self.split_next(&mut growth, id, gradient_hessians);
        }
        for &leaf in &growth.leaves {
            growth.nodes[leaf].value *= self.learning_rate;
            let node = &growth.nodes[leaf];
            for &i in &self.partition[node.start..node.stop] {
                raw[i as usize] += node.value;
            }
        }
        self.predictor(&growth.nodes)
    }

    /// `_initialize_root`: the root's histograms over every row; its totals are numpy sums
    /// of feature 0's histogram. Too few rows or too small a hessian sum make it a leaf of
    /// value 0.
    #[inline(always)]
    fn initialize_root(&mut self, growth: &mut Growth, gradient_hessians: &[[f32; 2]]) {
        let n = self.binned.rows();
        let mut histograms = self.take_histograms();
        histograms.build_root(
            self.binned,
            &self.splitter.n_bins,
            &self.root_counts,
            gradient_hessians,
        );
        // Feature 0's bins in use, then zeros up to scikit-learn's `max_bins + 1` entries
        // (the slots past a feature's bins are zero).
        let used = &histograms.feature(0).sums[..self.splitter.n_bins[0]];
        let mut column = [0.0; ROOT_ENTRIES];
        for (c, b) in column.iter_mut().zip(used) {
            *c = b[0];
        }
        let sum_gradients = numpy_sum(&column[..self.n_bins]);
        for (c, b) in column.iter_mut().zip(used) {
            *c = b[1];
        }
        let sum_hessians = numpy_sum(&column[..self.n_bins]);
        growth
            .nodes
            .push(GrowNode::new(0, (0, n), (sum_gradients, sum_hessians), 0.0));
        if n < self.min_samples_split || sum_hessians < MIN_HESSIAN_TO_SPLIT {
            self.spare.push(histograms);
            self.finalize_leaf(growth, 0);
            return;
        }
        growth.nodes[0].histograms = Some(histograms);
        self.compute_best_split_and_push(growth, 0);
    }

    /// `_compute_best_split_and_push`: a node whose best split has no positive gain becomes
    /// a leaf; any other waits in the heap.
    #[inline(always)]
    fn compute_best_split_and_push(&mut self, growth: &mut Growth, id: usize) {
        let node = &growth.nodes[id];
        let histograms = node
            .histograms
            .as_ref()
            .expect("a node to split has histograms");
        let n_samples = u32::try_from(node.n_samples()).expect("n <= u32::MAX");
        let split = self.splitter.find_node_split(
            n_samples,
            histograms,
            node.sum_gradients,
            node.sum_hessians,
            node.value,
        );
        growth.nodes[id].split = Some(split);
        if split.gain <= 0.0 {
            self.finalize_leaf(growth, id);
        } else {
            growth.heap.push((split.gain, id), greater_gain);
        }
    }

    /// `split_next`: partitions the node's rows, makes its children, and searches the
    /// children that may still be split.
    #[inline(always)]
    fn split_next(&mut self, growth: &mut Growth, id: usize, gradient_hessians: &[[f32; 2]]) {
        let split = growth.nodes[id]
            .split
            .expect("a node in the heap has a split");
        let (start, stop) = (growth.nodes[id].start, growth.nodes[id].stop);
        let n_left = self.partition(start, stop, &split);
        let depth = growth.nodes[id].depth + 1;
        let n_leaf_nodes = growth.leaves.len() + growth.heap.len() + 2;
        let middle = start + n_left;
        let left = growth.nodes.len();
        let right = left + 1;
        growth.nodes.push(GrowNode::new(
            depth,
            (start, middle),
            (split.sum_gradient_left, split.sum_hessian_left),
            split.value_left,
        ));
        growth.nodes.push(GrowNode::new(
            depth,
            (middle, stop),
            (split.sum_gradient_right, split.sum_hessian_right),
            split.value_right,
        ));
        let n_right = stop - middle;
        let parent = &mut growth.nodes[id];
        parent.children = Some((left, right));
        // No training row is missing: a missing value at prediction goes where most went.
        parent.missing_go_to_left = n_left > n_right;
        let parent_histograms = parent
            .histograms
            .take()
            .expect("a split node has histograms");

        if n_leaf_nodes == self.max_leaf_nodes {
            self.spare.push(parent_histograms);
            self.finalize_leaf(growth, left);
            self.finalize_leaf(growth, right);
            // `_finalize_splittable_nodes`: from the end of the heap's array.
            while let Some((_, other)) = growth.heap.pop_last() {
                self.finalize_leaf(growth, other);
            }
            return;
        }
        if n_left < self.min_samples_split {
            self.finalize_leaf(growth, left);
        }
        if n_right < self.min_samples_split {
            self.finalize_leaf(growth, right);
        }
        let split_left = !growth.nodes[left].is_leaf;
        let split_right = !growth.nodes[right].is_leaf;
        if !(split_left || split_right) {
            self.spare.push(parent_histograms);
            return;
        }
        // The smaller child's histograms are summed even if it is a leaf: the larger one's
        // are the parent's minus them. A larger child that is a leaf needs none (nothing
        // reads a leaf's histograms), so the subtraction is skipped.
        let (smallest, largest) = if n_left < n_right {
            (left, right)
        } else {
            (right, left)
        };
        let small = self.node_histograms(&growth.nodes[smallest], gradient_hessians);
        if growth.nodes[largest].is_leaf {
            self.spare.push(parent_histograms);
        } else {
            let mut large = parent_histograms;
            large.subtract(&small, &self.splitter.n_bins);
            growth.nodes[largest].histograms = Some(large);
        }
        growth.nodes[smallest].histograms = Some(small);
        if split_left {
            self.compute_best_split_and_push(growth, left);
        }
        if split_right {
            self.compute_best_split_and_push(growth, right);
        }
        for child in [left, right] {
            if growth.nodes[child].is_leaf {
                if let Some(h) = growth.nodes[child].histograms.take() {
                    self.spare.push(h);
                }
            }
        }
    }

    /// `split_indices` with one thread: the rows of `partition[start..stop]` whose bin is
    /// `<= split.bin` first, then the others, each group in its previous order. Returns the
    /// number that went left.
    ///
    /// Without a branch on the side a row goes to (it is as good as random, and a
    /// mispredicted branch per row cost more than the rest of the loop): every row is
    /// written both as the next left row and as the next right row, and only the count of
    /// its side moves on. A left write never overtakes the reads (`start + n_left <= pos`),
    /// and a slot written for a row that went right is overwritten by the next left row or
    /// by the right rows copied back.
    #[inline(always)]
    fn partition(&mut self, start: usize, stop: usize, split: &SplitInfo) -> usize {
        let column = self.binned.column(split.feature);
        let rows = &mut self.partition[start..stop];
        let right = &mut self.right_rows[..rows.len()];
        let (mut n_left, mut n_right) = (0, 0);
        for pos in 0..rows.len() {
            let row = rows[pos];
            let left = column[row as usize] <= split.bin;
            rows[n_left] = row;
            right[n_right] = row;
            n_left += usize::from(left);
            n_right += usize::from(!left);
        }
        rows[n_left..].copy_from_slice(&right[..n_right]);
        n_left
    }

    /// `compute_histograms_brute` of a node below the root: its rows' gradients and
    /// hessians gathered in partition order, then summed per feature.
    #[inline(always)]
    fn node_histograms(&mut self, node: &GrowNode, gradient_hessians: &[[f32; 2]]) -> Histograms {
        let mut histograms = self.take_histograms();
        let rows = &self.partition[node.start..node.stop];
        let ordered = &mut self.ordered_gradient_hessians[..rows.len()];
        for (o, &i) in ordered.iter_mut().zip(rows) {
            *o = gradient_hessians[i as usize];
        }
        histograms.build(self.binned, &self.splitter.n_bins, rows, ordered);
        histograms
    }

    /// `_finalize_leaf`; the node's histograms, if any, are kept for reuse.
    #[inline(always)]
    fn finalize_leaf(&mut self, growth: &mut Growth, id: usize) {
        let node = &mut growth.nodes[id];
        node.is_leaf = true;
        if let Some(h) = node.histograms.take() {
            self.spare.push(h);
        }
        growth.leaves.push(id);
    }

    /// Histograms for a node: a spare one, or new (every build zeroes what it writes).
    #[inline(always)]
    fn take_histograms(&mut self) -> Histograms {
        self.spare
            .pop()
            .unwrap_or_else(|| Histograms::new(self.thresholds.features()))
    }

    /// `make_predictor`: the nodes depth-first, left subtree before right, each split's
    /// numeric threshold the upper bound of its bin.
    fn predictor(&self, nodes: &[GrowNode]) -> Tree {
        let mut out: Vec<Node> = Vec::with_capacity(nodes.len());
        // (grow node, its parent's index in `out` and whether it is the left child)
        let mut stack: Vec<(usize, Option<(usize, bool)>)> = vec![(0, None)];
        while let Some((id, parent)) = stack.pop() {
            let at = out.len();
            if let Some((p, is_left)) = parent {
                let split = out[p].split.as_mut().expect("a parent is a split");
                if is_left {
                    split.left = at;
                } else {
                    split.right = at;
                }
            }
            let node = &nodes[id];
            let split = match (node.is_leaf, node.children, node.split) {
                (false, Some((left, right)), Some(s)) => {
                    stack.push((right, Some((at, false))));
                    stack.push((left, Some((at, true))));
                    Some(Split {
                        feature: s.feature,
                        bin: s.bin,
                        threshold: self.thresholds.feature(s.feature)[usize::from(s.bin)],
                        missing_go_to_left: node.missing_go_to_left,
                        left: 0,
                        right: 0,
                    })
                }
                _ => None,
            };
            out.push(Node {
                value: node.value,
                count: node.n_samples(),
                depth: node.depth,
                // scikit-learn's gain is −1 both when no split was searched and when none
                // was valid (every valid split has a positive gain).
                gain: node.split.map(|s| s.gain).filter(|&g| g > 0.0),
                split,
            });
        }
        Tree { nodes: out }
    }
}
