//! Causal self-attention with a temperature:
//! `weights = softmax(mask(Q Kᵀ / (√d · τ)))`, `output = weights · V`.
//!
//! The work is split in two so that a temperature change (the slider) re-runs only the cheap part:
//! [`HeadProjections`] holds Q, K, V and the raw scores `QKᵀ`, which depend on the sentence and the
//! weights but not on τ; [`HeadProjections::weights`] applies the scale, the causal mask and the
//! softmax, and [`attend`] adds the blend of the values. What τ means (its ranges, the scale
//! `1/(√d · τ)`) lives in [`super::temperature`].

use super::temperature::logit_scale;
use nalgebra::DMatrix;

/// Row-wise softmax of `scores · scale` where entries above the diagonal (the future) are masked.
///
/// Masked entries are exactly `0.0`. Each row subtracts its maximum before exponentiating, so large
/// logits cannot overflow; rows whose maximum is `+∞` share their weight among the `+∞` entries, and
/// NaN scores count as masked, so the result is always finite and every row sums to 1.
pub fn causal_softmax(scores: &DMatrix<f64>, scale: f64) -> DMatrix<f64> {
    let (t, c) = scores.shape();
    let mut weights = DMatrix::<f64>::zeros(t, c);
    if t == 0 {
        return weights;
    }
    // nalgebra stores matrices column by column, so the work walks columns (contiguous memory)
    // rather than rows: entry (i, j) is visible to row i when j <= i, i.e. rows j.. of column j.
    // Every row still sees its entries in the order j = 0, 1, …, so the max, the sum and hence
    // every weight are bit-for-bit those of a row-by-row loop.
    let visible_cols = c.min(t);
    let logit = |s: f64| {
        let l = s * scale;
        if l.is_nan() {
            f64::NEG_INFINITY
        } else {
            l
        }
    };
    let mut row_max = vec![f64::NEG_INFINITY; t];
    for (j, col) in scores
        .as_slice()
        .chunks_exact(t)
        .take(visible_cols)
        .enumerate()
    {
        for (m, &s) in row_max[j..].iter_mut().zip(&col[j..]) {
            *m = m.max(logit(s));
        }
    }
    let mut row_sum = vec![0.0; t];
    for (j, (col, out)) in scores
        .as_slice()
        .chunks_exact(t)
        .zip(weights.as_mut_slice().chunks_exact_mut(t))
        .take(visible_cols)
        .enumerate()
    {
        for (((w, &s), &m), sum) in out[j..]
            .iter_mut()
            .zip(&col[j..])
            .zip(&row_max[j..])
            .zip(&mut row_sum[j..])
        {
            let l = logit(s);
            let e = if m == f64::NEG_INFINITY {
                // Nothing usable in the row: it becomes the plain average of the past (below).
                continue;
            } else if m == f64::INFINITY {
                f64::from(u8::from(l == f64::INFINITY))
            } else {
                (l - m).exp()
            };
            *w = e;
            *sum += e;
        }
    }
    for (j, out) in weights
        .as_mut_slice()
        .chunks_exact_mut(t)
        .take(visible_cols)
        .enumerate()
    {
        for (i, ((w, &m), &sum)) in out
            .iter_mut()
            .zip(&row_max)
            .zip(&row_sum)
            .enumerate()
            .skip(j)
        {
            if m == f64::NEG_INFINITY {
                *w = 1.0 / (i + 1).min(c) as f64;
            } else {
                // sum >= 1 because the maximum contributes exp(0) = 1.
                *w /= sum;
            }
        }
    }
    weights
}

/// The uniform causal matrix of notebook step 2: row `t` gives each of tokens `0..=t` a share of
/// `1 / (t + 1)`. It is also what [`causal_softmax`] returns when all logits are equal.
pub fn averaging_matrix(t: usize) -> DMatrix<f64> {
    DMatrix::from_fn(t, t, |i, j| if j <= i { 1.0 / (i + 1) as f64 } else { 0.0 })
}

/// The running mean of the rows of `x`, computed with the notebook's explicit loop (the thing
/// `averaging_matrix(T) · x` must reproduce).
pub fn running_mean_loop(x: &DMatrix<f64>) -> DMatrix<f64> {
    let mut out = DMatrix::<f64>::zeros(x.nrows(), x.ncols());
    for t in 0..x.nrows() {
        for c in 0..x.ncols() {
            let total: f64 = (0..=t).map(|s| x[(s, c)]).sum();
            out[(t, c)] = total / (t + 1) as f64;
        }
    }
    out
}

/// The largest difference between the averaging matrix applied as one product, `wei · x`, and
/// the notebook's loop over the rows of `x`: rounding error only, if the matrix is right.
pub fn averaging_error(wei: &DMatrix<f64>, x: &DMatrix<f64>) -> f64 {
    (wei * x - running_mean_loop(x)).abs().max()
}

/// One head's temperature-independent quantities.
#[derive(Debug, Clone, PartialEq)]
pub struct HeadProjections {
    /// T × d queries (`X · W_q` for this head's columns).
    pub q: DMatrix<f64>,
    /// T × d keys.
    pub k: DMatrix<f64>,
    /// T × d values.
    pub v: DMatrix<f64>,
    /// T × T raw scores `Q Kᵀ` (no scaling, no mask).
    pub scores: DMatrix<f64>,
}

impl HeadProjections {
    pub fn new(
        x: &DMatrix<f64>,
        w_q: &DMatrix<f64>,
        w_k: &DMatrix<f64>,
        w_v: &DMatrix<f64>,
    ) -> Self {
        let q = x * w_q;
        let k = x * w_k;
        let v = x * w_v;
        let scores = &q * k.transpose();
        Self { q, k, v, scores }
    }

    pub fn head_size(&self) -> usize {
        self.q.ncols()
    }

    /// The T × T attention weights at temperature `tau`: the raw scores scaled by
    /// `1 / (√d · τ)`, masked and softmaxed. Every place that needs a head's weights comes here.
    pub fn weights(&self, tau: f64) -> DMatrix<f64> {
        causal_softmax(&self.scores, logit_scale(self.head_size(), tau))
    }
}

/// One head's attention at one temperature.
#[derive(Debug, Clone, PartialEq)]
pub struct HeadAttention {
    /// T × T weights; entries above the diagonal are exactly 0.
    pub weights: DMatrix<f64>,
    /// T × d output `weights · V`.
    pub output: DMatrix<f64>,
}

/// Scale, mask, softmax and blend the values: the τ-dependent half of attention.
pub fn attend(head: &HeadProjections, tau: f64) -> HeadAttention {
    let weights = head.weights(tau);
    let output = &weights * &head.v;
    HeadAttention { weights, output }
}

/// The whole computation for one head in one call, as in the `NumPy` reference.
pub fn causal_attention(
    x: &DMatrix<f64>,
    w_q: &DMatrix<f64>,
    w_k: &DMatrix<f64>,
    w_v: &DMatrix<f64>,
    tau: f64,
) -> HeadAttention {
    attend(&HeadProjections::new(x, w_q, w_k, w_v), tau)
}

/// The heads' outputs side by side: T × Σ widths, head h's columns after those of heads 0…h−1.
/// Every output must have the same number of rows; no outputs give a 0 × 0 matrix.
pub fn concat_heads(outputs: &[&DMatrix<f64>]) -> DMatrix<f64> {
    let t = outputs.first().map_or(0, |o| o.nrows());
    let width = outputs.iter().map(|o| o.ncols()).sum();
    let mut concat = DMatrix::<f64>::zeros(t, width);
    let mut start = 0;
    for o in outputs {
        assert_eq!(o.nrows(), t, "every head has one row per token");
        concat.columns_mut(start, o.ncols()).copy_from(*o);
        start += o.ncols();
    }
    concat
}

/// The multi-head layer's result for one view.
#[derive(Debug, Clone, PartialEq)]
pub struct LayerOutput {
    /// T × `d_model`: every head's `A_h · V_h`, head h in columns h·d … (h+1)·d.
    pub concat: DMatrix<f64>,
    /// T × `d_model`: `concat · W_o`.
    pub output: DMatrix<f64>,
}

impl LayerOutput {
    /// Concatenates `outputs` (each head's `A_h · V_h`, in head order) and applies `w_o`.
    pub fn new(outputs: &[&DMatrix<f64>], w_o: &DMatrix<f64>) -> Self {
        let concat = concat_heads(outputs);
        let output = &concat * w_o;
        Self { concat, output }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::temperature::{MAX_TEMPERATURE, MIN_TEMPERATURE};

    fn softmax_row(logits: &[f64]) -> Vec<f64> {
        // A 1-row "causal" matrix is not enough: use the last row of a T×T matrix whose last row
        // holds the logits, so every entry is visible.
        let t = logits.len();
        let scores = DMatrix::from_fn(t, t, |i, j| if i == t - 1 { logits[j] } else { 0.0 });
        let w = causal_softmax(&scores, 1.0);
        (0..t).map(|j| w[(t - 1, j)]).collect()
    }

    fn assert_close(actual: &[f64], expected: &[f64], tol: f64) {
        assert_eq!(actual.len(), expected.len());
        for (a, e) in actual.iter().zip(expected) {
            assert!((a - e).abs() <= tol, "{actual:?} vs {expected:?}");
        }
    }

    /// The row-by-row loop `causal_softmax` replaced (column order is faster): the reference.
    fn causal_softmax_rowwise(scores: &DMatrix<f64>, scale: f64) -> DMatrix<f64> {
        let t = scores.nrows();
        let mut weights = DMatrix::<f64>::zeros(t, scores.ncols());
        for i in 0..t {
            let visible = (i + 1).min(scores.ncols());
            let logits: Vec<f64> = (0..visible)
                .map(|j| scores[(i, j)] * scale)
                .map(|l| if l.is_nan() { f64::NEG_INFINITY } else { l })
                .collect();
            let row_max = logits.iter().copied().fold(f64::NEG_INFINITY, f64::max);
            if row_max == f64::NEG_INFINITY {
                for j in 0..visible {
                    weights[(i, j)] = 1.0 / visible as f64;
                }
                continue;
            }
            let mut sum = 0.0;
            for (j, &l) in logits.iter().enumerate() {
                let e = if row_max == f64::INFINITY {
                    f64::from(u8::from(l == f64::INFINITY))
                } else {
                    (l - row_max).exp()
                };
                weights[(i, j)] = e;
                sum += e;
            }
            for j in 0..visible {
                weights[(i, j)] /= sum;
            }
        }
        weights
    }

    #[test]
    fn column_order_is_bit_identical_to_the_row_loop() {
        let mut rng = crate::model::rng::SeededRng::stream(5, "softmax-order");
        let specials = [f64::NAN, f64::INFINITY, f64::NEG_INFINITY, 0.0, -0.0, 1e308];
        for (rows, cols) in [(0, 0), (1, 1), (3, 5), (5, 3), (7, 7), (64, 64), (130, 130)] {
            for special_rate in [0, 7] {
                let scores = DMatrix::from_fn(rows, cols, |_, _| {
                    let r = rng.next_u64();
                    if special_rate > 0 && r % special_rate == 0 {
                        specials[(r / 7 % 6) as usize]
                    } else {
                        rng.normal() * 4.0
                    }
                });
                for scale in [0.125, 1.0, 1e4] {
                    let fast = causal_softmax(&scores, scale);
                    let slow = causal_softmax_rowwise(&scores, scale);
                    assert_eq!(fast.shape(), slow.shape());
                    for (a, b) in fast.iter().zip(slow.iter()) {
                        assert_eq!(a.to_bits(), b.to_bits(), "{rows}x{cols} scale {scale}");
                    }
                }
            }
        }
    }

    #[test]
    fn softmax_matches_the_reference_values() {
        let logits = [0.1, -0.2, 0.3, -0.2, 0.5];
        assert_close(
            &softmax_row(&logits),
            &[0.1925, 0.1426, 0.2351, 0.1426, 0.2872],
            5e-5,
        );
        let sharp: Vec<f64> = logits.iter().map(|l| l * 8.0).collect();
        assert_close(
            &softmax_row(&sharp),
            &[0.0326, 0.0030, 0.1615, 0.0030, 0.8000],
            5e-5,
        );
    }

    #[test]
    fn equal_logits_give_the_averaging_matrix() {
        let scores = DMatrix::from_element(6, 6, 3.7);
        let w = causal_softmax(&scores, 0.25);
        assert!((w - averaging_matrix(6)).abs().max() < 1e-15);
    }

    #[test]
    fn hand_computed_three_by_three() {
        // X = I₃, W_q = W_k = I₃·√3 so that Q Kᵀ/√d = 3·I... keep it simpler: scores given directly.
        // scores = [[1,·,·],[2,0,·],[0,ln 3,0]] with scale 1:
        //   row 0: [1]            -> [1, 0, 0]
        //   row 1: softmax(2, 0)  -> [e²/(e²+1), 1/(e²+1), 0]
        //   row 2: softmax(0, ln3, 0) -> [1/5, 3/5, 1/5]
        let scores =
            DMatrix::from_row_slice(3, 3, &[1.0, 9.0, 9.0, 2.0, 0.0, 9.0, 0.0, 3f64.ln(), 0.0]);
        let w = causal_softmax(&scores, 1.0);
        let e2 = 1f64.exp().powi(2);
        let expected = DMatrix::from_row_slice(
            3,
            3,
            &[
                1.0,
                0.0,
                0.0,
                e2 / (e2 + 1.0),
                1.0 / (e2 + 1.0),
                0.0,
                0.2,
                0.6,
                0.2,
            ],
        );
        assert!((&w - &expected).abs().max() < 1e-15, "{w}");
        // Output = W · V for V = rows [1,0],[0,1],[1,1].
        let v = DMatrix::from_row_slice(3, 2, &[1.0, 0.0, 0.0, 1.0, 1.0, 1.0]);
        let out = &w * &v;
        assert!((out[(2, 0)] - 0.4).abs() < 1e-15 && (out[(2, 1)] - 0.8).abs() < 1e-15);
    }

    #[test]
    fn full_pipeline_divides_by_sqrt_d_and_tau() {
        // X = I₄ and W_q = W_k = 2·I₄ make Q Kᵀ = 4·I₄; with d = 4 and τ = 0.5 the logits are 4·I₄.
        let x = DMatrix::<f64>::identity(4, 4);
        let w = DMatrix::<f64>::identity(4, 4) * 2.0;
        let att = causal_attention(&x, &w, &w, &x, 0.5);
        let e4 = 4f64.exp();
        // Row 2: logits [0, 0, 4] -> [1, 1, e⁴] / (2 + e⁴).
        assert!((att.weights[(2, 2)] - e4 / (2.0 + e4)).abs() < 1e-15);
        assert!((att.weights[(2, 0)] - 1.0 / (2.0 + e4)).abs() < 1e-15);
        assert_eq!(att.weights[(2, 3)], 0.0);
        // V = I, so the output is the weights themselves.
        assert!((att.output.clone() - att.weights.clone()).abs().max() < 1e-15);
    }

    #[test]
    fn extreme_temperatures_go_one_hot_and_uniform() {
        let scores = DMatrix::from_row_slice(3, 3, &[0.0, 0.0, 0.0, 0.5, -0.5, 0.0, 0.1, 0.9, 0.3]);
        let cold = causal_softmax(&scores, logit_scale(16, MIN_TEMPERATURE));
        assert!((cold[(2, 1)] - 1.0).abs() < 1e-12 && (cold[(1, 0)] - 1.0).abs() < 1e-12);
        let hot = causal_softmax(&scores, logit_scale(16, MAX_TEMPERATURE));
        assert!((hot[(2, 0)] - 1.0 / 3.0).abs() < 1e-4);
    }

    #[test]
    fn infinite_and_nan_inputs_stay_finite() {
        let scores = DMatrix::from_row_slice(
            3,
            3,
            &[
                f64::NAN,
                0.0,
                0.0,
                f64::INFINITY,
                f64::INFINITY,
                0.0,
                f64::NEG_INFINITY,
                1.0,
                f64::NAN,
            ],
        );
        let w = causal_softmax(&scores, 1.0);
        assert!(w.iter().all(|x| x.is_finite()));
        assert_eq!(w[(0, 0)], 1.0);
        assert_eq!((w[(1, 0)], w[(1, 1)]), (0.5, 0.5));
        assert_eq!((w[(2, 0)], w[(2, 1)], w[(2, 2)]), (0.0, 1.0, 0.0));
        for tau in [f64::NAN, f64::INFINITY, f64::NEG_INFINITY, 0.0, -1.0, 1e308] {
            assert!(logit_scale(16, tau).is_finite() && logit_scale(16, tau) > 0.0);
        }
    }

    #[test]
    fn averaging_matches_the_loop() {
        let x = DMatrix::from_fn(5, 3, |i, j| (i * 3 + j) as f64 * 0.7 - 2.0);
        let diff = (averaging_matrix(5) * &x - running_mean_loop(&x))
            .abs()
            .max();
        assert!(diff < 1e-14);
        assert_eq!(averaging_error(&averaging_matrix(5), &x), diff);
    }

    #[test]
    fn weights_are_attends_weights() {
        let x = DMatrix::from_fn(4, 3, |i, j| ((i * 3 + j) as f64 * 0.37).sin());
        let w = DMatrix::from_fn(3, 2, |i, j| (i + 2 * j) as f64 * 0.5 - 0.7);
        let head = HeadProjections::new(&x, &w, &w.map(|a| -a), &w);
        for tau in [0.01, 1.0, 50.0] {
            assert_eq!(head.weights(tau), attend(&head, tau).weights);
            assert_eq!(
                head.weights(tau),
                causal_softmax(&head.scores, logit_scale(2, tau))
            );
        }
    }
}
