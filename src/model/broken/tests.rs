//! Each mistake computed by hand on small matrices and over the default view, with what it does
//! to the rows, the columns and the future ([`Damage`]).

use super::*;
use crate::model::explorer::default_view;

const NEG: f64 = f64::NEG_INFINITY;

/// The 3 × 3 scores every hand computation below starts from, chosen so the weights are
/// simple fractions: with scale 1 the visible logits of a row are 0 and ln of small integers.
fn scores() -> DMatrix<f64> {
    let (l2, l3) = (2f64.ln(), 3f64.ln());
    DMatrix::from_row_slice(3, 3, &[0.0, l2, l3, l2, 0.0, l3, 0.0, l3, l2])
}

/// Broken weights for [`scores`] with head size 1 and `d_model` 4 at τ = 1 (scale 1).
fn broken(mistakes: &[Mistake]) -> DMatrix<f64> {
    let set: Mistakes = mistakes.iter().copied().collect();
    broken_weights(&scores(), set, (1, 4), 1.0, (7, 0))
}

fn assert_matrix(actual: &DMatrix<f64>, expected: &[f64]) {
    let e = DMatrix::from_row_slice(3, 3, expected);
    assert!((actual - &e).abs().max() < 1e-15, "{actual} vs {e}");
}

#[test]
fn keys_round_trip_and_sets_keep_their_order() {
    for m in Mistake::ALL {
        assert_eq!(Mistake::from_key(m.key()), Some(m));
    }
    let set: Mistakes = [Mistake::WrongTriangle, Mistake::MaskWithZero]
        .into_iter()
        .collect();
    assert_eq!(set.keys(), "triu,mask-zero");
    assert!(set
        .with(Mistake::WrongTriangle, false)
        .contains(Mistake::MaskWithZero));
    assert!(Mistakes::NONE.is_empty() && Mistakes::NONE.keys().is_empty());
}

#[test]
fn no_mistake_is_correct_attention_bit_for_bit() {
    let p = default_view(2, false);
    for (h, head) in p.heads.iter().enumerate() {
        for tau in [0.01, 1.0, 100.0] {
            let w = broken_weights(&head.scores, Mistakes::NONE, (16, 32), tau, (1, h));
            assert_eq!(w, head.weights(tau));
        }
    }
}

#[test]
fn full_row_softmax_is_the_causal_one_with_the_future_at_minus_infinity() {
    let s = scores();
    let masked = DMatrix::from_fn(3, 3, |i, j| if j > i { NEG } else { s[(i, j)] });
    assert_eq!(softmax_full_rows(&masked), causal_softmax(&s, 1.0));
    // Hand: row [0, ln 2, ln 3] → [1, 2, 3] / 6.
    let full = softmax_full_rows(&s);
    assert!((full[(0, 2)] - 0.5).abs() < 1e-15 && (full[(0, 1)] - 1.0 / 3.0).abs() < 1e-15);
}

#[test]
fn correct_weights_by_hand() {
    // Row 1: [1]; row 2: [e^ln2, e^0] = [2, 1] / 3; row 3: [1, 3, 2] / 6.
    assert_matrix(
        &broken(&[]),
        &[
            1.0,
            0.0,
            0.0,
            2.0 / 3.0,
            1.0 / 3.0,
            0.0,
            1.0 / 6.0,
            0.5,
            1.0 / 3.0,
        ],
    );
}

#[test]
fn scale_by_d_model_divides_by_its_root() {
    // Head size 1, d_model 4: the logits are halved. Row 2: [2^½, 1] / (1 + √2).
    let w = broken(&[Mistake::ScaleByModelWidth]);
    let r2 = 2f64.sqrt();
    assert!((w[(1, 0)] - r2 / (1.0 + r2)).abs() < 1e-15);
    // Row 3: [1, √3, √2] / (1 + √3 + √2).
    let (r3, total) = (3f64.sqrt(), 1.0 + 3f64.sqrt() + r2);
    assert!((w[(2, 1)] - r3 / total).abs() < 1e-15 && (w[(2, 2)] - r2 / total).abs() < 1e-15);
}

#[test]
fn multiplying_by_root_d_scales_by_d_over_the_correct_factor() {
    // Head size 4 (d_model 4): correct multiplies by 1/2, the mistake by 2, i.e. 4× the
    // correct logits. Row 2 logits [2 ln 2, 0] → [4, 1] / 5.
    let set: Mistakes = [Mistake::MultiplyBySqrtD].into_iter().collect();
    let w = broken_weights(&scores(), set, (4, 4), 1.0, (7, 0));
    assert!((w[(1, 0)] - 0.8).abs() < 1e-15);
    // Row 3 logits [0, 2 ln 3, 2 ln 2] → [1, 9, 4] / 14.
    assert!((w[(2, 1)] - 9.0 / 14.0).abs() < 1e-15);
    // Both mistakes multiply by √d_model / τ.
    let both: Mistakes = [Mistake::MultiplyBySqrtD, Mistake::ScaleByModelWidth]
        .into_iter()
        .collect();
    assert_eq!(broken_scale(both, 1, 4, 0.5), 4.0);
    assert_eq!(broken_scale(Mistakes::NONE, 4, 32, 0.5), 1.0);
}

#[test]
fn masking_with_zero_lets_the_future_in_and_rows_still_sum_to_one() {
    // Row 1: [0, 0→0, 0→0] logits [0, 0, 0] → 1/3 each. Row 2: [ln 2, 0, 0] → [2, 1, 1] / 4.
    let w = broken(&[Mistake::MaskWithZero]);
    assert_matrix(
        &w,
        &[
            1.0 / 3.0,
            1.0 / 3.0,
            1.0 / 3.0,
            0.5,
            0.25,
            0.25,
            1.0 / 6.0,
            0.5,
            1.0 / 3.0,
        ],
    );
    let d = Damage::new(&broken(&[]), &w);
    assert_eq!(d.future_cells, vec![(0, 1), (0, 2), (1, 2)]);
    assert!(d.rows_off().next().is_none());
    assert!((d.future_weight - (2.0 / 3.0 + 0.25)).abs() < 1e-15);
}

#[test]
fn masking_after_the_softmax_leaves_rows_short() {
    // Full-row softmax: row 1 [1, 2, 3]/6, row 2 [2, 1, 3]/6, row 3 [1, 3, 2]/6; then the
    // future is zeroed without renormalising.
    let w = broken(&[Mistake::MaskAfterSoftmax]);
    assert_matrix(
        &w,
        &[
            1.0 / 6.0,
            0.0,
            0.0,
            1.0 / 3.0,
            1.0 / 6.0,
            0.0,
            1.0 / 6.0,
            0.5,
            1.0 / 3.0,
        ],
    );
    let d = Damage::new(&broken(&[]), &w);
    let off: Vec<usize> = d.rows_off().map(|(i, _)| i).collect();
    assert_eq!(off, vec![0, 1]);
    assert!((d.rows[0].deviation() + 5.0 / 6.0).abs() < 1e-15);
    assert!((d.rows[1].sum - 0.5).abs() < 1e-15);
    assert!(d.future_cells.is_empty());
    // Masking with 0 adds nothing once the mask comes after the softmax.
    assert_eq!(
        broken(&[Mistake::MaskAfterSoftmax, Mistake::MaskWithZero]),
        w
    );
}

#[test]
fn softmax_over_columns_makes_columns_sum_to_one() {
    // Column 1 sees rows 1–3: logits [0, ln 2, 0] → [1, 2, 1] / 4; column 2 rows 2–3:
    // [0, ln 3] → [1, 3] / 4; column 3 row 3 only: [1].
    let w = broken(&[Mistake::SoftmaxOverColumns]);
    assert_matrix(&w, &[0.25, 0.0, 0.0, 0.5, 0.25, 0.0, 0.25, 0.75, 1.0]);
    let d = Damage::new(&broken(&[]), &w);
    assert_eq!(d.columns_summing_to_one(), 3);
    assert!((d.rows[2].sum - 2.0).abs() < 1e-15 && (d.rows[0].sum - 0.25).abs() < 1e-15);
}

#[test]
fn the_wrong_triangle_sees_the_future_and_hides_the_past() {
    // Row 1 sees [0, ln 2, ln 3] → [1, 2, 3]/6; row 2 sees keys 2–3 [0, ln 3] → [1, 3]/4;
    // row 3 sees only itself.
    let w = broken(&[Mistake::WrongTriangle]);
    assert_matrix(
        &w,
        &[1.0 / 6.0, 1.0 / 3.0, 0.5, 0.0, 0.25, 0.75, 0.0, 0.0, 1.0],
    );
    let d = Damage::new(&broken(&[]), &w);
    assert_eq!(d.future_cells, vec![(0, 1), (0, 2), (1, 2)]);
    assert!((d.rows[2].broken_max - 1.0).abs() < 1e-15 && d.rows[2].broken_entropy == 0.0);
    // With 0 instead of −∞ the past comes back with logit 0: row 3 → [1, 1, 2] / 4.
    let zero = broken(&[Mistake::WrongTriangle, Mistake::MaskWithZero]);
    assert!((zero[(2, 2)] - 0.5).abs() < 1e-15 && (zero[(2, 0)] - 0.25).abs() < 1e-15);
}

#[test]
fn dropout_zeroes_seeded_cells_and_scales_the_rest() {
    let correct = broken(&[]);
    let w = broken(&[Mistake::Dropout]);
    // The same draws, made here by hand from the documented stream.
    let mut rng = SeededRng::stream(7, "dropout:1");
    for i in 0..3 {
        for j in 0..3 {
            let expected = if rng.next_open01() < DROPOUT_P {
                0.0
            } else {
                correct[(i, j)] / 0.9
            };
            assert!((w[(i, j)] - expected).abs() < 1e-15);
        }
    }
    // Over the default view, rows stop summing to 1 and about one weight in ten is dropped.
    let p = default_view(1, false);
    let t = p.len();
    let (mut dropped, mut visible) = (0u32, 0u32);
    let mut off = 0;
    for seed in 0..40 {
        let set: Mistakes = [Mistake::Dropout].into_iter().collect();
        let good = p.heads[0].weights(1.0);
        let bad = broken_weights(&p.heads[0].scores, set, (32, 32), 1.0, (seed, 0));
        for i in 0..t {
            for j in 0..=i {
                visible += 1;
                dropped += u32::from(bad[(i, j)] == 0.0);
            }
        }
        off += Damage::new(&good, &bad).rows_off().count();
    }
    let rate = f64::from(dropped) / f64::from(visible);
    assert!((0.06..0.14).contains(&rate), "{rate}");
    // Kept weights are divided by 0.9, so a row sums to 1 only if exactly a tenth was dropped.
    assert!(off > 270, "{off} of 280 rows");
}

#[test]
fn a_whole_view_breaks_head_by_head() {
    let p = default_view(4, false);
    let set: Mistakes = [Mistake::Dropout, Mistake::MaskWithZero]
        .into_iter()
        .collect();
    let all = broken_attention(&p, set, 0.5);
    for (h, att) in all.iter().enumerate() {
        let w = broken_weights(&p.heads[h].scores, set, (8, 32), 0.5, (1337, h));
        assert_eq!(att.weights, w);
        assert!((&att.output - &w * &p.heads[h].v).abs().max() < 1e-15);
    }
    assert_ne!(all[0].weights, all[1].weights);
    assert_eq!(broken_attention(&p, Mistakes::NONE, 0.5), p.attend_all(0.5));
}

#[test]
fn damage_by_hand() {
    // Correct row 3 is [1, 3, 2]/6; a made-up broken row [0.5, 0.5, 0.5] sums to 1.5.
    let good = broken(&[]);
    let mut bad = good.clone();
    bad.row_mut(2).fill(0.5);
    let d = Damage::new(&good, &bad);
    let r = d.rows[2];
    assert!((r.deviation() - 0.5).abs() < 1e-15 && !r.sums_to_one());
    assert_eq!(r.correct_max, 0.5);
    assert!(
        (r.broken_max - 1.0 / 3.0).abs() < 1e-15,
        "of the row divided by its sum"
    );
    assert!((r.broken_entropy - 3f64.log2()).abs() < 1e-15);
    let h = -(1.0 / 6.0 * (1.0f64 / 6.0).log2()
        + 0.5 * 0.5f64.log2()
        + 1.0 / 3.0 * (1.0f64 / 3.0).log2());
    assert!((r.correct_entropy - h).abs() < 1e-15);
    assert!((d.largest_change.0 - 1.0 / 3.0).abs() < 1e-15);
    assert_eq!((d.largest_change.1, d.largest_change.2), (2, 0));
    assert_eq!(d.future_cells, vec![]);
    assert!((d.column_sums[2] - (0.5)).abs() < 1e-15);
    assert_eq!(d.columns_summing_to_one(), 0);
    assert!(d.rows[0].sums_to_one());
}

#[test]
fn every_variant_stays_finite_on_the_default_view() {
    let p = default_view(8, true);
    for bits in 0..(1u8 << Mistake::ALL.len()) {
        let set: Mistakes = Mistake::ALL
            .into_iter()
            .filter(|m| bits & m.bit() != 0)
            .collect();
        for tau in [0.01, 1.0, 100.0] {
            let w = broken_weights(&p.heads[3].scores, set, (4, 32), tau, (1337, 3));
            assert!(
                w.iter().all(|x| x.is_finite() && *x >= 0.0),
                "{}",
                set.keys()
            );
        }
    }
}
