//! Parity with scikit-learn: goldens produced by the committed Python scripts beside this file.

mod auc;
mod logistic;
