//! `oversample`: imbalanced-learn's `RandomOverSampler` and `SMOTE` with
//! `sampling_strategy="auto"` (the minority class brought up to the majority's count),
//! their draws emulated from numpy's legacy `RandomState(seed)` as imbalanced-learn makes
//! them, so a pipeline's new rows are imbalanced-learn's, bit for bit (tests/parity/).

use crate::split::numpy_random::RandomState;

/// New rows: each one's parents (frame rows; a copy's two parents are the row it copies)
/// and, for SMOTE, its values per column.
pub(super) struct NewRows {
    /// Per new row, the rows it was made from.
    pub parents: Vec<[usize; 2]>,
    /// Per column, the new rows' values (empty for copies: the caller copies the parent).
    pub values: Vec<Vec<f64>>,
}

/// `RandomOverSampler`: `n_new` copies of the rows `minority`, drawn as
/// `random_state.choice(minority, size=n_new, replace=True)`, which is
/// `randint(0, len(minority), size=n_new)`: numpy's legacy masked draw.
pub(super) fn random(minority: &[usize], n_new: usize, rng: &mut RandomState) -> NewRows {
    let top = minority.len() as u64 - 1;
    let parents = (0..n_new)
        .map(|_| {
            let row = minority[rng.random_interval(top) as usize];
            [row, row]
        })
        .collect();
    NewRows {
        parents,
        values: Vec::new(),
    }
}

/// `SMOTE(k_neighbors=k)`: `n_new` points `x + u·(x_nn − x)` where x is a minority row
/// and x_nn one of its k nearest minority rows (squared Euclidean distance summed in
/// column order; a row is never its own neighbour; ties in distance to the earlier row),
/// drawn as imbalanced-learn draws them: `randint(0, m·k, size=n_new)` picks (row,
/// neighbour) pairs, then `uniform(size=n_new)` the steps u. `columns` hold every frame
/// row's values. `None` when the minority has no more than k rows (scikit-learn's
/// neighbour search refuses k + 1 > m).
pub(super) fn smote(
    columns: &[Vec<f64>],
    minority: &[usize],
    n_new: usize,
    k: usize,
    rng: &mut RandomState,
) -> Option<NewRows> {
    let m = minority.len();
    if m <= k {
        return None;
    }
    let neighbours = nearest_neighbours(columns, minority, k);
    let picks: Vec<u64> = (0..n_new)
        .map(|_| rng.random_interval((m * k) as u64 - 1))
        .collect();
    let steps: Vec<f64> = (0..n_new).map(|_| rng.next_double()).collect();
    let pairs: Vec<(usize, usize)> = picks
        .iter()
        .map(|&pick| {
            let (row, col) = (pick as usize / k, pick as usize % k);
            (minority[row], minority[neighbours[row * k + col]])
        })
        .collect();
    let values = columns
        .iter()
        .map(|column| {
            pairs
                .iter()
                .zip(&steps)
                .map(|(&(row, neighbour), &step)| {
                    let x = column[row];
                    x + step * (column[neighbour] - x)
                })
                .collect()
        })
        .collect();
    Some(NewRows {
        parents: pairs.into_iter().map(|(a, b)| [a, b]).collect(),
        values,
    })
}

/// Per minority row (by position in `minority`), the positions of its k nearest other
/// minority rows, nearest first: row-major, k per row. O(m²·p) time and O(m·p) memory
/// (one row's distances at a time); docs/PERFORMANCE.md.
fn nearest_neighbours(columns: &[Vec<f64>], minority: &[usize], k: usize) -> Vec<usize> {
    let m = minority.len();
    // The minority's values gathered column by column, so the inner loop is contiguous.
    let gathered: Vec<Vec<f64>> = columns
        .iter()
        .map(|column| minority.iter().map(|&r| column[r]).collect())
        .collect();
    let mut out = Vec::with_capacity(m * k);
    let mut distance = vec![0.0f64; m];
    let mut order: Vec<usize> = Vec::with_capacity(m);
    for a in 0..m {
        distance.iter_mut().for_each(|d| *d = 0.0);
        for column in &gathered {
            let xa = column[a];
            for (d, &xb) in distance.iter_mut().zip(column) {
                let diff = xa - xb;
                *d += diff * diff;
            }
        }
        order.clear();
        order.extend((0..m).filter(|&b| b != a));
        let by_distance =
            |x: &usize, y: &usize| distance[*x].total_cmp(&distance[*y]).then(x.cmp(y));
        order.select_nth_unstable_by(k - 1, by_distance);
        order[..k].sort_by(by_distance);
        out.extend_from_slice(&order[..k]);
    }
    out
}
