//! A dense row-major matrix of f64, the solver's only matrix type (no ndarray products:
//! their gemm picks CPU-dependent kernels at run time).

use ndarray::{ArrayBase, Data, Ix2};

/// A dense row-major matrix of f64 (rows = observations, cols = features).
#[derive(Debug, Clone, PartialEq)]
pub struct Matrix {
    rows: usize,
    cols: usize,
    data: Vec<f64>,
}

impl Matrix {
    /// A matrix from row-major data; panics if `data.len() != rows * cols`.
    pub fn from_row_major(rows: usize, cols: usize, data: Vec<f64>) -> Self {
        assert_eq!(data.len(), rows * cols, "matrix data has the wrong length");
        Matrix { rows, cols, data }
    }

    /// The number of rows (observations).
    pub fn rows(&self) -> usize {
        self.rows
    }

    /// The number of columns (features).
    pub fn cols(&self) -> usize {
        self.cols
    }

    /// Row `i` as a slice of `cols()` values; panics if `i >= rows()`.
    pub fn row(&self, i: usize) -> &[f64] {
        &self.data[i * self.cols..(i + 1) * self.cols]
    }

    /// All values, row after row.
    pub fn as_slice(&self) -> &[f64] {
        &self.data
    }

    /// The columns `keep` (indices, in the order given) of every row.
    pub fn select_columns(&self, keep: &[usize]) -> Matrix {
        assert!(
            keep.iter().all(|&k| k < self.cols),
            "column index out of range"
        );
        let mut data = Vec::with_capacity(self.rows * keep.len());
        for row in self.data.chunks_exact(self.cols.max(1)).take(self.rows) {
            data.extend(keep.iter().map(|&k| row[k]));
        }
        Matrix::from_row_major(self.rows, keep.len(), data)
    }
}

/// Copies an ndarray matrix (any memory layout) row by row.
impl<S: Data<Elem = f64>> From<&ArrayBase<S, Ix2>> for Matrix {
    fn from(x: &ArrayBase<S, Ix2>) -> Self {
        let (rows, cols) = x.dim();
        let mut data = Vec::with_capacity(rows * cols);
        for i in 0..rows {
            for j in 0..cols {
                data.push(x[[i, j]]);
            }
        }
        Matrix { rows, cols, data }
    }
}
