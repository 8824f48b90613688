//! numpy's legacy `np.random.RandomState(seed)` for an integer seed, and the fold
//! assignments scikit-learn 1.9.1 draws from it: `KFold(n_splits=k, shuffle=True,
//! random_state=seed)` and `GroupKFold(n_splits=k, shuffle=True, random_state=seed)`.
//!
//! Not reachable from the experiment IR yet: these are pure functions that a later change
//! (repeats and the shuffled `sklearn` assignment, issue 32) wires into the folds. They
//! return a fold per row in the form `folds.rs` builds its folds from (`Vec<u32>`, the
//! test fold of each row).
//!
//! What is reproduced, and how it was checked (numpy 2.4.6, scikit-learn 1.9.1; the
//! goldens of `tests/parity/gen_shuffled_cv_goldens.py`, compared in
//! `tests/parity/shuffled_cv.rs`):
//! - `RandomState(seed)` with an integer seed is MT19937 seeded by `init_genrand(seed)`
//!   (numpy's `_legacy_seeding`); numpy refuses seeds outside `0..=2³² − 1` ("Seed must be
//!   between 0 and 2**32 - 1"), so a seed is a `u32` here and [`RandomState::from_seed`]
//!   refuses a larger `u64` the same way. scikit-learn's `check_random_state(int)` is
//!   `np.random.RandomState(int)`. Array seeds (`init_by_array`) are not emulated.
//! - `random_interval(max)` (numpy's `distributions.c`, the legacy bounded draw behind
//!   `shuffle` and `permutation`): the smallest all-ones mask ≥ max, then draws masked
//!   until one is ≤ max — 32-bit draws for max ≤ 2³² − 1, 64-bit draws (two 32-bit outputs,
//!   the first the high half) above. Both branches are checked against numpy (the 64-bit
//!   one through `randint(0, high, dtype=int64)`, which uses the same masked rejection).
//! - `RandomState.shuffle` of a 1-D array and `permutation(n)` (= `shuffle(arange(n))`):
//!   Fisher–Yates from the top, `for i in reversed(range(1, n)): j = random_interval(i);
//!   swap(i, j)`. Lengths 0 and 1 draw nothing. `permutation` of an array (GroupKFold
//!   permutes its sorted unique groups) shuffles a copy with the same draws, so it is the
//!   array indexed by `permutation(len)`.

use super::blocks::fold_of_each;
use crate::error::{Error, Result};

/// MT19937's state size (words).
const N: usize = 624;
/// MT19937's middle word offset.
const M: usize = 397;
const MATRIX_A: u32 = 0x9908_b0df;
const UPPER_MASK: u32 = 0x8000_0000;
const LOWER_MASK: u32 = 0x7fff_ffff;

/// numpy's legacy `np.random.RandomState(seed)` (MT19937) for an integer seed: the raw
/// 32-bit outputs, the legacy bounded draw and the legacy shuffle and permutation.
#[derive(Clone)]
pub struct RandomState {
    key: [u32; N],
    /// The next word of `key` to temper; `N` = regenerate first.
    pos: usize,
}

impl std::fmt::Debug for RandomState {
    // 624 words say nothing to a reader; where the generator stands does.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("RandomState")
            .field("pos", &self.pos)
            .finish_non_exhaustive()
    }
}

impl RandomState {
    /// `np.random.RandomState(seed)`: MT19937 `init_genrand(seed)`.
    pub fn new(seed: u32) -> RandomState {
        let mut key = [0u32; N];
        key[0] = seed;
        for i in 1..N {
            let prev = key[i - 1];
            key[i] = 1_812_433_253u32
                .wrapping_mul(prev ^ (prev >> 30))
                .wrapping_add(i as u32);
        }
        RandomState { key, pos: N }
    }

    /// `np.random.RandomState(seed)` for a seed of the kernel's width: numpy takes only
    /// `0..=2³² − 1` and raises for anything else rather than reducing it, so this refuses
    /// too (a silently truncated seed would give another stream than scikit-learn's).
    pub fn from_seed(seed: u64) -> Result<RandomState> {
        u32::try_from(seed).map(RandomState::new).map_err(|_| {
            Error::invalid(format!(
                "a numpy RandomState seed must be between 0 and 2**32 - 1, got {seed}"
            ))
        })
    }

    /// The next raw output (`genrand_int32`).
    pub fn next_u32(&mut self) -> u32 {
        if self.pos >= N {
            self.regenerate();
        }
        let mut y = self.key[self.pos];
        self.pos += 1;
        y ^= y >> 11;
        y ^= (y << 7) & 0x9d2c_5680;
        y ^= (y << 15) & 0xefc6_0000;
        y ^ (y >> 18)
    }

    /// numpy's `next_uint64` for MT19937: two raw outputs, the first the high half.
    pub fn next_u64(&mut self) -> u64 {
        let high = u64::from(self.next_u32());
        (high << 32) | u64::from(self.next_u32())
    }

    /// numpy's `next_double` for MT19937 (what legacy `random_sample` and `uniform` draw):
    /// two raw outputs, 27 and 26 of their high bits, as a multiple of 2⁻⁵³ in [0, 1).
    pub fn next_double(&mut self) -> f64 {
        let a = f64::from(self.next_u32() >> 5);
        let b = f64::from(self.next_u32() >> 6);
        (a * 67_108_864.0 + b) / 9_007_199_254_740_992.0
    }

    /// numpy's legacy `random_interval(max)`: a uniform integer in `0..=max` by masked
    /// rejection. The mask is the smallest all-ones number ≥ max; 32-bit draws while max
    /// fits in 32 bits, 64-bit draws beyond (numpy's two branches, both reproduced).
    pub fn random_interval(&mut self, max: u64) -> u64 {
        if max == 0 {
            return 0; // numpy returns without drawing
        }
        let mask = u64::MAX >> max.leading_zeros();
        if max <= u64::from(u32::MAX) {
            loop {
                let value = u64::from(self.next_u32()) & mask;
                if value <= max {
                    return value;
                }
            }
        }
        loop {
            let value = self.next_u64() & mask;
            if value <= max {
                return value;
            }
        }
    }

    /// numpy's legacy `RandomState.shuffle` of a 1-D array: Fisher–Yates from the top,
    /// element i swapped with `random_interval(i)` for i = len − 1 down to 1.
    pub fn shuffle<T>(&mut self, items: &mut [T]) {
        for i in (1..items.len()).rev() {
            let j = self.random_interval(i as u64) as usize;
            items.swap(i, j);
        }
    }

    /// numpy's legacy `RandomState.permutation(n)`: `arange(n)` shuffled.
    pub fn permutation(&mut self, n: usize) -> Vec<usize> {
        let mut indices: Vec<usize> = (0..n).collect();
        self.shuffle(&mut indices);
        indices
    }

    /// The next N words (MT19937's twist).
    fn regenerate(&mut self) {
        for i in 0..N {
            let y = (self.key[i] & UPPER_MASK) | (self.key[(i + 1) % N] & LOWER_MASK);
            let odd = if y & 1 == 1 { MATRIX_A } else { 0 };
            self.key[i] = self.key[(i + M) % N] ^ (y >> 1) ^ odd;
        }
        self.pos = 0;
    }
}

/// scikit-learn's refusals shared by both splitters, in the order `_BaseKFold` checks
/// them: fewer than 2 folds (the constructor), more folds than rows (`split`).
fn check_folds(k: u32, n_rows: usize, what: &str) -> Result<()> {
    if k < 2 {
        return Err(Error::invalid(format!(
            "{what}: k-fold cross-validation requires at least one train/test split by setting n_splits=2 or more, got n_splits={k}"
        )));
    }
    if k as usize > n_rows {
        return Err(Error::invalid(format!(
            "{what}: cannot have number of splits n_splits={k} greater than the number of samples: n_samples={n_rows}"
        )));
    }
    Ok(())
}

/// Per row, its test fold under scikit-learn 1.9.1's `KFold(n_splits=k, shuffle=True,
/// random_state=random_state)` over `n_rows` rows in order: `indices = arange(n_rows)`
/// shuffled by `RandomState(random_state)`, then cut into consecutive folds of
/// `n_rows // k`, the first `n_rows % k` one larger. Refused as scikit-learn refuses: k < 2
/// or k > n_rows.
pub fn k_fold_shuffled(n_rows: usize, k: u32, random_state: u32) -> Result<Vec<u32>> {
    k_fold_shuffled_by(n_rows, k, &mut RandomState::new(random_state))
}

/// [`k_fold_shuffled`] drawing from a `RandomState` the caller holds, as scikit-learn's
/// `KFold(shuffle=True, random_state=rng)` does when handed a `RandomState` instance
/// (`RepeatedKFold` hands every repeat the same one, so repeat r continues its stream).
pub fn k_fold_shuffled_by(n_rows: usize, k: u32, rng: &mut RandomState) -> Result<Vec<u32>> {
    check_folds(k, n_rows, "KFold")?;
    let order = rng.permutation(n_rows);
    Ok(fold_of_each(&order, k as usize))
}

/// Per row, its test fold under scikit-learn 1.9.1's `GroupKFold(n_splits=k, shuffle=True,
/// random_state=random_state)`. `group_of_row[r]` is row r's group as an index into the
/// groups in `np.unique` order (sorted: for text ids, code-point order, which is the byte
/// order of their UTF-8), and every one of the `n_groups` groups must have a row (as every
/// `np.unique` value does). scikit-learn permutes the sorted groups with
/// `RandomState(random_state).permutation` and cuts the permuted groups with
/// `np.array_split(…, k)` — equal numbers of *groups* per fold (the first `n_groups % k`
/// folds one more), whatever their rows. Refused as scikit-learn refuses: k < 2, k > rows,
/// k > groups.
pub fn group_k_fold_shuffled(
    group_of_row: &[u32],
    n_groups: usize,
    k: u32,
    random_state: u32,
) -> Result<Vec<u32>> {
    group_k_fold_shuffled_by(
        group_of_row,
        n_groups,
        k,
        &mut RandomState::new(random_state),
    )
}

/// [`group_k_fold_shuffled`] drawing from a `RandomState` the caller holds
/// (`GroupKFold(shuffle=True, random_state=rng)` with a `RandomState` instance).
pub fn group_k_fold_shuffled_by(
    group_of_row: &[u32],
    n_groups: usize,
    k: u32,
    rng: &mut RandomState,
) -> Result<Vec<u32>> {
    check_folds(k, group_of_row.len(), "GroupKFold")?;
    let mut rows_of_group = vec![0usize; n_groups];
    for (row, &g) in group_of_row.iter().enumerate() {
        let count = rows_of_group.get_mut(g as usize).ok_or_else(|| {
            Error::invalid(format!(
                "GroupKFold: row {row} has group {g}, but there are {n_groups} groups"
            ))
        })?;
        *count += 1;
    }
    if let Some(empty) = rows_of_group.iter().position(|&c| c == 0) {
        // np.unique has no value without a row: an empty group would shift every draw.
        return Err(Error::invalid(format!(
            "GroupKFold: group {empty} has no rows"
        )));
    }
    if k as usize > n_groups {
        return Err(Error::invalid(format!(
            "GroupKFold: cannot have number of splits n_splits={k} greater than the number of groups: {n_groups}"
        )));
    }
    let fold_of_group = fold_of_each(&rng.permutation(n_groups), k as usize);
    Ok(group_of_row
        .iter()
        .map(|&g| fold_of_group[g as usize])
        .collect())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn mt19937_matches_the_reference_outputs() {
        // mt19937ar.c's and C++11's std::mt19937 (default seed 5489): the first output is
        // 3499211612 and the 10000th is 4123659995 (the value [rand.predef] requires), an
        // oracle independent of numpy.
        let mut rs = RandomState::new(5489);
        assert_eq!(rs.next_u32(), 3_499_211_612);
        let last = (1..10_000).map(|_| rs.next_u32()).last();
        assert_eq!(last, Some(4_123_659_995));
    }

    #[test]
    fn seeds_beyond_32_bits_are_refused_not_truncated() {
        assert!(RandomState::from_seed(u64::from(u32::MAX)).is_ok());
        let err = RandomState::from_seed(1 << 32).unwrap_err().to_string();
        assert!(err.contains("between 0 and 2**32 - 1"), "{err}");
    }

    #[test]
    fn random_interval_uses_the_smallest_all_ones_mask() {
        // With max = 5 the mask is 7: every accepted value is the raw output & 7, and a
        // raw value whose low three bits exceed 5 is skipped. A wider mask (or a modulo)
        // would take other values from the same outputs.
        let mut raw = RandomState::new(42);
        let mut rs = RandomState::new(42);
        for _ in 0..200 {
            let expected = loop {
                let v = raw.next_u32() & 7;
                if v <= 5 {
                    break u64::from(v);
                }
            };
            assert_eq!(rs.random_interval(5), expected);
        }
        // max = 0 draws nothing; a power of two keeps its own bit in the mask.
        let mut a = RandomState::new(1);
        assert_eq!(a.random_interval(0), 0);
        assert_eq!(a.next_u32(), RandomState::new(1).next_u32());
        let mut b = RandomState::new(1);
        let mut raw = RandomState::new(1);
        let expected = loop {
            let v = raw.next_u32() & 15;
            if v <= 8 {
                break u64::from(v);
            }
        };
        assert_eq!(b.random_interval(8), expected);
    }

    #[test]
    fn random_interval_above_32_bits_draws_64_bits_high_half_first() {
        let max = (1u64 << 33) - 1;
        let mut raw = RandomState::new(7);
        let expected = loop {
            let v = ((u64::from(raw.next_u32()) << 32) | u64::from(raw.next_u32())) & max;
            if v <= max {
                break v;
            }
        };
        assert_eq!(RandomState::new(7).random_interval(max), expected);
    }

    #[test]
    fn permutations_of_zero_and_one_draw_nothing() {
        let mut rs = RandomState::new(0);
        assert!(rs.permutation(0).is_empty());
        assert_eq!(rs.permutation(1), vec![0]);
        assert_eq!(rs.next_u32(), RandomState::new(0).next_u32());
    }

    #[test]
    fn permutation_is_a_permutation() {
        let mut p = RandomState::new(3).permutation(1000);
        assert_ne!(p, (0..1000).collect::<Vec<_>>());
        p.sort_unstable();
        assert_eq!(p, (0..1000).collect::<Vec<_>>());
    }

    #[test]
    fn k_fold_refuses_what_scikit_learn_refuses() {
        for n in [0, 1] {
            let err = k_fold_shuffled(n, 2, 0).unwrap_err().to_string();
            assert!(err.contains("greater than the number of samples"), "{err}");
        }
        let err = k_fold_shuffled(10, 1, 0).unwrap_err().to_string();
        assert!(err.contains("n_splits=2 or more"), "{err}");
        assert_eq!(k_fold_shuffled(2, 2, 0).unwrap().len(), 2);
    }

    #[test]
    fn k_fold_sizes_are_kfolds() {
        let folds = k_fold_shuffled(11, 3, 42).unwrap();
        let mut sizes = [0; 3];
        for f in folds {
            sizes[f as usize] += 1;
        }
        assert_eq!(sizes, [4, 4, 3]);
    }

    #[test]
    fn group_k_fold_refuses_what_scikit_learn_refuses() {
        // 3 rows of 2 groups: 3 folds exceed the groups, 4 the rows (checked first).
        let groups = [0, 1, 1];
        let err = group_k_fold_shuffled(&groups, 2, 3, 0).unwrap_err();
        assert!(err.to_string().contains("number of groups: 2"), "{err}");
        let err = group_k_fold_shuffled(&groups, 2, 4, 0).unwrap_err();
        assert!(err.to_string().contains("number of samples"), "{err}");
        let err = group_k_fold_shuffled(&[], 0, 2, 0).unwrap_err();
        assert!(err.to_string().contains("n_samples=0"), "{err}");
        // A group index without rows, or beyond the groups, is not an np.unique result.
        assert!(group_k_fold_shuffled(&[0, 2, 2], 3, 2, 0).is_err());
        assert!(group_k_fold_shuffled(&[0, 1, 5], 2, 2, 0).is_err());
    }

    #[test]
    fn group_k_fold_cuts_groups_not_rows() {
        // 5 groups, one of them huge: np.array_split gives folds of 3 and 2 groups
        // whatever their rows, and a group's rows stay together.
        let group_of_row: Vec<u32> = [0, 1, 2, 3, 4]
            .iter()
            .flat_map(|&g| std::iter::repeat_n(g, if g == 2 { 50 } else { 1 }))
            .collect();
        let fold_of_row = group_k_fold_shuffled(&group_of_row, 5, 2, 9).unwrap();
        let fold_of_group = fold_of_each(&RandomState::new(9).permutation(5), 2);
        for (g, f) in group_of_row.iter().zip(&fold_of_row) {
            assert_eq!(fold_of_group[*g as usize], *f);
        }
        let in_fold0 = fold_of_group.iter().filter(|&&f| f == 0).count();
        assert_eq!(in_fold0, 3);
    }
}
