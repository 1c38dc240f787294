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

/// The banner over the heatmap while any mistake is on; `(future, tiny)` is how many cells of the
/// heatmap shown see the future, and how many of those print as 0.0%
/// ([`crate::model::broken::future_cells`]).
pub fn broken_banner(mistakes: Mistakes, (future, tiny): (usize, usize)) -> String {
    let names: Vec<&str> = mistakes.iter().map(mistake_label).collect();
    let mut seeing = match future {
        0 => "no cell of this heatmap sees the future".to_string(),
        1 => "1 hatched cell sees the future".to_string(),
        n => format!("{n} hatched cells see the future"),
    };
    if tiny > 0 {
        let of = if future == 1 {
            "its weight is".to_string()
        } else {
            format!("{tiny} of them with weights")
        };
        seeing = format!("{seeing} ({of} under 0.05%, too small to print)");
    }
    format!(
        "BROKEN: this is not correct attention — {}. The heatmap, its thumbnails, the inspector and the downloads show the broken weights; {seeing}. The lesson and the temperature readout still describe correct attention.",
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
    /// From the two means of a measure that grows as rows get peakier, compared as the sentence
    /// prints them: two means that print alike are the same to the reader.
    fn of(broken: &str, correct: &str, broken_value: f64, correct_value: f64) -> Self {
        if broken == correct {
            SpreadChange::Same
        } else if broken_value > correct_value {
            SpreadChange::Peakier
        } else {
            SpreadChange::Flatter
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
    let (bm_text, cm_text) = (percent(bm), percent(cm));
    let (be_text, ce_text) = (fixed(be, 3), fixed(ce, 3));
    // A larger largest weight is peakier; a larger entropy is flatter.
    let (by_max, by_entropy) = (
        SpreadChange::of(&bm_text, &cm_text, bm, cm),
        SpreadChange::of(&ce_text, &be_text, ce, be),
    );
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
    // The temperature readout averages the rows that see two or more keys; this one counts row 1
    // too, and says so, so that the two averages of correct attention can be told apart.
    let rows = if rescaled {
        format!("Each row divided by its sum first (so that only its shape counts) and averaged over all {t} rows, row 1 included")
    } else {
        format!("Averaged over all {t} rows, row 1 included")
    };
    format!(
        "{rows}, the largest weight is {bm_text} (correct: {cm_text}) and the entropy {be_text} bits (correct: {ce_text} bits): {verdict}."
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
mod tests;
