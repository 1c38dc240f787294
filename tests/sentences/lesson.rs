//! The lesson's sentences: its checks and shapes, step 2's mask fills, step 4's scaling lab and
//! row saturation, and step 6's shuffled past and presets.

use crate::views::*;
use attention_explorer::format::{fixed, grouped, percent, scientific};
use attention_explorer::model::attention::{averaging_error, averaging_matrix};
use attention_explorer::model::explorer::{ExplorerConfig, Prepared};
use attention_explorer::model::masked_average::{mask_fill_demo, zero_score_softmax};
use attention_explorer::model::multihead::HeadsRow;
use attention_explorer::model::positions::{order_demo, shuffle_the_past, PAST_SWAPPED, PRESETS};
use attention_explorer::model::scaling_lab::{lab_point, times_eight, SATURATED};
use attention_explorer::model::temperature::{logit_scale, unscaled_tau};
use attention_explorer::model::tokenizer::tokenize;
use attention_explorer::model::trace::{QkvRow, RowTrace};
use attention_explorer::model::weights::D_MODEL;
use attention_explorer::text;
use nalgebra::DMatrix;
use proptest::prelude::*;

proptest! {
    #![proptest_config(config(128))]

    /// `shuffle_check`: "bit-identical" only when every key kept its weight bit for bit, "kept its
    /// score q·k bit for bit" only when the scores did, otherwise the largest change; the shuffled
    /// row is recomputed here from the shuffled sentence. Without positions the scores never move.
    #[test]
    fn shuffle_check_states_the_comparison(case in case()) {
        let v = case.build();
        let (h, row) = (v.head, v.row);
        let cmp = shuffle_the_past(&v.p, h, v.tau, row, v.other_seed);
        // The order: a permutation of the past that leaves the row and the future in place.
        let mut sorted = cmp.order.clone();
        sorted.sort_unstable();
        prop_assert_eq!(sorted, (0..v.p.len()).collect::<Vec<_>>());
        prop_assert!((row..v.p.len()).all(|p| cmp.order[p] == p));
        // The row after the shuffle, recomputed from the shuffled tokens.
        let shuffled: Vec<String> = cmp.order.iter().map(|&i| v.tokens()[i].clone()).collect();
        let q = v.p.weights.prepare(ExplorerConfig { tokens: shuffled, ..v.p.config.clone() }).unwrap();
        let (wb, wa) = (v.p.heads[h].weights(v.tau), q.heads[h].weights(v.tau));
        let mut same_weights = true;
        let mut same_scores = true;
        let mut largest: f64 = 0.0;
        for p in 0..=row {
            let k = cmp.order[p];
            same_weights &= wb[(row, k)].to_bits() == wa[(row, p)].to_bits();
            same_scores &= v.p.heads[h].scores[(row, k)].to_bits() == q.heads[h].scores[(row, p)].to_bits();
            largest = largest.max((wb[(row, k)] - wa[(row, p)]).abs());
        }
        let said = text::shuffle_check(&cmp);
        prop_assert_clean!(&said);
        prop_assert_eq!(said.contains("bit-identical"), same_weights && same_scores, "{}", said);
        prop_assert_eq!(said.starts_with("✓ Every key kept its score"), same_scores, "{}", said);
        prop_assert_eq!(said.contains("every key kept its weight bit for bit"), same_weights && !same_scores, "{}", said);
        if !same_scores && !same_weights {
            prop_assert!(said.ends_with(&format!("{} percentage points.", fixed(largest * 100.0, 2))), "{}", said);
        } else if !same_weights {
            prop_assert!(said.contains(&format!("within {}", scientific(largest, 1))), "{}", said);
        }
        if !v.p.config.positions {
            prop_assert!(same_scores, "without positions a shuffle keeps every score: {}", said);
        }
    }

    /// `presets_note`: "all 3 words / k of the 3 words get a different output row" and "neither …
    /// change beyond rounding" / "its weight on the same word changes by up to x … and its output
    /// row by up to y", recomputed from the presets' weights and outputs; without positions the
    /// swapped past never changes the row.
    #[test]
    fn presets_note_states_the_live_comparison(case in case()) {
        let v = case.build();
        let config = ExplorerConfig { tokens: Vec::new(), ..v.p.config.clone() };
        let outputs = |s: &str| {
            let p = Prepared::new(ExplorerConfig { tokens: tokenize(s), ..config.clone() });
            p.heads.iter().map(|h| h.weights(v.tau) * &h.v).collect::<Vec<DMatrix<f64>>>()
        };
        let gap = |x: &[DMatrix<f64>], i: usize, y: &[DMatrix<f64>], j: usize| {
            x.iter().zip(y).map(|(m, n)| (m.row(i) - n.row(j)).abs().max()).fold(0.0, f64::max)
        };
        let (a, b) = (tokenize(PRESETS[0]), tokenize(PRESETS[1]));
        let (oa, ob) = (outputs(PRESETS[0]), outputs(PRESETS[1]));
        let differ = (0..a.len())
            .filter(|&i| gap(&oa, i, &ob, b.iter().position(|w| *w == a[i]).unwrap()) > ROUNDING)
            .count();
        let swap = gap(&oa, 2, &outputs(PAST_SWAPPED), 2);
        // "man"'s weight on each word in both orders, matched by the word, over every head.
        let weights = |s: &str| {
            let p = Prepared::new(ExplorerConfig { tokens: tokenize(s), ..config.clone() });
            p.heads.iter().map(|h| h.weights(v.tau)).collect::<Vec<DMatrix<f64>>>()
        };
        let swapped = tokenize(PAST_SWAPPED);
        let (wa, ws) = (weights(PRESETS[0]), weights(PAST_SWAPPED));
        let (mut weight_swap, mut swap_head) = (0.0f64, 0);
        for (h, (x, y)) in wa.iter().zip(&ws).enumerate() {
            for (j, word) in a.iter().enumerate() {
                let k = swapped.iter().position(|w| w == word).unwrap();
                let change = (x[(2, j)] - y[(2, k)]).abs();
                if change > weight_swap {
                    (weight_swap, swap_head) = (change, h);
                }
            }
        }
        let positions = v.p.config.positions;
        let said = text::presets_note(&order_demo(&config, v.tau), positions);
        prop_assert_clean!(&said);
        let expected = match differ {
            3 => "here all 3 words get a different output row".to_string(),
            0 => "here no word's output row differs beyond rounding at this τ".to_string(),
            n => format!("here {n} of the 3 words get a different output row"),
        };
        prop_assert!(said.contains(&expected), "expected {:?}: {}", expected, said);
        if swap.max(weight_swap) <= ROUNDING {
            prop_assert!(said.contains("neither its weights on the three words nor its output row change beyond rounding"), "{}", said);
        } else {
            prop_assert!(said.contains(&format!("its weight on the same word changes by up to {} percentage points (the largest change over the heads, in head {}) and its output row, the blend of values, by up to {}", fixed(weight_swap * 100.0, 2), swap_head + 1, fixed(swap, 3))), "{}", said);
        }
        if !positions {
            prop_assert!(swap.max(weight_swap) <= ROUNDING, "the order inside a past changed a row without positions: {} {}", swap, weight_swap);
        }
    }

    /// `mask_fill_note`: "the same weights, bit for bit, with an exact 0 for every future key" only
    /// when the −1e9 fill gives exactly that, else "e^(−1e9 − max) is not 0"; "1/T each" for a row
    /// with nothing visible, and NaN in every entry with −∞.
    #[test]
    fn mask_fill_note_follows_the_fills(case in case()) {
        let v = case.build();
        let (t, i) = (v.p.len(), v.row);
        let scale = logit_scale(v.d(), v.tau);
        let demo = mask_fill_demo(&v.p.heads[v.head].scores, i, scale);
        let said = text::mask_fill_note(&demo, &v.tokens()[i], i);
        prop_assert_clean!(&said);
        let same = demo.with_infinity.iter().zip(&demo.with_large).all(|(x, y)| x.to_bits() == y.to_bits());
        let future_zero = demo.with_large[i + 1..].iter().all(|&x| x == 0.0);
        prop_assert!(said.contains(&format!("For row {} {}", i + 1, quote(&v.tokens()[i]))), "{}", said);
        if said.contains("the same weights, bit for bit, with an exact 0 for every future key") {
            prop_assert!(same && future_zero, "{}", said);
        } else {
            prop_assert!(!future_zero, "{}", said);
        }
        prop_assert!(said.contains(&format!("an even split, 1/{t} each")), "{}", said);
        prop_assert!(demo.all_masked_large.iter().all(|&x| (x - 1.0 / t as f64).abs() < ROUNDING));
        prop_assert!(demo.all_masked_infinity.iter().all(|x| x.is_nan()));
    }

    /// `row_saturation_text`: "puts x on its top key at τ = 1 and y unscaled", and "saturated (over
    /// 99 %)" only when it is; row 1 "its weight is 1 at any τ".
    #[test]
    fn row_saturation_is_the_rows(case in case()) {
        let v = case.build();
        let (i, h) = (v.row, v.head);
        let head = &v.p.heads[h];
        let scaled = max_of(&visible(&head.weights(1.0), i));
        let unscaled = max_of(&visible(&head.weights(unscaled_tau(v.d())), i));
        let said = text::row_saturation_text(&v.tokens()[i], i, h, scaled, unscaled);
        prop_assert_clean!(&said);
        if i == 0 {
            prop_assert_eq!(head.weights(v.tau)[(0, 0)], 1.0);
            prop_assert!(said.contains("its weight is 1 at any τ"), "{}", said);
        } else {
            prop_assert!(said.contains(&format!("puts {} on its top key at τ = 1 and {} unscaled", percent(scaled), percent(unscaled))), "{}", said);
            prop_assert_eq!(said.contains("saturated"), unscaled > SATURATED, "{}", said);
            prop_assert!(unscaled >= scaled - ROUNDING, "unscaled is never flatter");
        }
    }

    /// The lesson's checks (`heads_check`, `heads_sum_check`, `trace_check`, `zero_scores_check`,
    /// `averaging_check`, `heads_split`, `heads_shapes`): ✓ only when the two computations agree,
    /// the printed difference is the one measured, and the shapes are the model's.
    #[test]
    fn lesson_checks_and_shapes_are_the_models(case in case()) {
        let v = case.build();
        let (t, heads, d) = (v.p.len(), v.p.heads.len(), v.d());
        let weights = v.p.weights_all(v.tau);
        let refs: Vec<&DMatrix<f64>> = weights.iter().collect();
        let row = HeadsRow::new(&v.p, &refs, v.row);
        for (said, diff) in [(text::heads_check(&row), row.diff), (text::heads_sum_check(&row), row.sum_diff)] {
            prop_assert_clean!(&said);
            prop_assert_eq!(said.starts_with('✓'), diff < ROUNDING, "{}", said);
            prop_assert!(said.contains(&scientific(diff, 1)), "{}", said);
            prop_assert!(said.starts_with('✓'), "the layer output disagrees with itself: {}", said);
        }
        let trace = RowTrace::new(&v.p.heads[v.head], &weights[v.head], v.row, v.tau);
        let said = text::trace_check(&trace);
        prop_assert_clean!(&said);
        let blend: Vec<f64> = (0..trace.out_row.len()).map(|c| (0..=v.row).map(|j| weights[v.head][(v.row, j)] * v.p.heads[v.head].v[(j, c)]).sum()).collect();
        let diff = blend.iter().zip(&trace.out_row).map(|(a, b)| (a - b).abs()).fold(0.0, f64::max);
        prop_assert_eq!(said.starts_with('✓'), trace.diff < ROUNDING, "{}", said);
        prop_assert!(diff < 1e-9, "the trace's blend {}", diff);
        let wei = averaging_matrix(t);
        let said = text::averaging_row(v.tokens(), v.row);
        prop_assert!(said.contains(&format!("takes {} from each of its {} visible tokens", percent(wei[(v.row, 0)]), v.row + 1)), "{}", said);
        prop_assert!((0..=v.row).all(|j| wei[(v.row, j)] == wei[(v.row, 0)]));
        let gap = (&weights[v.head] - &wei).abs().max();
        prop_assert_clean!(text::live_gap(v.tau, v.head, gap));
        let zeros = zero_score_softmax(t);
        let identical = zeros.iter().zip(wei.iter()).all(|(a, b)| a.to_bits() == b.to_bits());
        let gap = (&zeros - &wei).abs().max();
        let said = text::zero_scores_check(gap, identical);
        prop_assert_eq!(said.contains("bit for bit"), identical, "{}", said);
        prop_assert!(said.starts_with('✓'), "{}", said);
        let split = text::heads_split(heads, d, D_MODEL);
        prop_assert_eq!(heads * d, D_MODEL);
        prop_assert!(v.p.heads.iter().all(|h| h.q.ncols() == d && h.k.ncols() == d && h.v.ncols() == d));
        if heads > 1 {
            prop_assert!(split.contains(&format!("cut into {heads} slices of {d} columns")), "{}", split);
            // "as many multiplications as one head of d_model": projections 3·T·d_model·d per head,
            // scores and A·V T·T·d each.
            prop_assert_eq!(heads * (3 * t * D_MODEL * d + 2 * t * t * d), 3 * t * D_MODEL * D_MODEL + 2 * t * t * D_MODEL);
        }
        let qkv = QkvRow::new(&v.p, v.head, v.row);
        let said = text::qkv_check(&qkv);
        prop_assert_clean!(&said);
        prop_assert_eq!(said.starts_with('✓'), qkv.diff < ROUNDING, "{}", said);
        prop_assert!(said.contains(&format!("each of the head's {d} columns")), "{}", said);
        let said = text::averaging_check(averaging_error(&wei, &v.p.x));
        prop_assert!(said.starts_with('✓'), "{}", said);
        // The glossary's sizes and its softmax example, recomputed.
        let glossary = text::glossary(t, D_MODEL, heads, v.trained());
        let def = |s: &str| glossary.iter().find(|(k, _)| *k == s).map(|(_, v)| v.clone()).unwrap_or_default();
        prop_assert!(def("T").contains(&format!("(here {t})")), "{}", def("T"));
        prop_assert!(def("h").contains(&format!("(here {heads})")), "{}", def("h"));
        prop_assert!(def("d").contains(&format!("(here {D_MODEL} ÷ {heads} = {d})")), "{}", def("d"));
        let e: Vec<f64> = [2f64, 1.0, 0.0].iter().map(|s| s.exp()).collect();
        let total: f64 = e.iter().sum();
        let example: Vec<String> = e.iter().map(|x| fixed(x / total, 3)).collect();
        prop_assert!(def("softmax").contains(&format!("scores 2, 1, 0 give weights {}", example.join(", "))), "{}", def("softmax"));
        // What is trained and what is not.
        let note = text::weights_note(&v.p.weights, v.p.config.seed, false);
        prop_assert_clean!(&note);
        match v.p.weights.checkpoint() {
            None => prop_assert!(note.contains(&format!("random (seed {})", v.p.config.seed)), "{}", note),
            Some(c) => {
                let cfg = c.model.config();
                prop_assert!(note.contains(&format!("a {}-layer, {}-head attention model", cfg.layers, cfg.heads)), "{}", note);
                prop_assert!(note.contains(&format!("for {} steps (seed {})", grouped(u64::from(c.steps)), c.seed)), "{}", note);
                prop_assert_eq!(cfg.heads, heads);
            }
        }
        let shapes = text::heads_shapes(t, heads, d, D_MODEL, v.trained());
        prop_assert!(shapes.contains(&format!("T × d = {t} × {d}")), "{}", shapes);
        let out = v.p.layer_output(&refs);
        prop_assert_eq!(out.output.shape(), (t, D_MODEL));
    }
}

proptest! {
    #![proptest_config(config(12))]

    /// Step 4 (`notebook_draws`, `gradient_readout`, `times_eight_text`) over lab seeds: how many of
    /// the notebook's pairs lie in the bands, the range of the scaled mean, and the branch that says
    /// unscaled "looks better: its gradient is larger" only when its mean is larger; ×8 "raises"
    /// the largest weight and says "nearly one-hot" only above 95 %.
    #[test]
    fn scaling_sentences_follow_the_lab(seed in any::<u64>(), draws in 40usize..120) {
        let points: Vec<_> = [1, 4, 16, 64, 256].iter().map(|&d| lab_point(d, draws, seed)).collect();
        let said = text::notebook_draws(&points);
        prop_assert_clean!(&said);
        let inside = attention_explorer::model::scaling_lab::NOTEBOOK_DRAWS.iter().filter(|&&(d, u, s)| {
            let p = points.iter().find(|p| p.head_size == d).unwrap();
            (p.unscaled.p10..=p.unscaled.p90).contains(&u) && (p.scaled.p10..=p.scaled.p90).contains(&s)
        }).count();
        prop_assert!(said.contains(&format!("{inside} of these 2 pairs lie inside")), "{}", said);
        let lo = points.iter().map(|p| p.scaled.mean).fold(f64::INFINITY, f64::min);
        let hi = points.iter().map(|p| p.scaled.mean).fold(f64::NEG_INFINITY, f64::max);
        prop_assert!(said.contains(&format!("between {} and {} at every head size from 1 to 256", fixed(lo, 3), fixed(hi, 3))), "{}", said);
        for p in &points {
            let g = text::gradient_readout(p, &points);
            prop_assert_clean!(&g);
            if g.contains("its gradient is larger") {
                prop_assert!(p.gradient_unscaled.mean > p.gradient_scaled.mean, "d {}: {}", p.head_size, g);
            }
            if g.contains("yet the median is") {
                prop_assert!(p.gradient_unscaled.median < p.gradient_scaled.median, "{}", g);
            }
            if g.contains("so scaling changes nothing") {
                prop_assert_eq!(p.head_size, 1);
                prop_assert_eq!(p.gradient_unscaled, p.gradient_scaled);
                prop_assert_eq!(p.unscaled, p.scaled);
            }
            // "Dividing every score by √d divides the variance by d."
            let said = text::variance_readout(p);
            prop_assert_clean!(&said);
            let d = p.head_size as f64;
            prop_assert!((p.variance_scaled * d - p.variance_unscaled).abs() <= 1e-9 * p.variance_unscaled.max(1.0), "{}", said);
            prop_assert_clean!(text::lab_readout(p));
        }
        let x = times_eight(seed);
        let said = text::times_eight_text(&x);
        prop_assert_clean!(&said);
        let (before, after) = (max_of(&x.weights), max_of(&x.weights_times_eight));
        prop_assert!(after >= before, "×8 lowered the largest weight: {}", said);
        prop_assert_eq!(said.contains("nearly one-hot"), after > 0.95, "{}", said);
    }
}

/// Step 6's note on other positions: a rotary score depends on the two tokens' contents and their
/// offset, not their absolute positions, and each pair of dimensions turns at its own frequency.
#[test]
fn rotary_positions_are_stated_truly() {
    let note = text::OTHER_POSITIONS;
    assert!(
        !note.contains("depends on how far apart two tokens are"),
        "{note}"
    );
    assert!(note.contains("each pair at its own frequency"), "{note}");
    assert!(note.contains("a score depends on the two tokens' contents (their query and key vectors) and on their offset, not on their absolute positions"), "{note}");
}
