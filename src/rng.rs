//! Seeded randomness: ChaCha20 streams keyed by (seed, stream name), and the two draws the
//! kernel needs, written out so that no crate upgrade can change a split.

use rand_chacha::rand_core::{RngCore, SeedableRng};
use rand_chacha::ChaCha20Rng;

use crate::canon::HashKind;

/// A ChaCha20 generator for `(seed, stream)`: the 32-byte key is blake3 (derive_key
/// context `counterlab 2026-11 rng v1`) of the seed's little-endian bytes and the stream
/// name. Different streams are independent; the same pair always gives the same stream.
pub fn stream(seed: u64, stream: &str) -> ChaCha20Rng {
    let mut hasher = HashKind::Rng.hasher();
    hasher.update(&seed.to_le_bytes());
    hasher.update(&(stream.len() as u64).to_le_bytes());
    hasher.update(stream.as_bytes());
    ChaCha20Rng::from_seed(*hasher.finalize().as_bytes())
}

/// A uniform integer in `0..n` (n > 0) by rejection: no modulo bias.
pub fn below(rng: &mut impl RngCore, n: u64) -> u64 {
    assert!(n > 0, "below(0) has no value");
    loop {
        let x = rng.next_u64();
        // Accept x < n·⌊2⁶⁴/n⌋, the largest multiple of n that fits: x ≤ zone = 2⁶⁴ − 1 − r
        // with r = 2⁶⁴ mod n < n. Every x ≤ 2⁶⁴ − n passes whatever r is, so r (a second
        // division) is computed only for the rare x above that: the same draws, one
        // division instead of two (Fisher–Yates over a 24k-row pack makes 24k draws).
        if x <= u64::MAX - (n - 1) {
            return x % n;
        }
        let zone = u64::MAX - (u64::MAX % n + 1) % n;
        if x <= zone {
            return x % n;
        }
    }
}

/// Fisher–Yates shuffle from the top (Durstenfeld).
pub fn shuffle<T>(items: &mut [T], rng: &mut impl RngCore) {
    for i in (1..items.len()).rev() {
        let j = below(rng, i as u64 + 1) as usize;
        items.swap(i, j);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn below_is_in_range_and_covers_it() {
        let mut rng = stream(1, "t");
        let mut seen = [false; 7];
        for _ in 0..1000 {
            let x = below(&mut rng, 7);
            seen[x as usize] = true;
        }
        assert!(seen.iter().all(|&s| s));
    }

    /// Replays fixed draws (then zeros).
    struct Replay(Vec<u64>);

    impl RngCore for Replay {
        fn next_u32(&mut self) -> u32 {
            self.next_u64() as u32
        }
        fn next_u64(&mut self) -> u64 {
            if self.0.is_empty() {
                0
            } else {
                self.0.remove(0)
            }
        }
        fn fill_bytes(&mut self, dest: &mut [u8]) {
            dest.fill(0);
        }
        fn try_fill_bytes(&mut self, dest: &mut [u8]) -> Result<(), rand_chacha::rand_core::Error> {
            dest.fill(0);
            Ok(())
        }
    }

    #[test]
    fn below_draws_as_the_two_division_rejection_rule() {
        // The rule as first written (and as every recorded split was drawn): zone computed
        // for every draw. The draws that matter are those near 2⁶⁴, where the zone rejects.
        fn reference(draws: &[u64], n: u64) -> (u64, usize) {
            let zone = u64::MAX - (u64::MAX % n + 1) % n;
            let at = draws
                .iter()
                .position(|&x| x <= zone)
                .expect("an accepted draw");
            (draws[at] % n, at + 1)
        }
        let mut rng = stream(9, "below");
        for n in [
            1,
            2,
            3,
            7,
            10,
            1000,
            24_193,
            1 << 32,
            (1 << 63) + 1,
            u64::MAX - 1,
            u64::MAX,
        ] {
            for round in 0..200 {
                let first = match round % 4 {
                    0 => u64::MAX - rng.next_u64() % n.min(1 << 40),
                    1 => (u64::MAX - n).wrapping_add(1 + rng.next_u64() % 3),
                    2 => (u64::MAX - n.saturating_mul(2)).wrapping_add(rng.next_u64() % 5),
                    _ => rng.next_u64(),
                };
                let draws = vec![first, rng.next_u64(), u64::MAX, rng.next_u64() % n, 0];
                let (value, used) = reference(&draws, n);
                let mut replay = Replay(draws.clone());
                assert_eq!(below(&mut replay, n), value, "n = {n}, draws {draws:?}");
                assert_eq!(
                    replay.0.len(),
                    draws.len() - used,
                    "n = {n}, draws {draws:?}"
                );
            }
        }
    }

    #[test]
    fn streams_are_reproducible_and_distinct() {
        assert_eq!(stream(3, "a").next_u64(), stream(3, "a").next_u64());
        assert_ne!(stream(3, "a").next_u64(), stream(3, "b").next_u64());
        assert_ne!(stream(3, "a").next_u64(), stream(4, "a").next_u64());
    }
}
