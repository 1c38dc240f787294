//! "Break it": the damage a set of mistakes does, recounted, and each mistake's explanation
//! checked on the live head.

use crate::views::*;
use attention_explorer::format::{fixed, percent};
use attention_explorer::model::broken::{
    broken_scale, broken_weights, broken_weights_all, Damage, Mistake, Mistakes,
};
use attention_explorer::model::temperature::logit_scale;
use attention_explorer::text;
use nalgebra::DMatrix;
use proptest::prelude::*;

proptest! {
    #![proptest_config(config(128))]

    /// `damage_sentences`, `broken_heatmap_label`, `cheating_sentence`, `broken_row_summary` and
    /// `broken_cell_description`: the largest change and its cell ("exactly" only at 0), how many
    /// rows no longer sum to 1 and the furthest off, how many cells see the future and their
    /// weight, "peakier"/"flatter" by mean entropy, how many columns sum to 1, the row that gives
    /// the next token most — all recounted from the correct and broken weights of every head.
    #[test]
    fn damage_sentences_recount_the_damage(case in case()) {
        let v = case.build();
        let (t, heads, mistakes) = (v.p.len(), v.p.heads.len(), v.mistakes);
        let tokens = v.tokens();
        for (h, broken) in broken_weights_all(&v.p, mistakes, v.tau).iter().enumerate() {
            let correct = v.p.heads[h].weights(v.tau);
            let said = text::damage_sentences(&Damage::new(&correct, broken), mistakes, heads);
            for s in &said {
                prop_assert_clean!(s);
            }
            // 1. The largest change.
            let mut change = (0.0f64, 0, 0);
            for i in 0..t {
                for j in 0..t {
                    let c = (broken[(i, j)] - correct[(i, j)]).abs();
                    if c > change.0 {
                        change = (c, i, j);
                    }
                }
            }
            if change.0 == 0.0 {
                prop_assert!(said[0].starts_with("No weight changed: every weight is exactly correct attention's."), "{}", said[0]);
            } else if change.0 < ROUNDING {
                prop_assert!(said[0].starts_with("No weight changed beyond rounding"), "{}", said[0]);
                prop_assert!(!said[0].contains("exactly"), "{}", said[0]);
            } else {
                let (r, k) = (number_after(&said[0], "(row ") as usize - 1, number_after(&said[0], ", key ") as usize - 1);
                prop_assert_eq!((broken[(r, k)] - correct[(r, k)]).abs(), change.0, "{}", said[0]);
                prop_assert!(said[0].starts_with(&format!("The largest change of any weight is {} ", fixed(change.0, 3))), "{}", said[0]);
            }
            if heads == 1 && mistakes == Mistakes::NONE.with(Mistake::ScaleByModelWidth, true) {
                prop_assert_eq!(change.0, 0.0, "with one head √d_model is √d");
            }
            // 2. Row sums.
            let sums: Vec<f64> = (0..t).map(|i| full(broken, i).iter().sum()).collect();
            let off: Vec<usize> = (0..t).filter(|&i| (sums[i] - 1.0).abs() > ROUNDING).collect();
            if off.is_empty() {
                prop_assert_eq!(&said[1], "Every row still sums to 1.");
            } else {
                prop_assert!(said[1].starts_with(&format!("{} of {t} no longer sum to 1; the furthest off is row ", plural(off.len(), "row", "rows"))), "{}", said[1]);
                let r = number_after(&said[1], "the furthest off is row ") as usize - 1;
                let furthest = off.iter().map(|&i| (sums[i] - 1.0).abs()).fold(0.0, f64::max);
                prop_assert_eq!((sums[r] - 1.0).abs(), furthest, "{}", said[1]);
                prop_assert!(said[1].contains(&format!("which sums to {} (", fixed(sums[r], 3))), "{}", said[1]);
            }
            // 3. The future.
            let future: Vec<(usize, usize)> = (0..t).flat_map(|i| (i + 1..t).map(move |j| (i, j))).filter(|&(i, j)| broken[(i, j)] > 0.0).collect();
            let future_weight: f64 = future.iter().map(|&(i, j)| broken[(i, j)]).sum();
            if future.is_empty() {
                prop_assert_eq!(&said[2], "No cell sees the future: every weight above the diagonal is 0.");
            } else {
                let verb = if future.len() == 1 { "sees" } else { "see" };
                prop_assert!(said[2].starts_with(&format!("{} above the diagonal {verb} the future, with {} of weight in all", plural(future.len(), "cell", "cells"), fixed(future_weight, 3))), "{}", said[2]);
            }
            let label = text::broken_heatmap_label("Head", t, future.len());
            prop_assert!(label.contains(&format!("{} above the diagonal", plural(future.len(), "cell", "cells"))), "{}", label);
            // 4. Peakier or flatter, by both measures of each row divided by its sum, averaged
            // over all t rows; where the two disagree, the sentence gives both.
            let mean = |f: &dyn Fn(usize) -> f64| (0..t).map(f).sum::<f64>() / t as f64;
            let shape_of = |w: &DMatrix<f64>, i: usize| {
                let row = full(w, i);
                let s: f64 = row.iter().sum();
                if s > 0.0 { row.iter().map(|x| x / s).collect::<Vec<_>>() } else { row }
            };
            let be = mean(&|i| entropy(&shape_of(broken, i)));
            let ce = mean(&|i| entropy(&full(&correct, i)));
            let bm = mean(&|i| max_of(&shape_of(broken, i)));
            let cm = mean(&|i| max_of(&full(&correct, i)));
            let words = |k: i8| match k {
                1 => "the rows are peakier",
                -1 => "the rows are flatter",
                _ => "the rows are as peaked as correct ones",
            };
            // Means that print alike are the same to the reader; otherwise the sign decides.
            let by_entropy: i8 = if fixed(be, 3) == fixed(ce, 3) { 0 } else if be < ce { 1 } else { -1 };
            let by_max: i8 = if percent(bm) == percent(cm) { 0 } else if bm > cm { 1 } else { -1 };
            if by_entropy == by_max {
                prop_assert!(said[3].ends_with(&format!(": {}.", words(by_max))), "{}", said[3]);
            } else {
                prop_assert!(said[3].contains(&format!("by entropy, {}; by the largest weight, {}: the two measures of spread do not agree here.", words(by_entropy), words(by_max))), "{}", said[3]);
            }
            prop_assert!(said[3].contains(&format!("all {t} rows, row 1 included, the largest weight is {} (correct: {}) and the entropy {} bits (correct: {} bits)", percent(bm), percent(cm), fixed(be, 3), fixed(ce, 3))), "{}", said[3]);
            prop_assert_eq!(said[3].starts_with("Each row divided by its sum first"), !off.is_empty(), "{}", said[3]);
            prop_assert!(bm <= 1.0 + 1e-12, "{}", said[3]);
            // 5. Columns.
            if mistakes.contains(Mistake::SoftmaxOverColumns) {
                let ones = (0..t).filter(|&j| (broken.column(j).sum() - 1.0).abs() <= ROUNDING).count();
                prop_assert!(said[4].starts_with(&format!("{ones} of {t} columns sum to 1")), "{}", said[4]);
            } else {
                prop_assert_eq!(said.len(), 4);
            }
            // The row that gives the next token most.
            let next = (0..t.saturating_sub(1)).map(|i| (i, broken[(i, i + 1)])).filter(|&(_, w)| w > ROUNDING)
                .fold(None, |best: Option<(usize, f64)>, (i, w)| match best { Some((_, b)) if b >= w => best, _ => Some((i, w)) });
            match (text::cheating_sentence(tokens, broken), next) {
                (None, None) => {}
                (Some(s), Some((i, w))) => {
                    prop_assert_clean!(&s);
                    let r = number_after(&s, "Look first at row ") as usize - 1;
                    prop_assert_eq!(broken[(r, r + 1)], w, "{}", s);
                    prop_assert!(s.contains(&format!("it now gives {} of its weight to {}", percent(w), quote(&tokens[r + 1]))), "{}", s);
                    prop_assert!(i <= r || broken[(r, r + 1)] == w);
                }
                (s, n) => prop_assert!(false, "cheating sentence {:?} for {:?}", s, n),
            }
            if mistakes.is_empty() {
                prop_assert!(future.is_empty());
            }
            // The selected row and its cells.
            let i = v.row;
            let row = full(broken, i);
            let summary = text::broken_row_summary(tokens, broken, i);
            prop_assert_clean!(&summary);
            let top = tied_top(&row);
            let each = if top.len() > 1 { " each" } else { "" };
            prop_assert!(summary.ends_with(&format!("attends most to {} ({}{each}); its weights sum to {}.", names(tokens, &top, row.len()), percent(row[top[0]]), fixed(sums[i], 3))), "{}", summary);
            for j in 0..t {
                let cell = text::broken_cell_description(tokens, broken, i, j);
                prop_assert_eq!(cell.ends_with(" (sees the future!)"), j > i && broken[(i, j)] > 0.0, "{}", cell);
            }
        }
    }

    /// `mistake_why`: each mistake's general claim holds for the live head with that mistake alone —
    /// √d_model makes every row at least as flat (the same with one head), ×√d makes the scores d
    /// times correct attention's and every row at least as peaked, masking after the softmax leaves
    /// every row that gave the future weight summing to less than 1, the column softmax makes every
    /// column sum to 1, triu hides every past key, masking with 0 leaves the future a share, dropout
    /// zeroes a weight or divides it by 0.9.
    #[test]
    fn mistake_explanations_hold_for_the_live_head(case in case()) {
        let v = case.build();
        let (t, d, tau, h) = (v.p.len(), v.d(), v.tau, v.head);
        let scores = &v.p.heads[h].scores;
        let correct = v.p.heads[h].weights(tau);
        let made = |m: Mistake| broken_weights(scores, Mistakes::NONE.with(m, true), (d, v.p.d_model), tau, (v.p.config.seed, h));
        for m in Mistake::ALL {
            prop_assert_clean!(text::mistake_why(m));
            let w = made(m);
            match m {
                Mistake::ScaleByModelWidth => {
                    if v.p.heads.len() == 1 {
                        prop_assert_eq!(&w, &correct);
                    }
                    for i in 0..t {
                        prop_assert!(max_of(&visible(&w, i)) <= max_of(&visible(&correct, i)) + ROUNDING);
                        prop_assert!(entropy(&visible(&w, i)) >= entropy(&visible(&correct, i)) - 1e-9);
                    }
                }
                Mistake::MultiplyBySqrtD => {
                    let ratio = broken_scale(Mistakes::NONE.with(m, true), d, v.p.d_model, tau) / logit_scale(d, tau);
                    prop_assert!((ratio / d as f64 - 1.0).abs() < 1e-12, "ratio {}", ratio);
                    for i in 0..t {
                        prop_assert!(max_of(&visible(&w, i)) >= max_of(&visible(&correct, i)) - ROUNDING);
                        prop_assert!(entropy(&visible(&w, i)) <= entropy(&visible(&correct, i)) + 1e-9);
                    }
                }
                Mistake::MaskAfterSoftmax => {
                    // The share the future got before it was zeroed: the full row's softmax.
                    for i in 0..t {
                        let sum: f64 = full(&w, i).iter().sum();
                        let logits: Vec<f64> = (0..t).map(|j| scores[(i, j)] * logit_scale(d, tau)).collect();
                        let top = max_of(&logits);
                        let e: Vec<f64> = logits.iter().map(|l| (l - top).exp()).collect();
                        let future_share = e[i + 1..].iter().sum::<f64>() / e.iter().sum::<f64>();
                        if future_share > ROUNDING {
                            prop_assert!(sum < 1.0, "row {} gave the future {} and sums to {}", i, future_share, sum);
                        }
                    }
                }
                Mistake::SoftmaxOverColumns => {
                    // "the columns sum to 1 and the rows … need not": with two tokens or more
                    // the rows sum to 1 only when one query takes (to rounding) all of each column.
                    for j in 0..t {
                        prop_assert!((w.column(j).sum() - 1.0).abs() <= ROUNDING, "column {}", j);
                    }
                    if t >= 2 {
                        let off = (0..t).filter(|&i| (full(&w, i).iter().sum::<f64>() - 1.0).abs() > ROUNDING).count();
                        prop_assert!(off > 0 || text::mistake_why(m).contains("the rows, each query's share of attention, need not"), "every row still sums to 1 at τ {}", tau);
                    }
                }
                Mistake::WrongTriangle => {
                    for i in 0..t {
                        prop_assert!((0..i).all(|j| w[(i, j)] == 0.0), "row {} sees its past", i);
                        prop_assert!(w[(i, i)] > 0.0 || (i + 1..t).any(|j| w[(i, j)] > 0.0));
                    }
                }
                Mistake::MaskWithZero => {
                    // "the future keeps a share … unless … the share rounds to 0": a row whose
                    // future gets exactly 0 has a visible score so far above 0 that e^(0 − max)
                    // underflows.
                    for i in 0..t.saturating_sub(1) {
                        let share: f64 = (i + 1..t).map(|j| w[(i, j)]).sum();
                        let top = (0..=i).map(|j| scores[(i, j)] * logit_scale(d, tau)).fold(f64::NEG_INFINITY, f64::max);
                        prop_assert!(share > 0.0 || (top > 700.0 && text::mistake_why(m).contains("rounds to 0")), "row {}: the future keeps no share at τ {} (top score {})", i, tau, top);
                    }
                }
                Mistake::Dropout => {
                    for i in 0..t {
                        for j in 0..t {
                            let x = w[(i, j)];
                            prop_assert!(x == 0.0 || x == correct[(i, j)] / 0.9, "({}, {}): {}", i, j, x);
                        }
                    }
                }
            }
        }
    }
}
