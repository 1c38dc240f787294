//! The trainer's first 100 losses for a small repeat-task run, against a committed golden file.
//!
//! Natively the losses must match `tests/data/train_golden.txt` bit for bit (every operation is in
//! a fixed order; see `src/model/train/kernels.rs`). In WebAssembly (headless Chromium) they must
//! match to 1e-9 relative: the arithmetic is the same, but `exp`, `ln`, `sin`, `cos` and `powf`
//! come from a different maths library and may differ in the last bit.
//!
//! Regenerate (only after an intended change to the model, the tasks or the optimiser):
//!   `UPDATE_TRAIN_GOLDEN=1 cargo test --test train_golden`

use attention_explorer::model::train::lab::run_config::TrainConfig;
use attention_explorer::model::train::page::stepping::Trainer;
use attention_explorer::model::train::shape::{PositionKind, TransformerConfig};
use attention_explorer::model::train::tasks::RepeatTask;
use attention_explorer::model::train::tasks::Task;

const GOLDEN: &str = include_str!("data/train_golden.txt");
const STEPS: usize = 100;

/// Small enough for an unoptimised wasm test build: 2 rotary layers of 2 heads, `d_model` 16.
fn golden_config() -> TrainConfig {
    TrainConfig {
        model: TransformerConfig {
            vocab: 16,
            d_model: 16,
            layers: 2,
            heads: 2,
            max_len: 12,
            positions: PositionKind::Rotary,
        },
        task: Task::Repeat(RepeatTask {
            vocab: 16,
            seq_len: 12,
            min_segment: 3,
            max_segment: 5,
        }),
        batch: 4,
        lr: 1e-2,
        seed: 2024,
        eval_every: STEPS,
        eval_sequences: 4,
        mistake: None,
    }
}

fn run() -> Vec<f64> {
    let mut trainer = Trainer::new(golden_config()).expect("config");
    trainer.run_to(STEPS);
    trainer.train_losses
}

/// `step loss bits` lines (bits: the f64's bit pattern in hex); `#` starts a comment line.
fn parse(text: &str) -> Vec<f64> {
    text.lines()
        .filter(|l| !l.starts_with('#') && !l.trim().is_empty())
        .map(|l| {
            let bits = l.split_whitespace().nth(2).expect("three columns");
            f64::from_bits(u64::from_str_radix(bits, 16).expect("hex bits"))
        })
        .collect()
}

#[cfg(not(target_arch = "wasm32"))]
#[test]
fn native_losses_match_the_golden_file_bit_for_bit() {
    use std::fmt::Write as _;
    let losses = run();
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/data/train_golden.txt");
    if std::env::var_os("UPDATE_TRAIN_GOLDEN").is_some() {
        let mut text = String::from(
            "# tests/train_golden.rs: training loss at steps 1-100 (step, decimal, f64 bits in hex)\n",
        );
        for (i, l) in losses.iter().enumerate() {
            writeln!(text, "{} {l:.17e} {:016x}", i + 1, l.to_bits()).expect("a String");
        }
        std::fs::write(path, text).expect("write the golden file");
    }
    let golden = parse(&std::fs::read_to_string(path).expect("golden file"));
    assert_eq!(golden.len(), STEPS);
    for (step, (a, b)) in losses.iter().zip(&golden).enumerate() {
        assert_eq!(a.to_bits(), b.to_bits(), "step {}: {a} vs {b}", step + 1);
    }
    // The run learns something: the last losses are below the first.
    assert!(golden[STEPS - 1] < golden[0]);
    // The compiled-in copy is the same file (what the wasm test reads).
    assert_eq!(parse(GOLDEN).len(), STEPS);
}

#[cfg(target_arch = "wasm32")]
mod wasm {
    use super::*;
    use wasm_bindgen_test::*;

    wasm_bindgen_test_configure!(run_in_browser);

    #[wasm_bindgen_test]
    fn wasm_losses_match_native_to_1e_9() {
        let golden = parse(GOLDEN);
        let losses = run();
        assert_eq!(golden.len(), STEPS);
        for (step, (a, b)) in losses.iter().zip(&golden).enumerate() {
            let rel = (a - b).abs() / b.abs();
            assert!(rel <= 1e-9, "step {}: {a} vs {b} ({rel:e})", step + 1);
        }
    }
}
