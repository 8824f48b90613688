//! The verify options a front end was given (the CLI's flags, the Python package's keyword
//! arguments), checked against their documented ranges (docs/VERDICTS.md#budgets-and-options):
//! a value outside one is an error naming the option, never a panic or a silent clamp.

use super::{Budget, Mode, VerifyOptions, MAX_PAYLOAD_BYTES_LIMIT, MAX_PERMUTATIONS};
use crate::error::{Error, Result};
use crate::stats::ALPHA_RANGE;

/// Options as given, `None` (or `false`) for the default. `threads` is not here: each
/// front end resolves it (every core when absent).
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct Choices {
    /// Label permutations K, 0 to [`MAX_PERMUTATIONS`].
    pub permutations: Option<usize>,
    /// Observe mode.
    pub observe: bool,
    /// Seed of every mutation.
    pub seed: Option<u64>,
    /// Significance level in [`ALPHA_RANGE`] (open below, closed above).
    pub alpha: Option<f64>,
    /// Largest payload accepted, 1 to [`MAX_PAYLOAD_BYTES_LIMIT`].
    pub max_payload_bytes: Option<usize>,
    /// Largest work in fit units: given, no pack's `[verify]` raises it.
    pub max_work: Option<u64>,
    /// Largest prepared designs in bytes: given, no pack's `[verify]` raises it.
    pub max_design_bytes: Option<u64>,
}

impl Choices {
    /// The options, or an error naming the first option out of its range: the one way a
    /// front end builds [`VerifyOptions`] from what its user chose (a budget chosen is
    /// [`super::Budget::given`], one left out the raisable default); `name` spells
    /// an option as its front end does (`permutations` → `--permutations` on the CLI,
    /// `$.options.permutations` in a capsule), and the error's text is the whole message
    /// each front end shows.
    pub fn checked(&self, name: impl Fn(&str) -> String) -> Result<VerifyOptions> {
        let mut options = VerifyOptions::default();
        let outside = |option: &str, range: String, found: String| {
            Err(Error::invalid(format!(
                "{} must lie in {range}, found {found}",
                name(option)
            )))
        };
        if self.observe {
            options.mode = Mode::Observe;
        }
        if let Some(k) = self.permutations {
            if k > MAX_PERMUTATIONS {
                return outside(
                    "permutations",
                    format!("0..={MAX_PERMUTATIONS}"),
                    k.to_string(),
                );
            }
            options.permutations = k;
        }
        if let Some(seed) = self.seed {
            options.seed = seed;
        }
        if let Some(alpha) = self.alpha {
            let (low, high) = ALPHA_RANGE;
            if !(alpha > low && alpha <= high) {
                return outside("alpha", format!("({low}, {high}]"), alpha.to_string());
            }
            options.alpha = alpha;
        }
        if let Some(bytes) = self.max_payload_bytes {
            if !(1..=MAX_PAYLOAD_BYTES_LIMIT).contains(&bytes) {
                let range = format!("1..={MAX_PAYLOAD_BYTES_LIMIT}");
                return outside("max_payload_bytes", range, bytes.to_string());
            }
            options.max_payload_bytes = bytes;
        }
        if let Some(work) = self.max_work {
            options.max_work = Budget::given(work);
        }
        if let Some(bytes) = self.max_design_bytes {
            options.max_design_bytes = Budget::given(bytes);
        }
        Ok(options)
    }
}
