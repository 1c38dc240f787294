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
use super::stats::same_bits;
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
    a.shape() == b.shape() && same_bits(a.as_slice(), b.as_slice())
}

/// The "large negative number" many implementations mask with instead of −∞.
pub const LARGE_NEGATIVE: f64 = -1e9;

/// A softmax over one row of logits as the notebook writes it: subtract the row's maximum,
/// exponentiate, divide by the sum. Unlike [`causal_softmax`], which never touches a masked
/// entry, it does nothing special for −∞: a row that is −∞ everywhere gives −∞ − (−∞) = NaN.
pub fn plain_softmax(logits: &[f64]) -> Vec<f64> {
    let max = logits.iter().copied().fold(f64::NEG_INFINITY, f64::max);
    let e: Vec<f64> = logits.iter().map(|l| (l - max).exp()).collect();
    let sum: f64 = e.iter().sum();
    e.iter().map(|x| x / sum).collect()
}

/// Masking with −∞ or with [`LARGE_NEGATIVE`], for one row of a head: the row's scaled scores
/// with the future filled both ways and softmaxed the notebook's way, the page's own weights, and
/// a row with nothing visible filled both ways.
#[derive(Debug, Clone, PartialEq)]
pub struct MaskFillDemo {
    pub with_infinity: Vec<f64>,
    pub with_large: Vec<f64>,
    /// The page's weights for the row (`causal_softmax`, which skips the future).
    pub page: Vec<f64>,
    /// A row of as many keys with every one masked, filled with −∞ (NaN everywhere).
    pub all_masked_infinity: Vec<f64>,
    /// The same filled with [`LARGE_NEGATIVE`] (an even split).
    pub all_masked_large: Vec<f64>,
}

impl MaskFillDemo {
    /// Whether the two fills give the same weights, bit for bit.
    pub fn fills_agree(&self) -> bool {
        same_bits(&self.with_infinity, &self.with_large)
    }

    /// Whether the −∞ fill gives the page's weights, bit for bit.
    pub fn page_agrees(&self) -> bool {
        same_bits(&self.with_infinity, &self.page)
    }

    /// Whether every future entry of the large fill is exactly 0.
    pub fn large_masks_exactly(&self, row: usize) -> bool {
        self.with_large[row + 1..].iter().all(|&w| w == 0.0)
    }
}

/// [`MaskFillDemo`] for row `row` (0-based) of the raw `scores`, multiplied by `scale`.
pub fn mask_fill_demo(scores: &DMatrix<f64>, row: usize, scale: f64) -> MaskFillDemo {
    let t = scores.ncols();
    let filled = |fill: f64| {
        let logits: Vec<f64> = (0..t)
            .map(|j| {
                if j <= row {
                    scores[(row, j)] * scale
                } else {
                    fill
                }
            })
            .collect();
        plain_softmax(&logits)
    };
    let page = causal_softmax(scores, scale);
    MaskFillDemo {
        with_infinity: filled(f64::NEG_INFINITY),
        with_large: filled(LARGE_NEGATIVE),
        page: (0..t).map(|j| page[(row, j)]).collect(),
        all_masked_infinity: plain_softmax(&vec![f64::NEG_INFINITY; t]),
        all_masked_large: plain_softmax(&vec![LARGE_NEGATIVE; t]),
    }
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

    /// −∞ against −1e9, over the default sentence's heads, rows, head splits, both position
    /// settings and the slider's range: both give the page's weights bit for bit and an exact 0
    /// in the future; a row with nothing visible is NaN with −∞ and an even split with −1e9.
    /// With scores as large as 1e9 the large fill stops masking (the page's numbers never are).
    #[test]
    fn minus_infinity_and_minus_a_billion_agree_until_a_row_is_fully_masked() {
        use crate::model::explorer::default_view;
        for heads in [1, 2, 4, 8] {
            for positions in [false, true] {
                let p = default_view(heads, positions);
                for tau in [0.01, 0.25, 1.0, 100.0] {
                    for head in &p.heads {
                        let scale = crate::model::temperature::logit_scale(head.head_size(), tau);
                        for row in 0..p.len() {
                            let demo = mask_fill_demo(&head.scores, row, scale);
                            assert!(demo.fills_agree() && demo.page_agrees(), "{demo:?}");
                            assert!(demo.large_masks_exactly(row));
                            assert!(demo.all_masked_infinity.iter().all(|w| w.is_nan()));
                            let even = 1.0 / p.len() as f64;
                            assert!(demo.all_masked_large.iter().all(|&w| w == even));
                        }
                    }
                }
            }
        }
        let huge = DMatrix::from_row_slice(2, 2, &[-2e9, 0.0, -2e9, -2e9]);
        let demo = mask_fill_demo(&huge, 0, 1.0);
        assert!(!demo.large_masks_exactly(0) && !demo.fills_agree());
    }
}
