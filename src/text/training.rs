//! The training page's words: status and speed, what the loss is, the loss chart's name and
//! milestone, the copying circuit's checklist, subject–verb agreement, replay and the closer look.

use super::{and_list, beside_limit, quote};
use crate::format::{fixed, grouped, percent};
use crate::model::stats::row_stats;
use crate::model::train::lab::detectors::AgreementReport;
use crate::model::train::lab::evaluation::{
    BestHead, CircuitCheck, INDUCTION_MIN, PREVIOUS_TOKEN_MIN, REPEAT_RATIO_MAX,
};
use crate::model::train::page::settings::GrammarFloors;
use crate::model::train::shape::TransformerConfig;
use crate::model::train::tasks::{Repeat, NEAR_FLOOR_PERCENT};

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
        n => format!(
            "Trained for {} {} on the {task} task; these weights were learned in your browser.",
            grouped(n as u64),
            steps_word(n)
        ),
    }
}

/// The noun after a count of `n` training steps: "1 step", "1,500 steps".
pub fn steps_word(n: usize) -> &'static str {
    if n == 1 {
        "step"
    } else {
        "steps"
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

/// The loss chart's accessible name, naming the grammar's held-out floor when it is drawn.
/// `floor`: the grammar's (`None` for the repeat task, whose chart has the loss's two halves);
/// `milestone`: the step the chart marks with a vertical line, if any.
pub fn loss_chart_label(floor: Option<f64>, milestone: Option<Milestone>) -> String {
    let marker = milestone.map_or(String::new(), |m| {
        format!(
            ", and a dashed vertical line at step {}, where {}",
            grouped(m.step() as u64),
            m.event()
        )
    });
    match floor {
        Some(m) => format!(
            "Line chart of the held-out loss against training step, with the grammar's floor for held-out sentences, {} nats, as a dashed line{marker}; the table below gives the values.",
            fixed(m, 3)
        ),
        None => format!(
            "Line chart of the held-out loss against training step, on all predicted tokens, on the first copy and on the repeated part ({COPY_TOKENS}){marker}; the table below gives the values."
        ),
    }
}

/// The step the loss chart marks with a vertical line.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Milestone {
    /// The repeat task: the first evaluation at which the copying circuit had formed.
    CircuitFormed(usize),
    /// The tiny grammar: the first evaluation within `NEAR_FLOOR_PERCENT` of the held-out floor.
    NearFloor(usize),
}

impl Milestone {
    pub fn step(self) -> usize {
        match self {
            Self::CircuitFormed(step) | Self::NearFloor(step) => step,
        }
    }

    fn event(self) -> String {
        match self {
            Self::CircuitFormed(_) => "the copying circuit first formed".to_string(),
            Self::NearFloor(_) => {
                format!("the held-out loss first came within {NEAR_FLOOR_PERCENT}% of its floor")
            }
        }
    }

    /// Its legend entry.
    pub fn legend(self) -> String {
        match self {
            Self::CircuitFormed(step) => {
                format!(
                    "copying circuit first formed (step {})",
                    grouped(step as u64)
                )
            }
            Self::NearFloor(step) => format!(
                "first within {NEAR_FLOOR_PERCENT}% of the floor (step {})",
                grouped(step as u64)
            ),
        }
    }
}

/// Which tokens the first-copy and repeated-part losses count (the positions
/// [`Repeat::first_copy_rows`] and [`Repeat::repeated_rows`] predict): every token of a copy but
/// its first, which nothing before it announces.
pub const COPY_TOKENS: &str = "each copy's tokens after its first, since nothing before a copy's first token says that a copy starts there";

/// The loss chart's legend entry for the grammar's floor: an exact expected value, which the
/// chart's sample of `sequences` held-out sequences can dip below.
pub fn floor_legend(sequences: usize) -> String {
    format!("floor for held-out sentences (exact on average; a sample of {sequences} held-out sequences can dip below it)")
}

/// The loss table's caption: for the repeat task which tokens its two copy columns count; for the
/// tiny grammar that those columns are the repeat task's, so its cells there read "–".
pub fn loss_table_caption(repeat: bool) -> String {
    if repeat {
        format!("Mean next-token loss in nats on the held-out sequences; first copy and repeated part: {COPY_TOKENS}")
    } else {
        format!("Mean next-token loss in nats on the held-out sequences; {NO_COPIES}")
    }
}

/// The title of a grammar's "–" cell in the loss table's copy columns.
pub const NO_COPIES: &str = "the first copy and repeated part columns belong to the repeat task, and the tiny grammar has no copies (–)";

/// The tiny grammar's line under its loss curve: what the plotted loss is measured on, its floor
/// (drawn dashed) beside the training sentences' minimum, how far the latest held-out loss is from
/// the floor, and the first evaluated step within [`NEAR_FLOOR_PERCENT`] of it (`first_within`, by
/// [`crate::model::train::tasks::Grammar::near_floor`]). `sequences`: how many held-out sequences
/// an evaluation averages.
pub fn grammar_verdict(
    step: usize,
    loss: f64,
    floors: GrammarFloors,
    sequences: usize,
    first_within: Option<usize>,
) -> String {
    let gap = loss / floors.held_out - 1.0;
    let relation = if gap >= 0.0 {
        format!("{} above the line", percent(gap))
    } else {
        format!(
            "{} below the line: the curve averages {sequences} held-out sequences, a sample, which can score a little below the average over all held-out sentences",
            percent(-gap)
        )
    };
    let within = match first_within {
        Some(first) => format!(
            "It first came within {NEAR_FLOOR_PERCENT}% of the line at step {}.",
            grouped(first as u64)
        ),
        None => format!("It has not come within {NEAR_FLOOR_PERCENT}% of the line yet."),
    };
    let step = grouped(step as u64);
    format!(
        "The chart shows the loss on held-out sentences, which training never uses. A model that had learned the grammar's rules exactly would average {} nats on them (the dashed horizontal line, computed exactly by listing every sentence of the grammar), and {} nats on its training sentences. At step {step} the held-out loss is {} nats, {relation}. {within}",
        fixed(floors.held_out, 3),
        fixed(floors.training, 3),
        fixed(loss, 3),
    )
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
    let step = grouped(step as u64);
    let counts = format!(
        "At step {step} the right verb is more probable than the wrong one in {} of {} held-out sentences ({}), and in {} of the {} whose nearer noun differs from the subject in number, one singular and the other plural ({}).",
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
    let at = grouped(step as u64);
    if check.formed() {
        return match first_formed {
            Some(first) if first < step => format!(
                "At step {at} the copying circuit has formed: all three conditions hold (they first did at the evaluation of step {}). {}",
                grouped(first as u64),
                formed_means()
            ),
            _ => format!(
                "At step {at} the copying circuit has formed: all three conditions hold, for the first time in this run. {}",
                formed_means()
            ),
        };
    }
    if check.induction.is_none() {
        return format!(
            "At step {at} the copying circuit cannot form: it takes two layers, a previous-token head in the first and an induction head in the second that reads its output. Choose 2 layers to watch it form."
        );
    }
    match first_formed {
        Some(first) if first > step => format!(
            "At step {at} the copying circuit has not formed yet; in this run it forms at the evaluation of step {} (move Replay to that step or later). {}",
            grouped(first as u64),
            formed_means()
        ),
        Some(first) => format!(
            "At step {at} not all three conditions hold, though they did at the evaluation of step {}.",
            grouped(first as u64)
        ),
        None => format!(
            "At step {at} the copying circuit has not formed yet: it counts as formed when all three conditions hold at one evaluation. {}",
            formed_means()
        ),
    }
}

/// What "formed" asks of the loss, from [`REPEAT_RATIO_MAX`]: a reader who meets a looser share
/// elsewhere (the composition test's "still copying") can tell the two bars apart.
pub fn formed_means() -> String {
    format!(
        "Formed asks, among the three, that the repeated part's loss be at most {}% of the first copy's.",
        fixed(REPEAT_RATIO_MAX * 100.0, 0)
    )
}

/// What the copying circuit is, above its checklist. The checklist finds the two heads and the
/// saving together; it does not show that one uses the other (the transformer tests show a run can
/// copy by another route), so the words say "usually" and name what the list does not test.
pub const CIRCUIT_INTRO: &str = "Copying usually takes two heads, the induction circuit: a previous-token head in layer 1 writes into each position the token before it; an induction head in layer 2 uses that to attend to the token after the current token's earlier occurrence, the one the repeat predicts. The list below checks that such heads exist while copying pays off; it does not test that layer 2 really reads layer 1, and a run can find another route.";

/// The closer look's note on its temperature, for a model of `layers` layers (the transformer
/// tests check both halves: layer 1 only spreads as τ rises; a later layer's row can sharpen).
pub fn closer_tau_note(layers: usize) -> String {
    let how = "τ above 1 spreads every row's weights and τ below 1 sharpens them";
    let rest = if layers > 1 {
        format!("Every layer's scores are divided by √d · τ, as in the explorer. In layer 1, {how}; the later layers also read layer 1's changed output, so their rows can move either way.")
    } else {
        format!("The layer's scores are divided by √d · τ, as in the explorer: {how}.")
    };
    format!("{rest} τ = 1 is the model as it was trained, the patterns the head grid above shows.")
}

/// How the model reads a sequence (`config`: the run's model), for a learner who has met one
/// attention layer in the explorer.
pub fn model_explainer(config: &TransformerConfig) -> String {
    let layers = match config.layers {
        1 => "its attention layer reads it and adds what its heads find back into it".to_string(),
        n => format!(
            "each of its {n} attention layers in turn reads it and adds what its heads find back into it, so layer 2 reads everything layer 1 wrote"
        ),
    };
    format!(
        "How the model reads a sequence: each token starts as a vector of d_model = {} numbers, its embedding, with its place encoded by the position kind (below). That vector is the residual stream: {layers} (X ← X + concat(heads) · W_o; each layer has {} heads of d = {}). At the end the unembedding, a {} × {} matrix, turns each position's vector into one score per token of the vocabulary, and a softmax turns those into the probabilities of the next token.",
        config.d_model,
        config.heads,
        config.head_size(),
        config.d_model,
        config.vocab
    )
}

/// What one training step is and what the learning rate does (`batch` sequences per step, learning
/// rate `lr`).
pub fn step_explainer(batch: usize, lr: f64) -> String {
    format!(
        "One step: the page draws {batch} training sequences, runs the model on each, measures the loss and, by backpropagation, its gradient for every weight, then makes one Adam update: every weight moves against its gradient by roughly the learning rate, here {lr} (Adam scales each weight's move by how large its recent gradients were). A larger learning rate learns faster but can overshoot; a smaller one is steadier but slower."
    )
}

/// The three kinds of positions, as the settings offer them.
pub const POSITION_KINDS: &str = "Positions: sinusoidal adds a fixed sine–cosine code for each place to the embedding, as in the explorer; learned adds one vector per place, trained like every other weight; rotary (RoPE) adds nothing to the embedding but turns each pair of a query's and a key's dimensions by an angle that grows with its place, each pair at its own frequency, so a score depends on the two tokens' contents (their query and key vectors) and on their offset, not on their absolute places.";

/// What to watch while the repeat task trains.
pub const WHAT_TO_WATCH: &str = "What to watch: at first the heads spread their weight and both copies cost about the same. Then, often after several hundred steps and sometimes after more than a thousand, depending on the seed, the loss on the repeated part falls far below the first copy's while a layer-1 head starts looking one token back (a stripe just below the diagonal) and a layer-2 head, in the second copy, looks at the token after the current token's earlier occurrence (a stripe one less than the segment's length below the diagonal).";

/// Which tokens the two copy losses count, and why the first copy's loss stays at or above the
/// even guess on average: its tokens are random, so no model can beat ln V there in expectation,
/// and any uneven guess costs more (Gibbs' inequality); the `sequences` held-out sequences are a
/// sample, which can fall below. `step`: the evaluation's (at step 0 the weights are the random
/// starting ones).
pub fn first_copy_note(
    vocab: usize,
    first_copy_loss: f64,
    sequences: usize,
    step: usize,
) -> String {
    let even = (vocab as f64).ln();
    let above = format!(
        "{} nats, {} above it",
        fixed(first_copy_loss, 3),
        fixed(first_copy_loss - even, 3)
    );
    let relation = if first_copy_loss >= even && step == 0 {
        format!("{above}: at step 0 the weights are the random starting ones, so the guesses are uneven")
    } else if first_copy_loss >= even {
        format!(
            "{above}: the model's guesses here are not even (what it learns from the context pays off in the repeated part, not on random tokens)"
        )
    } else {
        format!(
            "{} nats, below it on these {sequences} sequences: a sample can fall below the average",
            fixed(first_copy_loss, 3)
        )
    };
    format!(
        "The first copy and the repeated part count {COPY_TOKENS}. The first copy's tokens are random, so on average over all sequences no model can score less than an even guess there, ln {vocab} ≈ {} nats, and any uneven guess scores more on average; a sample of {sequences} held-out sequences, like this one, can dip below it. Here it is {relation}.",
        fixed(even, 3)
    )
}

/// The closer look's walk through one induction row: row `row` (0-based) of held-out sequence 1,
/// inside the second copy of the `repeat`ed segment, its earlier occurrence and the token
/// after it, and how much of the chosen head's (`layer`, `head`, 0-based) row `weights` (keys
/// 0..=row) is there. Tokens are drawn at random, so the row's token may also stand elsewhere
/// before it; an induction head looks after every earlier occurrence, so those places are named,
/// and the head's weight on them given apart from its weight on the copy.
pub fn induction_walkthrough(
    tokens: &[String],
    row: usize,
    repeat: Repeat,
    layer: usize,
    head: usize,
    weights: &[f64],
) -> String {
    let len = repeat.len;
    let (earlier, target) = (row - len, row + 1 - len);
    let name = |i: usize| tokens.get(i).map_or(String::new(), |t| quote(t));
    let weight = |i: usize| weights.get(i).copied().unwrap_or(0.0);
    let predicts = match tokens.get(row + 1) {
        // The copy's last row: what follows the second copy is random again.
        Some(next) if row + 1 == repeat.second() + len => format!(
            ", which a copy would predict next; but the second copy ends here, and the token after it ({} at position {}) is random",
            quote(next),
            row + 2
        ),
        Some(next) => format!(
            ", the token this row must predict ({} at position {})",
            quote(next),
            row + 2
        ),
        None => String::new(),
    };
    // Every earlier place of the row's token, the copy's (`earlier`) among them, in order.
    let occurrences: Vec<usize> = (0..row)
        .filter(|&j| j == earlier || tokens.get(j) == tokens.get(row))
        .collect();
    let others: Vec<usize> = occurrences
        .iter()
        .copied()
        .filter(|&j| j != earlier)
        .collect();
    let start = format!(
        "Row {} {} is in the second copy. The same token stood at position {} in the first copy, followed by {} at position {}{predicts}.",
        row + 1,
        name(row),
        earlier + 1,
        name(target),
        target + 1,
    );
    if others.is_empty() {
        return format!(
            "{start} An induction head puts its weight on position {}; layer {}, head {} puts {} there.",
            target + 1,
            layer + 1,
            head + 1,
            percent(weight(target))
        );
    }
    let stood: Vec<String> = others
        .iter()
        .map(|&j| {
            format!(
                "position {} (followed by {} at position {})",
                j + 1,
                name(j + 1),
                j + 2
            )
        })
        .collect();
    let after: Vec<String> = occurrences.iter().map(|j| (j + 2).to_string()).collect();
    let elsewhere: f64 = others.iter().map(|&j| weight(j + 1)).sum();
    let rest = if others.len() == 1 {
        "the other".to_string()
    } else {
        format!("the other {}", others.len())
    };
    format!(
        "{start} It also stood at {}. An induction head looks at the token after each earlier occurrence, so it may split its weight among positions {}, of which the copy points to position {}. Layer {}, head {} puts {} on position {} and {} on {rest}.",
        and_list(&stood),
        and_list(&after),
        target + 1,
        layer + 1,
        head + 1,
        percent(weight(target)),
        target + 1,
        percent(elsewhere),
    )
}

/// Progress while a link's training is replayed.
pub fn retrain_progress(done: usize, target: usize) -> String {
    let (done, target) = (grouped(done as u64), grouped(target as u64));
    format!("Retraining to the link's step {target}: {done} of {target} steps done.")
}

/// The repeat task's verdict at the latest evaluation: the repeated part's loss as a share of
/// the first copy's, and whether the run counts as stuck (see `EvalPoint::stuck`).
pub fn repeat_verdict(step: usize, ratio: f64, stuck: bool) -> String {
    let step = grouped(step as u64);
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
    let step = grouped(step as u64);
    if latest {
        format!("step {step} (latest evaluation)")
    } else {
        format!("step {step} (checkpoint)")
    }
}

/// What the replay timeline holds, from the trainer's [`Checkpoints`](crate::model::train::page::checkpoints::Checkpoints).
pub fn checkpoints_note(kept: usize, interval: usize, capacity: usize) -> String {
    let noun = if kept == 1 {
        "checkpoint"
    } else {
        "checkpoints"
    };
    format!(
        "{kept} {noun} kept, one every {} steps from step 0. At most {capacity} are kept: when the timeline is full, every second one is dropped and the interval doubles.",
        grouped(interval as u64)
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
mod tests;
