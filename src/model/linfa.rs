//! linfa's `Fit` / `Predict` traits over the kernel's solver, so it composes with linfa
//! (linfa-logistic stays a test oracle: it is not bit-identical across CPUs).

use linfa::dataset::AsSingleTargets;
use linfa::traits::{Fit, PredictInplace};
use linfa::DatasetBase;
use ndarray::{Array1, ArrayBase, Data, Ix2};

use super::{FittedLogistic, LogisticRegression, Matrix};
use crate::error::{Error, Result};

/// The fit as linfa sees it: bool targets (`true` is the positive class, whatever its
/// frequency), records copied into a [`Matrix`] by loops. The inherent
/// [`LogisticRegression::fit`] shadows this one in method syntax: call it as
/// `linfa::traits::Fit::fit(&params, &dataset)`.
impl<D, T> Fit<ArrayBase<D, Ix2>, T, Error> for LogisticRegression
where
    D: Data<Elem = f64>,
    T: AsSingleTargets<Elem = bool>,
{
    type Object = FittedLogistic;

    fn fit(&self, dataset: &DatasetBase<ArrayBase<D, Ix2>, T>) -> Result<FittedLogistic> {
        let x = Matrix::from(&dataset.records);
        let y: Vec<bool> = dataset
            .targets
            .as_single_targets()
            .iter()
            .copied()
            .collect();
        LogisticRegression::fit(self, &x, &y)
    }
}

/// Class predictions for linfa's `Predict`: `true` when the probability is ≥ 0.5.
impl<D: Data<Elem = f64>> PredictInplace<ArrayBase<D, Ix2>, Array1<bool>> for FittedLogistic {
    fn predict_inplace(&self, x: &ArrayBase<D, Ix2>, y: &mut Array1<bool>) {
        assert_eq!(
            x.nrows(),
            y.len(),
            "the target array must have one entry per row"
        );
        for (target, label) in y.iter_mut().zip(self.predict_labels(&Matrix::from(x))) {
            *target = label;
        }
    }

    fn default_target(&self, x: &ArrayBase<D, Ix2>) -> Array1<bool> {
        Array1::from_elem(x.nrows(), false)
    }
}

/// linfa's `Fit` requires the error type to absorb linfa's own errors.
impl From<linfa::Error> for Error {
    fn from(e: linfa::Error) -> Self {
        Error::invalid(e.to_string())
    }
}
