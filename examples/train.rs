//! Trains the repeat task's reference default natively and prints what the page will animate: the kernel
//! speed (ms per step, GFLOP/s), then for each seed the steps at which the previous-token head
//! (layer 1), the induction head (layer 2) and the drop of the repeated part's loss appear.
//!
//!   cargo run --release --example train -- [--seeds 1,2,3] [--max-steps 3000] [--bench-steps 200]
//!       [--positions rotary|learned|sinusoidal] [--heads 1|2|4] [--lr 0.01] [--grammar]
//!       [--json FILE]
//!
//! Defaults: the repeat task's reference (`TrainConfig::repeat_default`), or with `--grammar` the
//! tiny grammar's (`TrainConfig::grammar_default`: 1 layer, 2 sinusoidal heads); the options
//! override single settings. `--bench-steps 0` skips the kernel timing. `--json FILE` also writes
//! one JSON object per seed (the steps and wall-clock seconds of each milestone; scripts/bench.sh).
//! The seconds are the trainer's own, evaluations every 25 steps included.
//!
//! (The release profile is tuned for size, `opt-level = "z"`, like the wasm build; add
//! `--config profile.release.opt-level=3` to cargo for the fastest native code.)

use attention_explorer::model::rng::SeededRng;
use attention_explorer::model::train::backward::Workspace;
use attention_explorer::model::train::lab::evaluation::EvalPoint;
use attention_explorer::model::train::lab::run_config::TrainConfig;
use attention_explorer::model::train::page::stepping::Trainer;
use attention_explorer::model::train::shape::PositionKind;
use attention_explorer::model::train::tasks::{Grammar, GRAMMAR_WORDS};
use attention_explorer::model::train::transformer::Transformer;
use std::time::Instant;

struct Args {
    seeds: Vec<u64>,
    max_steps: usize,
    bench_steps: usize,
    positions: Option<PositionKind>,
    heads: Option<usize>,
    lr: Option<f64>,
    grammar: bool,
    json: Option<String>,
}

fn parse_args() -> Args {
    let mut args = Args {
        seeds: vec![1, 2, 3],
        max_steps: 3_000,
        bench_steps: 200,
        positions: None,
        heads: None,
        lr: None,
        grammar: false,
        json: None,
    };
    let mut it = std::env::args().skip(1);
    while let Some(flag) = it.next() {
        let mut value = || it.next().unwrap_or_else(|| panic!("{flag} needs a value"));
        match flag.as_str() {
            "--seeds" => {
                args.seeds = value()
                    .split(',')
                    .map(|s| s.parse().expect("seed"))
                    .collect();
            }
            "--max-steps" => args.max_steps = value().parse().expect("steps"),
            "--bench-steps" => args.bench_steps = value().parse().expect("steps"),
            "--positions" => {
                args.positions = Some(PositionKind::from_name(&value()).expect("position kind"));
            }
            "--heads" => args.heads = Some(value().parse().expect("heads")),
            "--lr" => args.lr = Some(value().parse().expect("learning rate")),
            "--grammar" => args.grammar = true,
            "--json" => args.json = Some(value()),
            other => panic!("unknown option {other}"),
        }
    }
    args
}

fn config(args: &Args, seed: u64) -> TrainConfig {
    let mut config = if args.grammar {
        TrainConfig::grammar_default(seed)
    } else {
        TrainConfig::repeat_default(seed)
    };
    config.model.positions = args.positions.unwrap_or(config.model.positions);
    config.model.heads = args.heads.unwrap_or(config.model.heads);
    config.lr = args.lr.unwrap_or(config.lr);
    config
}

/// Times forward + backward + Adam on the reference batch shape, `steps` times.
fn bench(args: &Args) {
    let config = config(args, 1);
    let model_config = config.model;
    let mut model = Transformer::new(model_config, 1).expect("model");
    let task = config.task;
    let mut rng = SeededRng::stream(1, "bench");
    let batch: Vec<Vec<usize>> = (0..config.batch)
        .map(|_| task.sample(&mut rng, false).tokens)
        .collect();
    let mut grad = vec![0.0; model.params().len()];
    let mut ws = Workspace::default();
    let mut adam = attention_explorer::model::train::adam::Adam::new(grad.len(), config.lr);
    for _ in 0..10 {
        grad.fill(0.0);
        model.loss_and_grad(&batch, &mut grad, &mut ws);
        adam.step(model.params_mut(), &grad);
    }
    let start = Instant::now();
    for _ in 0..args.bench_steps {
        grad.fill(0.0);
        model.loss_and_grad(&batch, &mut grad, &mut ws);
        adam.step(model.params_mut(), &grad);
    }
    let seconds = start.elapsed().as_secs_f64() / args.bench_steps as f64;
    // Forward passes only: the flat, allocation-free path against the straightforward DMatrix one
    // (one allocation per product; the reference the tests hold the fast path to).
    let mut cache = attention_explorer::model::train::transformer::ForwardCache::default();
    let passes = args.bench_steps.max(1);
    let start = Instant::now();
    for _ in 0..passes {
        for tokens in &batch {
            model.forward(tokens, &mut cache);
        }
    }
    let flat = start.elapsed().as_secs_f64() / passes as f64;
    let start = Instant::now();
    for _ in 0..passes {
        for tokens in &batch {
            std::hint::black_box(model.reference_forward(tokens));
        }
    }
    let straightforward = start.elapsed().as_secs_f64() / passes as f64;
    let flops = model_config.step_flops(config.batch, task.seq_len());
    println!(
        "model: {:?}, {} parameters, batch {}, {:.2} MFLOP/step",
        model_config,
        model_config.parameter_count(),
        config.batch,
        flops as f64 / 1e6
    );
    println!(
        "kernel: {:.3} ms/step, {:.0} steps/s, {:.0} tokens/s, {:.2} GFLOP/s ({} timed steps)",
        seconds * 1e3,
        1.0 / seconds,
        (config.batch * task.seq_len()) as f64 / seconds,
        flops as f64 / seconds / 1e9,
        args.bench_steps
    );
    println!(
        "forward of one batch: {:.3} ms flat, {:.3} ms with a DMatrix per product ({:.1}× slower)",
        flat * 1e3,
        straightforward * 1e3,
        straightforward / flat
    );
}

fn fmt_step(step: Option<usize>) -> String {
    step.map_or_else(|| "—".to_string(), |s| s.to_string())
}

/// A JSON number, or `null` for none.
fn json_opt<T: std::fmt::Display>(value: Option<T>) -> String {
    value.map_or_else(|| "null".to_string(), |v| v.to_string())
}

fn main() {
    let args = parse_args();
    if args.bench_steps > 0 {
        bench(&args);
    }
    let mut json_lines = Vec::new();
    if args.grammar {
        let minimum = Grammar::REFERENCE.held_out_floor_loss();
        for &seed in &args.seeds {
            let mut trainer = Trainer::new(config(&args, seed)).expect("config");
            let start = Instant::now();
            // The wall-clock time at the first evaluation within 10 % of the held-out floor.
            let mut within_seconds = None;
            while trainer.steps() < args.max_steps {
                trainer.step();
                if within_seconds.is_none() && Grammar::near_floor(trainer.latest().loss, minimum) {
                    within_seconds = Some(start.elapsed().as_secs_f64());
                }
            }
            let seconds = start.elapsed().as_secs_f64();
            let agreement = trainer.agreement().expect("grammar task");
            let within = trainer.first_step_where(|e| Grammar::near_floor(e.loss, minimum));
            println!(
                "grammar seed {seed}: held-out loss {:.4} after {} steps (held-out floor {minimum:.4}; within 10 % from step {}, {} s), {seconds:.1} s",
                trainer.latest().loss,
                trainer.steps(),
                fmt_step(within),
                within_seconds.map_or_else(|| "—".into(), |s| format!("{s:.2}")),
            );
            json_lines.push(format!(
                "{{\"task\":\"grammar\",\"seed\":{seed},\"minimum\":{minimum},\"within_step\":{},\"within_seconds\":{},\"steps\":{},\"seconds\":{seconds},\"final_loss\":{},\"agreement\":{}}}",
                json_opt(within),
                json_opt(within_seconds),
                trainer.steps(),
                trainer.latest().loss,
                agreement.accuracy()
            ));
            println!(
                "  agreement on {} held-out sentences: {:.0} % right, {:.0} % where the nearer noun has the other number",
                agreement.sentences,
                100.0 * agreement.accuracy(),
                100.0 * agreement.mismatched_accuracy()
            );
            for (l, (subject, attractor)) in agreement
                .subject_weight
                .iter()
                .zip(&agreement.attractor_weight)
                .enumerate()
            {
                for (h, (s, a)) in subject.iter().zip(attractor).enumerate() {
                    println!(
                        "  layer {} head {}: the row predicting the verb puts {s:.2} on the subject, {a:.2} on the nearer noun",
                        l + 1,
                        h + 1
                    );
                }
            }
            let sentence = Grammar::encode("The cat sat on the mat .").expect("words");
            for (h, w) in trainer.model().attention(&sentence)[0].iter().enumerate() {
                let argmax: Vec<String> = (0..sentence.len())
                    .map(|i| {
                        let j = (0..=i)
                            .fold(0, |best, j| if w[(i, j)] > w[(i, best)] { j } else { best });
                        format!(
                            "{}→{}",
                            GRAMMAR_WORDS[sentence[i]], GRAMMAR_WORDS[sentence[j]]
                        )
                    })
                    .collect();
                println!(
                    "  default sentence, head {}: strongest key per row: {}",
                    h + 1,
                    argmax.join(", ")
                );
            }
        }
        write_json(&args, &json_lines);
        return;
    }
    println!("seed  prev>0.5(L1)  ind>0.5(L2)  repeat≤30%  circuit  stuck  final ratio  prev  ind   s to circuit  seconds");
    for &seed in &args.seeds {
        let mut trainer = Trainer::new(config(&args, seed)).expect("config");
        let start = Instant::now();
        // Run until the circuit has formed (plus 200 steps to see it settle) or max_steps.
        let (mut formed_at, mut formed_seconds) = (None, None);
        while trainer.steps() < args.max_steps {
            trainer.step();
            if formed_at.is_none() && trainer.latest().circuit_formed() {
                formed_at = Some(trainer.steps());
                formed_seconds = Some(start.elapsed().as_secs_f64());
            }
            if formed_at.is_some_and(|s| trainer.steps() >= s + 200) {
                break;
            }
        }
        let first = |test: &dyn Fn(&EvalPoint) -> bool| trainer.first_step_where(test);
        let last = trainer.latest();
        let stuck = trainer.evals.iter().any(EvalPoint::stuck);
        json_lines.push(format!(
            "{{\"task\":\"repeat\",\"seed\":{seed},\"positions\":\"{}\",\"previous_step\":{},\"induction_step\":{},\"ratio_step\":{},\"circuit_step\":{},\"circuit_seconds\":{},\"stuck\":{stuck},\"steps\":{},\"seconds\":{}}}",
            trainer.config().model.positions.name(),
            json_opt(first(&|e| e.best_previous_token(0) > 0.5)),
            json_opt(first(&|e| e.best_induction(1) > 0.5)),
            json_opt(first(&|e| e.repeat_ratio().is_some_and(|r| r <= 0.3))),
            json_opt(formed_at),
            json_opt(formed_seconds),
            trainer.steps(),
            start.elapsed().as_secs_f64()
        ));
        println!(
            "{seed:>4}  {:>12}  {:>11}  {:>10}  {:>7}  {:>5}  {:>11.3}  {:.2}  {:.2}  {:>12}  {:.1}",
            fmt_step(first(&|e| e.best_previous_token(0) > 0.5)),
            fmt_step(first(&|e| e.best_induction(1) > 0.5)),
            fmt_step(first(&|e| e.repeat_ratio().is_some_and(|r| r <= 0.3))),
            fmt_step(first(&EvalPoint::circuit_formed)),
            if stuck { "yes" } else { "no" },
            last.repeat_ratio().unwrap_or(f64::NAN),
            last.best_previous_token(0),
            last.best_induction(1),
            formed_seconds.map_or_else(|| "—".into(), |s| format!("{s:.1}")),
            start.elapsed().as_secs_f64()
        );
        for (l, layer) in last.heads.iter().enumerate() {
            for (h, s) in layer.iter().enumerate() {
                println!(
                    "      layer {} head {}: previous {:.2}, induction {:.2}, first {:.2}, self {:.2}, entropy {:.2} bits",
                    l + 1,
                    h + 1,
                    s.previous_token,
                    s.induction.unwrap_or(f64::NAN),
                    s.first_token,
                    s.self_token,
                    s.entropy_bits
                );
            }
        }
    }
    write_json(&args, &json_lines);
}

/// Writes `--json`'s file: one object per seed, one per line.
fn write_json(args: &Args, lines: &[String]) {
    if let Some(path) = &args.json {
        std::fs::write(path, lines.join("\n") + "\n").expect("write --json");
        println!("wrote {path}");
    }
}
