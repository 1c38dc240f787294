//! What the generate page shows, computed from its link: the prompt as the model reads it, the
//! tokens generated after it (each with the distribution it was drawn from and the draw), every
//! row of the text as the cache computed it, the cache's check against the full pass, and the
//! multiplications with and without the cache.
//!
//! The whole text is recomputed from the prompt on every input: the context holds 16 tokens, so
//! this costs a few hundred rows at most, and the text is always the one the link describes.

use super::link::GenerateLink;
use crate::model::host::lowercase;
use crate::model::next_token::{context_full, generate_at, next_token_rows};
use crate::model::sampling::Sampler;
use crate::model::tokenizer::tokenize;
use crate::model::train::generate::{
    check_cache, multiplications_minimal_recompute, multiplications_with_cache,
    multiplications_without_cache, CacheCheck, GeneratedStep, TokenRow,
};
use crate::model::train::tasks::{Grammar, GRAMMAR_WORDS};
use crate::model::train::transformer::Transformer;

/// The prompt as the model reads it.
#[derive(Debug, Clone, PartialEq)]
pub struct Prompt {
    pub ids: Vec<usize>,
    /// Set when the prompt was cut to fit the context, saying where.
    pub notice: Option<String>,
}

/// The most prompt tokens a model of context `max_len` reads: one place stays for a generated
/// token.
pub fn prompt_cap(max_len: usize) -> usize {
    max_len.saturating_sub(1).max(1)
}

/// `text` as token ids of the grammar's words, cut to [`prompt_cap`] tokens; or why it cannot be
/// read: it is empty, or it holds words outside the vocabulary (each named once, in order, with
/// the words the model knows).
pub fn read_prompt(text: &str, max_len: usize) -> Result<Prompt, String> {
    let words = tokenize(text);
    if words.is_empty() {
        return Err(format!(
            "Type a prompt: at least one of the model's words ({}).",
            GRAMMAR_WORDS.join(" ")
        ));
    }
    let mut unknown: Vec<String> = Vec::new();
    let mut ids = Vec::with_capacity(words.len());
    for word in &words {
        match Grammar::word_id(&lowercase(word)) {
            Some(id) => ids.push(id),
            None if !unknown.contains(word) => unknown.push(word.clone()),
            None => {}
        }
    }
    if !unknown.is_empty() {
        let named: Vec<String> = unknown.iter().map(|w| format!("“{w}”")).collect();
        let (these, are) = if named.len() == 1 {
            ("this word", "is")
        } else {
            ("these words", "are")
        };
        return Err(format!(
            "The model cannot read {these}: {} {are} not among the {} it was trained on ({}).",
            named.join(", "),
            GRAMMAR_WORDS.len(),
            GRAMMAR_WORDS.join(" ")
        ));
    }
    let cap = prompt_cap(max_len);
    let notice = (ids.len() > cap).then(|| {
        format!(
            "The prompt is cut to its first {cap} tokens (it has {}): the model reads at most {max_len}, and one place is kept for a generated token.",
            ids.len()
        )
    });
    ids.truncate(cap);
    Ok(Prompt { ids, notice })
}

/// The sampler the link describes.
pub fn sampler_of(link: &GenerateLink) -> Sampler {
    Sampler {
        temperature: link.temperature,
        top_k: link.top_k,
    }
}

/// One generation as the page shows it.
#[derive(Debug, Clone, PartialEq)]
pub struct GenerationRun {
    /// The prompt, then the generated tokens.
    pub sequence: Vec<usize>,
    pub prompt_len: usize,
    /// One per generated token.
    pub steps: Vec<GeneratedStep>,
    /// Row i of the text, as the cache computed it: its attention over tokens `0..=i` (every
    /// layer and head) and its prediction of token i + 1.
    pub rows: Vec<TokenRow>,
    /// The cached rows, keys and values against one full pass over the whole text.
    pub check: CacheCheck,
    /// Why fewer tokens than asked were generated: the context is full.
    pub stopped: Option<String>,
}

impl GenerationRun {
    /// `link.generated` tokens after `prompt` (as many as fit), written by `model` with the
    /// link's sampler, seed and attention temperature.
    pub fn compute(
        model: &Transformer,
        prompt: &[usize],
        link: &GenerateLink,
    ) -> Result<Self, String> {
        let max_len = model.config().max_len;
        let room = max_len.saturating_sub(prompt.len());
        let count = link.generated.min(room);
        let stopped = (link.generated > room).then(|| context_full(max_len));
        let steps = generate_at(model, prompt, count, sampler_of(link), link.seed, link.tau)?;
        let mut sequence = prompt.to_vec();
        sequence.extend(steps.iter().map(|s| s.token));
        let rows = next_token_rows(model, &sequence, link.tau)?;
        let check = check_cache(model, &sequence, link.tau, link.tau);
        Ok(Self {
            sequence,
            prompt_len: prompt.len(),
            steps,
            rows,
            check,
            stopped,
        })
    }

    /// How many more tokens fit in the context.
    pub fn room(&self, model: &Transformer) -> usize {
        model.config().max_len.saturating_sub(self.sequence.len())
    }

    /// The words of the text.
    pub fn words(&self) -> Vec<&'static str> {
        self.sequence.iter().map(|&t| GRAMMAR_WORDS[t]).collect()
    }
}

/// The work of the text's last row, counted three ways (multiplications of the matrix products).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct LastRowWork {
    /// With the cache: the newest token computes only its own row.
    pub with_cache: usize,
    /// Without it, naively: the whole text is run again.
    pub full_pass: usize,
    /// Without it, recomputing only what the last row needs.
    pub minimal_recompute: usize,
}

/// The work of row `len` of a text, counted with the model's own formulas.
pub fn last_row_multiplications(model: &Transformer, len: usize) -> LastRowWork {
    let cfg = model.config();
    LastRowWork {
        with_cache: multiplications_with_cache(cfg, len),
        full_pass: multiplications_without_cache(cfg, len),
        minimal_recompute: multiplications_minimal_recompute(cfg, len),
    }
}
