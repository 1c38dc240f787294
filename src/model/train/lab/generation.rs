//! What a trained model writes: the tiny-grammar model's sentences at each sampling temperature T
//! and attention temperature τ, judged against the grammar, and the repeat model's greedy copy of
//! a random sequence, intact and with heads knocked out.
//!
//! **Grammar** ([`grammar_point`], [`over_sampling_temperature`], [`over_attention_temperature`]).
//! Each generation starts from a short prompt (the page's is "the") and is continued, one sampled
//! token at a time ([`Generator`]), until the context is full; generation `g` draws with seed
//! `g`. Every complete sentence of the text (the prompt's first one included; an unfinished tail
//! is left out) is judged by [`Grammar::judge`]. Two numbers per temperature:
//! - the **grammatical share**: the share of complete sentences that fit a template with the
//!   copula agreeing;
//! - the **mean loss** of the generated tokens under the model *as trained* (τ = 1, the full
//!   distribution), in nats: how plausible the model finds its own text. At τ ≠ 1 the text comes
//!   from the model at τ but is scored at τ = 1, so the numbers of both curves are comparable.
//!
//! **Copying** ([`greedy_copy`]). A prompt of random tokens followed by the first token again
//! (the start of a copy) is continued greedily; the model copies if it writes the rest of the
//! sequence. The knock-out is the full pass's hook after each head ([`Ablation`] as an
//! `AfterHead`), run on the cached path ([`KvCache::with_hook`]), which is the full forward pass
//! with the same knock-out, bit for bit.

use super::knockout::Ablation;
use crate::model::rng::SeededRng;
use crate::model::sampling::Sampler;
use crate::model::train::generate::{Generator, KvCache};
use crate::model::train::tasks::{Grammar, SentenceVerdict};
use crate::model::train::transformer::{KeepOutputs, Transformer};

/// The sampling temperatures T of the grammar curve: 0 (greedy), 0.25, …, 2.
pub const SAMPLING_TEMPERATURES: [f64; 9] = [0.0, 0.25, 0.5, 0.75, 1.0, 1.25, 1.5, 1.75, 2.0];

/// The attention temperatures τ of the grammar curve (at T = 1), around the trained τ = 1.
pub const ATTENTION_TEMPERATURES: [f64; 7] = [0.1, 0.25, 0.5, 1.0, 2.0, 4.0, 10.0];

/// The grammar's generations at one temperature.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct GrammarPoint {
    /// The temperature varied: T on the sampling curve, τ on the attention curve.
    pub temperature: f64,
    /// Generations run (seeds `0..generations`).
    pub generations: usize,
    /// Complete sentences over every generation.
    pub sentences: usize,
    /// Of those, the ones [`SentenceVerdict::Grammatical`].
    pub grammatical: usize,
    /// Of those, the ones with the copula of the wrong number.
    pub agreement_errors: usize,
    /// Generated tokens over every generation.
    pub tokens: usize,
    /// The mean loss (nats) of the generated tokens under the model as trained.
    pub mean_loss: f64,
    /// How many of the generations wrote a text no other generation wrote first (1 when every
    /// seed writes the same text, as greedy decoding does).
    pub distinct_texts: usize,
    /// The standard error of the grammatical share, with each generation an independent unit
    /// (its sentences are not independent of each other): the ratio estimator's
    /// `√(Σ_g (a_g − p·s_g)² / (n(n − 1))) / s̄`, for `a_g` grammatical of `s_g` sentences in
    /// generation g, share p and `s̄` sentences per generation. It is the sampling noise of the
    /// seeds, so it is 0 when every seed writes the same text.
    pub share_standard_error: f64,
}

impl GrammarPoint {
    /// The share of complete sentences that obey the grammar, agreement included (0 with none).
    pub fn grammatical_share(&self) -> f64 {
        if self.sentences == 0 {
            0.0
        } else {
            self.grammatical as f64 / self.sentences as f64
        }
    }
}

/// `generations` continuations of `prompt` to the end of the context, by `sampler` from `model` at
/// attention temperature `tau` (generation g with seed g), judged and scored (see the module
/// documentation).
pub fn grammar_point(
    model: &Transformer,
    prompt: &[usize],
    generations: usize,
    sampler: Sampler,
    tau: f64,
    temperature: f64,
) -> Result<GrammarPoint, String> {
    let mut point = GrammarPoint {
        temperature,
        generations,
        sentences: 0,
        grammatical: 0,
        agreement_errors: 0,
        tokens: 0,
        mean_loss: 0.0,
        distinct_texts: 0,
        share_standard_error: 0.0,
    };
    let mut loss_sum = 0.0;
    let mut texts = std::collections::HashSet::new();
    // (grammatical, sentences) of each generation, for the share's standard error.
    let mut per_generation = Vec::with_capacity(generations);
    for seed in 0..generations as u64 {
        let cache = KvCache::with_hook(model, tau, &KeepOutputs);
        let mut generator = Generator::from_cache(cache, prompt, sampler, seed)?;
        while generator.room() > 0 {
            generator.step()?;
        }
        let text = generator.sequence();
        texts.insert(text.to_vec());
        let (grammatical, sentences) = (point.grammatical, point.sentences);
        for sentence in Grammar::complete_sentences(text) {
            point.sentences += 1;
            match Grammar::judge(sentence) {
                SentenceVerdict::Grammatical => point.grammatical += 1,
                SentenceVerdict::AgreementError => point.agreement_errors += 1,
                SentenceVerdict::Ungrammatical => {}
            }
        }
        per_generation.push((point.grammatical - grammatical, point.sentences - sentences));
        // Row i's loss is token i + 1's: the generated tokens are rows prompt − 1 onwards.
        for loss in &model.position_losses(text)[prompt.len() - 1..] {
            loss_sum += loss;
            point.tokens += 1;
        }
    }
    point.mean_loss = loss_sum / point.tokens.max(1) as f64;
    point.distinct_texts = texts.len();
    point.share_standard_error = share_standard_error(&per_generation);
    Ok(point)
}

/// The standard error of `Σ a / Σ s` over the `(a, s)` of independent units (see
/// [`GrammarPoint::share_standard_error`]); 0 with fewer than two units or no sentences.
pub fn share_standard_error(units: &[(usize, usize)]) -> f64 {
    let n = units.len();
    let sentences: usize = units.iter().map(|&(_, s)| s).sum();
    if n < 2 || sentences == 0 {
        return 0.0;
    }
    let share = units.iter().map(|&(a, _)| a).sum::<usize>() as f64 / sentences as f64;
    let squares: f64 = units
        .iter()
        .map(|&(a, s)| (a as f64 - share * s as f64).powi(2))
        .sum();
    let mean_sentences = sentences as f64 / n as f64;
    (squares / (n * (n - 1)) as f64).sqrt() / mean_sentences
}

/// [`grammar_point`] at every T of [`SAMPLING_TEMPERATURES`], at τ = 1, every token kept.
pub fn over_sampling_temperature(
    model: &Transformer,
    prompt: &[usize],
    generations: usize,
) -> Result<Vec<GrammarPoint>, String> {
    SAMPLING_TEMPERATURES
        .iter()
        .map(|&t| {
            let sampler = Sampler {
                temperature: t,
                top_k: usize::MAX,
            };
            grammar_point(model, prompt, generations, sampler, 1.0, t)
        })
        .collect()
}

/// [`grammar_point`] at every τ of [`ATTENTION_TEMPERATURES`], at T = 1, every token kept.
pub fn over_attention_temperature(
    model: &Transformer,
    prompt: &[usize],
    generations: usize,
) -> Result<Vec<GrammarPoint>, String> {
    let sampler = Sampler {
        temperature: 1.0,
        top_k: usize::MAX,
    };
    ATTENTION_TEMPERATURES
        .iter()
        .map(|&tau| grammar_point(model, prompt, generations, sampler, tau, tau))
        .collect()
}

/// A copy prompt: `len` uniform random tokens below `vocab` (stream `copy-prompt`, seed `seed`),
/// then the first of them again. Returns the prompt and the rest of the sequence, which a model
/// that copies writes next.
pub fn copy_prompt(seed: u64, vocab: usize, len: usize) -> (Vec<usize>, Vec<usize>) {
    let mut rng = SeededRng::stream(seed, "copy-prompt");
    let sequence: Vec<usize> = (0..len)
        .map(|_| (rng.next_u64() % vocab as u64) as usize)
        .collect();
    let mut prompt = sequence.clone();
    prompt.push(sequence[0]);
    (prompt, sequence[1..].to_vec())
}

/// How well greedy continuation copies, over several prompts.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct CopyCount {
    pub prompts: usize,
    /// Tokens to copy over every prompt (`len − 1` each).
    pub to_copy: usize,
    /// Tokens written right, at their place.
    pub correct: usize,
    /// Tokens written right before the first mistake, summed over the prompts.
    pub before_first_mistake: usize,
    /// Prompts copied without a mistake.
    pub perfect: usize,
}

/// Greedy continuation of [`copy_prompt`]s with seeds `0..prompts` and segments of `len` tokens,
/// from `model` with `ablation`'s heads knocked out (none: the model intact), counted against
/// the sequence copied.
pub fn greedy_copy(
    model: &Transformer,
    ablation: &Ablation,
    prompts: usize,
    len: usize,
) -> Result<CopyCount, String> {
    let mut count = CopyCount {
        prompts,
        to_copy: 0,
        correct: 0,
        before_first_mistake: 0,
        perfect: 0,
    };
    for seed in 0..prompts as u64 {
        let (prompt, expected) = copy_prompt(seed, model.config().vocab, len);
        let cache = KvCache::with_hook(model, 1.0, ablation);
        let mut generator = Generator::from_cache(cache, &prompt, Sampler::GREEDY, seed)?;
        for _ in 0..expected.len() {
            generator.step()?;
        }
        let written = generator.generated();
        let right = written
            .iter()
            .zip(&expected)
            .filter(|(a, b)| a == b)
            .count();
        let run = written
            .iter()
            .zip(&expected)
            .take_while(|(a, b)| a == b)
            .count();
        count.to_copy += expected.len();
        count.correct += right;
        count.before_first_mistake += run;
        count.perfect += usize::from(run == expected.len());
    }
    Ok(count)
}
