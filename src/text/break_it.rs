//! "Break it": each mistake's label, why it is wrong and its code, the banner, and the damage
//! sentences built from `model::broken`.

use super::{count, quote, top_keys_text};
use crate::format::{fixed, percent, scientific};
use crate::model::broken::{sees_future, Damage, Mistake, Mistakes};
use crate::model::claims::PairWeights;
use crate::model::stats::ROUNDING_TOLERANCE;
use nalgebra::DMatrix;

/// A mistake's checkbox label.
pub fn mistake_label(m: Mistake) -> &'static str {
    match m {
        Mistake::ScaleByModelWidth => "Scale by √d_model instead of √d (the head size)",
        Mistake::MultiplyBySqrtD => "Multiply by √d instead of dividing",
        Mistake::MaskWithZero => "Mask with 0 instead of −∞",
        Mistake::MaskAfterSoftmax => "Mask after the softmax, without renormalising",
        Mistake::SoftmaxOverColumns => "Softmax over the query axis (down each column) instead of the key axis (along each row)",
        Mistake::WrongTriangle => "The wrong triangle: triu instead of tril",
        Mistake::Dropout => "Dropout on the weights (p = 0.1) at inference",
    }
}

/// Why a mistake is wrong, in one sentence.
pub fn mistake_why(m: Mistake) -> &'static str {
    match m {
        Mistake::ScaleByModelWidth => "A head's q·k adds up d products, so its spread grows like √d, not √d_model; with more than one head √d_model is larger, so the scores shrink and every row is at least as flat as correct attention's (with one head the two are the same).",
        Mistake::MultiplyBySqrtD => "Multiplying makes the scores d times those of correct attention, as if τ were divided by d, so every row is at least as peaked as correct attention's.",
        Mistake::MaskWithZero => "A score of 0 is an ordinary score, not a barrier: e⁰ = 1, so the future keeps a share of the weight (unless the visible scores are so much larger that the share rounds to 0, as at a very low τ); only −∞ gives e^(−∞) = 0, at any τ.",
        Mistake::MaskAfterSoftmax => "The softmax has already handed weight to the future; zeroing it afterwards throws that share away, so every row that gave the future any weight sums to less than 1.",
        Mistake::SoftmaxOverColumns => "For scores of shape (batch, T queries, T keys), dim=-2 is the query axis: the softmax then normalises each key's column over the queries, so the columns sum to 1 and the rows, each query's share of attention, need not. (dim=0 would be the batch axis, a different mistake).",
        Mistake::WrongTriangle => "triu keeps the upper triangle, so each token attends to itself and the tokens after it while its past is hidden: it reads the very tokens it should predict.",
        Mistake::Dropout => "Dropout zeroes each weight with probability 0.1 and divides the rest by 0.9, as in training, so rows sum to 1 only on average; at inference (when the trained model is used) it must be off.",
    }
}

/// A mistake's line of code and the correct one, in `PyTorch` style.
pub fn mistake_code(m: Mistake) -> (&'static str, &'static str) {
    match m {
        Mistake::ScaleByModelWidth => ("scores / sqrt(d_model)", "scores / sqrt(head_size)"),
        Mistake::MultiplyBySqrtD => ("scores * sqrt(head_size)", "scores / sqrt(head_size)"),
        Mistake::MaskWithZero => (
            "scores.masked_fill(tril == 0, 0)",
            "scores.masked_fill(tril == 0, -inf)",
        ),
        Mistake::MaskAfterSoftmax => (
            "softmax(scores).masked_fill(tril == 0, 0)",
            "softmax(scores.masked_fill(tril == 0, -inf))",
        ),
        Mistake::SoftmaxOverColumns => ("softmax(scores, dim=-2)", "softmax(scores, dim=-1)"),
        Mistake::WrongTriangle => (
            "tril = torch.triu(ones(T, T))",
            "tril = torch.tril(ones(T, T))",
        ),
        Mistake::Dropout => (
            "dropout(softmax(scores), p=0.1)  # still in training mode",
            "softmax(scores)  # model.eval(): no dropout",
        ),
    }
}

/// What the code lines assume, for a reader who has not used `PyTorch`.
pub const CODE_NOTE: &str = "The code lines are written as in PyTorch. There, scores has the shape (batch, T, T): batch counts the sentences processed together (here just one), then one row per query and one column per key. scores.masked_fill(tril == 0, v) writes v wherever the lower-triangular matrix tril holds a 0, which is the future. dim=-1 means the last axis, along each row over its keys; dim=-2 means down each column over its queries. Dropout is a training trick: it zeroes each weight at random (here with probability 0.1) and divides the others by 0.9, so that on average nothing changes; it keeps a model from leaning on any single weight. model.eval() switches a model from training to use, which turns dropout off.";

/// The eighth mistake, which no switch can show: reading a weight as importance.
pub const IMPORTANCE_NOTE: &str = "One more mistake has no switch, because it is in the reading, not the code: a large weight says how much of that key's value vector this head mixes in, not how much the token matters. Value vectors differ in size, other heads and layers mix again, and quite different weights can give similar outputs.";

/// The banner over the heatmap while any mistake is on.
pub fn broken_banner(mistakes: Mistakes) -> String {
    let names: Vec<&str> = mistakes.iter().map(mistake_label).collect();
    format!(
        "BROKEN: this is not correct attention — {}. The heatmap, its thumbnails, the inspector and the downloads show the broken weights; hatched cells see the future. The lesson and the temperature readout still describe correct attention.",
        names.join("; ")
    )
}

/// A deviation from 1 with its sign, in enough digits to see it.
fn signed(x: f64) -> String {
    let digits = if x.abs() >= 5e-4 {
        fixed(x.abs(), 3)
    } else {
        scientific(x.abs(), 1)
    };
    format!("{}{digits}", if x < 0.0 { "−" } else { "+" })
}

/// The consequences of `mistakes` for one head, as sentences, each true for `damage`. `heads` is
/// the number of heads (with one, √`d_model` is √d).
pub fn damage_sentences(damage: &Damage, mistakes: Mistakes, heads: usize) -> Vec<String> {
    let t = damage.rows.len();
    let mut out = Vec::new();
    let (change, ci, cj) = damage.largest_change;
    if change < ROUNDING_TOLERANCE {
        let why = if heads == 1 && mistakes.contains(Mistake::ScaleByModelWidth) {
            " With one head d = d_model, so √d_model is √d: try 2 or more heads."
        } else {
            ""
        };
        out.push(if change == 0.0 {
            format!("No weight changed: every weight is exactly correct attention's.{why}")
        } else {
            format!(
                "No weight changed beyond rounding: the largest difference from correct attention is {}.{why}",
                scientific(change, 1)
            )
        });
    } else {
        out.push(format!(
            "The largest change of any weight is {} (row {}, key {}).",
            fixed(change, 3),
            ci + 1,
            cj + 1
        ));
    }
    let off: Vec<(usize, f64)> = damage.rows_off().map(|(i, r)| (i, r.deviation())).collect();
    match off.iter().max_by(|a, b| a.1.abs().total_cmp(&b.1.abs())) {
        None => out.push("Every row still sums to 1.".to_string()),
        Some(&(i, dev)) => out.push(format!(
            "{} of {t} no longer sum to 1; the furthest off is row {}, which sums to {} ({}).",
            count(off.len(), "row", "rows"),
            i + 1,
            fixed(damage.rows[i].sum, 3),
            signed(dev)
        )),
    }
    let future = damage.future_cells.len();
    out.push(if future == 0 {
        "No cell sees the future: every weight above the diagonal is 0.".to_string()
    } else {
        format!(
            "{} above the diagonal {} the future, with {} of weight in all; the heatmap hatches {}.",
            count(future, "cell", "cells"),
            if future == 1 { "sees" } else { "see" },
            fixed(damage.future_weight, 3),
            if future == 1 { "it" } else { "them" }
        )
    });
    out.push(spread_sentence(damage, !off.is_empty()));
    if mistakes.contains(Mistake::SoftmaxOverColumns) {
        out.push(format!(
            "{} of {t} columns sum to 1, each key's weights over the queries; the table lists the column sums.",
            damage.columns_summing_to_one()
        ));
    }
    out
}

/// How one measure of spread moved, broken against correct (beyond rounding).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum SpreadChange {
    Peakier,
    Flatter,
    Same,
}

impl SpreadChange {
    /// From the two means of a measure that grows as rows get peakier.
    fn of(broken: f64, correct: f64) -> Self {
        if broken > correct + 1e-9 {
            SpreadChange::Peakier
        } else if broken < correct - 1e-9 {
            SpreadChange::Flatter
        } else {
            SpreadChange::Same
        }
    }

    fn words(self) -> &'static str {
        match self {
            SpreadChange::Peakier => "the rows are peakier",
            SpreadChange::Flatter => "the rows are flatter",
            SpreadChange::Same => "the rows are as peaked as correct ones",
        }
    }
}

/// The damage list's sentence on spread: both measures averaged over every row (row 1 included),
/// of each row divided by its sum when some rows no longer sum to 1 (`rescaled`), and what each
/// says; where the two measures disagree, the sentence says so and gives both.
pub fn spread_sentence(damage: &Damage, rescaled: bool) -> String {
    let (bm, cm) = (
        damage.mean(|r| r.broken_max),
        damage.mean(|r| r.correct_max),
    );
    let (be, ce) = (
        damage.mean(|r| r.broken_entropy),
        damage.mean(|r| r.correct_entropy),
    );
    // A larger largest weight is peakier; a larger entropy is flatter.
    let (by_max, by_entropy) = (SpreadChange::of(bm, cm), SpreadChange::of(ce, be));
    let verdict = if by_max == by_entropy {
        by_max.words().to_string()
    } else {
        format!(
            "by entropy, {}; by the largest weight, {}: the two measures of spread do not agree here",
            by_entropy.words(),
            by_max.words()
        )
    };
    let t = damage.rows.len();
    let rows = if rescaled {
        format!("Each row divided by its sum first (so that only its shape counts) and averaged over all {t} rows")
    } else {
        format!("Averaged over all {t} rows")
    };
    format!(
        "{rows}, the largest weight is {} (correct: {}) and the entropy {} bits (correct: {} bits): {verdict}.",
        percent(bm),
        percent(cm),
        fixed(be, 3),
        fixed(ce, 3)
    )
}

/// What the positions help adds while "Break it" mistakes are on and positions are off: whether
/// the broken heatmap still gives the repeated word's two copies the same weight in every row
/// that sees both (`model::claims::PairWeights`).
pub fn broken_pair_note(pair: &PairWeights) -> String {
    let seeing = match pair.seeing {
        0 => "no row sees both".to_string(),
        1 => "the 1 row that sees both".to_string(),
        n => format!("the {n} rows that see both"),
    };
    match pair.first_differing {
        None if pair.seeing == 0 => format!("With the Break it mistakes on, {seeing}."),
        None => format!(
            "With the Break it mistakes on, this still holds for the broken weights shown: {seeing} {} them the same weight.",
            if pair.seeing == 1 { "gives" } else { "give" }
        ),
        Some((i, a, b)) => format!(
            "That is correct attention; with the Break it mistakes on, the heatmap's broken weights differ: {} of {seeing} {} them different weights (row {}: {} and {}).",
            pair.differing,
            if pair.differing == 1 { "gives" } else { "give" },
            i + 1,
            percent(a),
            percent(b)
        ),
    }
}

/// The inspector's note on a broken row whose weights sum to `sum`: when that is not 1, which
/// of its numbers are of the row as shown and which of the row divided by its sum.
pub fn broken_stats_note(sum: f64) -> Option<String> {
    ((sum - 1.0).abs() > ROUNDING_TOLERANCE).then(|| {
        format!(
            "This broken row sums to {}, not 1: its max weight is the largest bar as shown, its entropy and effective tokens are of the row divided by its sum (as in Break it's table).",
            fixed(sum, 3)
        )
    })
}

/// The first thing to see when broken weights reach the future: the row that gives the most weight
/// to the very next token, the one it should predict (row t predicts token t + 1). `None` when no
/// row does.
pub fn cheating_sentence(tokens: &[String], weights: &DMatrix<f64>) -> Option<String> {
    let t = tokens.len().min(weights.nrows()).min(weights.ncols());
    let (i, w) = (0..t.saturating_sub(1))
        .map(|i| (i, weights[(i, i + 1)]))
        .filter(|&(_, w)| w > ROUNDING_TOLERANCE)
        .max_by(|a, b| a.1.total_cmp(&b.1))?;
    Some(format!(
        "Look first at row {} {}: it now gives {} of its weight to {}, the very token it should predict. A model trained like this learns to copy the answer instead of predicting it.",
        i + 1,
        quote(&tokens[i]),
        percent(w),
        quote(&tokens[i + 1])
    ))
}

/// The heatmap's accessible name while mistakes are on.
pub fn broken_heatmap_label(title: &str, n: usize, future_cells: usize) -> String {
    format!(
        "{title}, BROKEN (not correct attention): {n} query tokens by {n} key tokens; colour shows the weight, {} above the diagonal {} the future and {} hatched, grey cells have weight 0.",
        count(future_cells, "cell", "cells"),
        if future_cells == 1 { "sees" } else { "see" },
        if future_cells == 1 { "is" } else { "are" }
    )
}

/// The tooltip for cell (`i`, `j`) of broken weights: every cell has a weight now.
pub fn broken_cell_description(
    tokens: &[String],
    weights: &DMatrix<f64>,
    i: usize,
    j: usize,
) -> String {
    let w = weights[(i, j)];
    let note = if sees_future(weights, i, j) {
        " (sees the future!)"
    } else {
        ""
    };
    format!("{} → {}: {}{note}", tokens[i], tokens[j], percent(w))
}

/// A row of broken weights, over every key: where it looks most and what it sums to.
pub fn broken_row_summary(tokens: &[String], weights: &DMatrix<f64>, i: usize) -> String {
    let row: Vec<f64> = weights.row(i).iter().copied().collect();
    let (names, weight) = top_keys_text(tokens, &row);
    format!(
        "Row {} {} attends most to {names} ({weight}); its weights sum to {}.",
        i + 1,
        quote(&tokens[i]),
        fixed(row.iter().sum(), 3)
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::broken::{broken_weights_all, Damage, Mistake, Mistakes};
    use crate::model::explorer::{default_view, Prepared};

    fn set(mistakes: &[Mistake]) -> Mistakes {
        mistakes.iter().copied().collect()
    }

    /// The default view's head `h` at τ, correct and with `mistakes`, and the damage sentences.
    fn sentences(p: &Prepared, mistakes: Mistakes, h: usize, tau: f64) -> Vec<String> {
        let correct = p.heads[h].weights(tau);
        let broken = broken_weights_all(p, mistakes, tau).swap_remove(h);
        damage_sentences(&Damage::new(&correct, &broken), mistakes, p.heads.len())
    }

    #[test]
    fn every_mistake_has_words_and_code() {
        for m in Mistake::ALL {
            assert!(!mistake_label(m).is_empty() && mistake_why(m).ends_with('.'));
            let (wrong, right) = mistake_code(m);
            assert_ne!(wrong, right);
        }
        let banner = broken_banner(set(&[Mistake::WrongTriangle, Mistake::Dropout]));
        assert!(banner.starts_with("BROKEN: this is not correct attention — The wrong triangle"));
        assert!(banner.contains("; Dropout on the weights"));
    }

    /// Each sentence's numbers, recomputed here from the weights (not from `Damage`).
    #[test]
    fn the_damage_sentences_state_the_live_numbers() {
        let p = default_view(2, false);
        let t = p.len();
        for m in Mistake::ALL {
            for tau in [0.05, 1.0, 20.0] {
                let mistakes = set(&[m]);
                let broken = broken_weights_all(&p, mistakes, tau).swap_remove(1);
                let said = sentences(&p, mistakes, 1, tau);
                let what = format!("{m:?} τ={tau}: {said:?}");
                let sums: Vec<f64> = (0..t).map(|i| broken.row(i).sum()).collect();
                let off = sums.iter().filter(|s| (*s - 1.0).abs() > 1e-12).count();
                match off {
                    0 => assert!(
                        said.contains(&"Every row still sums to 1.".to_string()),
                        "{what}"
                    ),
                    1 => assert!(
                        said.iter()
                            .any(|s| s.starts_with(&format!("1 row of {t} no"))),
                        "{what}"
                    ),
                    n => assert!(
                        said.iter()
                            .any(|s| s.starts_with(&format!("{n} rows of {t} no"))),
                        "{what}"
                    ),
                }
                let future: Vec<f64> = (0..t)
                    .flat_map(|i| (i + 1..t).map(move |j| (i, j)))
                    .map(|(i, j)| broken[(i, j)])
                    .filter(|&w| w > 0.0)
                    .collect();
                let total: f64 = future.iter().sum();
                let expected = match future.len() {
                    0 => "No cell sees the future".to_string(),
                    1 => format!(
                        "1 cell above the diagonal sees the future, with {}",
                        fixed(total, 3)
                    ),
                    n => format!(
                        "{n} cells above the diagonal see the future, with {}",
                        fixed(total, 3)
                    ),
                };
                assert!(said.iter().any(|s| s.starts_with(&expected)), "{what}");
                if m == Mistake::SoftmaxOverColumns {
                    let ones = (0..t)
                        .filter(|&j| (broken.column(j).sum() - 1.0).abs() < 1e-12)
                        .count();
                    assert_eq!(ones, t, "{what}");
                    assert!(
                        said.iter()
                            .any(|s| s.starts_with(&format!("{t} of {t} columns sum to 1"))),
                        "{what}"
                    );
                }
            }
        }
    }

    /// The spread sentence's numbers and verdict, recomputed here from the weights over many
    /// views: every mistake alone and in pairs, head splits, heads, positions and the τ range.
    #[test]
    fn the_spread_sentence_follows_both_measures() {
        let mut seen = std::collections::HashSet::new();
        for heads in [1, 2, 4] {
            for positions in [false, true] {
                let p = default_view(heads, positions);
                let t = p.len();
                for tau in [0.01, 0.2, 1.0, 3.0, 50.0] {
                    let mut sets: Vec<Mistakes> = Mistake::ALL.iter().map(|&m| set(&[m])).collect();
                    sets.push(set(&[Mistake::MaskAfterSoftmax, Mistake::Dropout]));
                    sets.push(set(&[Mistake::WrongTriangle, Mistake::MaskWithZero]));
                    sets.push(set(&[
                        Mistake::SoftmaxOverColumns,
                        Mistake::MultiplyBySqrtD,
                    ]));
                    for mistakes in sets {
                        for h in 0..heads {
                            let good = p.heads[h].weights(tau);
                            let bad = broken_weights_all(&p, mistakes, tau).swap_remove(h);
                            let damage = Damage::new(&good, &bad);
                            let rescaled = damage.rows_off().next().is_some();
                            let said = spread_sentence(&damage, rescaled);
                            let what = format!("{mistakes:?} τ={tau} h={h}: {said}");
                            let mean = |f: &dyn Fn(&[f64]) -> f64, w: &DMatrix<f64>| {
                                (0..t)
                                    .map(|i| {
                                        let row: Vec<f64> = w.row(i).iter().copied().collect();
                                        let sum: f64 = row.iter().sum();
                                        let row: Vec<f64> = if sum > 0.0 {
                                            row.iter().map(|x| x / sum).collect()
                                        } else {
                                            row
                                        };
                                        f(&row)
                                    })
                                    .sum::<f64>()
                                    / t as f64
                            };
                            let max = |r: &[f64]| r.iter().copied().fold(0.0, f64::max);
                            let entropy = |r: &[f64]| crate::model::stats::row_entropy_bits(r);
                            let (bm, cm) = (mean(&max, &bad), mean(&max, &good));
                            let (be, ce) = (mean(&entropy, &bad), mean(&entropy, &good));
                            assert!(
                                said.contains(&format!(
                                    "all {t} rows, the largest weight is {} (correct: {}) and the entropy {} bits (correct: {} bits): ",
                                    percent(bm), percent(cm), fixed(be, 3), fixed(ce, 3)
                                )),
                                "{what}"
                            );
                            assert_eq!(said.starts_with("Each row divided by its sum"), rescaled);
                            // No largest weight above 100 %: each row is a distribution again.
                            assert!(
                                damage.rows.iter().all(|r| r.broken_max <= 1.0 + 1e-12),
                                "{what}"
                            );
                            let max_says = if bm > cm + 1e-9 {
                                1
                            } else if bm < cm - 1e-9 {
                                -1
                            } else {
                                0
                            };
                            let entropy_says = if be < ce - 1e-9 {
                                1
                            } else if be > ce + 1e-9 {
                                -1
                            } else {
                                0
                            };
                            let words = |k: i32| match k {
                                1 => "the rows are peakier",
                                -1 => "the rows are flatter",
                                _ => "the rows are as peaked as correct ones",
                            };
                            if max_says == entropy_says {
                                assert!(
                                    said.ends_with(&format!(": {}.", words(max_says))),
                                    "{what}"
                                );
                            } else {
                                assert!(said.contains("do not agree"), "{what}");
                                assert!(
                                    said.contains(&format!("by entropy, {};", words(entropy_says))),
                                    "{what}"
                                );
                                assert!(
                                    said.contains(&format!(
                                        "by the largest weight, {}:",
                                        words(max_says)
                                    )),
                                    "{what}"
                                );
                            }
                            seen.insert((max_says, entropy_says));
                        }
                    }
                }
            }
        }
        // The views cover agreement each way and disagreement.
        assert!(
            seen.contains(&(1, 1)) && seen.contains(&(-1, -1)) && seen.contains(&(0, 0)),
            "{seen:?}"
        );
        assert!(seen.iter().any(|(m, e)| m != e), "{seen:?}");
    }

    /// The note under the positions switch while broken, on the live numbers of every mistake.
    #[test]
    fn the_broken_pair_note_counts_the_rows() {
        let p = default_view(2, false);
        let pair = crate::model::claims::first_repeated_word(&p.config.tokens).unwrap();
        for m in Mistake::ALL {
            for tau in [0.1, 1.0, 10.0] {
                let on = set(&[m]);
                let w = broken_weights_all(&p, on, tau).swap_remove(0);
                let counted = PairWeights::of(&w, on, pair);
                let said = broken_pair_note(&counted);
                let rows = |n: usize| {
                    if n == 1 {
                        "the 1 row that sees both".to_string()
                    } else {
                        format!("the {n} rows that see both")
                    }
                };
                let verb = |n: usize| if n == 1 { "gives" } else { "give" };
                if counted.differing == 0 {
                    let end = format!(
                        "{} {} them the same weight.",
                        rows(counted.seeing),
                        verb(counted.seeing)
                    );
                    assert!(said.ends_with(&end), "{said}");
                } else {
                    let (i, a, b) = counted.first_differing.unwrap();
                    let count = format!(
                        "{} of {} {} them different weights",
                        counted.differing,
                        rows(counted.seeing),
                        verb(counted.differing)
                    );
                    assert!(said.contains(&count), "{said}");
                    let example = format!("(row {}: {} and {})", i + 1, percent(a), percent(b));
                    assert!(said.contains(&example), "{said}");
                }
            }
        }
        let columns = set(&[Mistake::SoftmaxOverColumns]);
        let w = broken_weights_all(&p, columns, 1.0).swap_remove(0);
        assert!(broken_pair_note(&PairWeights::of(&w, columns, pair))
            .starts_with("That is correct attention;"));
    }

    /// The "why" sentences' claims: a larger divisor never makes a row peakier, multiplying
    /// never makes one flatter; masking with 0 keeps rows at 1 but feeds the future; masking after
    /// the softmax leaves every row with a future short of 1; the wrong triangle sees the future.
    #[test]
    fn the_why_sentences_hold_on_the_default_view() {
        for heads in [1, 2, 4, 8] {
            for positions in [false, true] {
                let p = default_view(heads, positions);
                let t = p.len();
                for tau in [0.01, 0.3, 1.0, 7.0, 100.0] {
                    for (h, head) in p.heads.iter().enumerate() {
                        let good = head.weights(tau);
                        let d = |m: Mistake| {
                            let w = broken_weights_all(&p, set(&[m]), tau).swap_remove(h);
                            Damage::new(&good, &w)
                        };
                        let (flat, peaked) =
                            (d(Mistake::ScaleByModelWidth), d(Mistake::MultiplyBySqrtD));
                        for i in 0..t {
                            let (f, k) = (flat.rows[i], peaked.rows[i]);
                            assert!(f.broken_max <= f.correct_max + 1e-12);
                            assert!(f.broken_entropy >= f.correct_entropy - 1e-9);
                            assert!(k.broken_max >= k.correct_max - 1e-12);
                            assert!(k.broken_entropy <= k.correct_entropy + 1e-9);
                        }
                        if heads == 1 {
                            assert_eq!(flat.largest_change.0, 0.0);
                        }
                        let zero = d(Mistake::MaskWithZero);
                        assert!(zero.rows_off().next().is_none());
                        assert_eq!(zero.future_cells.len(), t * (t - 1) / 2);
                        let after = d(Mistake::MaskAfterSoftmax);
                        // Never above 1; below it wherever the future's share did not
                        // underflow to 0 (at τ = 0.01 it can).
                        assert!(after.rows.iter().all(|r| r.sum <= 1.0 + 1e-12));
                        if tau >= 0.3 {
                            assert!(after.rows[..t - 1].iter().all(|r| r.sum < 1.0));
                        }
                        assert!(d(Mistake::WrongTriangle).future_cells.len() == t * (t - 1) / 2);
                    }
                }
            }
        }
    }

    #[test]
    fn one_head_scaled_by_d_model_changes_nothing_and_says_why() {
        let p = default_view(1, false);
        let said = sentences(&p, set(&[Mistake::ScaleByModelWidth]), 0, 1.0);
        assert!(
            said[0].starts_with("No weight changed: every weight is exactly correct attention's."),
            "{said:?}"
        );
        assert!(
            said[0].ends_with("With one head d = d_model, so √d_model is √d: try 2 or more heads.")
        );
        assert!(said
            .iter()
            .any(|s| s.ends_with(": the rows are as peaked as correct ones.")));
        let two = sentences(
            &default_view(2, false),
            set(&[Mistake::ScaleByModelWidth]),
            0,
            1.0,
        );
        assert!(two[0].starts_with("The largest change of any weight is "));
        assert!(
            two.iter().any(|s| s.ends_with(": the rows are flatter.")),
            "{two:?}"
        );
    }

    #[test]
    fn broken_cells_and_rows_read_by_hand() {
        let tokens: Vec<String> = ["a", "b"].iter().map(|s| (*s).to_string()).collect();
        let w = DMatrix::from_row_slice(2, 2, &[0.25, 0.75, 0.0, 1.0]);
        assert_eq!(
            broken_cell_description(&tokens, &w, 0, 1),
            "a → b: 75.0% (sees the future!)"
        );
        assert_eq!(broken_cell_description(&tokens, &w, 1, 0), "b → a: 0.0%");
        assert_eq!(
            broken_row_summary(&tokens, &w, 0),
            "Row 1 “a” attends most to “b” (75.0%); its weights sum to 1.000."
        );
        assert_eq!(
            broken_heatmap_label("Map", 2, 1),
            "Map, BROKEN (not correct attention): 2 query tokens by 2 key tokens; colour shows the weight, 1 cell above the diagonal sees the future and is hatched, grey cells have weight 0."
        );
        assert_eq!(signed(-0.25), "−0.250");
        assert_eq!(broken_stats_note(1.0), None);
        assert!(broken_stats_note(1.111_1)
            .unwrap()
            .starts_with("This broken row sums to 1.111, not 1:"));
        assert_eq!(signed(1e-6), "+1.0e-6");
    }

    /// The cheating sentence names the row with the largest weight on its own next token, for
    /// every mistake, head split and temperature of the default view; none for correct attention.
    #[test]
    fn the_cheating_sentence_names_the_row_that_reads_its_answer() {
        for heads in [1, 2, 4] {
            let p = default_view(heads, false);
            let tokens = &p.config.tokens;
            for tau in [0.25, 1.0, 4.0] {
                for m in Mistake::ALL {
                    for (h, w) in broken_weights_all(&p, set(&[m]), tau).iter().enumerate() {
                        let next: Vec<f64> = (0..tokens.len() - 1).map(|i| w[(i, i + 1)]).collect();
                        let best = next.iter().copied().fold(0.0, f64::max);
                        match cheating_sentence(tokens, w) {
                            None => assert!(best <= ROUNDING_TOLERANCE, "{m:?} head {h}"),
                            Some(text) => {
                                let i = next.iter().position(|&x| x == best).unwrap();
                                assert!(
                                    text.starts_with(&format!("Look first at row {} ", i + 1)),
                                    "{text}"
                                );
                                assert!(text.contains(&percent(best)), "{text}");
                            }
                        }
                    }
                }
                assert_eq!(cheating_sentence(tokens, &p.heads[0].weights(tau)), None);
            }
        }
    }
}
