//! Writes the trained checkpoints the app fetches: each built-in default,
//! seed 1, trained natively for a fixed number of steps, then saved in f32
//! (`model::train::page::checkpoint_file`) to `assets/checkpoints/<task>.bin`. It also writes
//! `tests/data/checkpoint_scores.txt`: the head scores of the *saved* (f32) weights on the run's
//! held-out set, which `tests/checkpoints.rs` and the Train page's e2e test compare against.
//!
//!   cargo run --release --example checkpoints
//!
//! Deterministic: the same code gives the same bytes (the trainer is bit-exact natively).

use attention_explorer::model::train::lab::detectors::score_heads;
use attention_explorer::model::train::page::checkpoint_file::{decode, encode, CheckpointTask};
use attention_explorer::model::train::page::stepping::Trainer;
use std::fmt::Write as _;
use std::time::Instant;

/// Seed of every checkpoint.
const SEED: u64 = 1;

/// Steps per task: the repeat task's circuit forms by step 1,450 in every seed tried (benches/NOTES.md,
/// "Training (model core)"); the grammar's loss is near its minimum well before 1,000.
fn steps(task: CheckpointTask) -> u32 {
    match task {
        CheckpointTask::Repeat => 2_000,
        CheckpointTask::Grammar => 1_000,
    }
}

fn main() {
    let mut scores = String::from(
        "# Head scores of the saved checkpoints on their held-out sets, written by\n# `cargo run --release --example checkpoints`: task layer head previous induction first self entropy_bits\n",
    );
    for task in CheckpointTask::ALL {
        let start = Instant::now();
        let mut trainer = Trainer::new(task.config(SEED)).expect("default config");
        trainer.run_to(steps(task) as usize);
        let bytes = encode(task, SEED, steps(task), trainer.model());
        let path = format!("assets/checkpoints/{}", task.file_name());
        std::fs::write(&path, &bytes).expect("write checkpoint");
        let saved = decode(&bytes).expect("own checkpoint");
        let heads = score_heads(&saved.model, trainer.held_out());
        for (layer, row) in heads.iter().enumerate() {
            for (head, s) in row.iter().enumerate() {
                let _ = writeln!(
                    scores,
                    "{task:?} {} {} {:?} {:?} {:?} {:?} {:?}",
                    layer + 1,
                    head + 1,
                    s.previous_token,
                    s.induction.unwrap_or(f64::NAN),
                    s.first_token,
                    s.self_token,
                    s.entropy_bits
                );
            }
        }
        println!(
            "{path}: {} bytes, {} steps in {:.1} s, held-out loss {:.4}",
            bytes.len(),
            steps(task),
            start.elapsed().as_secs_f64(),
            trainer.latest().loss
        );
    }
    std::fs::write("tests/data/checkpoint_scores.txt", scores).expect("write scores");
}
