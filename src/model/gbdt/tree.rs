//! A fitted tree as scikit-learn's `TreePredictor` stores it: nodes in depth-first order
//! (a node, then its left subtree, then its right subtree), root first.

/// One node of a [`Tree`] (a record of scikit-learn's `PREDICTOR_RECORD_DTYPE`).
#[derive(Debug, Clone, PartialEq)]
pub struct Node {
    /// A leaf's value, shrunk by the learning rate: what the tree adds to a row's raw
    /// prediction. A split node's unshrunk value (its Newton step before it was split; 0 at
    /// the root), kept as scikit-learn keeps it and never added to a prediction.
    pub value: f64,
    /// The training rows that reached the node.
    pub count: usize,
    /// Distance from the root.
    pub depth: usize,
    /// The gain of the best valid split found for the node: the split taken at a split
    /// node; at a leaf, the split it would have taken had the tree not reached
    /// `max_leaf_nodes`. None when no split was evaluated (too few rows, or the leaf limit
    /// was reached first) or none was valid; scikit-learn records −1 for both.
    pub gain: Option<f64>,
    /// The split, or None at a leaf.
    pub split: Option<Split>,
}

/// How a split node sends a row on.
#[derive(Debug, Clone, PartialEq)]
pub struct Split {
    /// The feature the split reads.
    pub feature: usize,
    /// Training rows in bins `<= bin` went left.
    pub bin: u8,
    /// A row goes left iff its value is `<= threshold`: the upper bound of `bin` (the bin's
    /// threshold), so training rows go the way their bins went.
    pub threshold: f64,
    /// Where a missing value (NaN) goes: left iff more training rows went left, as
    /// scikit-learn decides when the training rows had no missing value (the fit refuses
    /// them, so this only matters to a caller that predicts on NaN).
    pub missing_go_to_left: bool,
    /// The left child's index in [`Tree::nodes`].
    pub left: usize,
    /// The right child's index in [`Tree::nodes`].
    pub right: usize,
}

/// A fitted tree.
#[derive(Debug, Clone, PartialEq)]
pub struct Tree {
    pub(super) nodes: Vec<Node>,
}

impl Tree {
    /// The nodes, root first, depth-first with left subtrees before right ones (scikit-learn's
    /// `TreePredictor.nodes` order).
    pub fn nodes(&self) -> &[Node] {
        &self.nodes
    }

    /// The number of leaves.
    pub fn leaves(&self) -> usize {
        self.nodes.iter().filter(|n| n.split.is_none()).count()
    }

    /// The value of the leaf `row` reaches (`_predict_one_from_raw_data`): at each split,
    /// left iff `row[feature] <= threshold` (a NaN goes where `missing_go_to_left` says).
    ///
    /// # Panics
    /// If `row` is shorter than a split's feature index.
    pub fn predict_row(&self, row: &[f64]) -> f64 {
        let mut node = &self.nodes[0];
        while let Some(split) = &node.split {
            let v = row[split.feature];
            let left = if v.is_nan() {
                split.missing_go_to_left
            } else {
                v <= split.threshold
            };
            node = &self.nodes[if left { split.left } else { split.right }];
        }
        node.value
    }
}
