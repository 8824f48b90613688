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
    // Accept x < n·⌊2⁶⁴/n⌋, the largest multiple of n that fits.
    let zone = u64::MAX - (u64::MAX % n + 1) % n;
    loop {
        let x = rng.next_u64();
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

    #[test]
    fn streams_are_reproducible_and_distinct() {
        assert_eq!(stream(3, "a").next_u64(), stream(3, "a").next_u64());
        assert_ne!(stream(3, "a").next_u64(), stream(3, "b").next_u64());
        assert_ne!(stream(3, "a").next_u64(), stream(4, "a").next_u64());
    }
}
