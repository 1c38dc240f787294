//! Prints the generation download (`model::generation_export`) of the grammar checkpoint
//! (`assets/checkpoints/grammar.bin`) for a prompt and sampler given on the command line: a dev
//! tool, and how `e2e/check_generate_json.py` is fed outside the browser.
//!
//! ```text
//! cargo run --example generation_json -- PROMPT T TOP_K SEED COUNT [TAU]
//! cargo run --example generation_json -- "the" 0.7 3 5 8 > generation.json
//! ```
//!
//! T = 0 is greedy; `TAU` (the attention temperature) defaults to 1.

use attention_explorer::model::generation_export::{generation_json, GenerationRecord};
use attention_explorer::model::next_token::generate_at;
use attention_explorer::model::sampling::Sampler;
use attention_explorer::model::train::page::checkpoint_file::decode;
use attention_explorer::model::train::tasks::{Grammar, GRAMMAR_WORDS};
use std::process::ExitCode;

const USAGE: &str = "usage: generation_json PROMPT T TOP_K SEED COUNT [TAU]";

fn parse<T: std::str::FromStr>(arg: &str, what: &str) -> Result<T, String> {
    arg.parse()
        .map_err(|_| format!("{what}: cannot read {arg:?}\n{USAGE}"))
}

fn run(args: &[String]) -> Result<String, String> {
    if !(5..=6).contains(&args.len()) {
        return Err(USAGE.into());
    }
    let prompt = Grammar::encode(&args[0])
        .ok_or_else(|| format!("{:?} has a word outside the grammar's vocabulary", args[0]))?;
    let sampler = Sampler {
        temperature: parse(&args[1], "T")?,
        top_k: parse(&args[2], "TOP_K")?,
    };
    let seed: u64 = parse(&args[3], "SEED")?;
    let count: usize = parse(&args[4], "COUNT")?;
    let tau: f64 = args.get(5).map_or(Ok(1.0), |a| parse(a, "TAU"))?;
    let model = decode(include_bytes!("../assets/checkpoints/grammar.bin"))?.model;
    let steps = generate_at(&model, &prompt, count, sampler, seed, tau)?;
    Ok(generation_json(&GenerationRecord {
        model: &model,
        vocabulary: &GRAMMAR_WORDS,
        prompt: &prompt,
        sampler,
        seed,
        tau,
        steps: &steps,
    }))
}

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    match run(&args) {
        Ok(json) => {
            print!("{json}");
            ExitCode::SUCCESS
        }
        Err(e) => {
            eprintln!("{e}");
            ExitCode::FAILURE
        }
    }
}
