//! The training page's words for run B, trained beside run A with one change: the menu's labels,
//! when each run formed its circuit (or came near its floor), and a mistaken run's two losses.

use super::steps_word;
use crate::format::{fixed, grouped};
use crate::model::train::lab::mistakes::TrainingMistake;
use crate::model::train::page::run_b::RunChange;
use crate::model::train::tasks::NEAR_FLOOR_PERCENT;

/// What run B is for, under the menu.
pub const RUN_B_HINT: &str = "The settings above are run A. Run B copies them, seed included, with the one change chosen here, and trains beside it: Train, Step once and Reset drive both runs, and the loss chart draws run B dashed.";

/// The loss chart's accessible name goes on with these when run B is drawn.
pub const LOSS_CHART_RUN_B: &str =
    "Run B's losses are drawn dashed in the same colours; run B's section gives its table.";
/// [`LOSS_CHART_RUN_B`] for a run B trained with a mistake.
pub const LOSS_CHART_RUN_B_USED: &str = "Run B's losses are drawn dashed in the same colours, and its held-out loss with correct attention dotted, cut off at the top of the chart where it is higher, with its latest value written there; run B's section gives its table.";

/// " of run B" after a heading's noun, for a run with that `letter` beside the other; nothing
/// while there is one run.
pub fn of_run(letter: Option<&str>) -> String {
    letter.map_or_else(String::new, |l| format!(" of run {l}"))
}

/// Run B's section heading for `change`.
pub fn run_b_title(change: RunChange) -> String {
    match change {
        RunChange::Mistake(_) => {
            format!("Run B: {} (a training mistake)", run_change_label(change))
        }
        _ => format!("Run B: {}", run_change_label(change)),
    }
}

/// Under run B's step count, while the runs' step counts differ: run A's count and why they
/// differ (`a_steps`, `b_steps`; `targets`: the steps runs A and B are training to, if they are).
/// `None` while they are equal.
pub fn run_gap_note(
    a_steps: usize,
    b_steps: usize,
    targets: (Option<usize>, Option<usize>),
) -> Option<String> {
    let training_to = |letter: &str, steps: usize, target: Option<usize>| {
        let target = target.filter(|&t| steps < t)?;
        Some(format!(
            "Run {letter} is training to step {}, then stops.",
            grouped(target as u64)
        ))
    };
    if let Some(note) = training_to("B", b_steps, targets.1) {
        return Some(note);
    }
    if let Some(note) = training_to("A", a_steps, targets.0) {
        return Some(note);
    }
    let why = match a_steps.cmp(&b_steps) {
        std::cmp::Ordering::Equal => return None,
        std::cmp::Ordering::Greater => format!(
            "{} more. Run B starts from step 0 whenever it is chosen, and each run trains at its own speed",
            grouped((a_steps - b_steps) as u64)
        ),
        std::cmp::Ordering::Less => format!(
            "{} fewer. Each run trains at its own speed",
            grouped((b_steps - a_steps) as u64)
        ),
    };
    Some(format!(
        "Run A has trained for {} {}, {why}; the loss chart compares the two at the same step.",
        grouped(a_steps as u64),
        steps_word(a_steps)
    ))
}

/// Above the detector table of a run trained with a mistake that puts weight on later tokens.
pub const DETECTORS_READ_THE_PAST: &str = "This run puts weight on later tokens. The detector scores, entropy included, read only each row's past (the keys up to the row), so they miss that weight, and the copying circuit's checks do not apply to it. The head grid shows it: a hatched cell is a later token, coloured by its weight (grey where the weight is exactly 0).";

/// A menu entry for `change` (mistakes under their own heading).
pub fn run_change_label(change: RunChange) -> String {
    match change {
        RunChange::Mistake(m) => m.label().to_string(),
        RunChange::Seed(s) => format!("Seed {s}"),
        RunChange::Layers(1) => "1 layer".to_string(),
        RunChange::Layers(n) => format!("{n} layers"),
        RunChange::Heads(1) => "1 head per layer".to_string(),
        RunChange::Heads(n) => format!("{n} heads per layer"),
        RunChange::Positions(p) => format!("Positions: {}", p.name()),
        RunChange::LearningRate(lr) => format!("Learning rate {lr}"),
        RunChange::Task(t) => format!("Task: {}", t.label()),
    }
}

/// `text` with its first letter in lower case. ASCII only: the labels it is given start with an
/// ASCII letter, and `char::to_lowercase` would bring Unicode's case tables into the wasm.
fn lower_first(text: &str) -> String {
    let mut out = text.to_string();
    if let Some(first) = out.get_mut(..1) {
        first.make_ascii_lowercase();
    }
    out
}

/// What a run of the repeat task can do about the copying circuit.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CircuitChance {
    /// Two layers, trained causally: the circuit can form.
    Possible,
    /// One layer: the circuit takes two.
    OneLayer,
    /// Trained with a mistake that lets rows read later tokens: the checks do not apply.
    ReadsAhead,
}

/// One run's milestone for the A/B summary: `name` ("Run A"); `repeat`: the repeat task, whose
/// milestone is the first evaluation with the copying circuit formed (`chance`: whether it can
/// form), else the grammar's first evaluation within its floor's band; `at`: that evaluation's
/// step, if it has happened; `latest`: the run's latest evaluated step (`None` before its first).
pub fn run_milestone(
    name: &str,
    repeat: bool,
    chance: CircuitChance,
    at: Option<usize>,
    latest: Option<usize>,
) -> String {
    if repeat {
        match chance {
            CircuitChance::OneLayer => {
                return format!(
                    "{name} has one layer, so it cannot form the copying circuit, which takes two."
                )
            }
            CircuitChance::ReadsAhead => {
                return format!(
                    "{name} reads later tokens, so the copying circuit's checks do not apply to it."
                )
            }
            CircuitChance::Possible => {}
        }
    }
    // The event in the past tense, and after "has not".
    let (did, done) = if repeat {
        (
            "formed its copying circuit".to_string(),
            "formed its copying circuit".to_string(),
        )
    } else {
        (
            format!("came within {NEAR_FLOOR_PERCENT}% of the floor"),
            format!("come within {NEAR_FLOOR_PERCENT}% of the floor"),
        )
    };
    match (at, latest) {
        (Some(step), _) => format!("{name} {did} at step {}.", grouped(step as u64)),
        (None, Some(step)) => format!(
            "{name} has not {done} by step {} (its latest evaluation).",
            grouped(step as u64)
        ),
        (None, None) => format!("{name} has not been evaluated yet."),
    }
}

/// What putting `mistake` right means, for "… once …".
fn put_right(mistake: TrainingMistake) -> &'static str {
    match mistake {
        TrainingMistake::NoCausalMask | TrainingMistake::MaskWithZero => "the causal mask is back",
        TrainingMistake::NoScaling => "the 1/√d scaling is back",
        TrainingMistake::NoPositions => "the positions are back",
        TrainingMistake::SoftmaxOverQueries => "the softmax runs over each row again",
    }
}

/// Why a run trained with `mistake` can score better while it trains than when it is used, for
/// the mistakes that let a row read later tokens ("" for the others).
fn why_it_reads_ahead(mistake: TrainingMistake) -> &'static str {
    match mistake {
        TrainingMistake::NoCausalMask => " Without the mask each position can see the very token it must predict and copy it, even in the random first copy: that is reading the answer, not learning. A model generating text has no later tokens to read.",
        TrainingMistake::MaskWithZero => " A score of 0 is not −∞: later tokens still get weight, so each position can see the very token it must predict and copy it, even in the random first copy. A model generating text has no later tokens to read.",
        TrainingMistake::SoftmaxOverQueries => " A softmax over the queries divides each weight by a sum over later positions, so a row's output can depend on later tokens, which a model generating text does not have.",
        TrainingMistake::NoScaling | TrainingMistake::NoPositions => "",
    }
}

/// A run trained with `mistake`, at its latest evaluation `step`: its held-out loss as it trains
/// (`as_trained`, nats) and with correct attention (`as_used`), the way a model must be used to
/// generate text, beside an even guess over the task's `vocab` tokens.
pub fn as_used_note(
    mistake: TrainingMistake,
    step: usize,
    as_trained: f64,
    as_used: f64,
    vocab: usize,
) -> String {
    format!(
        "At its latest evaluation, step {}, run B's held-out loss is {} nats as it trains ({}) and {} nats once {}, as when the model is used to generate text; an even guess over the {vocab} tokens scores {}.{}",
        grouped(step as u64),
        fixed(as_trained, 3),
        lower_first(mistake.label()),
        fixed(as_used, 3),
        put_right(mistake),
        fixed((vocab as f64).ln(), 3),
        why_it_reads_ahead(mistake),
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::train::page::settings::TrainSettings;

    #[test]
    fn every_offered_change_has_its_own_label() {
        let offered = RunChange::offered(TrainSettings::default());
        let labels: Vec<String> = offered.iter().map(|&c| run_change_label(c)).collect();
        for (i, l) in labels.iter().enumerate() {
            assert!(!labels[i + 1..].contains(l), "{l} twice");
        }
        assert!(labels.contains(&"No causal mask".to_string()));
        assert_eq!(
            run_b_title(RunChange::Mistake(TrainingMistake::NoCausalMask)),
            "Run B: No causal mask (a training mistake)"
        );
        assert!(labels.contains(&"1 layer".to_string()));
    }

    #[test]
    fn milestones_say_when_or_by_when() {
        let can = CircuitChance::Possible;
        assert_eq!(
            run_milestone("Run A", true, can, Some(700), Some(1200)),
            "Run A formed its copying circuit at step 700."
        );
        assert_eq!(
            run_milestone("Run B", true, can, None, Some(1200)),
            "Run B has not formed its copying circuit by step 1,200 (its latest evaluation)."
        );
        assert_eq!(
            run_milestone("Run B", false, can, None, Some(50)),
            format!("Run B has not come within {NEAR_FLOOR_PERCENT}% of the floor by step 50 (its latest evaluation).")
        );
        assert_eq!(
            run_milestone("Run B", true, can, None, None),
            "Run B has not been evaluated yet."
        );
        assert_eq!(
            run_milestone("Run B", true, CircuitChance::OneLayer, None, Some(50)),
            "Run B has one layer, so it cannot form the copying circuit, which takes two."
        );
        assert!(
            run_milestone("Run B", true, CircuitChance::ReadsAhead, Some(50), Some(50))
                .ends_with("checks do not apply to it.")
        );
        // The grammar has no circuit: its milestone is the floor, whatever the layers.
        assert!(
            run_milestone("Run B", false, CircuitChance::OneLayer, Some(50), Some(60))
                .starts_with("Run B came within")
        );
    }

    #[test]
    fn the_as_used_note_gives_both_losses_and_an_even_guess() {
        let text = as_used_note(TrainingMistake::NoCausalMask, 200, 0.0007, 18.69, 32);
        assert!(
            text.starts_with("At its latest evaluation, step 200, run B's held-out loss is 0.001 nats as it trains (no causal mask) and 18.690 nats once the causal mask is back, as when the model is used to generate text; an even guess over the 32 tokens scores 3.466. Without the mask"),
            "{text}"
        );
        for m in TrainingMistake::ALL {
            let text = as_used_note(m, 5, 2.5, 2.0, 32);
            assert_eq!(
                text.contains("later tokens"),
                m.sees_future() || m == TrainingMistake::SoftmaxOverQueries,
                "{text}"
            );
        }
    }

    #[test]
    fn the_gap_note_says_why_the_runs_differ() {
        assert_eq!(run_gap_note(300, 300, (None, None)), None);
        assert_eq!(
            run_gap_note(1250, 400, (None, None)).unwrap(),
            "Run A has trained for 1,250 steps, 850 more. Run B starts from step 0 whenever it is chosen, and each run trains at its own speed; the loss chart compares the two at the same step."
        );
        assert!(run_gap_note(40, 60, (None, None))
            .unwrap()
            .starts_with("Run A has trained for 40 steps, 20 fewer. Each run"));
        assert_eq!(
            run_gap_note(1200, 30, (None, Some(1200))).unwrap(),
            "Run B is training to step 1,200, then stops."
        );
        assert_eq!(
            run_gap_note(10, 60, (Some(60), None)).unwrap(),
            "Run A is training to step 60, then stops."
        );
        // A target reached is no longer news.
        assert_eq!(run_gap_note(50, 50, (Some(50), Some(50))), None);
        // One step is "1 step" (`steps_word`, as in the counters).
        assert!(run_gap_note(1, 0, (None, None))
            .unwrap()
            .starts_with("Run A has trained for 1 step, 1 more."));
    }
}
