//! linfa's `Fit` / `PredictInplace` traits over the gradient-boosting fit, as for the
//! logistic regression (`src/model/linfa.rs`), so that it composes with linfa.

use linfa::dataset::AsSingleTargets;
use linfa::traits::{Fit, PredictInplace};
use linfa::DatasetBase;
use ndarray::{Array1, ArrayBase, Data, Ix2};

use super::{FittedGbdt, HistGradientBoosting, Matrix};
use crate::error::{Error, Result};

/// The fit as linfa sees it: bool targets (`true` is the positive class, whatever its
/// frequency), records copied into a [`Matrix`] by loops. The inherent
/// [`HistGradientBoosting::fit`] shadows this one in method syntax: call it as
/// `linfa::traits::Fit::fit(&params, &dataset)`.
impl<D, T> Fit<ArrayBase<D, Ix2>, T, Error> for HistGradientBoosting
where
    D: Data<Elem = f64>,
    T: AsSingleTargets<Elem = bool>,
{
    type Object = FittedGbdt;

    fn fit(&self, dataset: &DatasetBase<ArrayBase<D, Ix2>, T>) -> Result<FittedGbdt> {
        let x = Matrix::from(&dataset.records);
        let y: Vec<bool> = dataset
            .targets
            .as_single_targets()
            .iter()
            .copied()
            .collect();
        HistGradientBoosting::fit(self, &x, &y)
    }
}

/// Class predictions for linfa's `Predict`: [`FittedGbdt::predict_labels`].
impl<D: Data<Elem = f64>> PredictInplace<ArrayBase<D, Ix2>, Array1<bool>> for FittedGbdt {
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
