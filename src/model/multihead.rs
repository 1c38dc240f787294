//! Several heads, combined: the lesson's step 5.
//!
//! Each of the h heads works in its own d = `d_model` / h columns and returns a T × d output
//! `A_h · V_h`. The layer puts them side by side (head h in columns h·d … (h+1)·d), a T × `d_model`
//! matrix called `concat` here, and mixes them with one output projection `W_o` (`d_model` ×
//! `d_model`): `output = concat · W_o`, T × `d_model` again, the shape the next layer expects.
//!
//! (The `NumPy` article the lesson cites multiplies each head's output by that head's d rows of
//! `W_o` first and then concatenates the h products, which gives T × h·`d_model`; adding those
//! products instead of concatenating them gives exactly `concat · W_o`, a fact the step checks.)
//!
//! [`LayerOutput`](super::attention::LayerOutput) is the whole matrix, as the JSON export writes it; [`HeadsRow`] is the selected
//! row as step 5 shows it, with a check computed by a second, independent route.

use super::explorer::Prepared;
use nalgebra::DMatrix;

/// Step 5's numbers for row t: each head's output row, their concatenation, and the layer's
/// output row.
#[derive(Debug, Clone, PartialEq)]
pub struct HeadsRow {
    /// The row (0-based).
    pub t: usize,
    /// Row t of each head's `A_h · V_h`: h vectors of d numbers.
    pub heads: Vec<Vec<f64>>,
    /// Row t of `concat`: `d_model` numbers.
    pub concat: Vec<f64>,
    /// Row t of `concat · W_o` from the matrix product (what the JSON's `output` holds).
    pub output: Vec<f64>,
    /// The same row computed the long way: each head's row as `Σ_j w_tj v_j`, laid side by side,
    /// then `Σ_c concat_c · W_o[c, :]` in explicit loops.
    pub output_by_loops: Vec<f64>,
    /// The largest difference between `output` and `output_by_loops`.
    pub diff: f64,
    /// The same row as a sum over heads, `Σ_h head_h · W_o[h·d … (h+1)·d, :]`: what the `NumPy`
    /// article's per-head products would give if they were added instead of concatenated.
    pub output_by_head_sum: Vec<f64>,
    /// The largest difference between `output` and `output_by_head_sum`.
    pub sum_diff: f64,
}

/// The largest absolute difference between two equally long vectors.
fn max_diff(a: &[f64], b: &[f64]) -> f64 {
    a.iter()
        .zip(b)
        .map(|(x, y)| (x - y).abs())
        .fold(0.0, f64::max)
}

impl HeadsRow {
    /// Row `t` of the layer for `prepared` with head weights `weights`. Panics if `t` is not a row.
    pub fn new(prepared: &Prepared, weights: &[&DMatrix<f64>], t: usize) -> Self {
        let layer = prepared.layer_output(weights);
        let row = |m: &DMatrix<f64>| (0..m.ncols()).map(|c| m[(t, c)]).collect::<Vec<f64>>();
        let d = prepared.head_size();
        let heads: Vec<Vec<f64>> = (0..prepared.heads.len())
            .map(|h| row(&layer.concat.columns(h * d, d).into_owned()))
            .collect();
        // The second route: no matrix products at all.
        let mut long_concat = Vec::with_capacity(prepared.d_model);
        for (head, w) in prepared.heads.iter().zip(weights) {
            for c in 0..head.v.ncols() {
                long_concat.push((0..=t).map(|j| w[(t, j)] * head.v[(j, c)]).sum::<f64>());
            }
        }
        let w_o = &prepared.projections.w_o;
        let output_by_loops: Vec<f64> = (0..w_o.ncols())
            .map(|k| {
                long_concat
                    .iter()
                    .enumerate()
                    .map(|(c, x)| x * w_o[(c, k)])
                    .sum()
            })
            .collect();
        let output = row(&layer.output);
        let diff = max_diff(&output, &output_by_loops);
        // The third route: each head's row times its own d rows of W_o, summed over heads.
        let mut output_by_head_sum = vec![0.0; w_o.ncols()];
        for (h, head_row) in heads.iter().enumerate() {
            let part = DMatrix::from_row_slice(1, d, head_row) * w_o.rows(h * d, d);
            for (sum, x) in output_by_head_sum.iter_mut().zip(part.iter()) {
                *sum += x;
            }
        }
        let sum_diff = max_diff(&output, &output_by_head_sum);
        Self {
            t,
            heads,
            concat: row(&layer.concat),
            output,
            output_by_loops,
            diff,
            output_by_head_sum,
            sum_diff,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::attention::{concat_heads, LayerOutput};
    use crate::model::stats::ROUNDING_TOLERANCE;
    use crate::model::weights::D_MODEL;

    fn model(heads: usize) -> Prepared {
        crate::model::explorer::default_view(heads, false)
    }

    fn layer(p: &Prepared, tau: f64) -> (Vec<DMatrix<f64>>, LayerOutput) {
        let outputs: Vec<DMatrix<f64>> = p.attend_all(tau).into_iter().map(|a| a.output).collect();
        let refs: Vec<&DMatrix<f64>> = outputs.iter().collect();
        let layer = LayerOutput::new(&refs, &p.projections.w_o);
        (outputs, layer)
    }

    #[test]
    fn shapes_for_every_head_count() {
        for heads in [1, 2, 4, 8] {
            let p = model(heads);
            let (outputs, layer) = layer(&p, 1.0);
            assert_eq!(outputs.len(), heads);
            assert!(outputs.iter().all(|o| o.shape() == (7, D_MODEL / heads)));
            assert_eq!(layer.concat.shape(), (7, D_MODEL));
            assert_eq!(layer.output.shape(), (7, D_MODEL));
            assert_eq!(p.projections.w_o.shape(), (D_MODEL, D_MODEL));
        }
    }

    #[test]
    fn concat_block_h_is_head_h() {
        for heads in [1, 2, 4, 8] {
            let p = model(heads);
            let d = D_MODEL / heads;
            let (outputs, layer) = layer(&p, 0.3);
            for (h, o) in outputs.iter().enumerate() {
                for i in 0..7 {
                    for c in 0..d {
                        assert_eq!(
                            layer.concat[(i, h * d + c)],
                            o[(i, c)],
                            "head {h} ({i}, {c})"
                        );
                    }
                }
            }
        }
        // With one head, the concatenation is that head's output, bit for bit.
        let p = model(1);
        let (outputs, layer) = layer(&p, 1.0);
        assert_eq!(layer.concat, outputs[0]);
    }

    #[test]
    fn output_is_the_triple_loop() {
        for heads in [1, 2, 4, 8] {
            let p = model(heads);
            let (_, layer) = layer(&p, 1.0);
            let w_o = &p.projections.w_o;
            for i in 0..7 {
                for k in 0..D_MODEL {
                    let mut by_hand = 0.0;
                    for c in 0..D_MODEL {
                        by_hand += layer.concat[(i, c)] * w_o[(c, k)];
                    }
                    assert!(
                        (layer.output[(i, k)] - by_hand).abs() < 1e-12,
                        "{heads} heads ({i}, {k})"
                    );
                }
            }
        }
    }

    #[test]
    fn of_agrees_with_attend_all() {
        for heads in [1, 2, 4, 8] {
            let p = model(heads);
            for tau in [0.01, 1.0, 100.0] {
                let weights = p.weights_all(tau);
                let refs: Vec<&DMatrix<f64>> = weights.iter().collect();
                assert_eq!(p.layer_output(&refs), layer(&p, tau).1);
            }
        }
    }

    #[test]
    fn concat_of_nothing_and_of_mismatched_widths() {
        assert_eq!(concat_heads(&[]).shape(), (0, 0));
        let a = DMatrix::from_row_slice(2, 1, &[1.0, 2.0]);
        let b = DMatrix::from_row_slice(2, 2, &[3.0, 4.0, 5.0, 6.0]);
        assert_eq!(
            concat_heads(&[&a, &b]),
            DMatrix::from_row_slice(2, 3, &[1.0, 3.0, 4.0, 2.0, 5.0, 6.0])
        );
    }

    #[test]
    fn the_row_matches_the_matrices_and_the_long_way() {
        for heads in [1, 2, 4, 8] {
            let p = model(heads);
            let d = D_MODEL / heads;
            for tau in [0.01, 1.0, 100.0] {
                let weights = p.weights_all(tau);
                let refs: Vec<&DMatrix<f64>> = weights.iter().collect();
                let (outputs, layer) = layer(&p, tau);
                for t in 0..7 {
                    let row = HeadsRow::new(&p, &refs, t);
                    assert_eq!(row.t, t);
                    assert_eq!(row.heads.len(), heads);
                    for (h, strip) in row.heads.iter().enumerate() {
                        assert_eq!(strip.len(), d);
                        let expected: Vec<f64> = (0..d).map(|c| outputs[h][(t, c)]).collect();
                        assert_eq!(strip, &expected);
                        assert_eq!(&row.concat[h * d..(h + 1) * d], &expected[..]);
                    }
                    assert_eq!(row.concat.len(), D_MODEL);
                    let expected: Vec<f64> = (0..D_MODEL).map(|k| layer.output[(t, k)]).collect();
                    assert_eq!(row.output, expected);
                    assert!(row.diff < ROUNDING_TOLERANCE, "{}", row.diff);
                    assert!(row.sum_diff < ROUNDING_TOLERANCE, "{}", row.sum_diff);
                    let by_hand = row
                        .output
                        .iter()
                        .zip(&row.output_by_loops)
                        .map(|(a, b)| (a - b).abs())
                        .fold(0.0, f64::max);
                    assert_eq!(row.diff, by_hand);
                    assert_eq!(row.sum_diff, max_diff(&row.output, &row.output_by_head_sum));
                }
            }
        }
    }

    #[test]
    fn the_articles_per_head_products_concatenate_to_h_times_the_width() {
        // The article's code: each head's T × d output times its d rows of W_o is T × d_model;
        // concatenating those gives T × h·d_model. Adding them gives the layer's output.
        for heads in [2, 4, 8] {
            let p = model(heads);
            let d = D_MODEL / heads;
            let (outputs, layer) = layer(&p, 1.0);
            let products: Vec<DMatrix<f64>> = outputs
                .iter()
                .enumerate()
                .map(|(h, o)| o * p.projections.w_o.rows(h * d, d))
                .collect();
            let refs: Vec<&DMatrix<f64>> = products.iter().collect();
            assert_eq!(concat_heads(&refs).shape(), (7, heads * D_MODEL));
            let sum = products
                .iter()
                .fold(DMatrix::zeros(7, D_MODEL), |acc, m| acc + m);
            assert!((sum - &layer.output).abs().max() < 1e-12);
        }
    }

    #[test]
    fn w_o_row_c_weighs_concat_entry_c() {
        // Adding 1 to W_o[3, 5] moves output column 5 by exactly concat[3] and nothing else:
        // the product is concat · W_o, not W_o · concat or a per-head product.
        let mut p = model(2);
        let weights = p.weights_all(1.0);
        let refs: Vec<&DMatrix<f64>> = weights.iter().collect();
        let before = HeadsRow::new(&p, &refs, 6);
        p.projections.w_o[(3, 5)] += 1.0;
        let after = HeadsRow::new(&p, &refs, 6);
        assert_eq!(after.concat, before.concat);
        for k in 0..D_MODEL {
            let moved = if k == 5 { before.concat[3] } else { 0.0 };
            assert!(
                (after.output[k] - before.output[k] - moved).abs() < 1e-12,
                "{k}"
            );
        }
        assert!(after.diff < ROUNDING_TOLERANCE);
    }
}
