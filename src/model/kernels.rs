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

/// Parameters (intercept included) from which [`Problem::hessian`] computes a chunk's
/// products `sᵢ·aᵢⱼ` once for all its tiles ([`hessian_tile`] with `SCALED`): with many
/// tiles per strip that saves most multiplications (13% faster fits at 28 features);
/// with few it costs an extra pass (9–22% slower at 10 and 12 parameters).
pub(super) const SCALED_FROM: usize = 16;

/// Adds `Σᵢ (sᵢ·aᵢⱼ)·aᵢₖ` over the rows of one chunk, in order, to the Hessian entries
/// `(j0 + jj, k0 + kk)`, `jj < J`, `kk < K`; the `J·K` running sums are carried side by
/// side. The products `sᵢ·aᵢⱼ` come from `scaled` (the chunk's, row-major like `rows`)
/// if `SCALED`, else they are computed here from the weights `s`: the same operation on
/// the same values either way, so the same bits. Returns `K`.
#[inline(always)]
pub(super) fn hessian_tile<const J: usize, const K: usize, const SCALED: bool>(
    rows: &[f64],
    scaled: &[f64],
    s: &[f64],
    m: usize,
    (j0, k0): (usize, usize),
    hess: &mut [f64],
) -> usize {
    let mut acc = [[0.0; K]; J];
    for (jj, acc_j) in acc.iter_mut().enumerate() {
        let at = (j0 + jj) * m + k0;
        acc_j.copy_from_slice(&hess[at..at + K]);
    }
    // Without `SCALED`, `scaled` is not read: `rows` stands in for it.
    let products = if SCALED { scaled } else { rows };
    for ((row, sa_row), &si) in rows.chunks_exact(m).zip(products.chunks_exact(m)).zip(s) {
        let sa: [f64; J] = if SCALED {
            sa_row[j0..j0 + J].try_into().expect("J columns")
        } else {
            std::array::from_fn(|jj| si * row[j0 + jj])
        };
        let ak: &[f64; K] = row[k0..k0 + K].try_into().expect("K columns");
        for (acc_j, &sa_j) in acc.iter_mut().zip(&sa) {
            for (h, &a_k) in acc_j.iter_mut().zip(ak) {
                *h += sa_j * a_k;
            }
        }
    }
    for (jj, acc_j) in acc.iter().enumerate() {
        let at = (j0 + jj) * m + k0;
        hess[at..at + K].copy_from_slice(acc_j);
    }
    K
}

/// Adds one chunk's rows to the Hessian sums (see [`Problem::hessian`]): the triangle
/// covered by tiles of up to 4 × 8 entries, each summed over the chunk's rows in order.
#[inline(always)]
pub(super) fn hessian_chunk<const SCALED: bool>(
    rows: &[f64],
    scaled: &[f64],
    s: &[f64],
    m: usize,
    hess: &mut [f64],
) {
    let mut j0 = 0;
    while j0 < m {
        let height = match m - j0 {
            4.. => 4,
            2.. => 2,
            _ => 1,
        };
        let mut k0 = j0;
        while k0 < m {
            let at = (j0, k0);
            k0 += match (height, m - k0) {
                (4, 8..) => hessian_tile::<4, 8, SCALED>(rows, scaled, s, m, at, hess),
                (4, 7) => hessian_tile::<4, 7, SCALED>(rows, scaled, s, m, at, hess),
                (4, 6) => hessian_tile::<4, 6, SCALED>(rows, scaled, s, m, at, hess),
                (4, 5) => hessian_tile::<4, 5, SCALED>(rows, scaled, s, m, at, hess),
                (4, 4) => hessian_tile::<4, 4, SCALED>(rows, scaled, s, m, at, hess),
                (4, 3) => hessian_tile::<4, 3, SCALED>(rows, scaled, s, m, at, hess),
                (4, 2) => hessian_tile::<4, 2, SCALED>(rows, scaled, s, m, at, hess),
                (4, _) => hessian_tile::<4, 1, SCALED>(rows, scaled, s, m, at, hess),
                (2, 2..) => hessian_tile::<2, 2, SCALED>(rows, scaled, s, m, at, hess),
                (2, _) => hessian_tile::<2, 1, SCALED>(rows, scaled, s, m, at, hess),
                (_, _) => hessian_tile::<1, 1, SCALED>(rows, scaled, s, m, at, hess),
            };
        }
        j0 += height;
    }
}
