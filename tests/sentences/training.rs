//! The training page's sentences: the circuit checklist, the verdicts, the agreement report and
//! the counts, and the closer look's row summary.

use crate::views::*;
use attention_explorer::format::{fixed, grouped, percent};
use attention_explorer::model::train::lab::composition::{
    Composition, CopyingNumbers, COPYING_RATIO_MAX,
};
use attention_explorer::model::train::lab::detectors::AgreementReport;
use attention_explorer::model::train::lab::evaluation::{
    BestHead, CircuitCheck, INDUCTION_MIN, PREVIOUS_TOKEN_MIN, REPEAT_RATIO_MAX,
};
use attention_explorer::model::train::lab::mistakes::TrainingMistake;
use attention_explorer::model::train::page::settings::GrammarFloors;
use attention_explorer::text;
use proptest::prelude::*;

proptest! {
    #![proptest_config(config(256))]

    /// `circuit_items` and `circuit_summary`: "Met" exactly when the score reaches its threshold, a
    /// score printed beside its threshold never reads as the threshold unless it is, and the
    /// summary's branch (formed, cannot form, forms later, held before, not yet) is the check's.
    #[test]
    fn the_circuit_checklist_is_its_thresholds(
        prev in 0.0f64..1.0, induction in prop::option::of((0usize..8, 0.0f64..1.0)),
        ratio in 0.0f64..2.0, near in 0u8..4, step in 0usize..5000, first in prop::option::of(0usize..5000),
        head in 0usize..8,
    ) {
        // Sometimes exactly at, or a hair from, a threshold.
        let at = |x: f64, min: f64| match near { 0 => min, 1 => min + 1e-9, 2 => min - 1e-9, _ => x };
        let check = CircuitCheck {
            previous_token: BestHead { head, score: at(prev, PREVIOUS_TOKEN_MIN) },
            induction: induction.map(|(h, s)| BestHead { head: h, score: at(s, INDUCTION_MIN) }),
            repeat_ratio: at(ratio, REPEAT_RATIO_MAX),
        };
        let items = text::circuit_items(&check);
        let met = [
            check.previous_token.score >= PREVIOUS_TOKEN_MIN,
            check.induction.is_some_and(|b| b.score >= INDUCTION_MIN),
            check.repeat_ratio <= REPEAT_RATIO_MAX,
        ];
        for (item, (met, (score, limit))) in items.iter().zip(met.into_iter().zip([
            (Some(check.previous_token.score), PREVIOUS_TOKEN_MIN),
            (check.induction.map(|b| b.score), INDUCTION_MIN),
            (Some(check.repeat_ratio * 100.0), REPEAT_RATIO_MAX * 100.0),
        ])) {
            prop_assert_clean!(&item.text);
            prop_assert_eq!(item.met, met, "{}", item.text);
            match score {
                None => prop_assert_eq!(item.status, "Not possible"),
                Some(score) => {
                    prop_assert_eq!(item.status, if met { "Met" } else { "Not yet" });
                    let printed = if limit > 1.0 { number_after(&item.text, "is ") } else { number_after(&item.text, "scores ") };
                    if score != limit {
                        prop_assert!(printed != limit, "{} printed as its threshold {}: {}", score, limit, item.text);
                    }
                }
            }
        }
        let summary = text::circuit_summary(step, &check, first);
        prop_assert_clean!(&summary);
        let formed = met.iter().all(|&m| m);
        prop_assert_eq!(summary.contains("has formed"), formed, "{}", summary);
        if !formed && check.induction.is_none() {
            prop_assert!(summary.contains("cannot form"), "{}", summary);
        }
        if let (false, Some(_), Some(f)) = (formed, check.induction, first) {
            prop_assert_eq!(summary.contains("forms at the evaluation"), f > step, "{}", summary);
        }
    }

    /// `grammar_verdict`, `loss_explainer`, `first_copy_note`, `repeat_verdict`: "above"/"below the
    /// line", "worse"/"better than"/"the same as" the even guess, "above"/"below it" and "more than
    /// half" are the numbers' own order, and the printed numbers never contradict the word.
    #[test]
    fn training_verdicts_follow_the_numbers(
        loss in 0.0f64..5.0, floor in 0.1f64..3.0, vocab in 2usize..64, sequences in 1usize..500,
        ratio in 0.0f64..1.5, step in 0usize..10_000, first in prop::option::of(0usize..10_000), stuck in any::<bool>(),
    ) {
        let floors = GrammarFloors { held_out: floor, training: floor * 0.9 };
        let verdict = text::grammar_verdict(step, loss, floors, sequences, first);
        prop_assert_clean!(&verdict);
        let gap = loss / floor - 1.0;
        prop_assert_eq!(verdict.contains("above the line"), gap >= 0.0, "{}", verdict);
        prop_assert_eq!(verdict.contains("has not come within"), first.is_none(), "{}", verdict);
        let even = (vocab as f64).ln();
        let explainer = text::loss_explainer(vocab, sequences, Some(loss));
        prop_assert_clean!(&explainer);
        let word = if loss > even { "worse than" } else if loss < even { "better than" } else { "the same as" };
        prop_assert!(explainer.contains(word), "{}", explainer);
        let note = text::first_copy_note(vocab, loss, sequences, step);
        prop_assert_clean!(&note);
        prop_assert_eq!(note.contains("above it"), loss >= even, "{}", note);
        prop_assert_eq!(note.contains("at step 0 the weights are the random starting ones"), loss >= even && step == 0, "{}", note);
        if loss >= even {
            prop_assert!(note.contains(&format!("{} above it", fixed(loss - even, 3))), "{}", note);
        }
        let stuck = stuck && ratio > 0.5;
        let repeat = text::repeat_verdict(step, ratio, stuck);
        prop_assert_clean!(&repeat);
        prop_assert!(repeat.contains(&percent(ratio)), "{}", repeat);
    }

    /// `agreement_summary`, `training_status`, `checkpoints_note`: the counts and shares are the
    /// report's, the head named looks at the subject most (first of equals), and "1 step" /
    /// "1 checkpoint" only for one.
    #[test]
    fn agreement_and_counts_are_the_reports(
        sentences in 0usize..400, correct in 0.0f64..=1.0, mismatched in 0.0f64..=1.0, right in 0.0f64..=1.0,
        weights in prop::collection::vec(prop::collection::vec(0.0f64..1.0, 0..5), 0..3),
        step in 0usize..10_000, kept in 0usize..40,
    ) {
        let correct = (correct * sentences as f64) as usize;
        let mismatched = (mismatched * sentences as f64) as usize;
        let mismatched_correct = (right * mismatched as f64) as usize;
        let report = AgreementReport {
            sentences,
            correct,
            mismatched,
            mismatched_correct,
            attractor_weight: weights.iter().map(|l| l.iter().map(|w| 1.0 - w).collect()).collect(),
            subject_weight: weights.clone(),
        };
        let said = text::agreement_summary(step, &report);
        prop_assert_clean!(&said);
        let share = |n: usize, of: usize| percent(n as f64 / of.max(1) as f64);
        prop_assert!(said.contains(&format!("in {correct} of {sentences} held-out sentences ({})", share(correct, sentences))), "{}", said);
        prop_assert!(said.contains(&format!("in {mismatched_correct} of the {mismatched} whose nearer noun")), "{}", said);
        prop_assert!(said.contains(&format!("({}).", share(mismatched_correct, mismatched))), "{}", said);
        let best = weights.iter().enumerate().flat_map(|(l, ws)| ws.iter().enumerate().map(move |(h, &w)| (l, h, w)))
            .fold(None, |best: Option<(usize, usize, f64)>, x| match best { Some(b) if b.2 >= x.2 => Some(b), _ => Some(x) });
        match best {
            None => prop_assert!(!said.contains("looks at the subject"), "{}", said),
            Some((l, h, w)) => {
                let layer = number_after(&said, "From the nearer noun's row, layer ") as usize - 1;
                let head = number_after(&said, &format!("layer {}, head ", layer + 1)) as usize - 1;
                prop_assert_eq!(weights[layer][head], w, "{}", said);
                prop_assert!(layer < l || (layer == l && head <= h), "not the first of equals: {}", said);
                prop_assert!(said.contains(&format!("{} of its weight on average, against {}", fixed(w, 2), fixed(1.0 - w, 2))), "{}", said);
            }
        }
        let status = text::training_status(step, "repeat", false);
        prop_assert_eq!(status.contains(" 1 step "), step == 1, "{}", status);
        prop_assert_eq!(status.starts_with("Not trained yet"), step == 0, "{}", status);
        let note = text::checkpoints_note(kept, 50, 32);
        prop_assert!(note.starts_with(&format!("{} kept", plural(kept, "checkpoint", "checkpoints"))), "{}", note);
    }

    /// `closer_row_summary`: the largest weight is the row's largest and sits on the key named; the
    /// entropy and its range (0 to log₂ n) are the row's.
    #[test]
    fn closer_row_summary_names_the_largest(weights in prop::collection::vec(0.0f64..1.0, 1..16), words in prop::collection::vec(0..VOCAB.len(), 16)) {
        let sum: f64 = weights.iter().sum();
        let row: Vec<f64> = if sum > 0.0 { weights.iter().map(|w| w / sum).collect() } else { vec![1.0 / weights.len() as f64; weights.len()] };
        let tokens: Vec<String> = words.iter().map(|&w| VOCAB[w].to_string()).collect();
        let said = text::closer_row_summary(&tokens, &row);
        prop_assert_clean!(&said);
        let key = number_after(&said, " on key ") as usize - 1;
        prop_assert_eq!(row[key], max_of(&row), "{}", said);
        prop_assert!(said.starts_with(&format!("Largest weight {} on key {} {};", percent(max_of(&row)), key + 1, quote(&tokens[key]))), "{}", said);
        prop_assert!(said.contains(&format!("entropy {} bits", fixed(entropy(&row), 2))), "{}", said);
    }

    /// Run B's sentences: a run's milestone gives the step it formed at, or "by" the latest
    /// evaluation, or why the checks cannot apply (one layer, reading ahead; the repeat task
    /// only); a mistaken run's note prints both losses and the even guess over `vocab` tokens as
    /// they are, and speaks of later tokens only for the mistakes that let a row read them.
    #[test]
    fn run_b_sentences_are_their_numbers(
        repeat in any::<bool>(), chance in 0usize..3, at in prop::option::of(0usize..20_000),
        latest in prop::option::of(0usize..20_000), mistake in 0usize..5,
        trained in 0.0f64..30.0, used in 0.0f64..30.0, vocab in 2usize..64, step in 0usize..20_000,
    ) {
        let chance = [text::CircuitChance::Possible, text::CircuitChance::OneLayer, text::CircuitChance::ReadsAhead][chance];
        let said = text::run_milestone("Run B", repeat, chance, at, latest);
        prop_assert_clean!(&said);
        if repeat && chance != text::CircuitChance::Possible {
            prop_assert!(!said.contains("step"), "{}", said);
        } else if let Some(s) = at {
            prop_assert!(said.ends_with(&format!(" at step {}.", grouped(s as u64))), "{}", said);
        } else if let Some(l) = latest {
            prop_assert!(said.ends_with(&format!(" by step {} (its latest evaluation).", grouped(l as u64))), "{}", said);
        } else {
            prop_assert_eq!(said, "Run B has not been evaluated yet.");
        }
        let m = TrainingMistake::ALL[mistake];
        let note = text::as_used_note(m, step, trained, used, vocab);
        prop_assert_clean!(&note);
        prop_assert!(note.starts_with(&format!("At its latest evaluation, step {}, run B's held-out loss is {} nats as it trains (", grouped(step as u64), fixed(trained, 3))), "{}", note);
        prop_assert!(note.contains(&format!(" and {} nats once ", fixed(used, 3))), "{}", note);
        prop_assert!(note.contains(&format!("an even guess over the {vocab} tokens scores {}.", fixed((vocab as f64).ln(), 3))), "{}", note);
        let reads_ahead = m.sees_future() || m == TrainingMistake::SoftmaxOverQueries;
        prop_assert_eq!(note.contains("later tokens"), reads_ahead, "{}", note);
    }
}

/// Which tokens each copy's loss counts, written once and shared by the words that define them.
const COPY_TOKENS_SAID: &str = "each copy's tokens after its first";

proptest! {
    #![proptest_config(config(256))]

    /// `first_copy_note` and `floor_legend`: both floors are expected values, so each says "on
    /// average" and that the run's sample of `sequences` held-out sequences can dip below it; the
    /// note also says which tokens the two copy losses count (each copy's first one is left out,
    /// as `Repeat::first_copy_rows` and `Repeat::repeated_rows` leave it).
    #[test]
    fn the_floors_are_averages_a_sample_can_dip_below(
        loss in 0.0f64..6.0, vocab in 2usize..64, sequences in 1usize..500, step in 0usize..10_000,
    ) {
        let note = text::first_copy_note(vocab, loss, sequences, step);
        prop_assert_clean!(&note);
        prop_assert!(note.contains("on average over all sequences no model can score less than an even guess"), "{}", note);
        prop_assert!(note.contains(&format!("a sample of {sequences} held-out sequences, like this one, can dip below it")), "{}", note);
        prop_assert!(!note.contains("no model can average less"), "{}", note);
        prop_assert!(note.starts_with(&format!("The first copy and the repeated part count {COPY_TOKENS_SAID}")), "{}", note);
        let legend = text::floor_legend(sequences);
        prop_assert!(!legend.contains("(exact)"), "{}", legend);
        prop_assert!(legend.contains("exact on average"), "{}", legend);
        prop_assert!(legend.contains(&format!("a sample of {sequences} held-out sequences can dip below it")), "{}", legend);
    }

    /// `circuit_summary`: wherever it says "formed", it gives the loss share "formed" asks for,
    /// from `REPEAT_RATIO_MAX`, so a looser share elsewhere reads as another bar.
    #[test]
    fn formed_gives_its_threshold(
        prev in 0.0f64..1.0, induction in prop::option::of(0.0f64..1.0), ratio in 0.0f64..2.0,
        step in 0usize..5000, first in prop::option::of(0usize..5000),
    ) {
        let check = CircuitCheck {
            previous_token: BestHead { head: 0, score: prev },
            induction: induction.map(|score| BestHead { head: 1, score }),
            repeat_ratio: ratio,
        };
        let summary = text::circuit_summary(step, &check, first);
        let bar = format!("the repeated part's loss be at most {}% of the first copy's", fixed(REPEAT_RATIO_MAX * 100.0, 0));
        if summary.contains("formed") {
            prop_assert!(summary.contains(&bar), "{}", summary);
        }
    }

    /// `composition_item`: wherever a knock-out leaves the model "still copying", the item says
    /// what copying means (`INDUCTION_MIN`, `COPYING_RATIO_MAX`) and that it is a looser bar than
    /// the checklist's `REPEAT_RATIO_MAX` for "formed", so "still copying (30.4%)" beside a
    /// prediction's "rose" reads true.
    #[test]
    fn still_copying_gives_its_threshold(
        scores in prop::collection::vec((0.0f64..1.0, 0.05f64..1.2), 3..5), prev in 0usize..2,
        step in 0usize..5000,
    ) {
        let numbers = |(induction, ratio): (f64, f64)| CopyingNumbers { induction, first_copy_loss: 3.0, repeated_loss: 3.0 * ratio };
        let c = Composition {
            previous_token_head: BestHead { head: prev, score: 0.8 },
            induction_head: BestHead { head: 1, score: scores[0].0 },
            intact: numbers(scores[0]),
            zero: scores[1..3].iter().copied().map(numbers).collect(),
            mean: scores[1..3].iter().copied().map(numbers).collect(),
        };
        let item = text::composition_item(step, &c);
        prop_assert_clean!(&item.text);
        let (ind, copy, formed) = (fixed(INDUCTION_MIN, 2), fixed(COPYING_RATIO_MAX * 100.0, 0), fixed(REPEAT_RATIO_MAX * 100.0, 0));
        let bar = format!("Still copying: induction at least {ind}, repeated part at most {copy}% of the first copy's, a looser bar than the {formed}% at which the circuit counts as formed.");
        if item.text.contains("still copying") {
            prop_assert!(item.text.contains(&bar), "{}", item.text);
        }
    }
}

/// The loss table's caption: for the repeat task which tokens its copy columns count; for the
/// tiny grammar that those columns are the repeat task's, so its "–" cells read as "not this
/// task" (the same words are the cells' title).
#[test]
fn the_loss_table_says_what_its_copy_columns_are() {
    let repeat = text::loss_table_caption(true);
    assert!(
        repeat.ends_with(&format!(
            "first copy and repeated part: {}",
            text::COPY_TOKENS
        )),
        "{repeat}"
    );
    assert!(text::COPY_TOKENS.starts_with(COPY_TOKENS_SAID));
    let grammar = text::loss_table_caption(false);
    assert!(
        grammar.contains("columns belong to the repeat task"),
        "{grammar}"
    );
    assert!(grammar.ends_with(text::NO_COPIES), "{grammar}");
    assert!(text::NO_COPIES.contains("(–)"));
    let label = text::loss_chart_label(None, None);
    assert!(
        label.contains(&format!("on the repeated part ({})", text::COPY_TOKENS)),
        "{label}"
    );
}

/// The training page's rotary positions: a score depends on the two tokens' contents and their
/// offset (not "how far apart" alone, nor their absolute places), each pair of dimensions turning
/// at its own frequency.
#[test]
fn rotary_positions_are_stated_truly() {
    let kinds = text::POSITION_KINDS;
    assert!(
        !kinds.contains("depends on how far apart two tokens are"),
        "{kinds}"
    );
    assert!(kinds.contains("each pair at its own frequency"), "{kinds}");
    assert!(kinds.contains("a score depends on the two tokens' contents (their query and key vectors) and on their offset, not on their absolute places"), "{kinds}");
}
