//! Summary numbers for one row of attention weights, and the tolerance below which two numbers
//! the page compares count as equal.

/// Differences smaller than this are rounding error: two computations of the same quantity that
/// differ by less agree (the lesson's ✓ checks), and a row whose weights differ by less is even.
pub const ROUNDING_TOLERANCE: f64 = 1e-12;

/// What the inspector reports for a row.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct RowStats {
    pub max_weight: f64,
    pub min_weight: f64,
    /// Key index of the largest weight (the first one on ties).
    pub argmax: usize,
    pub entropy_bits: f64,
    /// `2^entropy`: how many tokens the row is spread over, as if evenly.
    pub effective_tokens: f64,
}

/// Shannon entropy in bits; zero weights contribute nothing (0 · log 0 = 0).
pub fn row_entropy_bits(weights: &[f64]) -> f64 {
    let h: f64 = weights
        .iter()
        .filter(|&&w| w > 0.0)
        .map(|&w| -w * w.log2())
        .sum();
    h.max(0.0)
}

impl RowStats {
    /// Whether every weight of the row is the same, up to rounding.
    pub fn is_even(&self) -> bool {
        self.max_weight - self.min_weight < ROUNDING_TOLERANCE
    }
}

/// Largest and smallest weight, entropy and effective token count of a row.
pub fn row_stats(weights: &[f64]) -> RowStats {
    let (argmax, max_weight) =
        weights
            .iter()
            .copied()
            .enumerate()
            .fold((0, f64::NEG_INFINITY), |best, (j, w)| {
                if w > best.1 {
                    (j, w)
                } else {
                    best
                }
            });
    let min_weight = weights.iter().copied().fold(f64::INFINITY, f64::min);
    let entropy_bits = row_entropy_bits(weights);
    RowStats {
        max_weight,
        min_weight,
        argmax,
        entropy_bits,
        effective_tokens: entropy_bits.exp2(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn uniform_and_one_hot_rows() {
        let s = row_stats(&[0.25, 0.25, 0.25, 0.25, 0.0]);
        assert_eq!(s.entropy_bits, 2.0);
        assert_eq!(s.effective_tokens, 4.0);
        assert_eq!((s.argmax, s.max_weight, s.min_weight), (0, 0.25, 0.0));
        assert!(!s.is_even());
        assert!(row_stats(&[0.25; 4]).is_even());
        assert!(row_stats(&[1.0 / 3.0, 1.0 / 3.0, 1.0 - 2.0 / 3.0]).is_even());
        let s = row_stats(&[0.0, 1.0, 0.0]);
        assert_eq!(
            (s.entropy_bits, s.effective_tokens, s.argmax),
            (0.0, 1.0, 1)
        );
    }

    #[test]
    fn a_skewed_row() {
        let s = row_stats(&[0.5, 0.25, 0.25]);
        assert!((s.entropy_bits - 1.5).abs() < 1e-15);
        assert!((s.effective_tokens - 2f64.powf(1.5)).abs() < 1e-12);
        assert!(!s.is_even());
    }
}
