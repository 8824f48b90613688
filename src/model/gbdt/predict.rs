//! Predictions of a fitted model on new rows (scikit-learn's `_raw_predict`,
//! `predict_proba` and `predict`).

use super::{loss, FittedGbdt, Matrix};

impl FittedGbdt {
    /// Every row's raw prediction (log-odds): the baseline, then each tree's leaf value added
    /// in fitting order — scikit-learn's `0 + baseline`, then `+= tree.predict(X)` tree after
    /// tree, the same additions in the same order.
    ///
    /// # Panics
    /// If `x` does not have one column per feature of the fit.
    pub fn decision_function(&self, x: &Matrix) -> Vec<f64> {
        assert_eq!(
            x.cols(),
            self.features(),
            "matrix has {} columns, the model {} features",
            x.cols(),
            self.features()
        );
        (0..x.rows())
            .map(|i| {
                let row = x.row(i);
                let mut raw = self.baseline;
                for tree in &self.trees {
                    raw += tree.predict_row(row);
                }
                raw
            })
            .collect()
    }

    /// The probability of the positive class, `1 / (1 + exp(−raw))` (scipy's `expit`, with
    /// `libm::exp`); scikit-learn's `predict_proba(x)[:, 1]`.
    ///
    /// # Panics
    /// If `x` does not have one column per feature of the fit.
    pub fn predict_probability(&self, x: &Matrix) -> Vec<f64> {
        loss::expit(self.decision_function(x))
    }

    /// The predicted class: scikit-learn's `predict`, the argmax of `[1 − p, p]` with the
    /// first on a tie, i.e. positive iff `p > 0.5` (`1 − p` is exact for `p >= ¼`). (Not
    /// named `predict`, so that linfa's `Predict::predict` stays callable with method
    /// syntax.)
    ///
    /// # Panics
    /// If `x` does not have one column per feature of the fit.
    pub fn predict_labels(&self, x: &Matrix) -> Vec<bool> {
        self.predict_probability(x)
            .into_iter()
            .map(|p| p > 0.5)
            .collect()
    }
}
