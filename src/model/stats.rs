//! Summary numbers for one row of attention weights, the tolerance below which two numbers the
//! page compares count as equal, and the comparison for when only the same bits will do.

/// Differences smaller than this are rounding error: two computations of the same quantity that
/// differ by less agree (the lesson's ✓ checks), and a row whose weights differ by less is even.
pub const ROUNDING_TOLERANCE: f64 = 1e-12;

/// Whether two lists hold the same numbers bit for bit (what the page calls "exactly" the same;
/// unlike `==`, −0 and +0 differ and a NaN equals itself).
pub fn same_bits(a: &[f64], b: &[f64]) -> bool {
    a.len() == b.len() && a.iter().zip(b).all(|(x, y)| x.to_bits() == y.to_bits())
}

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

/// A row divided by its sum, so that it is a distribution again (an all-zero row is left as it
/// is). A broken row ("Break it") may not sum to 1; its entropy, wherever the page shows one, is
/// this row's, so that it measures the row's shape alone.
pub fn divided_by_sum(weights: &[f64]) -> Vec<f64> {
    let sum: f64 = weights.iter().sum();
    if sum > 0.0 {
        weights.iter().map(|w| w / sum).collect()
    } else {
        weights.to_vec()
    }
}

/// The softmax's Jacobian at the weights `p`: `J = diag(p) − p pᵀ`, so `J[i][j] = ∂p_i/∂s_j`,
/// how much weight i moves when score j is nudged. Its size says how much signal a change of the
/// scores can pass through softmax: near one-hot rows it is close to zero.
pub fn softmax_jacobian(p: &[f64]) -> Vec<Vec<f64>> {
    p.iter()
        .enumerate()
        .map(|(i, &pi)| {
            p.iter()
                .enumerate()
                .map(|(j, &pj)| if i == j { pi - pi * pj } else { -pi * pj })
                .collect()
        })
        .collect()
}

/// The Frobenius norm (root of the sum of squared entries) of [`softmax_jacobian`] at `p`.
pub fn softmax_jacobian_norm(p: &[f64]) -> f64 {
    softmax_jacobian(p)
        .iter()
        .flatten()
        .map(|x| x * x)
        .sum::<f64>()
        .sqrt()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn same_bits_is_bit_equality() {
        assert!(same_bits(&[1.0, f64::NAN, -0.0], &[1.0, f64::NAN, -0.0]));
        assert!(!same_bits(&[0.0], &[-0.0]));
        assert!(!same_bits(&[0.1 + 0.2], &[0.3]));
        assert!(!same_bits(&[1.0], &[1.0, 1.0]));
        assert!(same_bits(&[], &[]));
    }

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
    fn a_row_divided_by_its_sum() {
        assert_eq!(divided_by_sum(&[0.5, 0.25, 0.25]), vec![0.5, 0.25, 0.25]);
        assert_eq!(divided_by_sum(&[1.0, 0.5, 0.5]), vec![0.5, 0.25, 0.25]);
        assert_eq!(divided_by_sum(&[0.0, 0.0]), vec![0.0, 0.0]);
    }

    #[test]
    fn a_skewed_row() {
        let s = row_stats(&[0.5, 0.25, 0.25]);
        assert!((s.entropy_bits - 1.5).abs() < 1e-15);
        assert!((s.effective_tokens - 2f64.powf(1.5)).abs() < 1e-12);
        assert!(!s.is_even());
    }

    /// Softmax of `s` scaled by `scale`, written out independently of the model's code.
    fn softmax(s: &[f64]) -> Vec<f64> {
        let max = s.iter().copied().fold(f64::NEG_INFINITY, f64::max);
        let e: Vec<f64> = s.iter().map(|x| (x - max).exp()).collect();
        let sum: f64 = e.iter().sum();
        e.iter().map(|x| x / sum).collect()
    }

    #[test]
    fn the_jacobian_matches_finite_differences() {
        let s = [0.3, -1.2, 2.0, 0.0, 0.7];
        let p = softmax(&s);
        let j = softmax_jacobian(&p);
        let h = 1e-6;
        for col in 0..s.len() {
            let (mut up, mut down) = (s, s);
            up[col] += h;
            down[col] -= h;
            let (pu, pd) = (softmax(&up), softmax(&down));
            for row in 0..s.len() {
                let numeric = (pu[row] - pd[row]) / (2.0 * h);
                assert!((numeric - j[row][col]).abs() < 1e-8, "{row},{col}");
            }
        }
        let norm: f64 = j.iter().flatten().map(|x| x * x).sum::<f64>().sqrt();
        assert!((softmax_jacobian_norm(&p) - norm).abs() < 1e-15);
    }

    #[test]
    fn the_jacobian_vanishes_when_one_hot() {
        // Uniform over n: ‖J‖² = n(1/n − 1/n²)² + n(n − 1)/n⁴ = (n − 1)/n², by hand.
        for n in [2usize, 4, 8] {
            let p = vec![1.0 / n as f64; n];
            let expected = ((n - 1) as f64).sqrt() / n as f64;
            assert!((softmax_jacobian_norm(&p) - expected).abs() < 1e-15);
        }
        assert_eq!(softmax_jacobian_norm(&[0.0, 1.0, 0.0]), 0.0);
        // Sharpening the same scores shrinks it.
        let s = [0.5, -0.1, 0.2, 0.9];
        let soft = softmax_jacobian_norm(&softmax(&s));
        let sharp = softmax_jacobian_norm(&softmax(&s.map(|x| 8.0 * x)));
        assert!(sharp < soft / 2.0, "{soft} {sharp}");
    }
}
