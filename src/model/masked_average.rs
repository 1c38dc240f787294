//! Step 2 of the lesson: the plain average of the past written as a softmax.
//!
//! The notebook's "version 3" starts from a T × T score matrix of zeros, sets the future to −∞
//! and takes a softmax along each row: every visible key gets e⁰ = 1, the future e^−∞ = 0, so
//! row t (counted from 1) gives 1/t to each visible key, exactly the averaging matrix `wei`.
//! Attention keeps that recipe and puts real scores where the zeros were; dividing them by a
//! large temperature flattens them again, so A(τ) approaches `wei` as τ grows. This file holds
//! the two numbers step 2 shows: the zero-score softmax and the distance of live weights from
//! `wei`.

use super::attention::causal_softmax;
use nalgebra::DMatrix;

/// The softmax of a T × T score matrix of zeros with the future masked: the notebook's
/// "version 3" of the average (it goes through the same softmax as attention).
pub fn zero_score_softmax(t: usize) -> DMatrix<f64> {
    causal_softmax(&DMatrix::zeros(t, t), 1.0)
}

/// The largest absolute difference, entry by entry, between `weights` and the averaging matrix
/// `wei` of the same size (both are zero above the diagonal).
pub fn largest_gap(weights: &DMatrix<f64>, wei: &DMatrix<f64>) -> f64 {
    weights
        .iter()
        .zip(wei.iter())
        .map(|(a, b)| (a - b).abs())
        .fold(0.0, f64::max)
}

/// Whether two matrices hold the same doubles, bit for bit (so "identical" on the page is exact).
pub fn bit_identical(a: &DMatrix<f64>, b: &DMatrix<f64>) -> bool {
    a.shape() == b.shape()
        && a.iter()
            .zip(b.iter())
            .all(|(x, y)| x.to_bits() == y.to_bits())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::attention::averaging_matrix;
    use crate::model::explorer::{ExplorerConfig, Prepared};
    use crate::model::temperature::SLIDER_MAX_TAU;
    use crate::model::tokenizer::tokenize;
    use crate::model::weights::HEAD_CHOICES;

    /// 1/t worked out here entry by entry (t counted from 1), not taken from `averaging_matrix`.
    fn one_over_t(t: usize) -> DMatrix<f64> {
        DMatrix::from_fn(
            t,
            t,
            |i, j| {
                if j <= i {
                    1.0 / (i as f64 + 1.0)
                } else {
                    0.0
                }
            },
        )
    }

    #[test]
    fn masked_zeros_give_the_average_bit_for_bit() {
        for t in 1..=64 {
            let soft = zero_score_softmax(t);
            assert!(bit_identical(&soft, &one_over_t(t)), "T = {t}");
            assert!(bit_identical(&soft, &averaging_matrix(t)), "T = {t}");
            assert_eq!(largest_gap(&soft, &averaging_matrix(t)), 0.0);
        }
    }

    #[test]
    fn gaps_and_identity_by_hand() {
        let a = DMatrix::from_row_slice(2, 2, &[1.0, 0.0, 0.7, 0.3]);
        assert!((largest_gap(&a, &one_over_t(2)) - 0.2).abs() < 1e-15);
        assert!(bit_identical(&a, &a.clone()));
        let mut b = a.clone();
        b[(1, 1)] = f64::from_bits(0.3f64.to_bits() + 1);
        assert!(!bit_identical(&a, &b));
        assert!(!bit_identical(&a, &DMatrix::zeros(2, 3)));
    }

    /// Live scores at the slider's top land close to `wei` (every head split, positions on and
    /// off), much closer than at τ = 1; they never equal it exactly while the scores differ.
    #[test]
    fn hot_weights_approach_the_average() {
        for heads in HEAD_CHOICES {
            for positions in [false, true] {
                let p = Prepared::new(ExplorerConfig {
                    tokens: tokenize("The cat sat on the mat ."),
                    seed: 1337,
                    heads,
                    positions,
                });
                let wei = one_over_t(p.len());
                for h in &p.heads {
                    let hot = largest_gap(&h.weights(SLIDER_MAX_TAU), &wei);
                    let standard = largest_gap(&h.weights(1.0), &wei);
                    assert!(hot > 0.0 && hot < 0.01, "{heads} heads: {hot}");
                    assert!(hot < standard / 10.0, "{hot} vs {standard}");
                    // Hotter still (beyond the slider) is closer still.
                    assert!(largest_gap(&h.weights(1e4), &wei) < hot);
                }
            }
        }
    }
}
