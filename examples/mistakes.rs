//! What each training mistake does: trains the repeat task's reference default (or, with
//! `--grammar`, the tiny grammar's) with each mistake and without, for each seed, and prints at a
//! few step counts the held-out loss as the run trains (with its mistake) and as the model is used
//! (the same weights, correct causal attention), the first-copy and repeated parts of both, the
//! copying circuit's checklist as trained and as used, and at the last step the composition test
//! (`docs/training.md`, "What each mistake does when you train with it").
//!
//!   cargo run --release --example mistakes -- [--seeds 1,2,3] [--steps 400,800,1500] [--grammar]
//!       [--mistakes no-mask,mask-zero,...] [--json FILE]
//!
//! Add `--config profile.release.opt-level=3` to cargo for the fastest native code.

use attention_explorer::model::train::lab::composition::composition;
use attention_explorer::model::train::lab::evaluation::EvalPoint;
use attention_explorer::model::train::lab::mistakes::TrainingMistake;
use attention_explorer::model::train::lab::run_config::TrainConfig;
use attention_explorer::model::train::page::stepping::Trainer;
use std::fmt::Write as _;
use std::time::Instant;

struct Args {
    seeds: Vec<u64>,
    steps: Vec<usize>,
    grammar: bool,
    mistakes: Vec<Option<TrainingMistake>>,
    json: Option<String>,
}

fn parse_args() -> Args {
    let mut args = Args {
        seeds: vec![1, 2, 3],
        steps: vec![400, 800, 1_500],
        grammar: false,
        mistakes: std::iter::once(None)
            .chain(TrainingMistake::ALL.map(Some))
            .collect(),
        json: None,
    };
    let mut it = std::env::args().skip(1);
    let list = |s: String| s.split(',').map(str::to_string).collect::<Vec<_>>();
    while let Some(flag) = it.next() {
        let mut value = || it.next().unwrap_or_else(|| panic!("{flag} needs a value"));
        match flag.as_str() {
            "--seeds" => args.seeds = list(value()).iter().map(|s| s.parse().unwrap()).collect(),
            "--steps" => args.steps = list(value()).iter().map(|s| s.parse().unwrap()).collect(),
            "--grammar" => args.grammar = true,
            "--mistakes" => {
                args.mistakes = list(value())
                    .iter()
                    .map(|k| match k.as_str() {
                        "none" => None,
                        k => Some(TrainingMistake::from_key(k).expect("a mistake's key")),
                    })
                    .collect();
            }
            "--json" => args.json = Some(value()),
            other => panic!("unknown option {other}"),
        }
    }
    args.steps.sort_unstable();
    args
}

fn opt(x: Option<f64>) -> String {
    x.map_or_else(|| "—".into(), |x| format!("{x:.3}"))
}

/// The checklist's three numbers and its verdict: `prev/ind/ratio ✓|✗`.
fn circuit(e: &EvalPoint) -> String {
    e.circuit_check().map_or_else(
        || "—".into(),
        |c| {
            format!(
                "{:.2}/{}/{:.0}% {}",
                c.previous_token.score,
                c.induction
                    .map_or_else(|| "—".into(), |b| format!("{:.2}", b.score)),
                100.0 * c.repeat_ratio,
                if c.formed() { "formed" } else { "no" }
            )
        },
    )
}

fn json_number(x: Option<f64>) -> String {
    x.map_or_else(|| "null".into(), |x| format!("{x}"))
}

fn main() {
    let args = parse_args();
    let mut json = String::new();
    println!(
        "{:<13} {:>4} {:>5}  {:>7} {:>7}  {:>13} {:>13}  {:<22} {:<22}",
        "mistake",
        "seed",
        "step",
        "loss",
        "as used",
        "first/rep",
        "used f/r",
        "circuit (trained)",
        "circuit (as used)"
    );
    for mistake in &args.mistakes {
        for &seed in &args.seeds {
            let mut config = if args.grammar {
                TrainConfig::grammar_default(seed)
            } else {
                TrainConfig::repeat_default(seed)
            };
            config.mistake = *mistake;
            let mut t = Trainer::new(config).expect("config");
            let start = Instant::now();
            for &step in &args.steps {
                t.run_to(step);
                let e = t.latest();
                let u = e.as_used();
                let name = mistake.map_or("none", TrainingMistake::key);
                println!(
                    "{name:<13} {seed:>4} {step:>5}  {:>7.3} {:>7.3}  {:>13} {:>13}  {:<22} {:<22}",
                    e.loss,
                    u.loss,
                    format!("{}/{}", opt(e.first_copy_loss), opt(e.repeated_loss)),
                    format!("{}/{}", opt(u.first_copy_loss), opt(u.repeated_loss)),
                    circuit(e),
                    circuit(u),
                );
                let _ = writeln!(
                    json,
                    "{{\"mistake\":\"{name}\",\"seed\":{seed},\"step\":{step},\"loss\":{},\"first\":{},\"repeated\":{},\"used_loss\":{},\"used_first\":{},\"used_repeated\":{},\"formed\":{},\"used_formed\":{},\"seconds\":{}}}",
                    e.loss,
                    json_number(e.first_copy_loss),
                    json_number(e.repeated_loss),
                    u.loss,
                    json_number(u.first_copy_loss),
                    json_number(u.repeated_loss),
                    e.circuit_formed(),
                    u.circuit_formed(),
                    start.elapsed().as_secs_f64()
                );
            }
            if let Some(c) = composition(&config, t.model(), t.held_out()) {
                let prev = c.previous_token_head.head;
                println!(
                    "{:>19} composition at {}: {} (L1H{} knocked out: induction {:.2}, ratio {:.0}%; mean-ablation {})",
                    "",
                    t.steps(),
                    if c.holds() { "holds" } else { "does not hold" },
                    prev + 1,
                    c.zero[prev].induction,
                    100.0 * c.zero[prev].repeat_ratio(),
                    if c.holds_with_mean() { "holds" } else { "does not hold" },
                );
            }
        }
    }
    if let Some(path) = &args.json {
        std::fs::write(path, json).expect("write --json");
        println!("wrote {path}");
    }
}
