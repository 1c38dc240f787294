//! What a trained model predicts next: for each row of a sentence, the next-token distribution
//! its output gives (at the attention temperature τ of the heatmap), its most likely tokens, and
//! how likely and how costly the token that actually follows is; and text generated one token at
//! a time at that τ, with where each draw fell.
//!
//! Every number is the key–value cache's ([`KvCache`]), which is bit for bit the trainer's full
//! forward pass (`model::train::generate`): row i reads tokens `0..=i` only, so the rows of a
//! sentence are the rows of its longest prefix.

use super::sampling::{shares, top_k_ids, Sampler};
use super::train::generate::{GeneratedStep, Generator, KvCache, TokenRow};
use super::train::transformer::{KeepOutputs, Transformer};

/// How many of the most likely next tokens the inspector lists.
pub const SHOWN_CANDIDATES: usize = 5;

/// One possible next token and its probability.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Candidate {
    pub token: usize,
    pub p: f64,
}

/// The token that actually follows a row, as the model saw it coming.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Following {
    pub token: usize,
    /// Its probability under the row's distribution.
    pub p: f64,
    /// Its cross-entropy `−ln p` in nats, computed as the trainer computes its losses.
    pub loss: f64,
}

/// What one row predicts.
#[derive(Debug, Clone, PartialEq)]
pub struct NextToken {
    /// The row's next-token distribution over the whole vocabulary (sums to 1).
    pub probs: Vec<f64>,
    /// The [`SHOWN_CANDIDATES`] most likely tokens, most likely first (ties: lower id first).
    pub top: Vec<Candidate>,
    /// The probability of every other token, summed (so `top` and `rest` add up to 1).
    pub rest: f64,
    /// The token after the row, `None` at the last row.
    pub following: Option<Following>,
}

/// Every row of `ids` read by `model` at attention temperature `tau`: row i's logits and
/// probabilities predict token i + 1. Fails for an id outside the vocabulary or a sentence longer
/// than the model's context.
pub fn next_token_rows(
    model: &Transformer,
    ids: &[usize],
    tau: f64,
) -> Result<Vec<TokenRow>, String> {
    let mut cache = KvCache::with_hook(model, tau, &KeepOutputs);
    ids.iter().map(|&id| cache.push(id)).collect()
}

/// What row `row` of `ids` predicts at `tau` (only tokens `0..=row` are read, and the one after
/// it names the following token).
pub fn next_token(
    model: &Transformer,
    ids: &[usize],
    row: usize,
    tau: f64,
) -> Result<NextToken, String> {
    if row >= ids.len() {
        return Err(format!(
            "row {} is past the sentence's {} tokens",
            row + 1,
            ids.len()
        ));
    }
    let last = next_token_rows(model, &ids[..=row], tau)?
        .pop()
        .expect("at least one row was read");
    let (top, rest) = candidates(&last.probs);
    let following = ids.get(row + 1).map(|&token| Following {
        token,
        p: last.probs[token],
        loss: last.loss_of(token),
    });
    Ok(NextToken {
        probs: last.probs,
        top,
        rest,
        following,
    })
}

/// The [`SHOWN_CANDIDATES`] most likely tokens of `probs`, most likely first (ties: lower id
/// first), and the probability of every other token, summed.
pub fn candidates(probs: &[f64]) -> (Vec<Candidate>, f64) {
    let top: Vec<Candidate> = top_k_ids(probs, SHOWN_CANDIDATES)
        .into_iter()
        .map(|token| Candidate {
            token,
            p: probs[token],
        })
        .collect();
    let rest = (0..probs.len())
        .filter(|&id| top.iter().all(|c| c.token != id))
        .map(|id| probs[id])
        .sum();
    (top, rest)
}

/// Where the draw picks `token` from `probs`: the running total of probability before it and
/// after it, in id order, as [`shares`] adds them for the draw. The token is chosen exactly
/// when `start ≤ u < end`.
pub fn share_of(probs: &[f64], token: usize) -> (f64, f64) {
    let start = shares(probs)
        .take_while(|&(i, _, _)| i < token)
        .last()
        .map_or(0.0, |(_, _, end)| end);
    (start, start + probs[token])
}

/// `count` tokens after `prompt`, read and written by `model` at attention temperature `tau`,
/// chosen by `sampler` with the draws of `seed` (step i draws `draw(seed, i)`). Fails, naming the
/// context length, when they do not fit; fails as [`Generator::from_cache`] for a refused prompt.
pub fn generate_at(
    model: &Transformer,
    prompt: &[usize],
    count: usize,
    sampler: Sampler,
    seed: u64,
    tau: f64,
) -> Result<Vec<GeneratedStep>, String> {
    let max_len = model.config().max_len;
    if prompt.len() + count > max_len {
        return Err(context_full(max_len));
    }
    if count == 0 {
        return Ok(Vec::new());
    }
    let cache = KvCache::with_hook(model, tau, &KeepOutputs);
    let mut generator = Generator::from_cache(cache, prompt, sampler, seed)?;
    (0..count).map(|_| generator.step()).collect()
}

/// Why no more tokens can be generated: the context length.
pub fn context_full(max_len: usize) -> String {
    format!("The model reads at most {max_len} tokens, so the text stops here.")
}
