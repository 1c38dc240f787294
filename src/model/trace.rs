//! One row of one head followed through every stage of attention: the numbers of the lesson's
//! step 3.
//!
//! For the query token t, each key j goes through `q_t · k_j` → `÷ √d` → `÷ τ` → the causal mask
//! (−∞ for the future, j > t) → softmax, and the row's output is the weighted sum of the value
//! vectors, `Σ_j w_j v_j`. The page shows each stage as a column of a table and checks the
//! explicit sum against row t of the matrix product `A · V`. Everything is computed here so that
//! the table only formats numbers, and native tests can check them.
//!
//! Before the trace, [`QkvRow`] shows where the row's query, key and value come from: the row's
//! input x (`d_model` numbers) times the head's columns of `W_q`, `W_k` and `W_v`, recomputed here by an
//! explicit loop and compared with the Q, K and V the attention used.

use super::attention::HeadProjections;
use super::explorer::Prepared;
use super::stats::ROUNDING_TOLERANCE;
use super::temperature::logit_scale;
use nalgebra::DMatrix;

/// Row `t` of one head at temperature `tau`, stage by stage. The per-key vectors have one entry
/// for every key, the masked future included.
#[derive(Debug, Clone, PartialEq)]
pub struct RowTrace {
    /// The traced row: the query token's index.
    pub t: usize,
    /// The head size d.
    pub head_size: usize,
    /// √d, what the raw scores are first divided by.
    pub sqrt_d: f64,
    /// The temperature the weights were computed at.
    pub tau: f64,
    /// Raw scores `q_t · k_j`.
    pub raw: Vec<f64>,
    /// `q_t · k_j / √d`.
    pub over_sqrt_d: Vec<f64>,
    /// The scaled scores `q_t · k_j / (√d · τ)`, computed as the model does: raw score × scale.
    pub scaled: Vec<f64>,
    /// The scaled scores after the causal mask: −∞ for the future (j > t).
    pub masked: Vec<f64>,
    /// The softmax weights, row t of the head's weights (exactly 0 for the future).
    pub weights: Vec<f64>,
    /// `Σ_j w_j v_j`, summed explicitly over the visible keys.
    pub blended: Vec<f64>,
    /// Row t of `A · V` from the matrix product (the code the model's outputs use).
    pub out_row: Vec<f64>,
    /// The largest difference between `blended` and `out_row`.
    pub diff: f64,
    /// The sum of the row's weights (1 up to rounding).
    pub weight_sum: f64,
}

impl RowTrace {
    /// Traces row `t` of `head`, whose weights at temperature `tau` are `weights` (T × T, as
    /// [`HeadProjections::weights`] returns them). Panics if `t` is not a row.
    pub fn new(head: &HeadProjections, weights: &DMatrix<f64>, t: usize, tau: f64) -> Self {
        let keys = head.scores.ncols();
        let head_size = head.head_size();
        let sqrt_d = (head_size as f64).sqrt();
        let scale = logit_scale(head_size, tau);
        let raw: Vec<f64> = (0..keys).map(|j| head.scores[(t, j)]).collect();
        let over_sqrt_d = raw.iter().map(|r| r / sqrt_d).collect();
        let scaled: Vec<f64> = raw.iter().map(|r| r * scale).collect();
        let masked = scaled
            .iter()
            .enumerate()
            .map(|(j, &s)| if j > t { f64::NEG_INFINITY } else { s })
            .collect();
        let weights_t: Vec<f64> = (0..keys).map(|j| weights[(t, j)]).collect();
        let blended: Vec<f64> = (0..head_size)
            .map(|c| (0..=t).map(|j| weights_t[j] * head.v[(j, c)]).sum())
            .collect();
        let output = weights * &head.v;
        let out_row: Vec<f64> = (0..head_size).map(|c| output[(t, c)]).collect();
        let diff = blended
            .iter()
            .zip(&out_row)
            .map(|(a, b)| (a - b).abs())
            .fold(0.0, f64::max);
        let weight_sum = weights_t.iter().sum();
        Self {
            t,
            head_size,
            sqrt_d,
            tau,
            raw,
            over_sqrt_d,
            scaled,
            masked,
            weights: weights_t,
            blended,
            out_row,
            diff,
            weight_sum,
        }
    }

    /// Whether key `j` is in the future of the traced row (masked out).
    pub fn is_masked(&self, j: usize) -> bool {
        j > self.t
    }

    /// Whether the explicit blend `Σ w·v` equals row t of `A · V` up to rounding.
    pub fn blend_matches(&self) -> bool {
        self.diff < ROUNDING_TOLERANCE
    }
}

/// Row t's input and its query, key and value in one head: `q = x·W_q`, `k = x·W_k`,
/// `v = x·W_v`, as the attention used them, with an independent recomputation.
#[derive(Debug, Clone, PartialEq)]
pub struct QkvRow {
    /// The row: the token's index.
    pub t: usize,
    /// Row t of X, the `d_model` numbers that go into attention.
    pub x: Vec<f64>,
    /// Row t of the head's Q, K and V (d numbers each), as the attention used them.
    pub q: Vec<f64>,
    pub k: Vec<f64>,
    pub v: Vec<f64>,
    /// `x·W_q` recomputed by an explicit dot-product loop over the head's columns of `W_q`.
    pub recomputed_q: Vec<f64>,
    /// The largest difference between the recomputed and the used q, k and v (all three).
    pub diff: f64,
}

impl QkvRow {
    /// Row `t` of head `head` of `model`. Panics if either is out of range.
    pub fn new(model: &Prepared, head: usize, t: usize) -> Self {
        let used = &model.heads[head];
        let (w_q, w_k, w_v) = model.projections.head_columns(model.heads.len(), head);
        let x: Vec<f64> = model.x.row(t).iter().copied().collect();
        let times = |w: &DMatrix<f64>| -> Vec<f64> {
            (0..w.ncols())
                .map(|c| {
                    let mut sum = 0.0;
                    for (i, xi) in x.iter().enumerate() {
                        sum += xi * w[(i, c)];
                    }
                    sum
                })
                .collect()
        };
        let row = |m: &DMatrix<f64>| -> Vec<f64> { m.row(t).iter().copied().collect() };
        let (q, k, v) = (row(&used.q), row(&used.k), row(&used.v));
        let recomputed = [times(&w_q), times(&w_k), times(&w_v)];
        let diff = [&q, &k, &v]
            .iter()
            .zip(&recomputed)
            .flat_map(|(a, b)| a.iter().zip(b).map(|(a, b)| (a - b).abs()))
            .fold(0.0, f64::max);
        let [recomputed_q, _, _] = recomputed;
        Self {
            t,
            x,
            q,
            k,
            v,
            recomputed_q,
            diff,
        }
    }

    /// Whether the recomputation agrees with what the attention used, up to rounding.
    pub fn matches(&self) -> bool {
        self.diff < ROUNDING_TOLERANCE
    }
}

/// The last step of the trace in numbers a learner can check by hand: for the first `dims`
/// dimensions of the head, each visible key's weight, value vector and weighted value, their sum
/// and row t of A·V.
#[derive(Debug, Clone, PartialEq)]
pub struct BlendTable {
    /// How many of the head's d dimensions are shown.
    pub dims: usize,
    /// One line per visible key j = 0…t.
    pub rows: Vec<BlendRow>,
    /// `Σ_j w_j v_j` over the shown dimensions, added in key order as the lines list them.
    pub sum: Vec<f64>,
    /// The same dimensions of row t of A·V (the matrix product).
    pub out: Vec<f64>,
}

/// One key's line of a [`BlendTable`].
#[derive(Debug, Clone, PartialEq)]
pub struct BlendRow {
    pub key: usize,
    pub weight: f64,
    /// The key's value vector `v_j` (first `dims` entries).
    pub value: Vec<f64>,
    /// `w_j · v_j` (first `dims` entries).
    pub weighted: Vec<f64>,
}

impl RowTrace {
    /// The weights × values table of this row for `head` (the head it traces), over its first
    /// `dims` dimensions (at most d).
    pub fn blend_table(&self, head: &HeadProjections, dims: usize) -> BlendTable {
        let dims = dims.min(self.head_size);
        let rows: Vec<BlendRow> = (0..=self.t)
            .map(|j| {
                let value: Vec<f64> = (0..dims).map(|c| head.v[(j, c)]).collect();
                let weight = self.weights[j];
                BlendRow {
                    key: j,
                    weight,
                    weighted: value.iter().map(|v| weight * v).collect(),
                    value,
                }
            })
            .collect();
        let sum = (0..dims)
            .map(|c| rows.iter().map(|r| r.weighted[c]).sum())
            .collect();
        BlendTable {
            dims,
            rows,
            sum,
            out: self.out_row[..dims].to_vec(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::attention::{attend, causal_softmax};
    use crate::model::explorer::Prepared;
    use crate::model::weights::DEFAULT_HEADS;

    fn default_model() -> Prepared {
        crate::model::explorer::default_view(DEFAULT_HEADS, false)
    }

    #[test]
    fn every_row_of_the_default_view_checks_out() {
        let p = default_model();
        for head in &p.heads {
            for tau in [0.01, 0.25, 1.0, 100.0] {
                let weights = head.weights(tau);
                let softmax = causal_softmax(&head.scores, logit_scale(head.head_size(), tau));
                let output = attend(head, tau).output;
                for t in 0..p.len() {
                    let row = RowTrace::new(head, &weights, t, tau);
                    // The weights are the softmax's row, bit for bit.
                    let expected: Vec<f64> = softmax.row(t).iter().copied().collect();
                    assert_eq!(row.weights, expected);
                    // The future is masked: −∞ logits and zero weight.
                    for j in 0..p.len() {
                        assert_eq!(row.is_masked(j), j > t);
                        if j > t {
                            assert_eq!(row.masked[j], f64::NEG_INFINITY);
                            assert_eq!(row.weights[j], 0.0);
                        } else {
                            assert_eq!(row.masked[j], row.scaled[j]);
                        }
                    }
                    // The blend is the model's output row.
                    assert!(row.diff < 1e-12 && row.blend_matches(), "{}", row.diff);
                    let out: Vec<f64> = output.row(t).iter().copied().collect();
                    assert_eq!(row.out_row, out);
                    assert!((row.weight_sum - 1.0).abs() < 1e-12);
                    assert_eq!((row.head_size, row.sqrt_d), (16, 4.0));
                }
            }
        }
    }

    #[test]
    fn a_small_case_by_hand() {
        // X = I₂ and d = 4: q₀ = (1,0,0,0), q₁ = (1,1,1,1), k₀ = 0, k₁ = (2,2,2,2),
        // v₀ = (1,0,0,0), v₁ = (0,0,0,1). Row 1: q·k = (0, 8), ÷√d = (0, 4), ÷τ (τ = 2) = (0, 2).
        let x = DMatrix::<f64>::identity(2, 2);
        let w_q = DMatrix::from_row_slice(2, 4, &[1.0, 0.0, 0.0, 0.0, 1.0, 1.0, 1.0, 1.0]);
        let w_k = DMatrix::from_row_slice(2, 4, &[0.0, 0.0, 0.0, 0.0, 2.0, 2.0, 2.0, 2.0]);
        let w_v = DMatrix::from_row_slice(2, 4, &[1.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 1.0]);
        let head = HeadProjections::new(&x, &w_q, &w_k, &w_v);
        let weights = head.weights(2.0);

        let row = RowTrace::new(&head, &weights, 1, 2.0);
        assert_eq!(row.raw, [0.0, 8.0]);
        assert_eq!(row.sqrt_d, 2.0);
        assert_eq!(row.over_sqrt_d, [0.0, 4.0]);
        assert_eq!(row.scaled, [0.0, 2.0]);
        assert_eq!(row.masked, [0.0, 2.0]);
        let e2 = 2f64.exp();
        let (w0, w1) = (1.0 / (1.0 + e2), e2 / (1.0 + e2));
        assert!((row.weights[0] - w0).abs() < 1e-15 && (row.weights[1] - w1).abs() < 1e-15);
        let expected_blend = [w0, 0.0, 0.0, w1];
        for (b, e) in row.blended.iter().zip(expected_blend) {
            assert!((b - e).abs() < 1e-15, "{:?}", row.blended);
        }
        assert!(row.diff < 1e-15 && (row.weight_sum - 1.0).abs() < 1e-15);

        // Row 0 sees only itself: key 1 is the future.
        let row = RowTrace::new(&head, &weights, 0, 2.0);
        assert_eq!(row.raw, [0.0, 2.0]);
        assert_eq!(row.scaled, [0.0, 0.5]);
        assert_eq!(row.masked, [0.0, f64::NEG_INFINITY]);
        assert_eq!(row.weights, [1.0, 0.0]);
        assert_eq!(row.blended, [1.0, 0.0, 0.0, 0.0]);
        assert_eq!((row.diff, row.weight_sum), (0.0, 1.0));
    }

    #[test]
    fn q_k_v_are_x_times_the_head_columns() {
        for heads in [1, 2, 4, 8] {
            for positions in [false, true] {
                let p = crate::model::explorer::default_view(heads, positions);
                let d = p.head_size();
                for h in 0..heads {
                    for t in 0..p.len() {
                        let row = QkvRow::new(&p, h, t);
                        assert_eq!(row.x.len(), p.d_model);
                        assert_eq!((row.q.len(), row.k.len(), row.v.len()), (d, d, d));
                        assert!(row.matches() && row.diff < 1e-12, "{}", row.diff);
                        // The full W_q's columns h·d … h·d + d − 1, indexed directly.
                        for c in 0..d {
                            let expected: f64 = (0..p.d_model)
                                .map(|i| p.x[(t, i)] * p.projections.w_q[(i, h * d + c)])
                                .sum();
                            assert!((row.recomputed_q[c] - expected).abs() < 1e-12);
                            assert!((row.q[c] - expected).abs() < 1e-12);
                        }
                    }
                }
            }
        }
    }

    #[test]
    fn a_wrong_q_is_caught() {
        let mut p = default_model();
        p.heads[1].q[(3, 5)] += 1e-6;
        let row = QkvRow::new(&p, 1, 3);
        assert!(
            !row.matches() && (row.diff - 1e-6).abs() < 1e-12,
            "{}",
            row.diff
        );
        assert!(QkvRow::new(&p, 1, 2).matches());
    }

    /// The training page's closer look traces a trained model's heads: for every position kind,
    /// layer and head of a small model, the trace of a row sums its weights to 1 and its explicit
    /// Σ w·v matches the row of A·V.
    #[test]
    fn a_transformer_head_traces_like_an_explorer_head() {
        use crate::model::train::shape::{PositionKind, TransformerConfig};
        use crate::model::train::transformer::Transformer;
        for positions in PositionKind::ALL {
            let config = TransformerConfig {
                vocab: 7,
                d_model: 8,
                layers: 2,
                heads: 2,
                max_len: 6,
                positions,
            };
            let model = Transformer::new(config, 5).unwrap();
            let tokens: Vec<usize> = (0..6).map(|i| (3 * i + 1) % 7).collect();
            for tau in [1.0, 0.5, 2.0] {
                for heads in model.heads_at(&tokens, tau) {
                    for head in heads {
                        let row = RowTrace::new(&head.projections, &head.weights, 3, tau);
                        assert!(row.blend_matches(), "{positions:?} τ {tau}");
                        assert!((row.weight_sum - 1.0).abs() < 1e-12);
                    }
                }
            }
        }
    }

    /// The weights × values table adds up as the trace's explicit sum does (bit for bit, the same
    /// products in the same order) and agrees with A·V to rounding, for every row, head split and
    /// temperature of the default sentence.
    #[test]
    fn the_blend_table_adds_up_to_the_row_of_a_v() {
        for heads in [1, 2, 4, 8] {
            let p = crate::model::explorer::default_view(heads, false);
            for tau in [0.01, 1.0, 100.0] {
                for head in &p.heads {
                    let w = head.weights(tau);
                    for t in 0..p.len() {
                        let trace = RowTrace::new(head, &w, t, tau);
                        let table = trace.blend_table(head, 4);
                        assert_eq!(table.dims, 4.min(head.head_size()));
                        assert_eq!(table.rows.len(), t + 1);
                        assert_eq!(table.sum, trace.blended[..table.dims].to_vec());
                        for (s, o) in table.sum.iter().zip(&table.out) {
                            assert!((s - o).abs() < ROUNDING_TOLERANCE);
                        }
                        for r in &table.rows {
                            assert_eq!(r.weight, w[(t, r.key)]);
                        }
                    }
                }
            }
        }
    }
}
