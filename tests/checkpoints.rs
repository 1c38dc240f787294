//! The trained checkpoints shipped beside the app (`assets/checkpoints/`, written by
//! `cargo run --release --example checkpoints`): each decodes, belongs to its default run, has the
//! head scores recorded in `tests/data/checkpoint_scores.txt` (which the Train page's e2e test
//! also reads), and really is trained: the repeat checkpoint has the induction circuit, the
//! grammar checkpoint's held-out loss is within 10 % of the grammar's exact held-out floor.

use attention_explorer::model::train::lab::detectors::score_heads;
use attention_explorer::model::train::page::checkpoint_file::{decode, CheckpointTask};
use attention_explorer::model::train::page::stepping::Trainer;
use attention_explorer::model::train::tasks::Grammar;

fn load(
    task: CheckpointTask,
) -> (
    attention_explorer::model::train::page::checkpoint_file::Checkpoint,
    Trainer,
) {
    let path = format!(
        "{}/assets/checkpoints/{}",
        env!("CARGO_MANIFEST_DIR"),
        task.file_name()
    );
    let bytes = std::fs::read(&path).unwrap_or_else(|e| panic!("{path}: {e}"));
    assert!(bytes.len() <= 50_000, "{path}: {} bytes", bytes.len());
    let checkpoint = decode(&bytes).unwrap();
    assert_eq!(checkpoint.task, task);
    // A fresh run of the same default: its held-out set is the one the scores are measured on.
    let trainer = Trainer::new(checkpoint.config()).unwrap();
    (checkpoint, trainer)
}

/// `tests/data/checkpoint_scores.txt` as (task, layer, head, [scores]).
fn recorded() -> Vec<(String, usize, usize, Vec<f64>)> {
    let text = include_str!("data/checkpoint_scores.txt");
    text.lines()
        .filter(|l| !l.starts_with('#'))
        .map(|l| {
            let f: Vec<&str> = l.split_whitespace().collect();
            (
                f[0].to_string(),
                f[1].parse().unwrap(),
                f[2].parse().unwrap(),
                f[3..].iter().map(|x| x.parse().unwrap()).collect(),
            )
        })
        .collect()
}

#[test]
fn head_scores_match_the_recorded_ones_exactly() {
    let rows = recorded();
    let mut checked = 0;
    for task in CheckpointTask::ALL {
        let (checkpoint, trainer) = load(task);
        let heads = score_heads(&checkpoint.model, trainer.held_out());
        for (name, layer, head, want) in rows.iter().filter(|r| r.0 == format!("{task:?}")) {
            let s = &heads[layer - 1][head - 1];
            let got = [
                s.previous_token,
                s.induction.unwrap_or(f64::NAN),
                s.first_token,
                s.self_token,
                s.entropy_bits,
            ];
            for (g, w) in got.iter().zip(want) {
                assert!(
                    g.to_bits() == w.to_bits(),
                    "{name} layer {layer} head {head}: {g} vs {w}"
                );
            }
            checked += 1;
        }
    }
    // 2 layers × 2 heads (repeat) + 1 layer × 2 heads (grammar).
    assert_eq!(checked, 6);
}

#[test]
fn the_repeat_checkpoint_has_the_induction_circuit() {
    let (checkpoint, trainer) = load(CheckpointTask::Repeat);
    let heads = score_heads(&checkpoint.model, trainer.held_out());
    let previous = heads[0]
        .iter()
        .map(|s| s.previous_token)
        .fold(0.0, f64::max);
    let induction = heads[1]
        .iter()
        .filter_map(|s| s.induction)
        .fold(0.0, f64::max);
    assert!(previous >= 0.7, "layer-1 previous-token score {previous}");
    assert!(induction >= 0.5, "layer-2 induction score {induction}");
}

#[test]
fn the_grammar_checkpoint_is_near_the_grammar_s_held_out_floor() {
    let (checkpoint, trainer) = load(CheckpointTask::Grammar);
    let tokens: Vec<Vec<usize>> = trainer
        .held_out()
        .iter()
        .map(|s| s.tokens.clone())
        .collect();
    let loss = checkpoint.model.batch_loss(&tokens).mean;
    let minimum = Grammar::REFERENCE.held_out_floor_loss();
    assert!(
        Grammar::near_floor(loss, minimum),
        "held-out loss {loss} vs floor {minimum}"
    );
}

/// The grammar checkpoint has learned subject–verb agreement (the page's agreement columns and
/// sentence for it): the right verb is the more probable one in nearly every held-out agreement
/// sentence, also where the nearer noun has the other number, and some head weights the subject
/// above the nearer noun from the row that predicts the verb.
#[test]
fn the_grammar_checkpoint_gets_agreement_right() {
    let (checkpoint, trainer) = load(CheckpointTask::Grammar);
    let report = trainer.agreement_of(&checkpoint.model).unwrap();
    assert_eq!((report.sentences, report.mismatched), (64, 32));
    assert!(report.accuracy() >= 0.95, "{report:?}");
    assert!(report.mismatched_accuracy() >= 0.95, "{report:?}");
    assert!(
        report.subject_weight[0]
            .iter()
            .zip(&report.attractor_weight[0])
            .any(|(subject, nearer)| subject > nearer),
        "{report:?}"
    );
}
