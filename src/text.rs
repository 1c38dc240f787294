//! The page's sentences, captions and cells that are built from numbers: plain string functions,
//! so that native tests pin the exact words and the components only place them.
//!
//! The numbers themselves come from [`crate::model`] and their digits from [`crate::format`];
//! this file decides only how they read.

use crate::format::{fixed, grouped, percent, scientific};
use crate::model::broken::{sees_future, Damage, Mistake, Mistakes};
use crate::model::claims::{top_keys, HeadShape, NEARLY_ONE_HOT};
use crate::model::compare::{Change, RowChange};
use crate::model::multihead::HeadsRow;
use crate::model::positions::ShuffleComparison;
use crate::model::scaling_lab::{LabPoint, Spread, DRAWS, KEYS, NOTEBOOK_DRAWS};
use crate::model::stats::{row_stats, ROUNDING_TOLERANCE};
use crate::model::temperature::Regime;
use crate::model::trace::RowTrace;
use crate::model::train::detectors::AgreementReport;
use crate::model::train::tasks::{GRAMMAR_WORDS, NEAR_MINIMUM_PERCENT};
use crate::model::train::trainer::{
    BestHead, CircuitCheck, INDUCTION_MIN, PREVIOUS_TOKEN_MIN, REPEAT_RATIO_MAX,
};
use crate::model::trained::Weights;
use crate::model::url_state::{Step, ViewState};
use nalgebra::DMatrix;

pub mod quiz;

/// A token in typographic quotes for running text.
pub fn quote(token: &str) -> String {
    format!("“{token}”")
}

/// A readable τ: three significant digits.
pub fn format_tau(tau: f64) -> String {
    if tau >= 10.0 {
        fixed(tau, 1)
    } else if tau >= 1.0 {
        fixed(tau, 2)
    } else {
        fixed(tau, 3)
    }
}

/// What the temperature `tau` (in `regime`, for heads of size `head_size`) means, in plain words,
/// with the live head's `shape` at that temperature: every count in it is computed, and the
/// claims without a number (colder is never flatter, hotter tends to the average, the limit at
/// τ → 0) are properties tested in `model::claims`.
pub fn regime_sentence(regime: Regime, tau: f64, head_size: usize, shape: &HeadShape) -> String {
    let opening = match regime {
        Regime::Unscaled => format!(
            "τ = 1/√{head_size}: exactly attention without the 1/√d scaling. Scores are {}× larger than at τ = 1, so every row is at least as peaked as there.",
            format_tau(1.0 / tau)
        ),
        Regime::Colder => "Colder than unscaled attention. As τ → 0 each row puts all its weight on its top-scoring key, or splits it evenly between keys whose scores tie.".to_string(),
        Regime::Between => "Between unscaled and standard: every row is at least as peaked as at τ = 1 and at most as peaked as without the scaling.".to_string(),
        Regime::Scaled => "τ = 1: standard scaled attention, softmax(QKᵀ/√d).".to_string(),
        Regime::Hotter => "Hotter than standard: rows flatten toward the plain average of the past, where row t gives each of its t tokens 1/t.".to_string(),
    };
    format!("{opening} {}", shape_sentence(shape))
}

/// The live counts behind [`regime_sentence`]: how many rows are nearly one-hot or tied.
pub fn shape_sentence(shape: &HeadShape) -> String {
    let m = shape.rows_with_choice;
    if m == 0 {
        return "The only row sees only its own token, so it is always 100 % on it.".to_string();
    }
    let counts = format!(
        "In this head {} of the {m} rows that see more than one key put over {} of their weight on one key; their largest weight averages {}.",
        shape.nearly_one_hot,
        percent(NEARLY_ONE_HOT),
        percent(shape.mean_max_weight)
    );
    match shape.tied {
        0 => counts,
        1 => format!("{counts} 1 of them splits its top weight equally between tied keys."),
        tied => {
            format!("{counts} {tied} of them split their top weight equally between tied keys.")
        }
    }
}

/// Names in typographic quotes, joined as running text: “a”, “b” and “c”.
fn quoted_list<'a>(names: impl IntoIterator<Item = &'a str>) -> String {
    let quoted: Vec<String> = names.into_iter().map(quote).collect();
    match quoted.as_slice() {
        [] => String::new(),
        [only] => only.clone(),
        [rest @ .., last] => format!("{} and {last}", rest.join(", ")),
    }
}

/// The keys that share a row's largest weight, as running text, and that weight as shown:
/// ("“sat”", "35.5%"), or ("“The” and “the”", "30.6% each") when keys tie.
fn top_keys_text(tokens: &[String], row: &[f64]) -> (String, String) {
    let top = top_keys(row);
    let names = quoted_list(top.iter().map(|&j| tokens[j].as_str()));
    let each = if top.len() > 1 { " each" } else { "" };
    (names, format!("{}{each}", percent(row[top[0]])))
}

/// ✓ when two computations agree (their difference is rounding error), ✗ otherwise.
fn check_mark(diff: f64) -> &'static str {
    if diff < ROUNDING_TOLERANCE {
        "✓"
    } else {
        "✗"
    }
}

/// The heatmap's accessible name before any row is selected: what the `n` × `n` chart shows.
pub fn heatmap_label(title: &str, n: usize) -> String {
    format!(
        "{title}: {n} query tokens by {n} key tokens; colour shows attention weight, grey cells are the masked future."
    )
}

/// The tooltip's text for cell (`i`, `j`).
pub fn cell_description(tokens: &[String], weights: &DMatrix<f64>, i: usize, j: usize) -> String {
    let (q, k) = (&tokens[i], &tokens[j]);
    if j > i {
        format!("{q} → {k}: masked (future)")
    } else {
        format!("{q} → {k}: {}", percent(weights[(i, j)]))
    }
}

/// A sentence describing row `i`: its token and where it looks most.
pub fn row_summary(tokens: &[String], weights: &DMatrix<f64>, i: usize) -> String {
    let row: Vec<f64> = (0..=i).map(|j| weights[(i, j)]).collect();
    let stats = row_stats(&row);
    if i > 0 && stats.is_even() {
        return format!(
            "Row {} {} spreads its attention evenly: {} on each of its {} tokens.",
            i + 1,
            quote(&tokens[i]),
            percent(stats.max_weight),
            i + 1
        );
    }
    let (names, weight) = top_keys_text(tokens, &row);
    format!(
        "Row {} {} attends most to {names} ({weight}).",
        i + 1,
        quote(&tokens[i])
    )
}

/// The one line under the heatmap on narrow screens: row `i`'s top key with its weight (the row's
/// largest, as [`row_summary`] words it) and the row's entropy, as the inspector shows it.
pub fn row_glance(tokens: &[String], weights: &DMatrix<f64>, i: usize) -> String {
    let row: Vec<f64> = (0..=i).map(|j| weights[(i, j)]).collect();
    format!(
        "{} Entropy {}.",
        row_summary(tokens, weights, i),
        entropy_text(row_stats(&row).entropy_bits)
    )
}

/// The inspector's bar chart, for screen readers: row `i` with its visible weights `row`; every
/// key sharing the largest weight is named.
pub fn bar_chart_label(tokens: &[String], i: usize, row: &[f64]) -> String {
    let (names, weight) = top_keys_text(tokens, row);
    let bars = if top_keys(row).len() > 1 {
        "bars are"
    } else {
        "bar is"
    };
    format!(
        "Bar chart of the attention of {} (row {}) over every key token; the largest {bars} {names} at {weight}. The table below lists every value.",
        quote(&tokens[i]),
        i + 1
    )
}

/// A row's entropy, as the inspector shows it.
pub fn entropy_text(bits: f64) -> String {
    format!("{} bits", fixed(bits, 3))
}

/// A row's effective token count out of the `visible` tokens it may attend to.
pub fn effective_tokens_text(effective: f64, visible: usize) -> String {
    format!("{} of {}", fixed(effective, 2), visible)
}

/// Step 2's check: the averaging matrix times X against the notebook's loop, differing by `diff`.
pub fn averaging_check(diff: f64) -> String {
    format!(
        "{} wei · X equals the running mean computed with a loop: largest difference {}.",
        check_mark(diff),
        scientific(diff, 1)
    )
}

/// Step 2's reading of row `i`: the equal share it gives each visible token.
pub fn averaging_row(tokens: &[String], i: usize) -> String {
    format!(
        "Row {} ({}) takes {} from each of its {} visible tokens. Attention keeps this triangle but lets the data choose the shares.",
        i + 1,
        quote(tokens.get(i).map_or("", String::as_str)),
        percent(1.0 / (i + 1) as f64),
        i + 1
    )
}

/// The trace table's caption: row `trace.t` (`token`) of head `head` (0-based).
pub fn trace_caption(token: &str, trace: &RowTrace, head: usize) -> String {
    format!(
        "Trace of {} (row {}), head {}, d = {}, τ = {}",
        quote(token),
        trace.t + 1,
        head + 1,
        trace.head_size,
        fixed(trace.tau, 3)
    )
}

/// The trace table's "÷ √d" column heading, with √d's value.
pub fn trace_sqrt_d_heading(trace: &RowTrace) -> String {
    format!("÷ √d (= {})", fixed(trace.sqrt_d, 2))
}

/// The trace table's numeric cells for key `j`: q·k, ÷ √d, ÷ τ, after the mask, softmax weight.
pub fn trace_cells(trace: &RowTrace, j: usize) -> [String; 5] {
    let masked = trace.is_masked(j);
    [
        fixed(trace.raw[j], 3),
        fixed(trace.over_sqrt_d[j], 3),
        fixed(trace.scaled[j], 3),
        if masked {
            "−∞".to_string()
        } else {
            fixed(trace.masked[j], 3)
        },
        if masked {
            "0 (masked)".to_string()
        } else {
            fixed(trace.weights[j], 4)
        },
    ]
}

/// The trace's sum of weights, to twelve decimals (so rounding shows, if any).
pub fn trace_sum(trace: &RowTrace) -> String {
    fixed(trace.weight_sum, 12)
}

/// The trace's check: the explicit blend against row t of A·V.
pub fn trace_check(trace: &RowTrace) -> String {
    format!(
        "{} Σ w·v equals row {} of A·V: largest difference {}.",
        check_mark(trace.diff),
        trace.t + 1,
        scientific(trace.diff, 1)
    )
}

/// A lab table cell: mean to 3 decimals, then the 10th–90th percentile band.
pub fn lab_cell(spread: &Spread) -> String {
    format!(
        "{} ({}–{})",
        fixed(spread.mean, 3),
        fixed(spread.p10, 2),
        fixed(spread.p90, 2)
    )
}

/// The lab table's caption.
pub fn lab_caption() -> String {
    format!("Largest softmax weight over {KEYS} keys (mean, 10th–90th percentile)")
}

/// The lab's readout for the selected head size.
pub fn lab_readout(point: &LabPoint) -> String {
    format!(
        "At d = {}: unscaled {} (10–90 %: {}–{}), scaled {} (10–90 %: {}–{}) over {DRAWS} draws.",
        point.head_size,
        fixed(point.unscaled.mean, 2),
        fixed(point.unscaled.p10, 2),
        fixed(point.unscaled.p90, 2),
        fixed(point.scaled.mean, 2),
        fixed(point.scaled.p10, 2),
        fixed(point.scaled.p90, 2)
    )
}

/// Whether `x` lies inside a spread's 10–90 % band.
fn in_band(x: f64, spread: &Spread) -> bool {
    (spread.p10..=spread.p90).contains(&x)
}

/// The notebook's single draws, marked as quoted, and how to read them against the lab's
/// `points` (every comparison in it is computed from those points).
pub fn notebook_draws(points: &[LabPoint]) -> String {
    let quoted: Vec<String> = NOTEBOOK_DRAWS
        .iter()
        .map(|(d, u, s)| {
            format!(
                "at d = {d}, {} unscaled and {} scaled",
                fixed(*u, 2),
                fixed(*s, 2)
            )
        })
        .collect();
    let bands: Vec<bool> = NOTEBOOK_DRAWS
        .iter()
        .filter_map(|&(d, u, s)| {
            let p = points.iter().find(|p| p.head_size == d)?;
            Some(in_band(u, &p.unscaled) && in_band(s, &p.scaled))
        })
        .collect();
    let inside = bands.iter().filter(|&&b| b).count();
    let mut sentences = vec![
        format!(
            "Quoted from the notebook, not computed here (one random draw each): {}.",
            quoted.join("; ")
        ),
        format!(
            "{inside} of these {} pairs lie inside this page's 10–90 % bands at their d.",
            bands.len()
        ),
    ];
    if let (Some(first), Some(last)) = (points.first(), points.last()) {
        let (lo, hi) = points
            .iter()
            .fold((f64::INFINITY, f64::NEG_INFINITY), |(lo, hi), p| {
                (lo.min(p.scaled.mean), hi.max(p.scaled.mean))
            });
        let range = format!(
            "The scaled mean stays between {} and {} at every head size from {} to {}",
            fixed(lo, 2),
            fixed(hi, 2),
            first.head_size,
            last.head_size
        );
        let scaled_draws: Vec<String> = NOTEBOOK_DRAWS
            .iter()
            .map(|(d, _, s)| format!("{} at d = {d}", fixed(*s, 2)))
            .collect();
        sentences.push(if inside == bands.len() {
            format!(
                "{range}, so the notebook's scaled {} differ by the luck of single draws, not by a trend.",
                scaled_draws.join(" and ")
            )
        } else {
            format!("{range}.")
        });
    }
    sentences.join(" ")
}

/// What is real on this page and what is not, for the weights in use: random ones mean nothing,
/// trained ones were learned; either way the mechanism is exact. `seed`: the random weights' seed.
pub fn weights_note(weights: &Weights, seed: u64) -> String {
    match weights.checkpoint() {
        None => format!(
            "Not trained: the word vectors and W_q, W_k, W_v are random (seed {seed}), so which word a row picks means nothing yet. The mechanism is real: every step from scores to weights to outputs is exactly attention's."
        ),
        Some(c) => {
            let cfg = c.model.config();
            format!(
                "Trained weights: the word vectors and W_q, W_k, W_v, W_o of a {}-layer, {}-head attention model that this app's own code trained for {} steps (seed {}) to predict the next word of sentences from a {}-word grammar, saved in f32. So these patterns were learned; the attention arithmetic on them is exact.",
                cfg.layers,
                cfg.heads,
                c.steps,
                c.seed,
                GRAMMAR_WORDS.len()
            )
        }
    }
}

/// [`weights_note`] in one line, for the compact `?embed=1` view.
pub fn weights_note_short(weights: &Weights, seed: u64) -> String {
    match weights.checkpoint() {
        None => {
            format!("Not trained: random weights (seed {seed}); the attention arithmetic is exact.")
        }
        Some(c) => format!(
            "Trained weights ({} steps on a tiny grammar); the attention arithmetic is exact.",
            c.steps
        ),
    }
}

/// The help under the positions switch, for the current `tokens`: `repeated` is the first pair of
/// positions holding the same word once capitals are ignored (`model::claims::first_repeated_word`).
/// The claims about that pair (equal weights without positions, different with them) are tested
/// in `model::claims` and against the page.
pub fn positions_help(
    positions: bool,
    tokens: &[String],
    repeated: Option<(usize, usize)>,
) -> String {
    let pair = repeated.map(|(i, j)| {
        format!(
            "{} (token {}) and {} (token {})",
            quote(&tokens[i]),
            i + 1,
            quote(&tokens[j]),
            j + 1
        )
    });
    match (positions, pair) {
        (false, Some(pair)) => format!(
            "Without position codes a word's vector is the same wherever it stands, and this app's embedding ignores capitals (real tokenizers keep them apart). So {pair} get identical keys and values, and every row that sees both gives them exactly the same weight."
        ),
        (false, None) => "Without position codes a word's vector is the same wherever it stands (capitals are ignored), so a repeated word would get identical keys and the same weight in every row that sees both copies.".to_string(),
        (true, Some(pair)) => format!(
            "Each position adds its own sine–cosine pattern to the word's vector, so {pair} now get different keys, and rows weigh them differently."
        ),
        (true, None) => "Each position adds its own sine–cosine pattern to the word's vector, so the same word at two places would get two different keys.".to_string(),
    }
}

// ---------------------------------------------------------------------------------------------
// The lesson's path: step titles, "you are here", steps 2 and 6
// ---------------------------------------------------------------------------------------------

/// A step's short title, as its tab and its heading show it.
pub fn step_title(step: Step) -> &'static str {
    match step {
        Step::Average => "Average the past",
        Step::Softmax => "Softmax over masked scores",
        Step::Attention => "Queries, keys, values",
        Step::Scaling => "Why divide by √d",
        Step::Heads => "Several heads",
        Step::Positions => "Positions",
    }
}

/// The one sentence that opens a step: what it adds to the step before it.
pub fn step_adds(step: Step) -> &'static str {
    match step {
        Step::Average => "Step 1 starts with the simplest way for a token to use its context: the plain average of itself and every token before it.",
        Step::Softmax => "Step 2 computes the same average as a softmax over a masked score matrix, the form attention uses.",
        Step::Attention => "Step 3 computes the scores from the words themselves, with queries and keys, and blends values instead of the raw word vectors.",
        Step::Scaling => "Step 4 explains why those scores are divided by √d before the softmax.",
        Step::Heads => "Step 5 splits the same computation into several smaller heads and combines their outputs with W_o.",
        Step::Positions => "Step 6 adds word order: without position codes, a row cannot tell in which order the words before it came.",
    }
}

/// "You are here": "Step 3 of 6".
pub fn step_position(step: Step) -> String {
    format!("Step {} of {}", step.number(), Step::ALL.len())
}

/// A tab's label: "3 · Queries, keys, values".
pub fn step_tab(step: Step) -> String {
    format!("{} · {}", step.number(), step_title(step))
}

/// Step 2's first check: the softmax of masked zero scores against the averaging matrix `wei`,
/// differing by `gap` at most (`identical`: equal bit for bit).
pub fn zero_scores_check(gap: f64, identical: bool) -> String {
    if identical {
        "✓ softmax of the masked zero scores equals wei bit for bit (largest difference 0)."
            .to_string()
    } else {
        format!(
            "{} softmax of the masked zero scores equals wei: largest difference {}.",
            check_mark(gap),
            scientific(gap, 1)
        )
    }
}

/// Step 2's live readout: how far head `head` (0-based) at `tau` is from the average.
pub fn live_gap(tau: f64, head: usize, gap: f64) -> String {
    format!(
        "With the live scores of head {} at τ = {}: largest |A(τ) − wei| = {}.",
        head + 1,
        format_tau(tau),
        scientific(gap, 2)
    )
}

/// Step 6's verdict on a shuffle of the past: computed from the comparison, never assumed.
pub fn shuffle_check(cmp: &ShuffleComparison) -> String {
    if cmp.bit_identical() {
        "✓ Every key kept its score and its weight, bit for bit: the row is bit-identical."
            .to_string()
    } else if cmp.scores_bit_identical() {
        format!(
            "✓ Every key kept its score q·k bit for bit. The weights agree to within {} (the last bits of rounding: the softmax adds the same terms in another order).",
            scientific(cmp.largest_change(), 1)
        )
    } else {
        format!(
            "The row changed: the largest change of a key's weight is {} percentage points.",
            fixed(cmp.largest_change() * 100.0, 2)
        )
    }
}

/// Step 6: how row `i` (0-based, visible weights `row`) weighs the repeated pair, if it sees both.
/// "exactly the same" only when the two doubles are equal.
pub fn pair_in_row(tokens: &[String], i: usize, row: &[f64], pair: (usize, usize)) -> String {
    let (a, b) = pair;
    if b > i {
        return format!(
            "Row {} {} does not see both {} and {}; pick row {} or later to compare them.",
            i + 1,
            quote(&tokens[i]),
            quote(&tokens[a]),
            quote(&tokens[b]),
            b + 1
        );
    }
    let names = format!(
        "{} (token {}) and {} (token {})",
        quote(&tokens[a]),
        a + 1,
        quote(&tokens[b]),
        b + 1
    );
    if row[a] == row[b] {
        format!(
            "Row {} {} gives {names} exactly the same weight, {} each.",
            i + 1,
            quote(&tokens[i]),
            percent(row[a])
        )
    } else {
        format!(
            "Row {} {} gives {names} different weights: {} and {}.",
            i + 1,
            quote(&tokens[i]),
            percent(row[a]),
            percent(row[b])
        )
    }
}
/// Step 5's opening: what several heads add, said honestly for the weights in use.
pub fn heads_intro(trained: bool) -> String {
    let here = if trained {
        "these weights were trained, so each head's pattern was learned: compare the heads' heatmaps to see what each one does"
    } else {
        "here the weights are random, so the heads show different random patterns, not specialisations"
    };
    format!("Step 5 adds heads: several attentions run side by side on the same tokens, each with its own W_q, W_k and W_v, so one layer can weigh the past in several different ways at once. In trained models heads often end up doing different jobs; {here}.")
}

/// How the current view splits `d_model` into `heads` heads of `head_size`.
pub fn heads_split(heads: usize, head_size: usize, d_model: usize) -> String {
    if heads == 1 {
        format!(
            "This view has 1 head of d = d_model = {d_model}: one attention over all {d_model} columns, so the concatenation below is that head's output itself. Choose 2, 4 or 8 heads to split it."
        )
    } else {
        format!(
            "This view has h = {heads} heads of d = d_model / h = {d_model} / {heads} = {head_size}: W_q, W_k and W_v are cut into {heads} slices of {head_size} columns, head 1 taking columns 1–{head_size}, and so on. The matrix products add up to as many multiplications as one head of {d_model}, done as {heads} independent attentions."
        )
    }
}

/// The shapes of the layer's last step, for a sentence of `t` tokens.
pub fn heads_shapes(
    t: usize,
    heads: usize,
    head_size: usize,
    d_model: usize,
    trained: bool,
) -> String {
    let origin = if trained {
        "trained together with W_q, W_k and W_v"
    } else {
        "random (seeded) and untrained like W_q, W_k and W_v"
    };
    format!(
        "Each head's output A·V is T × d = {t} × {head_size}. Side by side, the {heads} outputs make concat, T × d_model = {t} × {d_model} (head h in columns (h − 1)·d + 1 to h·d). The output projection W_o, d_model × d_model = {d_model} × {d_model}, {origin}, mixes them: concat · W_o is T × d_model = {t} × {d_model}, the same shape as the input X."
    )
}

/// The heading of the selected row's strips: row `t` (0-based) holding `token`.
pub fn heads_row_heading(
    token: &str,
    t: usize,
    heads: usize,
    head_size: usize,
    d_model: usize,
) -> String {
    let strips = if heads == 1 {
        format!("the head's output row ({head_size} numbers)")
    } else {
        format!("one strip per head ({heads} rows of {head_size} numbers)")
    };
    format!(
        "Row {} ({}): {strips} → the concatenated row ({d_model} numbers) → · W_o → the layer's output row ({d_model} numbers). Orange is positive, blue negative.",
        t + 1,
        quote(token)
    )
}

/// The visible label of head `h`'s (0-based) strip.
pub fn heads_strip_label(h: usize) -> String {
    format!("head {}", h + 1)
}

/// The accessible name of head `h`'s (0-based) strip for row `t`; the numbers follow it.
pub fn heads_strip_name(h: usize, t: usize) -> String {
    format!("head {} output, row {}", h + 1, t + 1)
}

/// The accessible name of the concatenated row `t`.
pub fn concat_strip_name(t: usize) -> String {
    format!("concat, row {}", t + 1)
}

/// The accessible name of the layer's output row `t`.
pub fn layer_output_strip_name(t: usize) -> String {
    format!("layer output (concat · W_o), row {}", t + 1)
}

/// Step 5's check: row t of the matrix product `concat · W_o` against the same row summed entry
/// by entry, and against the sum of each head's row times its own rows of `W_o`.
pub fn heads_check(row: &HeadsRow) -> String {
    format!(
        "{} concat · W_o equals the layer output: largest difference {} between row {} of the matrix product and the same row summed entry by entry.",
        check_mark(row.diff),
        scientific(row.diff, 1),
        row.t + 1
    )
}

/// Step 5's second check: the per-head products, added instead of concatenated.
pub fn heads_sum_check(row: &HeadsRow) -> String {
    format!(
        "{} Each head's row times its own d rows of W_o, added over the heads, gives the same output row: largest difference {}.",
        check_mark(row.sum_diff),
        scientific(row.sum_diff, 1)
    )
}

/// A note about the `NumPy` article's multi-head code: quoted, not computed here.
pub fn heads_article_note() -> String {
    "About the NumPy article (its code, not computed here): its multi-head function multiplies each head's output by that head's rows of W_o first and then concatenates the h results, each T × d_model, so it returns T × h·d_model, not the T × d_model its comment states. The shape that works is the one above: concatenate first, concat (T × d_model), then one product with W_o (d_model × d_model), giving T × d_model. Adding the per-head products instead of concatenating them gives the same numbers, as the second check shows.".to_string()
}

/// The symbols the page uses, each with a one-line definition and this view's sizes: `tokens`
/// is T, `heads` splits `d_model` into heads of d (the "Symbols used here" glossary).
pub fn glossary(
    tokens: usize,
    d_model: usize,
    heads: usize,
    trained: bool,
) -> Vec<(&'static str, String)> {
    let heads = heads.max(1);
    let d = d_model / heads;
    vec![
        ("T", format!("the number of tokens in the sentence (here {tokens}); the heatmap is T × T.")),
        ("X", "the T × d_model input to attention: one row per token, its word vector (plus its position code when positions are on).".to_string()),
        ("x", "one token's row of X.".to_string()),
        ("d_model", format!("how many numbers describe each token (here {d_model}).")),
        ("d", format!("the head size: d_model ÷ number of heads (here {d_model} ÷ {heads} = {d}), the length of every query, key and value.")),
        ("W_q, W_k, W_v", format!("d_model × d matrices (here {d_model} × {d}, one set per head) that turn x into its query, key and value. {}", if trained { "Trained here (the grammar checkpoint)." } else { "Random here, not trained." })),
        ("Q, K, V", "T × d matrices: Q = X·W_q, K = X·W_k, V = X·W_v. Row t holds token t's query q (what it is looking for), key k (what it offers to be found by) and value v (what it hands over).".to_string()),
        ("scores", "q·k for every query and key (the matrix QKᵀ); before softmax they are divided by √d·τ.".to_string()),
        ("τ", "the temperature, an extra divisor of the scores; τ = 1 is standard attention.".to_string()),
        ("A", "the T × T attention weights: softmax of each row of masked scores, so every row adds up to 1 (100 %). The output is A·V.".to_string()),
        ("entropy (bits)", "−Σ w·log₂ w over a row's weights: 0 bits when one key gets everything, log₂ n bits when n keys share equally.".to_string()),
        ("effective tokens", "2^entropy: how many keys the row is spread over, as if evenly.".to_string()),
    ]
}

/// Step 3's opening: what q, k and v are for, with this model's sizes.
pub fn qkv_intro(d_model: usize, head_size: usize) -> String {
    format!(
        "Each token's input x (its row of X, d_model = {d_model} numbers) is multiplied by three matrices of this head, each d_model × d = {d_model} × {head_size}, giving three vectors of d = {head_size} numbers with three jobs:"
    )
}

/// A vector's entries as the page shows them (3 decimals).
pub fn vector_cells(values: &[f64]) -> Vec<String> {
    values.iter().map(|v| fixed(*v, 3)).collect()
}

/// Step 3's check that q, k and v are x times the head's columns of `W_q`, `W_k`, `W_v`.
pub fn qkv_check(row: &crate::model::trace::QkvRow) -> String {
    format!(
        "{} x·W_q, x·W_k and x·W_v recomputed here with an explicit loop (one dot product of x with each of the head's {} columns) equal row {} of the Q, K and V the attention used: largest difference {}.",
        check_mark(row.diff),
        row.q.len(),
        row.t + 1,
        scientific(row.diff, 1)
    )
}

/// A lab table cell for a variance: 2 decimals unscaled (it grows to about d), 3 scaled.
pub fn variance_cell(variance: f64, scaled: bool) -> String {
    fixed(variance, if scaled { 3 } else { 2 })
}

/// Step 4's variance readout for the selected head size (numbers as in the table).
pub fn variance_readout(point: &LabPoint) -> String {
    let d = point.head_size;
    format!(
        "Variance of q·k over the {} scores at d = {d}: {} unscaled (expected: d = {d}), {} scaled (expected: 1). Dividing every score by √d = {} divides the variance by d.",
        point.scores,
        variance_cell(point.variance_unscaled, false),
        variance_cell(point.variance_scaled, true),
        fixed((d as f64).sqrt(), 2)
    )
}

/// How `small` compares with `large`, in words ("3.2× less than"), for the gradient sentences.
fn times_less(large: f64, small: f64) -> String {
    let ratio = large / small;
    if !ratio.is_finite() || ratio > 1e6 {
        "vastly less than".to_string()
    } else if ratio >= 1.05 {
        format!("{}× less than", fixed(ratio, 1))
    } else if ratio > 1.0 / 1.05 {
        "about as much as".to_string()
    } else {
        format!("{}× more than", fixed(1.0 / ratio, 1))
    }
}

/// Step 4's reason: the softmax's Jacobian size, unscaled against scaled, at the selected d.
pub fn gradient_readout(point: &LabPoint) -> String {
    let d = point.head_size;
    let (u, s) = (point.jacobian_unscaled, point.jacobian_scaled);
    let reading = if d == 1 {
        "At d = 1, √d = 1, so scaling changes nothing.".to_string()
    } else {
        format!(
            "Without the scaling, a nudge to the scores moves the weights {} with it, and the gradient sent back to the scores is at most ‖J‖ times the one arriving at the weights: a nearly one-hot row passes almost none.",
            times_less(s, u)
        )
    };
    format!(
        "Every gradient that trains W_q and W_k reaches the scores through the softmax's Jacobian J = diag(p) − p pᵀ, the table of ∂ weight ÷ ∂ score. Its mean size ‖J‖ (root of the sum of its squared entries; 0 for a one-hot row, at most 0.5) at d = {d} is {} unscaled and {} scaled. {reading}",
        fixed(u, 3),
        fixed(s, 3)
    )
}

/// The same for the main view's selected row: ‖J‖ of row `t` of `head` at τ = 1 (`scaled`) and at
/// τ = 1/√d (`unscaled`).
pub fn row_gradient_text(token: &str, t: usize, head: usize, scaled: f64, unscaled: f64) -> String {
    format!(
        "The main view's row {} ({}) of head {}: ‖J‖ = {} scaled (τ = 1) and {} unscaled (τ = 1/√d), {}.",
        t + 1,
        quote(token),
        head + 1,
        fixed(scaled, 3),
        fixed(unscaled, 3),
        if unscaled == 0.0 && scaled == 0.0 {
            "both zero: a row that sees only itself has nothing to move".to_string()
        } else {
            format!(
                "so without the scaling its weights move {} with it",
                times_less(scaled, unscaled)
            )
        }
    )
}

/// The ×8 example's sentence: what multiplying the scores by 8 did to the top weight, and the check
/// that it is the unscaled softmax at d = 64.
pub fn times_eight_text(x: &crate::model::scaling_lab::TimesEight) -> String {
    let top = |w: &[f64]| w.iter().copied().fold(0.0, f64::max);
    let (before, after) = (top(&x.weights), top(&x.weights_times_eight));
    let shape = if after > NEARLY_ONE_HOT {
        format!("nearly one-hot (above {})", fixed(NEARLY_ONE_HOT, 2))
    } else {
        "much peakier".to_string()
    };
    format!(
        "Multiplying the same {KEYS} scores by 8 raises the largest weight from {} to {}: {shape}. {} At d = {}, leaving out ÷√d is exactly this ×8: softmax(8 × scaled scores) equals softmax(q·k), largest difference {}.",
        fixed(before, 3),
        fixed(after, 3),
        check_mark(x.diff_from_raw),
        crate::model::scaling_lab::TIMES_EIGHT_D,
        scientific(x.diff_from_raw, 1)
    )
}

// ---------------------------------------------------------------------------------------------
// "Break it" (issue 12): the mistakes' words, the banner and the damage, built from
// `model::broken`.
// ---------------------------------------------------------------------------------------------

/// A mistake's checkbox label.
pub fn mistake_label(m: Mistake) -> &'static str {
    match m {
        Mistake::ScaleByModelWidth => "Scale by √d_model instead of √d (the head size)",
        Mistake::MultiplyBySqrtD => "Multiply by √d instead of dividing",
        Mistake::MaskWithZero => "Mask with 0 instead of −∞",
        Mistake::MaskAfterSoftmax => "Mask after the softmax, without renormalising",
        Mistake::SoftmaxOverColumns => "Softmax over the columns instead of the rows",
        Mistake::WrongTriangle => "The wrong triangle: triu instead of tril",
        Mistake::Dropout => "Dropout on the weights (p = 0.1) at inference",
    }
}

/// Why a mistake is wrong, in one sentence.
pub fn mistake_why(m: Mistake) -> &'static str {
    match m {
        Mistake::ScaleByModelWidth => "A head's q·k adds up d products, so its spread grows like √d, not √d_model; with more than one head √d_model is larger, so the scores shrink and every row is at least as flat as correct attention's (with one head the two are the same).",
        Mistake::MultiplyBySqrtD => "Multiplying makes the scores d times those of correct attention, as if τ were divided by d, so every row is at least as peaked as correct attention's.",
        Mistake::MaskWithZero => "A score of 0 is an ordinary score, not a barrier: e⁰ = 1, so the future keeps a share of the weight; only −∞ gives e^(−∞) = 0.",
        Mistake::MaskAfterSoftmax => "The softmax has already handed weight to the future; zeroing it afterwards throws that share away, so every row that gave the future any weight sums to less than 1.",
        Mistake::SoftmaxOverColumns => "softmax(dim=0) normalises each key's column over the queries, so the columns sum to 1 and the rows, each query's share of attention, do not.",
        Mistake::WrongTriangle => "triu keeps the upper triangle, so each token attends to itself and the tokens after it while its past is hidden: it reads the very tokens it should predict.",
        Mistake::Dropout => "Dropout zeroes each weight with probability 0.1 and divides the rest by 0.9, as in training, so rows sum to 1 only on average; at inference it must be off.",
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
        Mistake::SoftmaxOverColumns => ("softmax(scores, dim=0)", "softmax(scores, dim=-1)"),
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

/// Plural helper: "1 row" / "3 rows".
fn count(n: usize, one: &str, many: &str) -> String {
    format!("{n} {}", if n == 1 { one } else { many })
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
    let (bm, cm) = (
        damage.mean(|r| r.broken_max),
        damage.mean(|r| r.correct_max),
    );
    let (be, ce) = (
        damage.mean(|r| r.broken_entropy),
        damage.mean(|r| r.correct_entropy),
    );
    let shape = if be < ce - 1e-9 {
        "the rows are peakier"
    } else if be > ce + 1e-9 {
        "the rows are flatter"
    } else {
        "the rows are as peaked as correct ones"
    };
    let rescaled = if off.is_empty() {
        ""
    } else {
        " (each row divided by its sum first)"
    };
    out.push(format!(
        "On average a row's largest weight is {} (correct: {}) and its entropy {} bits{rescaled} (correct: {} bits): by entropy, {shape}.",
        percent(bm),
        percent(cm),
        fixed(be, 3),
        fixed(ce, 3)
    ));
    if mistakes.contains(Mistake::SoftmaxOverColumns) {
        out.push(format!(
            "{} of {t} columns sum to 1, each key's weights over the queries; the table lists the column sums.",
            damage.columns_summing_to_one()
        ));
    }
    out
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

// ---------------------------------------------------------------------------------------------
// The training view (issue 13)
// ---------------------------------------------------------------------------------------------

/// What the training view shows: how many steps of which task made these weights, or, while it
/// trains, that it is training.
pub fn training_status(steps: usize, task: &str, running: bool) -> String {
    if running {
        // A live region: it changes when training starts and stops, not at every step (the
        // step counter is beside the buttons).
        return format!("Training on the {task} task in your browser…");
    }
    match steps {
        0 => format!(
            "Not trained yet: these are the seeded random starting weights for the {task} task. Press Train."
        ),
        1 => format!("Trained for 1 step on the {task} task; these weights were learned in your browser."),
        n => format!("Trained for {n} steps on the {task} task; these weights were learned in your browser."),
    }
}

/// The speed of the last stretch of training.
pub fn training_rate(steps_per_second: f64, tokens_per_step: usize) -> String {
    format!(
        "{} steps/s, {} tokens/s",
        fixed(steps_per_second, 1),
        grouped((steps_per_second * tokens_per_step as f64).round() as u64)
    )
}

/// What the loss chart's numbers mean, for a learner who has not met a loss: the loss of one
/// prediction, the mean the chart shows, and the score of an even guess over the task's `vocab`
/// tokens beside the run's own `start` (its step-0 evaluation), so the first point of the chart
/// can be read.
pub fn loss_explainer(vocab: usize, sequences: usize, start: Option<f64>) -> String {
    let even = (vocab as f64).ln();
    let start = start.map_or_else(String::new, |loss| {
        let relation = if loss > even {
            "worse than"
        } else if loss < even {
            "better than"
        } else {
            "the same as"
        };
        format!(
            " At step 0 the random starting weights score {} nats, {relation} that even guess.",
            fixed(loss, 3)
        )
    });
    format!(
        "The loss of one prediction is −ln p, where p is the probability the model gave the token that really came next: 0 if it was sure and right, ln\u{a0}2\u{a0}≈\u{a0}0.693 if it gave that token one half, and more the less it expected it. The chart shows its mean over every token predicted in {sequences} held-out sequences, kept apart from the training data, in nats (natural-log units). Spreading every guess evenly over the task's {vocab} tokens would score ln\u{a0}{vocab}\u{a0}≈\u{a0}{} nats.{start}",
        fixed(even, 3)
    )
}

/// The loss chart's accessible name, naming the grammar's achievable minimum when it is drawn.
/// `minimum`: the grammar's (`None` for the repeat task, whose chart has the loss's two halves);
/// `milestone`: the step the chart marks with a vertical line, if any.
pub fn loss_chart_label(minimum: Option<f64>, milestone: Option<Milestone>) -> String {
    let marker = milestone.map_or(String::new(), |m| {
        format!(
            ", and a dashed vertical line at step {}, where {}",
            m.step(),
            m.event()
        )
    });
    match minimum {
        Some(m) => format!(
            "Line chart of the held-out loss against training step, with the grammar's achievable minimum, {} nats, as a dashed line{marker}; the table below gives the values.",
            fixed(m, 3)
        ),
        None => format!(
            "Line chart of the held-out loss against training step, on all predicted tokens, on the first copy and on the repeated part{marker}; the table below gives the values."
        ),
    }
}

/// The step the loss chart marks with a vertical line.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Milestone {
    /// The repeat task: the first evaluation at which the copying circuit had formed.
    CircuitFormed(usize),
    /// The tiny grammar: the first evaluation within `NEAR_MINIMUM_PERCENT` of the minimum.
    NearMinimum(usize),
}

impl Milestone {
    pub fn step(self) -> usize {
        match self {
            Self::CircuitFormed(step) | Self::NearMinimum(step) => step,
        }
    }

    fn event(self) -> String {
        match self {
            Self::CircuitFormed(_) => "the copying circuit first formed".to_string(),
            Self::NearMinimum(_) => {
                format!("the loss first came within {NEAR_MINIMUM_PERCENT}% of the minimum")
            }
        }
    }

    /// Its legend entry.
    pub fn legend(self) -> String {
        match self {
            Self::CircuitFormed(step) => format!("copying circuit first formed (step {step})"),
            Self::NearMinimum(step) => {
                format!("first within {NEAR_MINIMUM_PERCENT}% of the minimum (step {step})")
            }
        }
    }
}

/// The tiny grammar's line under its loss curve: the exact floor (drawn dashed), how far the latest
/// held-out loss is from it, and the first evaluated step within [`NEAR_MINIMUM_PERCENT`] of it
/// (`first_within`, by [`crate::model::train::tasks::Grammar::near_minimum`]).
pub fn grammar_verdict(
    step: usize,
    loss: f64,
    minimum: f64,
    first_within: Option<usize>,
) -> String {
    let gap = loss / minimum - 1.0;
    let relation = if gap >= 0.0 {
        format!("{} above it", percent(gap))
    } else {
        // Held-out sentences are not the training sentences the floor averages over.
        format!(
            "{} below it (held-out sentences are not the training ones)",
            percent(-gap)
        )
    };
    let within = match first_within {
        Some(first) => {
            format!("It first came within {NEAR_MINIMUM_PERCENT}% of it at step {first}.")
        }
        None => format!("It has not come within {NEAR_MINIMUM_PERCENT}% of it yet."),
    };
    format!(
        "No model can average less than {} nats on the grammar's training sequences: its achievable minimum, computed exactly from the grammar's sentence probabilities (the dashed line). At step {step} the held-out loss is {} nats, {relation}. {within}",
        fixed(minimum, 3),
        fixed(loss, 3),
    )
}

/// `value` with `decimals` decimals, or with more where those would print it equal to `limit`
/// although it is not: a checklist must never read "0.70 (at least 0.70 needed)" beside "Not yet".
fn beside_limit(value: f64, limit: f64, decimals: u32) -> String {
    (decimals..=15)
        .map(|d| (fixed(value, d), fixed(limit, d)))
        .find(|(v, l)| value == limit || v != l)
        .map_or_else(|| fixed(value, 15), |(v, _)| v)
}

/// One condition of the copying circuit, as the page lists it.
#[derive(Debug, Clone, PartialEq)]
pub struct CircuitItem {
    pub met: bool,
    /// "Met", "Not yet", or "Not possible" (an induction head in a one-layer model).
    pub status: &'static str,
    pub text: String,
}

/// The repeat task's copying circuit at one evaluation, condition by condition: the head that
/// comes closest to each and the threshold it is measured against.
pub fn circuit_items(check: &CircuitCheck) -> [CircuitItem; 3] {
    let item = |met: bool, text: String| CircuitItem {
        met,
        status: if met { "Met" } else { "Not yet" },
        text,
    };
    let head = |role: &str, layer: usize, best: BestHead, min: f64| {
        format!(
            "{role} head in layer {layer}: head {} scores {} (at least {} needed).",
            best.head + 1,
            beside_limit(best.score, min, 2),
            fixed(min, 2)
        )
    };
    let induction = match check.induction {
        Some(best) => item(
            check.induction_met(),
            head("induction", 2, best, INDUCTION_MIN),
        ),
        None => CircuitItem {
            met: false,
            status: "Not possible",
            text: "induction head in layer 2: this model has one layer.".to_string(),
        },
    };
    [
        item(
            check.previous_token_met(),
            head("previous-token", 1, check.previous_token, PREVIOUS_TOKEN_MIN),
        ),
        induction,
        item(
            check.copying_met(),
            format!(
                "copying pays off: the loss on the repeated part is {}% of the first copy's (at most {}% needed).",
                beside_limit(check.repeat_ratio * 100.0, REPEAT_RATIO_MAX * 100.0, 1),
                fixed(REPEAT_RATIO_MAX * 100.0, 0)
            ),
        ),
    ]
}

/// The tiny grammar's subject–verb agreement at `step` ([`AgreementReport`]): how often the right
/// verb is the more probable one, over all the held-out agreement sentences and over those whose
/// nearer noun has the other number (where copying the nearer noun's number would be wrong), then
/// the head that weights the subject most from the nearer noun's row (the one that predicts the
/// verb), with what it puts on the nearer noun itself.
pub fn agreement_summary(step: usize, r: &AgreementReport) -> String {
    let counts = format!(
        "At step {step} the right verb is more probable than the wrong one in {} of {} held-out sentences ({}), and in {} of the {} whose nearer noun has the other number ({}).",
        r.correct,
        r.sentences,
        percent(r.accuracy()),
        r.mismatched_correct,
        r.mismatched,
        percent(r.mismatched_accuracy())
    );
    match r.subject_head() {
        Some((l, h)) => format!(
            "{counts} From the nearer noun's row, layer {}, head {} looks at the subject most: {} of its weight on average, against {} on the nearer noun itself.",
            l + 1,
            h + 1,
            fixed(r.subject_weight[l][h], 2),
            fixed(r.attractor_weight[l][h], 2)
        ),
        None => counts,
    }
}

/// What the checklist adds up to at the shown `step`, given the first evaluation of the run at
/// which all three conditions held (`first_formed`, possibly later than a replayed `step`).
pub fn circuit_summary(step: usize, check: &CircuitCheck, first_formed: Option<usize>) -> String {
    if check.formed() {
        return match first_formed {
            Some(first) if first < step => format!(
                "At step {step} the copying circuit has formed: all three conditions hold (they first did at the evaluation of step {first})."
            ),
            _ => format!(
                "At step {step} the copying circuit has formed: all three conditions hold, for the first time in this run."
            ),
        };
    }
    if check.induction.is_none() {
        return format!(
            "At step {step} the copying circuit cannot form: it takes two layers, a previous-token head in the first and an induction head in the second that reads its output. Choose 2 layers to watch it form."
        );
    }
    match first_formed {
        Some(first) if first > step => format!(
            "At step {step} the copying circuit has not formed yet; in this run it forms at the evaluation of step {first} (move Replay there)."
        ),
        Some(first) => format!(
            "At step {step} not all three conditions hold, though they did at the evaluation of step {first}."
        ),
        None => format!(
            "At step {step} the copying circuit has not formed yet: it counts as formed when all three conditions hold at one evaluation."
        ),
    }
}

/// Progress while a link's training is replayed.
pub fn retrain_progress(done: usize, target: usize) -> String {
    format!("Retraining to the link's step {target}: {done} of {target} steps done.")
}

/// The repeat task's verdict at the latest evaluation: the repeated part's loss as a share of
/// the first copy's, and whether the run counts as stuck (see `EvalPoint::stuck`).
pub fn repeat_verdict(step: usize, ratio: f64, stuck: bool) -> String {
    let share = percent(ratio);
    if stuck {
        format!(
            "Stuck: at step {step} the loss on the repeated part is still {share} of the first copy's (more than half). \
             The model found no way to copy; another seed usually does."
        )
    } else {
        format!("At step {step} the loss on the repeated part is {share} of the first copy's.")
    }
}

/// A loss on screen (three decimals); "–" where it does not apply.
pub fn loss_cell(loss: Option<f64>) -> String {
    loss.map_or_else(|| "–".to_string(), |l| fixed(l, 3))
}

/// A detector score on screen (two decimals); "–" where it does not apply.
pub fn score_cell(score: Option<f64>) -> String {
    score.map_or_else(|| "–".to_string(), |s| fixed(s, 2))
}

/// The replay slider's readout: which evaluated step the head grid and detector table show.
pub fn replay_readout(step: usize, latest: bool) -> String {
    if latest {
        format!("step {step} (latest evaluation)")
    } else {
        format!("step {step} (checkpoint)")
    }
}

/// What the replay timeline holds, from the trainer's [`Checkpoints`](crate::model::train::checkpoints::Checkpoints).
pub fn checkpoints_note(kept: usize, interval: usize, capacity: usize) -> String {
    let noun = if kept == 1 {
        "checkpoint"
    } else {
        "checkpoints"
    };
    format!(
        "{kept} {noun} kept, one every {interval} steps from step 0. At most {capacity} are kept: when the timeline is full, every second one is dropped and the interval doubles."
    )
}

/// The closer look's line under a row of a trained head: its largest weight and on which key
/// (first of equals), and the row's entropy; `row` holds the weights on keys 1 … i + 1.
pub fn closer_row_summary(tokens: &[String], row: &[f64]) -> String {
    let stats = row_stats(row);
    let spread = if row.len() == 1 {
        "the first row sees only its own key".to_string()
    } else {
        format!(
            "0 = one key, {} = evenly over all {}",
            fixed((row.len() as f64).log2(), 2),
            row.len()
        )
    };
    format!(
        "Largest weight {} on key {} {}; entropy {} bits ({spread}).",
        percent(stats.max_weight),
        stats.argmax + 1,
        quote(tokens.get(stats.argmax).map_or("", String::as_str)),
        fixed(stats.entropy_bits, 2),
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::explorer::{ModelConfig, Prepared};
    use crate::model::scaling_lab::{lab_point, LAB_SEED};
    use crate::model::temperature::unscaled_tau;
    use crate::model::tokenizer::tokenize;
    use crate::model::weights::DEFAULT_HEADS;

    /// The agreement lines: counts and shares as the report has them, and the head that weights the
    /// subject most named with both of its weights.
    #[test]
    fn agreement_lines_count_and_name_the_subject_s_head() {
        let report = AgreementReport {
            sentences: 64,
            correct: 62,
            mismatched: 32,
            mismatched_correct: 31,
            subject_weight: vec![vec![0.1, 0.624], vec![0.624, 0.3]],
            attractor_weight: vec![vec![0.5, 0.031], vec![0.2, 0.1]],
        };
        let counts = "At step 400 the right verb is more probable than the wrong one in 62 of 64 held-out sentences (96.9%), and in 31 of the 32 whose nearer noun has the other number (96.9%).";
        // A tie names the first head.
        assert_eq!(
            agreement_summary(400, &report),
            format!("{counts} From the nearer noun's row, layer 1, head 2 looks at the subject most: 0.62 of its weight on average, against 0.03 on the nearer noun itself.")
        );
        let empty = AgreementReport {
            subject_weight: vec![],
            attractor_weight: vec![],
            ..report
        };
        assert_eq!(agreement_summary(400, &empty), counts);
    }

    /// The copying circuit's checklist and summary (`CircuitCheck`): head numbers from 1, every
    /// number beside its threshold, never rounded onto it, and each way a run can stand.
    #[test]
    fn circuit_lines_say_which_head_and_how_far() {
        let check = |prev: f64, ind: Option<f64>, ratio: f64| CircuitCheck {
            previous_token: BestHead {
                head: 0,
                score: prev,
            },
            induction: ind.map(|score| BestHead { head: 1, score }),
            repeat_ratio: ratio,
        };
        let formed = check(0.851, Some(0.79), 0.214);
        let [previous, induction, copying] = circuit_items(&formed);
        assert_eq!(
            previous,
            CircuitItem {
                met: true,
                status: "Met",
                text: "previous-token head in layer 1: head 1 scores 0.85 (at least 0.70 needed)."
                    .into(),
            }
        );
        assert_eq!(
            induction.text,
            "induction head in layer 2: head 2 scores 0.79 (at least 0.50 needed)."
        );
        assert_eq!(
            copying.text,
            "copying pays off: the loss on the repeated part is 21.4% of the first copy's (at most 30% needed)."
        );
        // Just short of a threshold: more digits, so the number never reads as the limit.
        let close = check(0.6951, Some(0.499_999_9), 0.300_04);
        let items = circuit_items(&close);
        assert!(items.iter().all(|i| !i.met && i.status == "Not yet"));
        assert!(
            items[0].text.contains("scores 0.695 (at"),
            "{}",
            items[0].text
        );
        assert!(
            items[1].text.contains("scores 0.4999999 (at"),
            "{}",
            items[1].text
        );
        assert!(items[2].text.contains("is 30.004% of"), "{}", items[2].text);
        // Exactly on a threshold is met, and printed as the threshold.
        let on = circuit_items(&check(0.7, Some(0.5), 0.3));
        assert!(on.iter().all(|i| i.met));
        assert!(on[0].text.contains("scores 0.70 (at least 0.70 needed)"));
        let one_layer = check(0.9, None, 0.2);
        let items = circuit_items(&one_layer);
        assert_eq!((items[1].met, items[1].status), (false, "Not possible"));
        assert!(circuit_summary(300, &one_layer, None).contains("cannot form: it takes two layers"));
        assert_eq!(
            circuit_summary(1_200, &formed, Some(1_100)),
            "At step 1200 the copying circuit has formed: all three conditions hold (they first did at the evaluation of step 1100)."
        );
        assert!(circuit_summary(1_100, &formed, Some(1_100))
            .ends_with("for the first time in this run."));
        assert!(circuit_summary(500, &close, Some(1_100))
            .ends_with("in this run it forms at the evaluation of step 1100 (move Replay there)."));
        assert!(circuit_summary(1_500, &close, Some(1_100))
            .ends_with("though they did at the evaluation of step 1100."));
        assert!(circuit_summary(500, &close, None)
            .contains("has not formed yet: it counts as formed when"));
    }

    /// The page as it opens: "The cat sat on the mat .", seed 1337, two heads of 16.
    fn default_model() -> Prepared {
        crate::model::explorer::default_view(DEFAULT_HEADS, false)
    }

    #[test]
    fn quotes_and_temperatures() {
        assert_eq!(quote("cat"), "“cat”");
        assert_eq!(format_tau(0.01), "0.010");
        assert_eq!(format_tau(0.25), "0.250");
        assert_eq!(format_tau(1.0), "1.00");
        assert_eq!(format_tau(9.999), "10.00");
        assert_eq!(format_tau(10.0), "10.0");
        assert_eq!(format_tau(100.0), "100.0");
    }

    /// The rows (after the first) of `w` whose largest weight is above 95 %, counted here
    /// without `HeadShape`, to check the sentences against.
    fn nearly_one_hot_by_hand(w: &DMatrix<f64>) -> usize {
        (1..w.nrows())
            .filter(|&i| (0..=i).any(|j| w[(i, j)] > 0.95))
            .count()
    }

    #[test]
    fn regime_sentences() {
        let p = default_model();
        let d = p.head_size();
        let said = |tau: f64, head: usize| {
            let w = p.heads[head].weights(tau);
            regime_sentence(Regime::of(tau, d), tau, d, &HeadShape::of(&w))
        };
        // The issue's own count at τ = 1/√d: 3 of 6 rows of head 1 and 1 of 6 of head 2 pass 0.95.
        assert!(said(unscaled_tau(d), 0).starts_with(
            "τ = 1/√16: exactly attention without the 1/√d scaling. Scores are 4.00× larger than at τ = 1, so every row is at least as peaked as there. In this head 3 of the 6 rows that see more than one key put over 95.0% of their weight on one key"
        ));
        assert!(said(unscaled_tau(d), 1).contains(" 1 of the 6 rows "));
        assert!(said(0.01, 0).starts_with("Colder than unscaled attention. As τ → 0"));
        assert!(said(0.5, 0).starts_with(
            "Between unscaled and standard: every row is at least as peaked as at τ = 1"
        ));
        assert!(said(1.0, 0)
            .starts_with("τ = 1: standard scaled attention, softmax(QKᵀ/√d). In this head"));
        assert!(said(2.0, 0).starts_with(
            "Hotter than standard: rows flatten toward the plain average of the past, where row t gives each of its t tokens 1/t."
        ));
        let one = HeadShape::of(&DMatrix::from_element(1, 1, 1.0));
        assert!(regime_sentence(Regime::Scaled, 1.0, 16, &one)
            .ends_with("The only row sees only its own token, so it is always 100 % on it."));
    }

    /// Every count a regime sentence states equals the live model's, for 1, 2, 4 and 8 heads,
    /// positions on and off, across the slider (the counts are recomputed here by hand).
    #[test]
    fn regime_counts_match_the_model_everywhere() {
        use crate::model::temperature::{SLIDER_MAX_TAU, SLIDER_MIN_TAU};
        use crate::model::weights::HEAD_CHOICES;
        for heads in HEAD_CHOICES {
            for positions in [false, true] {
                let p = crate::model::explorer::default_view(heads, positions);
                let d = p.head_size();
                for step in 0..=40 {
                    let tau = SLIDER_MIN_TAU * 10f64.powf(f64::from(step) * 0.1);
                    assert!(tau <= SLIDER_MAX_TAU * 1.000_001);
                    for head in &p.heads {
                        let w = head.weights(tau);
                        let text = regime_sentence(Regime::of(tau, d), tau, d, &HeadShape::of(&w));
                        let expected = format!(" {} of the 6 rows ", nearly_one_hot_by_hand(&w));
                        assert!(text.contains(&expected), "{heads} heads, τ {tau}: {text}");
                        let tied = (1..w.nrows())
                            .filter(|&i| {
                                let max = (0..=i).map(|j| w[(i, j)]).fold(0.0, f64::max);
                                (0..=i).filter(|&j| max - w[(i, j)] < 1e-12).count() > 1
                            })
                            .count();
                        if tied == 0 {
                            assert!(!text.contains("tied"), "{text}");
                        } else {
                            assert!(
                                text.contains(&format!(" {tied} of them split"))
                                    || text.contains(" 1 of them splits"),
                                "{text}"
                            );
                        }
                        if positions {
                            assert_eq!(tied, 0, "positions break the The/the tie");
                        }
                    }
                }
            }
        }
    }

    #[test]
    fn heatmap_text_for_the_default_view() {
        let p = default_model();
        let w = p.weights_all(1.0).swap_remove(0);
        let tokens = &p.config.tokens;
        assert_eq!(
            heatmap_label("Head 1 attention weights", 7),
            "Head 1 attention weights: 7 query tokens by 7 key tokens; colour shows attention weight, grey cells are the masked future."
        );
        assert_eq!(
            cell_description(tokens, &w, 1, 2),
            "cat → sat: masked (future)"
        );
        assert_eq!(cell_description(tokens, &w, 5, 1), "mat → cat: 5.7%");
        assert_eq!(cell_description(tokens, &w, 0, 0), "The → The: 100.0%");
        assert_eq!(
            row_summary(tokens, &w, 0),
            "Row 1 “The” attends most to “The” (100.0%)."
        );
        assert_eq!(
            row_summary(tokens, &w, 5),
            "Row 6 “mat” attends most to “sat” (35.5%)."
        );
        assert_eq!(
            row_summary(tokens, &w, 6),
            "Row 7 “.” attends most to “on” (59.1%)."
        );
        let hot = p.weights_all(1e4).swap_remove(0);
        assert_eq!(
            row_summary(tokens, &crate::model::attention::averaging_matrix(7), 3),
            "Row 4 “on” spreads its attention evenly: 25.0% on each of its 4 tokens."
        );
        // A hot row is not exactly even, so it names its (barely) largest weight.
        assert_eq!(
            row_summary(tokens, &hot, 3),
            "Row 4 “on” attends most to “sat” (25.0%)."
        );
    }

    #[test]
    fn row_glance_adds_the_rows_entropy() {
        let p = default_model();
        let w = p.weights_all(1.0).swap_remove(0);
        let tokens = &p.config.tokens;
        // The first token can attend only to itself: all its weight, zero bits.
        assert_eq!(
            row_glance(tokens, &w, 0),
            "Row 1 “The” attends most to “The” (100.0%). Entropy 0.000 bits."
        );
        // Row 6: −Σ w·log₂ w recomputed here from the matrix, not through row_stats.
        let bits: f64 = (0..6).map(|j| w[(5, j)]).map(|x| -x * x.log2()).sum();
        assert_eq!(
            row_glance(tokens, &w, 5),
            format!(
                "Row 6 “mat” attends most to “sat” (35.5%). Entropy {} bits.",
                fixed(bits, 3)
            )
        );
        // Uniform rows: log₂ of the row's length.
        assert_eq!(
            row_glance(tokens, &crate::model::attention::averaging_matrix(7), 3),
            "Row 4 “on” spreads its attention evenly: 25.0% on each of its 4 tokens. Entropy 2.000 bits."
        );
    }

    /// Tied top keys are all named: without positions "The" and "the" share a key, and at
    /// τ = 0.01 head 2's rows "the" and "." split their weight between them (as the issue found).
    #[test]
    fn row_summaries_name_every_tied_top_key() {
        let p = default_model();
        let w = p.heads[1].weights(0.01);
        let tokens = &p.config.tokens;
        for i in [4, 6] {
            assert_eq!(w[(i, 0)], w[(i, 4)]);
            let said = row_summary(tokens, &w, i);
            assert!(
                said.contains("attends most to “The” and “the” (") && said.ends_with("% each)."),
                "{said}"
            );
            let row: Vec<f64> = (0..=i).map(|j| w[(i, j)]).collect();
            assert!(bar_chart_label(tokens, i, &row)
                .contains("the largest bars are “The” and “the” at "));
        }
        assert_eq!(quoted_list(["a", "b", "c"]), "“a”, “b” and “c”");
    }

    #[test]
    fn positions_help_names_the_repeated_pair() {
        let p = default_model();
        let tokens = &p.config.tokens;
        let pair = crate::model::claims::first_repeated_word(tokens, str::to_lowercase);
        assert!(positions_help(false, tokens, pair)
            .contains("So “The” (token 1) and “the” (token 5) get identical keys and values, and every row that sees both gives them exactly the same weight."));
        assert!(positions_help(true, tokens, pair)
            .contains("so “The” (token 1) and “the” (token 5) now get different keys"));
        let plain = tokenize("a b c");
        assert!(positions_help(false, &plain, None)
            .contains("a repeated word would get identical keys"));
        assert!(weights_note(&Weights::Random, 42).contains("are random (seed 42), so which word"));
        assert!(weights_note_short(&Weights::Random, 42).contains("random weights (seed 42)"));
    }

    #[test]
    fn inspector_text_for_the_default_view() {
        let p = default_model();
        let w = p.weights_all(1.0).swap_remove(0);
        let row: Vec<f64> = (0..=5).map(|j| w[(5, j)]).collect();
        let s = row_stats(&row);
        let tokens = &p.config.tokens;
        assert_eq!(
            bar_chart_label(tokens, 5, &row),
            "Bar chart of the attention of “mat” (row 6) over every key token; the largest bar is “sat” at 35.5%. The table below lists every value."
        );
        assert_eq!(entropy_text(s.entropy_bits), "2.249 bits");
        assert_eq!(effective_tokens_text(s.effective_tokens, 6), "4.75 of 6");
    }

    #[test]
    fn averaging_text() {
        let p = default_model();
        let tokens = &p.config.tokens;
        assert_eq!(
            averaging_row(tokens, 2),
            "Row 3 (“sat”) takes 33.3% from each of its 3 visible tokens. Attention keeps this triangle but lets the data choose the shares."
        );
        assert_eq!(
            averaging_row(tokens, 9),
            "Row 10 (“”) takes 10.0% from each of its 10 visible tokens. Attention keeps this triangle but lets the data choose the shares."
        );
        let wei = crate::model::attention::averaging_matrix(p.len());
        let diff = crate::model::attention::averaging_error(&wei, &p.x);
        assert_eq!(
            averaging_check(diff),
            format!(
                "✓ wei · X equals the running mean computed with a loop: largest difference {}.",
                scientific(diff, 1)
            )
        );
        assert_eq!(
            averaging_check(0.0),
            "✓ wei · X equals the running mean computed with a loop: largest difference 0.0e0."
        );
        assert_eq!(
            averaging_check(2e-12),
            "✗ wei · X equals the running mean computed with a loop: largest difference 2.0e-12."
        );
    }

    #[test]
    fn trace_text_for_the_default_view() {
        let p = default_model();
        let head = &p.heads[0];
        let trace = RowTrace::new(head, &head.weights(0.5), 5, 0.5);
        assert_eq!(
            trace_caption("mat", &trace, 0),
            "Trace of “mat” (row 6), head 1, d = 16, τ = 0.500"
        );
        assert_eq!(trace_sqrt_d_heading(&trace), "÷ √d (= 4.00)");
        assert_eq!(
            trace_cells(&trace, 1),
            ["-2.380", "-0.595", "-1.190", "-1.190", "0.0130"].map(String::from)
        );
        assert_eq!(
            trace_cells(&trace, 6),
            ["-2.400", "-0.600", "-1.200", "−∞", "0 (masked)"].map(String::from)
        );
        assert_eq!(trace_sum(&trace), "1.000000000000");
        assert_eq!(
            trace_check(&trace),
            format!(
                "✓ Σ w·v equals row 6 of A·V: largest difference {}.",
                scientific(trace.diff, 1)
            )
        );
        let off = RowTrace {
            diff: 3e-9,
            ..trace
        };
        assert_eq!(
            trace_check(&off),
            "✗ Σ w·v equals row 6 of A·V: largest difference 3.0e-9."
        );
    }

    #[test]
    fn lab_text() {
        assert_eq!(
            lab_caption(),
            "Largest softmax weight over 8 keys (mean, 10th–90th percentile)"
        );
        let points = crate::model::scaling_lab::scaling_lab(DRAWS, LAB_SEED);
        let said = notebook_draws(&points);
        assert!(said.starts_with(
            "Quoted from the notebook, not computed here (one random draw each): at d = 16, 0.87 unscaled and 0.32 scaled; at d = 256, 0.94 unscaled and 0.24 scaled. 2 of these 2 pairs lie inside this page's 10–90 % bands at their d."
        ), "{said}");
        // The stated range of scaled means is the lab's, and it is narrow enough to call flat.
        let means: Vec<f64> = points.iter().map(|p| p.scaled.mean).collect();
        let lo = means.iter().copied().fold(f64::INFINITY, f64::min);
        let hi = means.iter().copied().fold(f64::NEG_INFINITY, f64::max);
        assert!(said.contains(&format!(
            "between {} and {} at every head size from 1 to 512",
            fixed(lo, 2),
            fixed(hi, 2)
        )));
        assert!(hi - lo < 0.1, "{lo}–{hi}");
        assert!(said.ends_with("differ by the luck of single draws, not by a trend."));
        let p = lab_point(16, DRAWS, LAB_SEED);
        assert_eq!(
            lab_readout(&p),
            "At d = 16: unscaled 0.75 (10–90 %: 0.46–0.99), scaled 0.35 (10–90 %: 0.23–0.52) over 1000 draws."
        );
        assert_eq!(lab_cell(&p.unscaled), "0.746 (0.46–0.99)");
        assert_eq!(lab_cell(&p.scaled), "0.355 (0.23–0.52)");
        let spread = Spread {
            mean: 0.3456,
            p10: 0.2,
            p90: 0.555,
        };
        assert_eq!(lab_cell(&spread), "0.346 (0.20–0.56)");
    }

    #[test]
    fn every_step_has_a_title_a_place_and_one_opening_sentence() {
        let positions: Vec<String> = Step::ALL.into_iter().map(step_position).collect();
        assert_eq!(
            positions,
            [
                "Step 1 of 6",
                "Step 2 of 6",
                "Step 3 of 6",
                "Step 4 of 6",
                "Step 5 of 6",
                "Step 6 of 6"
            ]
        );
        assert_eq!(step_tab(Step::Attention), "3 · Queries, keys, values");
        for step in Step::ALL {
            let adds = step_adds(step);
            // One sentence, naming its own step number.
            assert!(
                adds.starts_with(&format!("Step {} ", step.number())),
                "{adds}"
            );
            assert_eq!(adds.matches(". ").count(), 0, "{adds}");
            assert!(adds.ends_with('.'), "{adds}");
            assert!(!step_title(step).is_empty());
        }
        let titles: std::collections::HashSet<&str> =
            Step::ALL.into_iter().map(step_title).collect();
        assert_eq!(titles.len(), 6, "titles are distinct");
    }

    #[test]
    fn softmax_step_text() {
        use crate::model::attention::averaging_matrix;
        use crate::model::masked_average::{bit_identical, largest_gap, zero_score_softmax};
        let (zeros, wei) = (zero_score_softmax(7), averaging_matrix(7));
        assert_eq!(
            zero_scores_check(largest_gap(&zeros, &wei), bit_identical(&zeros, &wei)),
            "✓ softmax of the masked zero scores equals wei bit for bit (largest difference 0)."
        );
        assert_eq!(
            zero_scores_check(3e-17, false),
            "✓ softmax of the masked zero scores equals wei: largest difference 3.0e-17."
        );
        let p = default_model();
        let gap = largest_gap(&p.heads[0].weights(100.0), &wei);
        assert_eq!(
            live_gap(100.0, 0, gap),
            format!(
                "With the live scores of head 1 at τ = 100.0: largest |A(τ) − wei| = {}.",
                scientific(gap, 2)
            )
        );
    }

    #[test]
    fn positions_step_text() {
        use crate::model::positions::shuffle_the_past;
        let p = default_model();
        let tokens = &p.config.tokens;
        // Off: the scores never move; the sentence says "bit-identical" only if the weights are.
        for seed in 0..6 {
            let cmp = shuffle_the_past(&p.config, 0, 1.0, 5, seed);
            let said = shuffle_check(&cmp);
            assert!(said.starts_with("✓ Every key kept its score"), "{said}");
            assert_eq!(
                said.contains("bit-identical"),
                cmp.bit_identical(),
                "{said}"
            );
        }
        let on = crate::model::explorer::ModelConfig {
            positions: true,
            ..p.config.clone()
        };
        let cmp = shuffle_the_past(&on, 0, 1.0, 5, 0);
        let said = shuffle_check(&cmp);
        assert!(
            said.starts_with("The row changed: the largest change of a key's weight is "),
            "{said}"
        );
        assert!(said.ends_with(&format!(
            "{} percentage points.",
            fixed(cmp.largest_change() * 100.0, 2)
        )));

        let w = p.heads[0].weights(1.0);
        let row: Vec<f64> = (0..=5).map(|j| w[(5, j)]).collect();
        assert_eq!(w[(5, 0)], w[(5, 4)]);
        assert_eq!(
            pair_in_row(tokens, 5, &row, (0, 4)),
            format!(
                "Row 6 “mat” gives “The” (token 1) and “the” (token 5) exactly the same weight, {} each.",
                percent(row[0])
            )
        );
        assert_eq!(
            pair_in_row(tokens, 2, &row[..3], (0, 4)),
            "Row 3 “sat” does not see both “The” and “the”; pick row 5 or later to compare them."
        );
        let uneven = [0.1, 0.2, 0.3, 0.15, 0.25];
        assert!(pair_in_row(tokens, 4, &uneven, (0, 4))
            .ends_with("different weights: 10.0% and 25.0%."));
    }

    #[test]
    fn heads_text_for_every_split() {
        assert!(heads_intro(false).contains("random patterns, not specialisations"));
        assert!(heads_intro(true).contains("each head's pattern was learned"));
        assert_eq!(
            heads_split(1, 32, 32),
            "This view has 1 head of d = d_model = 32: one attention over all 32 columns, so the concatenation below is that head's output itself. Choose 2, 4 or 8 heads to split it."
        );
        for heads in [2, 4, 8] {
            let p = Prepared::new(ModelConfig {
                heads,
                ..default_model().config
            });
            let d = p.head_size();
            assert_eq!(d * heads, p.d_model);
            let said = heads_split(heads, d, p.d_model);
            assert!(said.starts_with(&format!(
                "This view has h = {heads} heads of d = d_model / h = 32 / {heads} = {}: ",
                32 / heads
            )));
            assert!(said.contains(&format!("head 1 taking columns 1–{}", 32 / heads)));
            // The claim "as many multiplications as one head of d_model", counted: projections
            // 3·T·d_model·d per head, scores T·T·d, A·V T·T·d.
            let t = p.len();
            let per_head = 3 * t * p.d_model * d + 2 * t * t * d;
            let one_head = 3 * t * p.d_model * p.d_model + 2 * t * t * p.d_model;
            assert_eq!(heads * per_head, one_head);
            let shapes = heads_shapes(t, heads, d, p.d_model, false);
            assert!(shapes.contains("random (seeded) and untrained"));
            assert!(heads_shapes(t, heads, d, p.d_model, true).contains("trained together with"));
            assert!(shapes.contains(&format!("T × d = 7 × {}", 32 / heads)));
            assert!(shapes.contains("concat, T × d_model = 7 × 32"));
            assert!(shapes.contains("W_o, d_model × d_model = 32 × 32"));
            assert_eq!(p.projections.w_o.shape(), (32, 32));
        }
        assert_eq!(
            heads_row_heading("on", 3, 4, 8, 32),
            "Row 4 (“on”): one strip per head (4 rows of 8 numbers) → the concatenated row (32 numbers) → · W_o → the layer's output row (32 numbers). Orange is positive, blue negative."
        );
        assert!(heads_row_heading("The", 0, 1, 32, 32)
            .starts_with("Row 1 (“The”): the head's output row (32 numbers) → "));
        assert_eq!(heads_strip_label(0), "head 1");
        assert_eq!(heads_strip_name(7, 2), "head 8 output, row 3");
        assert_eq!(concat_strip_name(0), "concat, row 1");
        assert_eq!(
            layer_output_strip_name(6),
            "layer output (concat · W_o), row 7"
        );
        let note = heads_article_note();
        assert!(note.starts_with("About the NumPy article (its code, not computed here)"));
        assert!(note.contains("T × h·d_model"));
    }

    #[test]
    fn heads_checks_state_the_computed_differences() {
        use crate::model::multihead::HeadsRow;
        for heads in [1, 2, 4, 8] {
            let p = Prepared::new(ModelConfig {
                heads,
                ..default_model().config
            });
            let weights = p.weights_all(1.0);
            let refs: Vec<&DMatrix<f64>> = weights.iter().collect();
            for t in 0..p.len() {
                let row = HeadsRow::new(&p, &refs, t);
                // Both routes agree to rounding, so both checks pass and print the difference.
                assert!(row.diff < 1e-12 && row.sum_diff < 1e-12);
                assert_eq!(
                    heads_check(&row),
                    format!(
                        "✓ concat · W_o equals the layer output: largest difference {} between row {} of the matrix product and the same row summed entry by entry.",
                        scientific(row.diff, 1),
                        t + 1
                    )
                );
                assert_eq!(
                    heads_sum_check(&row),
                    format!(
                        "✓ Each head's row times its own d rows of W_o, added over the heads, gives the same output row: largest difference {}.",
                        scientific(row.sum_diff, 1)
                    )
                );
            }
        }
        // A disagreement is reported as one.
        let p = default_model();
        let weights = p.weights_all(1.0);
        let refs: Vec<&DMatrix<f64>> = weights.iter().collect();
        let mut row = HeadsRow::new(&p, &refs, 2);
        row.diff = 0.25;
        row.sum_diff = 0.5;
        assert!(heads_check(&row)
            .starts_with("✗ concat · W_o equals the layer output: largest difference 2.5e-1 "));
        assert!(heads_sum_check(&row).starts_with("✗ "));
    }

    #[test]
    fn the_glossary_defines_every_symbol_with_live_sizes() {
        let g = glossary(7, 32, 2, false);
        let symbols: Vec<&str> = g.iter().map(|(s, _)| *s).collect();
        for s in [
            "T",
            "X",
            "d_model",
            "d",
            "W_q, W_k, W_v",
            "Q, K, V",
            "A",
            "scores",
            "entropy (bits)",
            "effective tokens",
        ] {
            assert!(symbols.contains(&s), "{s} missing");
        }
        let def = |s: &str| g.iter().find(|(k, _)| *k == s).unwrap().1.clone();
        assert!(def("T").contains("here 7"));
        assert!(def("d").contains("32 ÷ 2 = 16"));
        assert!(def("W_q, W_k, W_v").contains("32 × 16"));
        let trained = glossary(7, 32, 2, true);
        assert!(trained
            .iter()
            .any(|(k, v)| *k == "W_q, W_k, W_v"
                && v.ends_with("Trained here (the grammar checkpoint).")));
        assert!(glossary(7, 32, 8, false)
            .iter()
            .any(|(k, v)| *k == "d" && v.contains("32 ÷ 8 = 4")));
        for (_, text) in &g {
            assert!(!text.to_lowercase().contains("logit"), "{text}");
        }
    }

    #[test]
    fn step_three_shows_q_k_v_and_their_check() {
        use crate::model::trace::QkvRow;
        let p = Prepared::new(ModelConfig {
            tokens: crate::model::tokenizer::tokenize("The cat sat on the mat ."),
            seed: crate::model::weights::DEFAULT_SEED,
            heads: 2,
            positions: false,
        });
        let row = QkvRow::new(&p, 0, 4);
        let said = qkv_check(&row);
        assert!(
            said.starts_with("✓ x·W_q, x·W_k and x·W_v recomputed"),
            "{said}"
        );
        assert!(said.contains("each of the head's 16 columns") && said.contains("row 5 "));
        assert!(qkv_intro(32, 16).contains("d_model × d = 32 × 16"));
        assert_eq!(
            vector_cells(&[0.12345, -1.0, 2.0005]),
            ["0.123", "-1.000", "2.001"]
        );
        let mut wrong = row.clone();
        wrong.diff = 1e-6;
        assert!(qkv_check(&wrong).starts_with("✗"));
    }

    #[test]
    fn step_four_variance_gradient_and_times_eight() {
        use crate::model::scaling_lab::{times_eight, TIMES_EIGHT_D};
        let p = lab_point(16, DRAWS, LAB_SEED);
        let said = variance_readout(&p);
        assert!(said.starts_with(&format!(
            "Variance of q·k over the 8000 scores at d = 16: {} unscaled (expected: d = 16), {} scaled (expected: 1).",
            fixed(p.variance_unscaled, 2),
            fixed(p.variance_scaled, 3)
        )), "{said}");
        assert!(said.ends_with("√d = 4.00 divides the variance by d."));
        // The readout's two numbers stand in the relation it states, at their precision.
        assert!((p.variance_unscaled / 16.0 - p.variance_scaled).abs() < 1e-12);

        let p256 = lab_point(256, DRAWS, LAB_SEED);
        let said = gradient_readout(&p256);
        let ratio = p256.jacobian_scaled / p256.jacobian_unscaled;
        assert!(ratio > 1.05, "{ratio}");
        assert!(
            said.contains(&format!(
                "at d = 256 is {} unscaled and {} scaled.",
                fixed(p256.jacobian_unscaled, 3),
                fixed(p256.jacobian_scaled, 3)
            )),
            "{said}"
        );
        assert!(said.contains(&format!(
            "moves the weights {}× less than with it",
            fixed(ratio, 1)
        )));
        assert!(
            gradient_readout(&lab_point(1, 100, LAB_SEED)).ends_with("scaling changes nothing.")
        );
        assert_eq!(times_less(1.0, 1.0), "about as much as");
        assert_eq!(times_less(1.0, 2.0), "2.0× more than");
        assert_eq!(times_less(1.0, 0.0), "vastly less than");
        assert_eq!(
            row_gradient_text("The", 0, 1, 0.0, 0.0),
            "The main view's row 1 (“The”) of head 2: ‖J‖ = 0.000 scaled (τ = 1) and 0.000 unscaled (τ = 1/√d), both zero: a row that sees only itself has nothing to move."
        );
        assert!(row_gradient_text("on", 3, 0, 0.3, 0.1)
            .ends_with("so without the scaling its weights move 3.0× less than with it."));

        let x = times_eight(LAB_SEED);
        let said = times_eight_text(&x);
        let top = |w: &[f64]| w.iter().copied().fold(0.0, f64::max);
        assert!(
            said.starts_with(&format!(
                "Multiplying the same 8 scores by 8 raises the largest weight from {} to {}: ",
                fixed(top(&x.weights), 3),
                fixed(top(&x.weights_times_eight), 3)
            )),
            "{said}"
        );
        assert_eq!(
            said.contains("nearly one-hot"),
            top(&x.weights_times_eight) > NEARLY_ONE_HOT
        );
        assert!(said.contains(&format!("✓ At d = {TIMES_EIGHT_D}, leaving out")));
    }

    #[test]
    fn training_sentences_say_what_is_shown() {
        assert!(training_status(0, "tiny grammar", false).starts_with("Not trained yet"));
        assert_eq!(
            training_status(40, "repeat", true),
            "Training on the repeat task in your browser…"
        );
        assert_eq!(
            training_status(1, "tiny grammar", false),
            "Trained for 1 step on the tiny grammar task; these weights were learned in your browser."
        );
        assert!(training_status(250, "repeat", false)
            .starts_with("Trained for 250 steps on the repeat task"));
        assert_eq!(training_rate(12.34, 256), "12.3 steps/s, 3,159 tokens/s");
        assert_eq!(
            loss_explainer(32, 64, Some(4.4371)),
            "The loss of one prediction is −ln p, where p is the probability the model gave the token that really came next: 0 if it was sure and right, ln\u{a0}2\u{a0}≈\u{a0}0.693 if it gave that token one half, and more the less it expected it. The chart shows its mean over every token predicted in 64 held-out sequences, kept apart from the training data, in nats (natural-log units). Spreading every guess evenly over the task's 32 tokens would score ln\u{a0}32\u{a0}≈\u{a0}3.466 nats. At step 0 the random starting weights score 4.437 nats, worse than that even guess."
        );
        assert!(loss_explainer(29, 64, Some(3.0))
            .ends_with("29 tokens would score ln\u{a0}29\u{a0}≈\u{a0}3.367 nats. At step 0 the random starting weights score 3.000 nats, better than that even guess."));
        assert!(loss_explainer(29, 64, None).ends_with("ln\u{a0}29\u{a0}≈\u{a0}3.367 nats."));
        assert!(loss_chart_label(None, None)
            .ends_with("and on the repeated part; the table below gives the values."));
        assert!(loss_chart_label(None, Some(Milestone::CircuitFormed(1100))).contains(
            "on the repeated part, and a dashed vertical line at step 1100, where the copying circuit first formed;"
        ));
        assert!(loss_chart_label(Some(1.2907), None)
            .ends_with("1.291 nats, as a dashed line; the table below gives the values."));
        assert!(loss_chart_label(Some(1.2907), Some(Milestone::NearMinimum(125))).contains(
            "1.291 nats, as a dashed line, and a dashed vertical line at step 125, where the loss first came within 10% of the minimum;"
        ));
        assert_eq!(
            Milestone::CircuitFormed(825).legend(),
            "copying circuit first formed (step 825)"
        );
        assert_eq!(
            Milestone::NearMinimum(125).legend(),
            "first within 10% of the minimum (step 125)"
        );
        assert_eq!(
            grammar_verdict(200, 1.35, 1.290_759_4, Some(175)),
            "No model can average less than 1.291 nats on the grammar's training sequences: its achievable minimum, computed exactly from the grammar's sentence probabilities (the dashed line). At step 200 the held-out loss is 1.350 nats, 4.6% above it. It first came within 10% of it at step 175."
        );
        assert!(grammar_verdict(0, 3.0, 1.29, None)
            .ends_with("132.6% above it. It has not come within 10% of it yet."));
        assert!(grammar_verdict(900, 1.2, 1.25, Some(150))
            .contains("1.200 nats, 4.0% below it (held-out"));
        assert_eq!(
            retrain_progress(50, 200),
            "Retraining to the link's step 200: 50 of 200 steps done."
        );
        assert!(repeat_verdict(2_500, 0.8, true).starts_with("Stuck: at step 2500"));
        assert!(repeat_verdict(2_500, 0.8, true).contains(&percent(0.8)));
        assert_eq!(
            repeat_verdict(900, 0.25, false),
            format!(
                "At step 900 the loss on the repeated part is {} of the first copy's.",
                percent(0.25)
            )
        );
        assert_eq!(score_cell(None), "–");
        assert_eq!(
            (loss_cell(None), loss_cell(Some(3.46571))),
            ("–".into(), "3.466".into())
        );
        assert_eq!(score_cell(Some(0.256)), "0.26");
        assert_eq!(replay_readout(50, false), "step 50 (checkpoint)");
        assert_eq!(replay_readout(75, true), "step 75 (latest evaluation)");
        assert!(checkpoints_note(1, 25, 64).starts_with("1 checkpoint kept, one every 25 steps"));
        assert!(checkpoints_note(33, 50, 64).starts_with("33 checkpoints kept, one every 50 steps"));
    }

    #[test]
    fn checkpoints_note_matches_a_real_timeline() {
        use crate::model::train::checkpoints::Checkpoints;
        let mut c = Checkpoints::new(64, 25);
        for step in (0..=1_600).step_by(25) {
            c.offer(step, || ());
        }
        assert_eq!(
            checkpoints_note(c.kept().len(), c.interval(), 64),
            "33 checkpoints kept, one every 50 steps from step 0. At most 64 are kept: when the timeline is full, every second one is dropped and the interval doubles."
        );
    }
}

#[cfg(test)]
mod break_it_tests {
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
            .any(|s| s.ends_with("by entropy, the rows are as peaked as correct ones.")));
        let two = sentences(
            &default_view(2, false),
            set(&[Mistake::ScaleByModelWidth]),
            0,
            1.0,
        );
        assert!(two[0].starts_with("The largest change of any weight is "));
        assert!(
            two.iter()
                .any(|s| s.ends_with("by entropy, the rows are flatter.")),
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
        assert_eq!(signed(1e-6), "+1.0e-6");
    }
}

// ---------------------------------------------------------------------------------------------
// Figures and the compare view (issue 12): captions built from the view's settings.
// ---------------------------------------------------------------------------------------------

/// A view's settings in one line: sentence, seed, head, τ, positions and any "Break it" switch.
pub fn figure_caption(
    sentence: &str,
    seed: u64,
    (head, heads): (usize, usize),
    tau: f64,
    positions: bool,
    broken: Mistakes,
) -> String {
    let mut s = format!(
        "{} · seed {seed} · head {} of {heads} · τ = {} · positions {}",
        quote(sentence),
        head + 1,
        format_tau(tau),
        if positions { "on" } else { "off" }
    );
    if !broken.is_empty() {
        let names: Vec<&str> = broken.iter().map(mistake_label).collect();
        s.push_str(" · BROKEN: ");
        s.push_str(&names.join("; "));
    }
    s
}

/// What setting B changes, against setting A, in one sentence.
pub fn change_sentence(change: &Change, a: &ViewState) -> String {
    match change {
        Change::Tau(tau) => format!(
            "B uses τ = {} instead of A's {}.",
            format_tau(*tau),
            format_tau(a.tau)
        ),
        Change::Seed(seed) => format!("B uses seed {seed} instead of A's {}.", a.seed),
        Change::Positions => format!(
            "B has positions {} (A has them {}).",
            if a.positions { "off" } else { "on" },
            if a.positions { "on" } else { "off" }
        ),
        Change::Sentence(s) => format!("B reads {} instead of {}.", quote(s), quote(&a.sentence)),
        Change::Broken(m) if m.is_empty() => {
            "B is correct attention, with no mistake made.".to_string()
        }
        Change::Broken(m) => {
            let names: Vec<&str> = m.iter().map(mistake_label).collect();
            format!("B is BROKEN: {}.", names.join("; "))
        }
    }
}

/// The difference heatmap's accessible name.
pub fn diff_label(n: usize, scale: f64) -> String {
    format!(
        "Difference heatmap A − B, {n} × {n} cells: purple where A gives the key more weight, orange where B does, light grey for no change; the scale runs from −{} to +{}.",
        fixed(scale, 3),
        fixed(scale, 3)
    )
}

/// One of the rows that changed most.
pub fn row_change_text(tokens: &[String], r: &RowChange, diff: &DMatrix<f64>) -> String {
    if r.l1 == 0.0 {
        return format!("Row {} {}: unchanged.", r.row + 1, quote(&tokens[r.row]));
    }
    let d = diff[(r.row, r.max_col)];
    format!(
        "Row {} {}: Σ|Δ| = {}; the largest change is on key {} {}, {}{} ({}).",
        r.row + 1,
        quote(&tokens[r.row]),
        fixed(r.l1, 3),
        r.max_col + 1,
        quote(&tokens[r.max_col]),
        if d < 0.0 { "−" } else { "+" },
        fixed(r.max_abs, 3),
        if d < 0.0 {
            "B gives it more"
        } else {
            "A gives it more"
        }
    )
}

/// The compare view's words for one setting B, as plain strings (the view puts them in the page as
/// text, so nothing here is HTML).
#[derive(Clone, Debug, PartialEq)]
pub struct CompareText {
    /// What B changes, in one sentence.
    pub change: String,
    /// Setting A's and B's figure captions.
    pub captions: (String, String),
    /// B's link query (without the `?`), for "Open setting B on its own".
    pub b_query: String,
    /// How to read the difference's colours, with the scale's ends.
    pub legend: String,
    /// The rows that changed most (at most three), largest first.
    pub rows_changed: Vec<String>,
}

/// Builds [`CompareText`] for settings `a` and `b` (B made by `change`), their tokens and the
/// difference A − B.
pub fn compare_text(
    change: &Change,
    (a, b): (&ViewState, &ViewState),
    tokens: &[String],
    diff: &DMatrix<f64>,
) -> CompareText {
    let caption = |v: &ViewState| {
        figure_caption(
            &v.sentence,
            v.seed,
            (v.head, v.heads),
            v.tau,
            v.positions,
            v.broken,
        )
    };
    let scale = fixed(crate::model::compare::max_abs(diff), 3);
    CompareText {
        change: change_sentence(change, a),
        captions: (caption(a), caption(b)),
        b_query: b.to_query(),
        legend: format!(
            "Purple: A gives the key more weight; orange: B does; light grey: no change. The ends of the scale are ±the largest |Δ|, {scale}; grey cells are masked in both."
        ),
        rows_changed: crate::model::compare::rows_by_change(diff)
            .iter()
            .take(3)
            .map(|r| row_change_text(tokens, r, diff))
            .collect(),
    }
}

#[cfg(test)]
mod figure_tests {
    use super::*;

    #[test]
    fn caption_names_every_setting() {
        let c = figure_caption("The cat sat .", 7, (1, 4), 0.5, true, Mistakes::NONE);
        assert_eq!(
            c,
            "“The cat sat .” · seed 7 · head 2 of 4 · τ = 0.500 · positions on"
        );
        let broken = Mistakes::NONE.with(Mistake::MaskWithZero, true);
        let c = figure_caption("a", 1, (0, 1), 2.0, false, broken);
        assert!(
            c.ends_with(" · positions off · BROKEN: Mask with 0 instead of −∞"),
            "{c}"
        );
    }

    #[test]
    fn compare_sentences() {
        let a = ViewState::default();
        assert_eq!(
            change_sentence(&Change::Tau(2.0), &a),
            "B uses τ = 2.00 instead of A's 1.00."
        );
        assert_eq!(
            change_sentence(&Change::Positions, &a),
            "B has positions on (A has them off)."
        );
        let diff = DMatrix::from_row_slice(2, 2, &[0.0, 0.0, -0.25, 0.25]);
        let tokens = vec!["a".to_string(), "b".to_string()];
        let rows = crate::model::compare::rows_by_change(&diff);
        assert_eq!(
            row_change_text(&tokens, &rows[0], &diff),
            "Row 2 “b”: Σ|Δ| = 0.500; the largest change is on key 1 “a”, −0.250 (B gives it more)."
        );
        assert_eq!(
            row_change_text(&tokens, &rows[1], &diff),
            "Row 1 “a”: unchanged."
        );
        assert!(diff_label(2, 0.25).contains("from −0.250 to +0.250"));
    }

    #[test]
    fn compare_text_names_the_change_the_captions_and_the_rows() {
        let a = ViewState {
            sentence: "<a> & b".into(),
            ..ViewState::default()
        };
        let change = Change::Tau(2.0);
        let b = change.apply(&a);
        let tokens: Vec<String> = ["<a>", "&", "b"].map(String::from).to_vec();
        let wa = DMatrix::from_row_slice(3, 3, &[1.0, 0.0, 0.0, 0.5, 0.5, 0.0, 0.2, 0.3, 0.5]);
        let wb = DMatrix::from_row_slice(3, 3, &[1.0, 0.0, 0.0, 0.25, 0.75, 0.0, 0.2, 0.3, 0.5]);
        let diff = &wa - &wb;
        let t = compare_text(&change, (&a, &b), &tokens, &diff);
        assert_eq!(t.change, "B uses τ = 2.00 instead of A's 1.00.");
        assert!(t.captions.0.contains("τ = 1.00") && t.captions.1.contains("τ = 2.00"));
        assert_eq!(t.b_query, b.to_query());
        assert!(t.legend.contains("±the largest |Δ|, 0.250;"));
        assert_eq!(t.rows_changed.len(), 3);
        assert!(
            t.rows_changed[0].starts_with("Row 2 “&”: Σ|Δ| = 0.500;"),
            "{:?}",
            t.rows_changed
        );
    }

    #[test]
    fn closer_row_summary_names_the_largest_weight_and_the_spread() {
        let tokens: Vec<String> = ["my", "key", "is"]
            .iter()
            .map(ToString::to_string)
            .collect();
        assert_eq!(
            closer_row_summary(&tokens, &[0.25, 0.5, 0.25]),
            "Largest weight 50.0% on key 2 “key”; entropy 1.50 bits (0 = one key, 1.58 = evenly over all 3)."
        );
        assert_eq!(
            closer_row_summary(&tokens, &[1.0]),
            "Largest weight 100.0% on key 1 “my”; entropy 0.00 bits (the first row sees only its own key)."
        );
    }
}
