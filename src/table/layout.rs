//! Which model columns each feature of a pack becomes: one for a numeric feature, one per
//! recorded level for a categorical one (one-hot, levels in byte order).
//!
//! Experiments and ablations name *source* features (the manifest's `features`); the
//! model, the standardiser and the coefficients see *columns*. This is the one place that
//! maps the first to the second, so "drop `treat`" drops every one-hot column of `treat`.

use std::collections::BTreeMap;
use std::ops::Range;

/// The columns of a pack's features, in manifest order.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct FeatureLayout {
    /// Source feature names in manifest order.
    sources: Vec<String>,
    /// Per source feature, its columns.
    ranges: Vec<Range<usize>>,
    /// Per source feature, its levels (empty for a numeric feature).
    levels: Vec<Vec<String>>,
    /// Column names: a numeric feature's own name, `feature=level` for a one-hot column.
    columns: Vec<String>,
}

impl FeatureLayout {
    /// The layout of `features` (in order) where the features named in `levels` are
    /// categorical with those levels (already checked: sorted, distinct, non-empty).
    pub fn new(features: &[String], levels: &BTreeMap<String, Vec<String>>) -> FeatureLayout {
        let mut layout = FeatureLayout::default();
        for feature in features {
            let start = layout.columns.len();
            match levels.get(feature) {
                Some(levels) => {
                    layout
                        .columns
                        .extend(levels.iter().map(|level| format!("{feature}={level}")));
                    layout.levels.push(levels.clone());
                }
                None => {
                    layout.columns.push(feature.clone());
                    layout.levels.push(Vec::new());
                }
            }
            layout.sources.push(feature.clone());
            layout.ranges.push(start..layout.columns.len());
        }
        layout
    }

    /// Source feature names in manifest order.
    pub fn sources(&self) -> &[String] {
        &self.sources
    }

    /// Every column name in model order.
    pub fn columns(&self) -> &[String] {
        &self.columns
    }

    /// Source feature `k`'s columns.
    pub fn range(&self, k: usize) -> Range<usize> {
        self.ranges[k].clone()
    }

    /// Source feature `k`'s levels (empty when it is numeric).
    pub fn levels(&self, k: usize) -> &[String] {
        &self.levels[k]
    }

    /// The columns of the source features `names`, in that order (each feature's columns
    /// in level order). `None` names a feature that is not in the layout.
    pub fn columns_of(&self, names: &[String]) -> Option<Vec<usize>> {
        let mut out = Vec::new();
        if names.len() <= 8 {
            for name in names {
                let k = self.sources.iter().position(|s| s == name)?;
                out.extend(self.range(k));
            }
            return Some(out);
        }
        // A wide table (thousands of features) looked up name by name would be quadratic.
        let index: BTreeMap<&str, usize> = self
            .sources
            .iter()
            .enumerate()
            .map(|(k, s)| (s.as_str(), k))
            .collect();
        for name in names {
            out.extend(self.range(*index.get(name.as_str())?));
        }
        Some(out)
    }
}
