//! The download of a generated text: everything needed to recompute it elsewhere, from the
//! weights up (`e2e/check_generate_json.py` does it in `NumPy`). A reader who trusts none of the
//! page's numbers can rerun the model on the prompt, rebuild each step's distribution and redraw
//! each token, and find the same text; so the file holds:
//! - `kind`: `"generation"`, what the file is;
//! - `model`: the model's shape (the training download's field names: `vocab`, `d_model`,
//!   `layers`, `heads`, `head_size`, `max_len`, `positions`);
//! - `groups`: every trained matrix, named as [`ParamGroup::label`], row-major, in the training
//!   download's format (one writer for both);
//! - `vocabulary`: the word of each token id;
//! - `prompt`: its token `ids` and their `words`;
//! - `sampling`: the sampling temperature `temperature` (T, 0 for greedy), `top_k`, the `seed` of
//!   the draws and the attention temperature `tau` (τ, inside every layer);
//! - `steps`, one per generated token, in order: the `token` chosen and its `word`, the `logits`
//!   it was chosen from (every value: the last row of the forward pass over the prompt and the
//!   tokens before it, at τ), `probs` (the sampler's distribution over the whole vocabulary:
//!   top-k, then T), `draw` (the uniform number that picked it, `null` when the sampler is
//!   greedy) and `loss` (`−ln p(token)` under the model's own distribution at τ: T = 1, every
//!   token kept).
//!
//! Numbers are written with Rust's `{}`, the shortest text that reads back as the same f64, so a
//! reader starts from exactly the page's numbers.
//!
//! [`ParamGroup::label`]: crate::model::train::shape::ParamGroup::label

use super::export::{json_number, json_string};
use super::sampling::Sampler;
use super::train::generate::GeneratedStep;
use super::train::page::export::{groups_json, shape_json};
use super::train::transformer::Transformer;
use std::fmt::Write;

/// One generated text and how it was made: what [`generation_json`] writes.
#[derive(Debug, Clone, Copy)]
pub struct GenerationRecord<'a> {
    /// The model that read the prompt and wrote the steps.
    pub model: &'a Transformer,
    /// The word of each token id (at least `vocab` of them for every word to be named).
    pub vocabulary: &'a [&'a str],
    pub prompt: &'a [usize],
    pub sampler: Sampler,
    /// The seed of the draws: step i drew [`draw`](super::sampling::draw)`(seed, i)`.
    pub seed: u64,
    /// The attention temperature τ every layer ran at.
    pub tau: f64,
    /// The generated tokens, in order (from [`generate_at`](super::next_token::generate_at)).
    pub steps: &'a [GeneratedStep],
}

/// The word of token `id`, or `null` for an id past the vocabulary's words.
fn word(out: &mut String, vocabulary: &[&str], id: usize) {
    match vocabulary.get(id) {
        Some(w) => json_string(out, w),
        None => out.push_str("null"),
    }
}

/// `values` as one JSON list of numbers.
fn numbers(out: &mut String, values: &[f64]) {
    out.push('[');
    for (i, &x) in values.iter().enumerate() {
        if i > 0 {
            out.push_str(", ");
        }
        json_number(out, x);
    }
    out.push(']');
}

/// The JSON document for `record` (see the module documentation).
pub fn generation_json(record: &GenerationRecord) -> String {
    let m = record.model.config();
    let mut out = String::with_capacity(64 * 1024);
    let _ = write!(
        out,
        "{{\n  \"kind\": \"generation\",\n  \"model\": {},\n  \"groups\": ",
        shape_json(m)
    );
    groups_json(&mut out, m, record.model.params());
    out.push_str(",\n  \"vocabulary\": [");
    for (i, w) in record.vocabulary.iter().enumerate() {
        if i > 0 {
            out.push_str(", ");
        }
        json_string(&mut out, w);
    }
    out.push_str("],\n  \"prompt\": {\"ids\": [");
    for (i, &id) in record.prompt.iter().enumerate() {
        if i > 0 {
            out.push_str(", ");
        }
        let _ = write!(out, "{id}");
    }
    out.push_str("], \"words\": [");
    for (i, &id) in record.prompt.iter().enumerate() {
        if i > 0 {
            out.push_str(", ");
        }
        word(&mut out, record.vocabulary, id);
    }
    out.push_str("]},\n  \"sampling\": {\"temperature\": ");
    json_number(&mut out, record.sampler.temperature);
    let _ = write!(
        out,
        ", \"top_k\": {}, \"seed\": {}, \"tau\": ",
        record.sampler.top_k, record.seed
    );
    json_number(&mut out, record.tau);
    out.push_str("},\n  \"steps\": [");
    for (i, step) in record.steps.iter().enumerate() {
        out.push_str(if i == 0 { "\n    " } else { ",\n    " });
        let _ = write!(out, "{{\"token\": {}, \"word\": ", step.token);
        word(&mut out, record.vocabulary, step.token);
        out.push_str(",\n     \"logits\": ");
        numbers(&mut out, &step.logits);
        out.push_str(",\n     \"probs\": ");
        numbers(&mut out, &step.probs);
        out.push_str(",\n     \"draw\": ");
        match step.draw {
            Some(u) => json_number(&mut out, u),
            None => out.push_str("null"),
        }
        out.push_str(", \"loss\": ");
        json_number(&mut out, step.loss);
        out.push('}');
    }
    out.push_str(if record.steps.is_empty() {
        "]\n}\n"
    } else {
        "\n  ]\n}\n"
    });
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::next_token::generate_at;
    use crate::model::train::shape::{PositionKind, TransformerConfig};

    /// A small random model with learned positions (so the file has that group too).
    fn model() -> Transformer {
        let config = TransformerConfig {
            vocab: 7,
            d_model: 8,
            layers: 2,
            heads: 2,
            max_len: 9,
            positions: PositionKind::Learned,
        };
        Transformer::new(config, 3).unwrap()
    }

    const WORDS: [&str; 7] = ["a", "b", "c", "d", "e", "\"q\"", "."];

    /// The text of the list after `"key": ` from `at` on: its numbers, parsed back.
    fn list_after(text: &str, key: &str) -> Vec<f64> {
        let start = text.find(&format!("\"{key}\": [")).unwrap() + key.len() + 5;
        let end = start + text[start..].find(']').unwrap();
        text[start..end]
            .split(", ")
            .map(|s| s.parse::<f64>().unwrap())
            .collect()
    }

    #[test]
    fn every_step_s_numbers_are_written_exactly_and_greedy_draws_are_null() {
        let m = model();
        for (sampler, seed) in [
            (Sampler::GREEDY, 0),
            (
                Sampler {
                    temperature: 0.9,
                    top_k: 4,
                },
                11,
            ),
        ] {
            let steps = generate_at(&m, &[1, 5], 6, sampler, seed, 0.8).unwrap();
            let record = GenerationRecord {
                model: &m,
                vocabulary: &WORDS,
                prompt: &[1, 5],
                sampler,
                seed,
                tau: 0.8,
                steps: &steps,
            };
            let json = generation_json(&record);
            assert!(json.starts_with("{\n  \"kind\": \"generation\",\n  \"model\": {\"vocab\": 7, \"d_model\": 8, \"layers\": 2, \"heads\": 2, \"head_size\": 4, \"max_len\": 9, \"positions\": \"learned\"},\n  \"groups\": [{\"name\": \"token embedding\""));
            assert!(
                json.contains("\"prompt\": {\"ids\": [1, 5], \"words\": [\"b\", \"\\\"q\\\"\"]}")
            );
            let chunks: Vec<&str> = json.split("{\"token\": ").skip(1).collect();
            assert_eq!(chunks.len(), steps.len());
            for (chunk, step) in chunks.iter().zip(&steps) {
                assert!(chunk.starts_with(&format!("{}, ", step.token)));
                for (written, value) in [
                    (list_after(chunk, "logits"), &step.logits),
                    (list_after(chunk, "probs"), &step.probs),
                ] {
                    assert_eq!(written.len(), value.len());
                    assert!(written
                        .iter()
                        .zip(value)
                        .all(|(a, b)| a.to_bits() == b.to_bits()));
                }
                let draw = &chunk[chunk.find("\"draw\": ").unwrap() + 8..];
                let draw = &draw[..draw.find(',').unwrap()];
                match step.draw {
                    None => assert_eq!(draw, "null"),
                    Some(u) => assert_eq!(draw.parse::<f64>().unwrap().to_bits(), u.to_bits()),
                }
                let loss = &chunk[chunk.find("\"loss\": ").unwrap() + 8..];
                let loss = &loss[..loss.find('}').unwrap()];
                assert_eq!(loss.parse::<f64>().unwrap().to_bits(), step.loss.to_bits());
            }
            assert_eq!(
                json.matches("\"draw\": null").count(),
                if sampler.is_greedy() { steps.len() } else { 0 }
            );
            assert!(json.ends_with("}\n  ]\n}\n"));
        }
    }

    #[test]
    fn no_steps_is_an_empty_list() {
        let m = model();
        let record = GenerationRecord {
            model: &m,
            vocabulary: &WORDS[..3],
            prompt: &[4],
            sampler: Sampler::GREEDY,
            seed: 0,
            tau: 1.0,
            steps: &[],
        };
        let json = generation_json(&record);
        assert!(json.contains("\"prompt\": {\"ids\": [4], \"words\": [null]}"));
        assert!(json.contains(&format!(
            "\"sampling\": {{\"temperature\": 0, \"top_k\": {}, \"seed\": 0, \"tau\": 1}}",
            usize::MAX
        )));
        assert!(json.ends_with("\"steps\": []\n}\n"));
    }
}
