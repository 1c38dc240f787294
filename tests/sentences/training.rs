//! The training page's sentences: the circuit checklist, the verdicts, the agreement report and
//! the counts, and the closer look's row summary.

use crate::views::*;
use attention_explorer::format::{fixed, grouped, percent};
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
