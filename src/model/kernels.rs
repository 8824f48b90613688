//! The row loops of the gradient and the Hessian: blocks of independent sums held in
//! registers, each sum over the rows in order (any blocking gives the same bits).

/// The unit roundoff u = 2⁻⁵³ of f64 (round to nearest).
pub(super) const UNIT_ROUNDOFF: f64 = 1.0 / 9_007_199_254_740_992.0;

/// Rows per chunk of the gradient and Hessian passes: 64 rows of up to ~30 columns stay in
/// the L1 cache while every tile of sums goes over them.
pub(super) const ROW_CHUNK: usize = 64;

/// Lanes of the bound sums of [`Problem::sum_bounds`].
pub(super) const SUM_LANES: usize = 8;

/// Rows whose margins are summed side by side (16: four independent 4-wide chains).
pub(super) const MARGIN_ROWS: usize = 16;

/// Adds `Σᵢ wᵢ·aᵢₖ` over the rows of one chunk, in order, to `out[k]` for the `K` columns
/// from `k0`; the `K` running sums are carried side by side. Returns `K`.
#[inline(always)]
pub(super) fn column_sums<const K: usize>(
    rows: &[f64],
    m: usize,
    w: &[f64],
    k0: usize,
    out: &mut [f64],
) -> usize {
    let mut acc: [f64; K] = out[k0..k0 + K].try_into().expect("K columns");
    for (row, &wi) in rows.chunks_exact(m).zip(w) {
        let a: &[f64; K] = row[k0..k0 + K].try_into().expect("K columns");
        for (s, &v) in acc.iter_mut().zip(a) {
            *s += wi * v;
        }
    }
    out[k0..k0 + K].copy_from_slice(&acc);
    K
}

/// Adds `Σᵢ (sᵢ·aᵢⱼ)·aᵢₖ` over the rows of one chunk, in order, to the Hessian entries
/// `(j0 + jj, k0 + kk)`, `jj < J`, `kk < K`; the `J·K` running sums are carried side by
/// side. Returns `K`.
#[inline(always)]
pub(super) fn hessian_tile<const J: usize, const K: usize>(
    rows: &[f64],
    m: usize,
    s: &[f64],
    j0: usize,
    k0: usize,
    hess: &mut [f64],
) -> usize {
    let mut acc = [[0.0; K]; J];
    for (jj, acc_j) in acc.iter_mut().enumerate() {
        let at = (j0 + jj) * m + k0;
        acc_j.copy_from_slice(&hess[at..at + K]);
    }
    for (row, &si) in rows.chunks_exact(m).zip(s) {
        let aj: &[f64; J] = row[j0..j0 + J].try_into().expect("J columns");
        let ak: &[f64; K] = row[k0..k0 + K].try_into().expect("K columns");
        for (acc_j, &a_j) in acc.iter_mut().zip(aj) {
            let sa = si * a_j;
            for (h, &a_k) in acc_j.iter_mut().zip(ak) {
                *h += sa * a_k;
            }
        }
    }
    for (jj, acc_j) in acc.iter().enumerate() {
        let at = (j0 + jj) * m + k0;
        hess[at..at + K].copy_from_slice(acc_j);
    }
    K
}
