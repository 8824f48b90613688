//! Parity with scikit-learn and pROC: goldens produced by the committed Python and R scripts
//! beside this file.

mod auc;
mod cv;
mod logistic;
mod paired;
