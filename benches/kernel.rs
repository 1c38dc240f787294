//! Native kernel benchmark: `causal_attention` (Q, K, V projections, scores, causal mask,
//! softmax, A·V) for T ∈ {7, 64, 256, 512}, `d_model` = 64, one head of size 64, τ = 1.
//!
//! A tiny harness instead of criterion (no extra dependencies, seconds to build): warm up, then time
//! batches of calls with `Instant` and report the median time per call. For every T the seeded
//! inputs and the Rust result are written as little-endian f64 files so that
//! `benches/numpy_attention.py` times `NumPy` on exactly the same numbers and checks it agrees.
//!
//! Run through `scripts/bench.sh`, or alone:
//!   `CARGO_PROFILE_BENCH_OPT_LEVEL=3` cargo bench --bench kernel -- --out target/bench
//! Options: `--out DIR` (default target/bench), `--quick` (shorter runs), `--sizes 7,64`.

use attention_explorer::model::attention::{causal_attention, causal_softmax, HeadProjections};
use attention_explorer::model::rng::SeededRng;
use attention_explorer::model::temperature::logit_scale;
use nalgebra::DMatrix;
use std::fmt::Write as _;
use std::hint::black_box;
use std::io::Write as _;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

const D_MODEL: usize = 64;
const HEAD_SIZE: usize = 64;
const TAU: f64 = 1.0;
const SEED: u64 = 20_240_604;

/// A seeded `rows × cols` matrix of N(0, std²) draws, filled row by row.
fn seeded(label: &str, rows: usize, cols: usize, std_dev: f64) -> DMatrix<f64> {
    let mut rng = SeededRng::stream(SEED, label);
    let mut m = DMatrix::zeros(rows, cols);
    for r in 0..rows {
        for c in 0..cols {
            m[(r, c)] = rng.normal() * std_dev;
        }
    }
    m
}

/// Appends `m` to `out` in row-major order (what `np.fromfile(...).reshape(rows, cols)` reads).
fn push_row_major(out: &mut Vec<u8>, m: &DMatrix<f64>) {
    for r in 0..m.nrows() {
        for c in 0..m.ncols() {
            out.extend_from_slice(&m[(r, c)].to_le_bytes());
        }
    }
}

struct Timing {
    median_ns: f64,
    p10_ns: f64,
    p90_ns: f64,
    calls: usize,
}

fn percentile(sorted: &[f64], p: f64) -> f64 {
    let k = ((sorted.len() - 1) as f64 * p).round() as usize;
    sorted[k]
}

/// Times `f`: warm-up of `warm`, then samples of `batch` calls each until `budget` is spent
/// (at least 15 samples). Returns per-call statistics over the samples.
fn time_it(mut f: impl FnMut(), warm: Duration, budget: Duration) -> Timing {
    let start = Instant::now();
    let mut calls = 0usize;
    while start.elapsed() < warm || calls < 3 {
        f();
        calls += 1;
    }
    // Batch so that one sample lasts ≳ 200 µs (timer overhead negligible).
    let per_call = start.elapsed().as_secs_f64() / calls as f64;
    let batch = ((200e-6 / per_call).ceil() as usize).max(1);
    let mut samples = Vec::new();
    let t0 = Instant::now();
    while t0.elapsed() < budget || samples.len() < 15 {
        let s = Instant::now();
        for _ in 0..batch {
            f();
        }
        samples.push(s.elapsed().as_secs_f64() * 1e9 / batch as f64);
    }
    samples.sort_by(f64::total_cmp);
    Timing {
        median_ns: percentile(&samples, 0.5),
        p10_ns: percentile(&samples, 0.1),
        p90_ns: percentile(&samples, 0.9),
        calls: samples.len() * batch,
    }
}

fn write_file(path: &Path, bytes: &[u8]) {
    std::fs::write(path, bytes).unwrap_or_else(|e| panic!("writing {}: {e}", path.display()));
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    // `cargo bench` passes `--bench`; ignore anything we do not know.
    let value_of = |name: &str| {
        args.iter()
            .position(|a| a == name)
            .and_then(|i| args.get(i + 1))
            .cloned()
    };
    let out_dir = PathBuf::from(value_of("--out").unwrap_or_else(|| "target/bench".into()));
    let quick = args.iter().any(|a| a == "--quick");
    let sizes: Vec<usize> = value_of("--sizes").map_or_else(
        || vec![7, 64, 256, 512],
        |s| s.split(',').filter_map(|x| x.trim().parse().ok()).collect(),
    );
    std::fs::create_dir_all(&out_dir).expect("create output dir");
    let (warm, budget) = if quick {
        (Duration::from_millis(100), Duration::from_millis(400))
    } else {
        (Duration::from_millis(500), Duration::from_secs(3))
    };

    let w_std = 1.0 / (D_MODEL as f64).sqrt();
    let w_q = seeded("bench:w_q", D_MODEL, HEAD_SIZE, w_std);
    let w_k = seeded("bench:w_k", D_MODEL, HEAD_SIZE, w_std);
    let w_v = seeded("bench:w_v", D_MODEL, HEAD_SIZE, w_std);

    let mut json = String::from("[\n");
    let mut breakdown = Vec::new();
    println!("Rust causal_attention, d_model {D_MODEL}, one head of {HEAD_SIZE}, tau {TAU}");
    println!(
        "{:>5} {:>14} {:>14} {:>14} {:>10}",
        "T", "median/call", "p10", "p90", "calls"
    );
    for (k, &t) in sizes.iter().enumerate() {
        let x = seeded(&format!("bench:x:{t}"), t, D_MODEL, 1.0);
        let result = causal_attention(&x, &w_q, &w_k, &w_v, TAU);
        // Inputs and the Rust answer for the NumPy side (same numbers, and a correctness check).
        let mut bytes = Vec::new();
        for m in [&x, &w_q, &w_k, &w_v, &result.weights, &result.output] {
            push_row_major(&mut bytes, m);
        }
        write_file(&out_dir.join(format!("kernel_T{t}.f64")), &bytes);

        let timing = time_it(
            || {
                black_box(causal_attention(
                    black_box(&x),
                    black_box(&w_q),
                    black_box(&w_k),
                    black_box(&w_v),
                    black_box(TAU),
                ));
            },
            warm,
            budget,
        );
        println!(
            "{t:>5} {:>11.1} µs {:>11.1} µs {:>11.1} µs {:>10}",
            timing.median_ns / 1e3,
            timing.p10_ns / 1e3,
            timing.p90_ns / 1e3,
            timing.calls
        );
        // Where the time goes: the three stages of the call, timed alone (shorter runs).
        let part_budget = budget / 3;
        let proj = HeadProjections::new(&x, &w_q, &w_k, &w_v);
        let scale = logit_scale(HEAD_SIZE, TAU);
        let t_proj = time_it(
            || {
                black_box(HeadProjections::new(
                    black_box(&x),
                    black_box(&w_q),
                    black_box(&w_k),
                    black_box(&w_v),
                ));
            },
            warm / 2,
            part_budget,
        );
        let t_softmax = time_it(
            || {
                black_box(causal_softmax(black_box(&proj.scores), black_box(scale)));
            },
            warm / 2,
            part_budget,
        );
        let t_av = time_it(
            || {
                black_box(black_box(&result.weights) * black_box(&proj.v));
            },
            warm / 2,
            part_budget,
        );
        breakdown.push(format!(
            "{t:>5} {:>16.1} {:>16.1} {:>16.1}",
            t_proj.median_ns / 1e3,
            t_softmax.median_ns / 1e3,
            t_av.median_ns / 1e3
        ));
        let _ = writeln!(
            &mut json,
            "  {{\"T\": {t}, \"d_model\": {D_MODEL}, \"head_size\": {HEAD_SIZE}, \"tau\": {TAU}, \"median_ns\": {:.1}, \"p10_ns\": {:.1}, \"p90_ns\": {:.1}, \"calls\": {}, \"projections_qk_ns\": {:.1}, \"softmax_ns\": {:.1}, \"av_ns\": {:.1}, \"file\": \"kernel_T{t}.f64\"}}{}",
            timing.median_ns,
            timing.p10_ns,
            timing.p90_ns,
            timing.calls,
            t_proj.median_ns,
            t_softmax.median_ns,
            t_av.median_ns,
            if k + 1 < sizes.len() { "," } else { "" }
        );
    }
    json.push_str("]\n");
    println!("\nBreakdown (median µs per call of each stage alone):");
    println!(
        "{:>5} {:>16} {:>16} {:>16}",
        "T", "X·W, Q·Kᵀ", "causal softmax", "A·V"
    );
    for line in &breakdown {
        println!("{line}");
    }
    write_file(&out_dir.join("kernel_rust.json"), json.as_bytes());
    let _ = std::io::stdout().flush();
}
