//! The lesson's path (step titles, "you are here", each step's opening sentence) and the words of
//! steps 1–2 (averaging, the softmax of masked zero scores), 5 (several heads) and 6 (positions).

use super::{check_mark, format_tau, quote};
use crate::format::{fixed, percent, scientific};
use crate::model::masked_average::MaskFillDemo;
use crate::model::multihead::HeadsRow;
use crate::model::positions::{OrderDemo, ShuffleComparison};
use crate::model::stats::ROUNDING_TOLERANCE;
use crate::model::url_state::Step;

/// Where the lesson comes from, said once at its top: the two texts it follows and how it treats
/// what they print.
pub const LESSON_SOURCES: &str = "The lesson follows two texts: the notebook “The idea that makes LLMs work” (notebook 05 of a course), which builds attention in small steps (average the past, then the same as a matrix, then queries, keys and values, then scaling by √d), and the article “AI fundamentals, part 2: Attention — the idea that made transformers win”, which writes attention in NumPy. Where the page quotes a number from them it says so; every other number is computed here, live.";

/// Above the lesson, while the view has several heads: which one the heatmap shows, and that
/// heads come in step 5 (`head` 0-based, of `heads`).
pub fn lesson_heads_note(head: usize, heads: usize) -> Option<String> {
    (heads > 1).then(|| {
        format!(
            "The heatmap at the top shows head {} of this model's {heads} heads. Steps 1–4 describe one head: each head is one attention of its own, and step 5 shows how several are combined.",
            head + 1
        )
    })
}

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
        Step::Heads => "Step 5 cuts the model's width into several smaller heads, each with its own W_q, W_k and W_v, so each can look for something different, and combines their outputs with W_o.",
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

/// Step 2's live readout: how far head `head` (0-based) at `tau` is from the average. A gap a
/// reader can see in the heatmap is a plain decimal ("0.448", not "4.48e-1"); only a gap below
/// 0.01, which the printed weights hardly show, keeps the scientific form.
pub fn live_gap(tau: f64, head: usize, gap: f64) -> String {
    format!(
        "With the live scores of head {} at τ = {}: largest |A(τ) − wei| = {}.",
        head + 1,
        format_tau(tau),
        plain_or_scientific(gap)
    )
}

/// `x` to 3 decimals from 0.01 up, else as `d.dde±n`.
fn plain_or_scientific(x: f64) -> String {
    if x >= 0.01 {
        fixed(x, 3)
    } else {
        scientific(x, 2)
    }
}

/// Step 6's verdict on a shuffle of the past: computed from the comparison, never assumed.
pub fn shuffle_check(cmp: &ShuffleComparison) -> String {
    if cmp.bit_identical() && cmp.scores_bit_identical() {
        "✓ Every key kept its score and its weight, bit for bit: the row is bit-identical."
            .to_string()
    } else if cmp.bit_identical() {
        // Positions on, yet the weights did not move: at a low τ they round to the same doubles.
        let moved = cmp
            .scores_before
            .iter()
            .zip(&cmp.scores_after)
            .map(|(a, b)| (a - b).abs())
            .fold(0.0, f64::max);
        format!(
            "The keys' scores q·k changed (by up to {}), but every key kept its weight bit for bit: at this τ the weights round to the same numbers.",
            if moved >= 5e-4 {
                fixed(moved, 3)
            } else {
                scientific(moved, 1)
            }
        )
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
        "here the weights are random, so each head's pattern comes from its own random weights: differences between heads are chance, not specialisations"
    };
    format!("Several attentions run side by side on the same tokens, so one layer can weigh the past in several different ways at once. In trained models heads often end up doing different jobs; {here}.")
}

/// How the current view splits `d_model` into `heads` heads of `head_size`.
pub fn heads_split(heads: usize, head_size: usize, d_model: usize) -> String {
    if heads == 1 {
        format!(
            "This view has 1 head of d = d_model = {d_model}: one attention over all {d_model} columns, so the concatenation below is that head's output itself. Choose 2, 4 or 8 heads to split it."
        )
    } else {
        format!(
            "This view has h = {heads} heads of d = d_model / h = {d_model} / {heads} = {head_size}: the model's W_q, W_k and W_v, each d_model × d_model = {d_model} × {d_model}, are cut into {heads} slices of {head_size} columns, so each head has its own {d_model} × {head_size} W_q, W_k and W_v, head 1 taking columns 1–{head_size}, and so on. The matrix products add up to as many multiplications as one head of {d_model}, done as {heads} independent attentions."
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
    let concat = if heads == 1 {
        format!("With one head, concat is that output itself, T × d_model = {t} × {d_model}.")
    } else {
        format!("Side by side, the {heads} outputs make concat, T × d_model = {t} × {d_model} (head i in columns (i − 1)·d + 1 to i·d).")
    };
    let why_wo = if heads == 1 {
        String::new()
    } else {
        format!(" Why W_o is needed: concat only puts the heads side by side, each in its own {head_size} columns, so without it each head could write only its own slice of the output; with it every output number can combine what {} found.", if heads == 2 { "both heads".to_string() } else { format!("all {heads} heads") })
    };
    format!(
        "Each head's output A·V is T × d = {t} × {head_size}. {concat} The output projection W_o, d_model × d_model = {d_model} × {d_model}, {origin}, mixes them: concat · W_o is T × d_model = {t} × {d_model}, the same shape as the input X.{why_wo}"
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

/// Step 6's presets, read for the live seed, heads, τ and position switch (`demo`, from
/// `model::positions::order_demo`).
pub fn presets_note(demo: &OrderDemo, positions: bool) -> String {
    let differ = match demo.rows_that_differ {
        n if n == demo.words => format!("all {n} words get a different output row"),
        0 => "no word's output row differs beyond rounding at this τ".to_string(),
        n => format!("{n} of the {} words get a different output row", demo.words),
    };
    let (weights, output) = (demo.past_swap_weight_gap, demo.past_swap_gap);
    let swap = if weights.max(output) <= ROUNDING_TOLERANCE {
        format!(
            "neither its weights on the three words nor its output row change beyond rounding (largest difference {})",
            scientific(weights.max(output), 1)
        )
    } else {
        format!(
            "its weight on the same word changes by up to {} percentage points (the largest change over the heads, in head {}) and its output row, the blend of values, by up to {}",
            fixed(weights * 100.0, 2),
            demo.past_swap_head + 1,
            fixed(output, 3)
        )
    };
    let with = if positions {
        "With position codes on"
    } else {
        "Without position codes"
    };
    format!(
        "What to look for: a row's output depends on its own word and on the words before it. In “dog bites man”, “man” has seen “dog” and “bites”; in “man bites dog” it has seen nothing, so each word has a different past, and here {differ}: to causal attention the two sentences are not the same. What it cannot see without position codes is the order inside a past: swap the first two words (“bites dog man”) and look at the row of “man”. {with}, {swap}."
    )
}

/// Step 6's swap exercise, for a view with `heads` heads: which head to look at (`demo` computed
/// with position codes on, where the swap can show).
pub fn swap_exercise_head(demo: &OrderDemo, heads: usize) -> Option<String> {
    (heads > 1).then(|| {
        format!(
            "With {heads} heads, look at head {}: with position codes on, the swap changes its row of “man” the most (by {} percentage points at most); in another head it may show little.",
            demo.past_swap_head + 1,
            fixed(demo.past_swap_weight_gap * 100.0, 2)
        )
    })
}

/// Step 6's closing note: other kinds of positions, rotary's stated as what its rotation does.
pub const OTHER_POSITIONS: &str = "Sinusoidal codes are one choice among several: many models learn one position vector per place instead, and rotary position embeddings (RoPE) turn each pair of a query's and a key's dimensions by an angle that grows with its position, each pair at its own frequency, so a score depends on the two tokens' contents (their query and key vectors) and on their offset, not on their absolute positions.";

/// Step 2's note on −∞ against a large negative number, for row `row` (0-based) with token
/// `token` of the live head (`demo`, from `model::masked_average::mask_fill_demo`).
pub fn mask_fill_note(demo: &MaskFillDemo, token: &str, row: usize) -> String {
    let same = if demo.fills_agree() && demo.large_masks_exactly(row) {
        "the same weights, bit for bit, with an exact 0 for every future key: e^(−1e9 − max) underflows to exactly 0 in 64-bit floating point"
    } else {
        "different weights: this row's scores are so large that e^(−1e9 − max) is not 0"
    };
    let t = demo.all_masked_large.len();
    format!(
        "Why −∞, and not a large negative number such as −1e9, as much code does? For row {} {}, filling the future with −1e9 gives {same}. The two part ways only on a row with nothing visible: with −∞ the softmax computes (−∞) − (−∞) = NaN (“not a number”) in every entry, while −1e9 gives an even split, 1/{t} each. Causal attention never has such a row, since every token sees itself; a padding mask (which hides the filler tokens that make short sentences as long as the longest in a batch) can.",
        row + 1,
        quote(token),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    use crate::model::explorer::{ExplorerConfig, Prepared};
    use crate::model::weights::DEFAULT_HEADS;

    use nalgebra::DMatrix;

    /// The page as it opens: "The cat sat on the mat .", seed 1337, two heads of 16.
    fn default_model() -> Prepared {
        crate::model::explorer::default_view(DEFAULT_HEADS, false)
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
        assert!(gap < 0.01, "{gap}");
        let cold = largest_gap(&p.heads[0].weights(1.0), &wei);
        assert!(cold >= 0.01, "{cold}");
        assert!(live_gap(1.0, 0, cold).ends_with(&format!("= {}.", fixed(cold, 3))));
    }

    #[test]
    fn positions_step_text() {
        use crate::model::positions::shuffle_the_past;
        let p = default_model();
        let tokens = &p.config.tokens;
        // Off: the scores never move; the sentence says "bit-identical" only if the weights are.
        for seed in 0..6 {
            let cmp = shuffle_the_past(&p, 0, 1.0, 5, seed);
            let said = shuffle_check(&cmp);
            assert!(said.starts_with("✓ Every key kept its score"), "{said}");
            assert_eq!(
                said.contains("bit-identical"),
                cmp.bit_identical(),
                "{said}"
            );
        }
        let on = crate::model::explorer::ExplorerConfig {
            positions: true,
            ..p.config.clone()
        };
        let cmp = shuffle_the_past(&Prepared::new(on), 0, 1.0, 5, 0);
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
        assert!(heads_intro(false).contains("chance, not specialisations"));
        assert!(heads_intro(true).contains("each head's pattern was learned"));
        assert_eq!(
            heads_split(1, 32, 32),
            "This view has 1 head of d = d_model = 32: one attention over all 32 columns, so the concatenation below is that head's output itself. Choose 2, 4 or 8 heads to split it."
        );
        for heads in [2, 4, 8] {
            let p = Prepared::new(ExplorerConfig {
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
            assert!(said.contains(&format!("each d_model × d_model = 32 × 32, are cut into {heads} slices of {d} columns, so each head has its own 32 × {d} W_q")));
            assert!(p.heads.iter().all(|h| h.q.ncols() == d));
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
        // One head: no plural "1 outputs"; its output is concat.
        let one = heads_shapes(7, 1, 32, 32, false);
        assert!(
            one.contains("With one head, concat is that output itself, T × d_model = 7 × 32."),
            "{one}"
        );
        assert!(
            !one.contains("1 outputs") && !one.contains("Side by side"),
            "{one}"
        );
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
            let p = Prepared::new(ExplorerConfig {
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

    /// The exercise names the head where the swap shows most, with position codes on.
    #[test]
    fn the_swap_exercise_names_the_head_that_shows_it() {
        use crate::model::explorer::ExplorerConfig;
        use crate::model::positions::order_demo;
        for heads in [1, 2, 4, 8] {
            for seed in [1, 7, 1337] {
                let config = ExplorerConfig {
                    tokens: vec![],
                    seed,
                    heads,
                    positions: true,
                };
                let demo = order_demo(&config, 1.0);
                let said = swap_exercise_head(&demo, heads);
                assert_eq!(said.is_some(), heads > 1);
                if let Some(said) = said {
                    assert!(
                        said.contains(&format!("look at head {}", demo.past_swap_head + 1)),
                        "{said}"
                    );
                    assert!(
                        said.contains(&format!(
                            "by {} percentage points at most",
                            fixed(demo.past_swap_weight_gap * 100.0, 2)
                        )),
                        "{said}"
                    );
                    assert!(
                        demo.past_swap_head < heads
                            && demo.past_swap_weight_gap > ROUNDING_TOLERANCE,
                        "{demo:?}"
                    );
                }
            }
        }
    }

    /// The presets' note over views: its count and its swap sentence are the model's.
    #[test]
    fn the_presets_note_states_the_live_comparison() {
        use crate::model::explorer::ExplorerConfig;
        use crate::model::positions::order_demo;
        for heads in [1, 2, 8] {
            for positions in [false, true] {
                for tau in [0.01, 1.0, 100.0] {
                    let config = ExplorerConfig {
                        tokens: vec![],
                        seed: 1337,
                        heads,
                        positions,
                    };
                    let demo = order_demo(&config, tau);
                    let text = presets_note(&demo, positions);
                    assert!(!text.contains("are the same"), "{text}");
                    if demo.rows_that_differ == 3 {
                        assert!(
                            text.contains("all 3 words get a different output row"),
                            "{text}"
                        );
                    }
                    let (w, o) = (demo.past_swap_weight_gap, demo.past_swap_gap);
                    assert_eq!(
                        text.contains("change beyond rounding"),
                        w.max(o) <= ROUNDING_TOLERANCE,
                        "{text}"
                    );
                    if w.max(o) > ROUNDING_TOLERANCE {
                        assert!(text.contains(&format!("changes by up to {} percentage points (the largest change over the heads, in head {}) and its output row, the blend of values, by up to {}", fixed(w * 100.0, 2), demo.past_swap_head + 1, fixed(o, 3))), "{text}");
                        assert!(demo.past_swap_head < heads);
                    }
                    if !positions {
                        assert!(
                            text.contains(
                                "Without position codes, neither its weights on the three words nor its output row change beyond rounding"
                            ),
                            "{text}"
                        );
                    }
                }
            }
        }
    }

    /// The mask-fill note is built from the live demo: "bit for bit" exactly when it is.
    #[test]
    fn the_mask_fill_note_follows_the_computation() {
        use crate::model::masked_average::mask_fill_demo;
        let p = crate::model::explorer::default_view(2, false);
        let scale = crate::model::temperature::logit_scale(16, 1.0);
        let demo = mask_fill_demo(&p.heads[0].scores, 2, scale);
        let text = mask_fill_note(&demo, "sat", 2);
        assert!(
            text.contains(
                "For row 3 “sat”, filling the future with −1e9 gives the same weights, bit for bit"
            ),
            "{text}"
        );
        assert!(text.contains("an even split, 1/7 each"), "{text}");
        let huge = nalgebra::DMatrix::from_row_slice(2, 2, &[-2e9, 0.0, -2e9, -2e9]);
        let text = mask_fill_note(&mask_fill_demo(&huge, 0, 1.0), "a", 0);
        assert!(text.contains("gives different weights"), "{text}");
    }

    #[test]
    fn the_heads_note_names_the_shown_head() {
        assert_eq!(lesson_heads_note(0, 1), None);
        assert!(lesson_heads_note(1, 4)
            .unwrap()
            .starts_with("The heatmap at the top shows head 2 of this model's 4 heads."));
    }
}
