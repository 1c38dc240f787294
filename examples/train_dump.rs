//! Writes the exact inputs and results of the first few training steps as JSON, so an
//! independent implementation (`benches/numpy_train.py`) can redo them and compare (//! "a `NumPy` reference of the same forward + backward + Adam step").
//!
//! ```text
//! cargo run --release --example train_dump -- DIR [--steps 5] [--configs repeat,grammar,learned]
//!     [--seed 1] [--bench-steps 0] [--build "release, opt-level z"]
//! ```
//!
//! One file per configuration, `DIR/<name>.json`:
//! - `repeat`: the repeat task's reference default (`TrainConfig::repeat_default`: 2 layers of 2
//!   rotary heads, `d_model` 32, vocab 32, batch 16 × 16 tokens, Adam lr 1e-2);
//! - `grammar`: the tiny grammar's default (`TrainConfig::grammar_default`: 1 layer of 2 heads,
//!   sinusoidal positions);
//! - `learned`: the repeat default with learned positions.
//!
//! Each file holds the config (task, sizes, positions, batch, Adam's lr, β₁, β₂, ε), the parameter
//! groups in the order of `TransformerConfig::layout`, the seeded initial parameters, and for each of
//! the first `--steps` steps the batch, the mean loss, every group's gradient and the parameters
//! after the Adam update. Matrices are flat row-major lists; numbers are written with Rust's
//! shortest round-trip formatting, so they read back bit for bit. The batches come from the
//! trainer's own stream (`train:batches`), and the example checks that its parameters after the
//! last step equal `Trainer::run_to`'s bit for bit, so the dump *is* the trainer's run.
//!
//! With `--bench-steps N` it also times N forward + backward + Adam steps (after 10 warm-up
//! steps; the median of rounds of 10) over the dumped batches in turn, the same work the `NumPy` script times, and adds the
//! result under `"native"`, labelled with `--build` (the example cannot see its own opt-level).

use attention_explorer::model::rng::SeededRng;
use attention_explorer::model::train::adam::Adam;
use attention_explorer::model::train::backward::Workspace;
use attention_explorer::model::train::lab::run_config::TrainConfig;
use attention_explorer::model::train::page::stepping::Trainer;
use attention_explorer::model::train::shape::PositionKind;
use attention_explorer::model::train::tasks::Task;
use attention_explorer::model::train::transformer::Transformer;
use std::fmt::Write as _;
use std::time::Instant;

struct Args {
    dir: String,
    steps: usize,
    configs: Vec<String>,
    seed: u64,
    bench_steps: usize,
    build: String,
}

fn parse_args() -> Args {
    let mut args = Args {
        dir: String::new(),
        steps: 5,
        configs: vec!["repeat".into(), "grammar".into(), "learned".into()],
        seed: 1,
        bench_steps: 0,
        build: if cfg!(debug_assertions) {
            "debug".into()
        } else {
            "release".into()
        },
    };
    let mut it = std::env::args().skip(1);
    while let Some(flag) = it.next() {
        let mut value = || it.next().unwrap_or_else(|| panic!("{flag} needs a value"));
        match flag.as_str() {
            "--steps" => args.steps = value().parse().expect("steps"),
            "--configs" => args.configs = value().split(',').map(str::to_string).collect(),
            "--seed" => args.seed = value().parse().expect("seed"),
            "--bench-steps" => args.bench_steps = value().parse().expect("steps"),
            "--build" => args.build = value(),
            other if !other.starts_with("--") && args.dir.is_empty() => args.dir = other.into(),
            other => panic!("unknown option {other}"),
        }
    }
    assert!(!args.dir.is_empty(), "usage: train_dump DIR [options]");
    assert!(args.steps >= 1, "--steps must be at least 1");
    args
}

fn train_config(name: &str, seed: u64) -> TrainConfig {
    match name {
        "repeat" => TrainConfig::repeat_default(seed),
        "grammar" => TrainConfig::grammar_default(seed),
        "learned" => {
            let mut config = TrainConfig::repeat_default(seed);
            config.model.positions = PositionKind::Learned;
            config
        }
        other => panic!("unknown config {other} (repeat, grammar, learned)"),
    }
}

/// A JSON list of numbers, each in Rust's shortest round-trip form (`{:?}`).
fn numbers(out: &mut String, values: &[f64]) {
    out.push('[');
    for (i, v) in values.iter().enumerate() {
        assert!(v.is_finite(), "non-finite value in the dump");
        if i > 0 {
            out.push(',');
        }
        write!(out, "{v:?}").unwrap();
    }
    out.push(']');
}

/// `{"<group label>": [flat row-major values], …}` for a vector laid out like the parameters.
fn groups(out: &mut String, model: &Transformer, values: &[f64]) {
    out.push('{');
    for (i, span) in model.config().layout().iter().enumerate() {
        if i > 0 {
            out.push(',');
        }
        write!(out, "\"{}\":", span.group.label()).unwrap();
        numbers(out, &values[span.range()]);
    }
    out.push('}');
}

/// Times `steps` forward + backward + Adam steps over `batches` in turn, in rounds of 10 steps;
/// seconds per step, the median over the rounds (robust to bursts of other work on a shared machine).
fn time_steps(config: &TrainConfig, batches: &[Vec<Vec<usize>>], steps: usize) -> f64 {
    let mut model = Transformer::new(config.model, config.seed).expect("model");
    let mut adam = Adam::new(model.params().len(), config.lr);
    let mut grad = vec![0.0; model.params().len()];
    let mut ws = Workspace::default();
    let mut one = |n: usize| {
        grad.fill(0.0);
        model.loss_and_grad(&batches[n % batches.len()], &mut grad, &mut ws);
        adam.step(model.params_mut(), &grad);
    };
    for n in 0..10 {
        one(n);
    }
    let round = 10;
    let mut rounds: Vec<f64> = (0..steps.div_ceil(round))
        .map(|r| {
            let start = Instant::now();
            for n in r * round..(r + 1) * round {
                one(n);
            }
            start.elapsed().as_secs_f64() / round as f64
        })
        .collect();
    rounds.sort_by(f64::total_cmp);
    rounds[rounds.len() / 2]
}

fn dump(name: &str, args: &Args) -> String {
    let config = train_config(name, args.seed);
    let mut model = Transformer::new(config.model, config.seed).expect("model");
    let mut adam = Adam::new(model.params().len(), config.lr);
    let mut grad = vec![0.0; model.params().len()];
    let mut ws = Workspace::default();
    // The trainer's own batch stream (see `Trainer::step`).
    let mut stream = SeededRng::stream(config.seed, "train:batches");
    let cfg = config.model;
    let task = match config.task {
        Task::Repeat(_) => "repeat",
        Task::Grammar(_) => "grammar",
    };

    let mut out = String::new();
    write!(
        out,
        "{{\"name\":\"{name}\",\"config\":{{\"task\":\"{task}\",\"seed\":{},\"vocab\":{},\"d_model\":{},\
         \"layers\":{},\"heads\":{},\"head_size\":{},\"positions\":\"{}\",\"max_len\":{},\"seq_len\":{},\
         \"batch\":{},\"lr\":{:?},\"beta1\":{:?},\"beta2\":{:?},\"eps\":{:?},\"parameters\":{},\
         \"step_flops\":{}}},\"groups\":[",
        config.seed,
        cfg.vocab,
        cfg.d_model,
        cfg.layers,
        cfg.heads,
        cfg.head_size(),
        cfg.positions.name(),
        cfg.max_len,
        config.task.seq_len(),
        config.batch,
        adam.lr,
        adam.beta1,
        adam.beta2,
        adam.eps,
        cfg.parameter_count(),
        cfg.step_flops(config.batch, config.task.seq_len()),
    )
    .unwrap();
    for (i, span) in cfg.layout().iter().enumerate() {
        if i > 0 {
            out.push(',');
        }
        write!(
            out,
            "{{\"name\":\"{}\",\"rows\":{},\"cols\":{}}}",
            span.group.label(),
            span.rows,
            span.cols
        )
        .unwrap();
    }
    out.push_str("],\"initial\":");
    groups(&mut out, &model, model.params());
    out.push_str(",\"steps\":[");
    let mut batches = Vec::new();
    for step in 1..=args.steps {
        let batch: Vec<Vec<usize>> = (0..config.batch)
            .map(|_| config.task.sample(&mut stream, false).tokens)
            .collect();
        grad.fill(0.0);
        let loss = model.loss_and_grad(&batch, &mut grad, &mut ws).mean;
        adam.step(model.params_mut(), &grad);
        if step > 1 {
            out.push(',');
        }
        let tokens: Vec<String> = batch
            .iter()
            .map(|s| format!("{s:?}").replace(' ', ""))
            .collect();
        write!(
            out,
            "{{\"step\":{step},\"batch\":[{}],\"loss\":{loss:?},\"grad\":",
            tokens.join(",")
        )
        .unwrap();
        groups(&mut out, &model, &grad);
        out.push_str(",\"params\":");
        groups(&mut out, &model, model.params());
        out.push('}');
        batches.push(batch);
    }
    out.push(']');

    // The dump is the trainer's run: the same parameters after the same number of steps.
    let mut trainer = Trainer::new(config).expect("config");
    trainer.run_to(args.steps);
    assert!(
        trainer
            .model()
            .params()
            .iter()
            .zip(model.params())
            .all(|(a, b)| a.to_bits() == b.to_bits()),
        "{name}: the dump's parameters differ from Trainer::run_to({})",
        args.steps
    );

    if args.bench_steps > 0 {
        let seconds = time_steps(&config, &batches, args.bench_steps);
        let flops = cfg.step_flops(config.batch, config.task.seq_len()) as f64;
        let tokens = (config.batch * config.task.seq_len()) as f64;
        println!(
            "{name}: native ({}) {:.3} ms/step, {:.1} steps/s, {:.0} tokens/s, {:.2} GFLOP/s ({} steps)",
            args.build,
            seconds * 1e3,
            1.0 / seconds,
            tokens / seconds,
            flops / seconds / 1e9,
            args.bench_steps
        );
        write!(
            out,
            ",\"native\":{{\"build\":{:?},\"steps\":{},\"seconds_per_step\":{seconds:?}}}",
            args.build, args.bench_steps
        )
        .unwrap();
    }
    out.push('}');
    out
}

fn main() {
    let args = parse_args();
    std::fs::create_dir_all(&args.dir).expect("create the output directory");
    for name in &args.configs {
        let json = dump(name, &args);
        let path = format!("{}/{name}.json", args.dir);
        std::fs::write(&path, &json).expect("write the dump");
        println!("wrote {path} ({} bytes, {} steps)", json.len(), args.steps);
    }
}
