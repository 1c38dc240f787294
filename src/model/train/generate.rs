//! Writing text one token at a time: a key–value cache, so that each new token costs one row of
//! the forward pass, and a generator that samples from each row's logits.
//!
//! **The cache** ([`KvCache`]). In a causal model, row i of every layer depends on rows `0..=i`
//! only, so appending a token changes no earlier row. What a later row reads of an earlier one is
//! that row's key and value in every layer, and nothing else. So the cache keeps, per layer, the
//! K and V rows so far; appending token t computes only
//! 1. its input row `E[token] (+ position code t)`;
//! 2. per layer: its `q`, `k`, `v` (`1 × d_model` times `d_model × d_model`, rotated at position t
//!    for rotary positions), then per head one row of scores `q_t · k_j` for `j ≤ t`, their masked
//!    softmax, the weighted sum of the values, and the layer's `W_o` row added to the residual;
//! 3. its logits (`1 × d_model` times the unembedding) and their softmax.
//!
//! Keys stay valid when cached: with sinusoidal or learned positions the position code is added
//! to the input row before any projection, and a rotary key is rotated by its own position only.
//!
//! **Bit for bit the full pass.** Every number is computed with the operations of
//! [`Transformer::forward_under`] with [`CausalSoftmax`], in the same order: the row's embedding
//! and rotation are the pass's own ([`Transformer::embed_row`], [`Transformer::rotate_row`]), the
//! products are the same kernels on one row (each output entry of a product is a sum over
//! `p = 0, 1, …` whatever the number of rows), the scores are the pass's in-order dot products,
//! the attention row is [`causal_softmax`]'s arithmetic on one row ([`causal_softmax_row`]), the
//! weighted values are accumulated in the same order, the hook after each head is the pass's
//! [`AfterHead`], and the logits' softmax is the pass's ([`softmax_in_place`]). The tests compare
//! every row with `f64::to_bits` against the full pass recomputed from scratch.
//!
//! **Counting the work** ([`multiplications_with_cache`], [`multiplications_without_cache`]): the
//! scalar multiplications of the products (projections, scores, weighted values, `W_o`, the
//! unembedding), the usual measure; rotations, softmaxes and additions are left out.
//!
//! **Sampling** ([`Generator`], [`generate`]): each step takes the last row's logits, turns them
//! into the distribution of a [`Sampler`] (sampling temperature T, top-k) and draws from it with
//! [`draw`]`(seed, step)`, so a seed gives the same text on every machine. The attention
//! temperature τ, if any, acts inside every layer, as in [`Transformer::forward_at`].
//!
//! [`causal_softmax`]: crate::model::attention::causal_softmax

use super::kernels::{matmul, matmul_acc};
use super::scoring::{CausalSoftmax, ScoringRule};
use super::shape::{ParamGroup, PositionKind, TransformerConfig};
use super::transformer::{
    dot, softmax_in_place, AfterHead, ForwardCache, KeepOutputs, Transformer,
};
use crate::model::sampling::{draw, Sampler};

/// One row of the forward pass, for the token just appended to a [`KvCache`].
#[derive(Debug, Clone, PartialEq)]
pub struct TokenRow {
    /// The logits predicting the next token (`vocab` values).
    pub logits: Vec<f64>,
    /// Their softmax: the model's own next-token distribution at this τ (T = 1, every token kept).
    pub probs: Vec<f64>,
    /// `log Σ exp(logits)`, so the loss of token j is `log_norm − logits[j]`.
    pub log_norm: f64,
    /// The row's attention weights, `[layer][head]`, one per token so far (itself included).
    pub attention: Vec<Vec<Vec<f64>>>,
}

impl TokenRow {
    /// The cross-entropy of `token` as the next token, `−log p(token)`, computed as the full pass
    /// computes its position losses.
    pub fn loss_of(&self, token: usize) -> f64 {
        self.log_norm - self.logits[token]
    }
}

/// The keys and values of one layer so far, `len × d_model` each, row-major.
#[derive(Debug, Clone, Default, PartialEq)]
struct LayerKv {
    /// Keys after the rotation (rotary positions): what the scores compare with.
    k: Vec<f64>,
    v: Vec<f64>,
}

/// A model's keys and values for the tokens so far, so that each appended token costs one row.
#[derive(Clone)]
pub struct KvCache<'a> {
    model: &'a Transformer,
    /// What happens to each head's output (knock-outs), as in the full pass.
    after_head: &'a dyn AfterHead,
    /// What the raw scores are multiplied by: `1/(√d · τ)`.
    scale: f64,
    tokens: Vec<usize>,
    layers: Vec<LayerKv>,
    /// The multiplications done so far, counted where they happen.
    multiplications: usize,
}

impl std::fmt::Debug for KvCache<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("KvCache")
            .field("config", self.model.config())
            .field("replaces_any", &self.after_head.replaces_any())
            .field("scale", &self.scale)
            .field("tokens", &self.tokens)
            .field("multiplications", &self.multiplications)
            .finish_non_exhaustive()
    }
}

impl<'a> KvCache<'a> {
    /// An empty cache for `model` as used: τ = 1, every head on.
    pub fn new(model: &'a Transformer) -> Self {
        Self::with_hook(model, 1.0, &KeepOutputs)
    }

    /// An empty cache running at attention temperature `tau`, each head's output going through
    /// `after_head` (a knock-out, or [`KeepOutputs`]), as [`Transformer::forward_under`] does with
    /// [`CausalSoftmax`]: generation always attends correctly.
    pub fn with_hook(model: &'a Transformer, tau: f64, after_head: &'a dyn AfterHead) -> Self {
        let cfg = model.config();
        Self {
            model,
            after_head,
            scale: CausalSoftmax.score_scale(cfg.head_size(), tau),
            tokens: Vec::new(),
            layers: vec![LayerKv::default(); cfg.layers],
            multiplications: 0,
        }
    }

    /// The tokens appended so far.
    pub fn tokens(&self) -> &[usize] {
        &self.tokens
    }

    pub fn len(&self) -> usize {
        self.tokens.len()
    }

    pub fn is_empty(&self) -> bool {
        self.tokens.is_empty()
    }

    /// The scalar multiplications every [`Self::push`] so far has done (see
    /// [`multiplications_with_cache`]).
    pub fn multiplications(&self) -> usize {
        self.multiplications
    }

    /// Layer `layer`'s cached keys (rotated for rotary positions) and values, `len × d_model`
    /// each, row-major.
    pub fn keys_and_values(&self, layer: usize) -> (&[f64], &[f64]) {
        let kv = &self.layers[layer];
        (&kv.k, &kv.v)
    }

    /// Appends `token` and computes its row: its keys and values join the cache, and its logits
    /// predict the token after it. Refuses an id outside the vocabulary and a token past
    /// `max_len`.
    pub fn push(&mut self, token: usize) -> Result<TokenRow, String> {
        let model = self.model;
        let cfg = *model.config();
        let (d, vocab, hs) = (cfg.d_model, cfg.vocab, cfg.head_size());
        if token >= vocab {
            return Err(format!(
                "token id {token} is outside the vocabulary of {vocab} tokens"
            ));
        }
        let pos = self.tokens.len();
        if pos >= cfg.max_len {
            return Err(format!(
                "the context is full: the model reads at most {} tokens",
                cfg.max_len
            ));
        }
        let p = model.params();
        let mut x = vec![0.0; d];
        model.embed_row(token, pos, CausalSoftmax.adds_positions(), &mut x);
        let len = pos + 1;
        let (mut q, mut k, mut v) = (vec![0.0; d], vec![0.0; d], vec![0.0; d]);
        let mut attention = Vec::with_capacity(cfg.layers);
        for layer in 0..cfg.layers {
            let off = model.layer_offsets(layer);
            matmul(&x, &p[off.q..off.q + d * d], &mut q, 1, d, d);
            matmul(&x, &p[off.k..off.k + d * d], &mut k, 1, d, d);
            matmul(&x, &p[off.v..off.v + d * d], &mut v, 1, d, d);
            self.multiplications += 3 * d * d;
            if cfg.positions == PositionKind::Rotary && CausalSoftmax.adds_positions() {
                model.rotate_row(&mut q, pos, 1.0);
                model.rotate_row(&mut k, pos, 1.0);
            }
            let kv = &mut self.layers[layer];
            kv.k.extend_from_slice(&k);
            kv.v.extend_from_slice(&v);
            let mut z = vec![0.0; d];
            let mut heads = Vec::with_capacity(cfg.heads);
            let mut scores = Vec::with_capacity(len);
            for head in 0..cfg.heads {
                let cols = head * hs..(head + 1) * hs;
                scores.clear();
                for k_j in kv.k.chunks_exact(d) {
                    scores.push(dot(&q[cols.clone()], &k_j[cols.clone()]));
                }
                let weights = causal_softmax_row(&scores, self.scale);
                let z_h = &mut z[cols.clone()];
                for (&a, v_j) in weights.iter().zip(kv.v.chunks_exact(d)) {
                    for (z, &v) in z_h.iter_mut().zip(&v_j[cols.clone()]) {
                        *z += a * v;
                    }
                }
                self.multiplications += 2 * len * hs;
                if let Some(row) = self.after_head.replacement(layer, head) {
                    z_h.copy_from_slice(row);
                }
                heads.push(weights);
            }
            attention.push(heads);
            // The residual: x ← x + z · W_o, summed onto x as the full pass does.
            matmul_acc(&z, &p[off.o..off.o + d * d], &mut x, 1, d, d);
            self.multiplications += d * d;
        }
        let unembed = model.offset(ParamGroup::Unembedding);
        let mut logits = vec![0.0; vocab];
        matmul(
            &x,
            &p[unembed..unembed + d * vocab],
            &mut logits,
            1,
            d,
            vocab,
        );
        self.multiplications += d * vocab;
        let mut probs = logits.clone();
        let log_norm = softmax_in_place(&mut probs);
        self.tokens.push(token);
        Ok(TokenRow {
            logits,
            probs,
            log_norm,
            attention,
        })
    }
}

/// The last row of [`causal_softmax`] on a square of `scores.len()` rows: the softmax of
/// `scores · scale` over every entry, with [`causal_softmax`]'s arithmetic in its order (the
/// running maximum, then `exp(l − max)` summed left to right, then each divided by the sum), its
/// treatment of NaN (masked) and of infinite maxima, and its plain average when nothing is usable.
///
/// [`causal_softmax`]: crate::model::attention::causal_softmax
pub fn causal_softmax_row(scores: &[f64], scale: f64) -> Vec<f64> {
    let logit = |s: f64| {
        let l = s * scale;
        if l.is_nan() {
            f64::NEG_INFINITY
        } else {
            l
        }
    };
    let mut max = f64::NEG_INFINITY;
    for &s in scores {
        max = max.max(logit(s));
    }
    if max == f64::NEG_INFINITY {
        return vec![1.0 / scores.len() as f64; scores.len()];
    }
    let mut weights = Vec::with_capacity(scores.len());
    let mut sum = 0.0;
    for &s in scores {
        let l = logit(s);
        let e = if max == f64::INFINITY {
            f64::from(u8::from(l == f64::INFINITY))
        } else {
            (l - max).exp()
        };
        weights.push(e);
        sum += e;
    }
    for w in &mut weights {
        *w /= sum;
    }
    weights
}

/// The multiplications of appending the `len`-th token (at position `len − 1`) to a cache holding
/// the `len − 1` before it: per layer its q, k and v (`3·d²`), one score and one weighted value
/// per head and per token so far (`2·len·d` over the heads), and `W_o` (`d²`); then the
/// unembedding (`d·vocab`). `d` is `d_model`; rotations and softmaxes are not counted.
pub fn multiplications_with_cache(cfg: &TransformerConfig, len: usize) -> usize {
    let (d, vocab) = (cfg.d_model, cfg.vocab);
    cfg.layers * (4 * d * d + 2 * len * d) + d * vocab
}

/// The multiplications of the full forward pass over `len` tokens, which is what producing the
/// next token costs without a cache: per layer the projections and `W_o` for every row
/// (`4·len·d²`) and the causal scores and weighted values (`len(len+1)/2` pairs, `d` each, twice);
/// then every row's unembedding (`len·d·vocab`). It is the sum of [`multiplications_with_cache`]
/// over lengths 1 to `len`.
pub fn multiplications_without_cache(cfg: &TransformerConfig, len: usize) -> usize {
    let (d, vocab) = (cfg.d_model, cfg.vocab);
    cfg.layers * (4 * len * d * d + len * (len + 1) * d) + len * d * vocab
}

/// The multiplications of the last row of `len` tokens without a cache, recomputing only what
/// that row needs: the last layer reads every token's key and value, which need every token's
/// output of the layer before, so every layer but the last runs in full
/// ([`multiplications_without_cache`]'s per-layer term); the last layer computes the earlier
/// tokens' k and v only (`2·len·d²`), the last token's q and `W_o` (`2·d²`), one row of scores
/// and weighted values (`2·len·d`); then one unembedding (`d·vocab`). With one layer this saves,
/// against the full pass, each earlier row's q, `W_o`, scores, weighted values and unembedding.
pub fn multiplications_minimal_recompute(cfg: &TransformerConfig, len: usize) -> usize {
    let (d, vocab) = (cfg.d_model, cfg.vocab);
    let full_layer = 4 * len * d * d + len * (len + 1) * d;
    cfg.layers.saturating_sub(1) * full_layer
        + 2 * len * d * d
        + 2 * d * d
        + 2 * len * d
        + d * vocab
}

/// How the cached rows of a sequence compare with the full forward pass recomputed from scratch:
/// the page's statement that the cache changes nothing is this count, for the run it shows.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct CacheCheck {
    /// The numbers compared: every row's logits, probabilities and attention weights (every
    /// layer and head), and every layer's cached keys and values.
    pub compared: usize,
    /// Of those, the ones whose bits differ.
    pub differing: usize,
}

/// Appends `tokens` one at a time to a cache at attention temperature `tau` and compares every
/// number it computed, bit for bit, with one full pass over all of them at `full_tau` (the page
/// passes `tau`; a different `full_tau` shows that the check can fail).
pub fn check_cache(model: &Transformer, tokens: &[usize], tau: f64, full_tau: f64) -> CacheCheck {
    let cfg = *model.config();
    let (t, d, vocab) = (tokens.len(), cfg.d_model, cfg.vocab);
    let mut check = CacheCheck {
        compared: 0,
        differing: 0,
    };
    if t == 0 {
        return check;
    }
    let mut tally = |a: &[f64], b: &[f64]| {
        check.compared += a.len();
        check.differing += a
            .iter()
            .zip(b)
            .filter(|(x, y)| x.to_bits() != y.to_bits())
            .count();
    };
    let (full, logits) = full_pass(model, tokens, full_tau, &KeepOutputs);
    let mut kv = KvCache::with_hook(model, tau, &KeepOutputs);
    for (i, &token) in tokens.iter().enumerate() {
        let Ok(row) = kv.push(token) else {
            return CacheCheck {
                compared: check.compared,
                differing: check.compared.max(1),
            };
        };
        tally(&row.logits, &logits[i * vocab..(i + 1) * vocab]);
        tally(&row.probs, &full.probs[i * vocab..(i + 1) * vocab]);
        for (layer, heads) in row.attention.iter().enumerate() {
            for (head, weights) in heads.iter().enumerate() {
                let want: Vec<f64> = (0..=i)
                    .map(|j| full.layers[layer].attn[head][(i, j)])
                    .collect();
                tally(weights, &want);
            }
        }
    }
    for layer in 0..cfg.layers {
        let (k, v) = kv.keys_and_values(layer);
        tally(k, &full.layers[layer].k[..t * d]);
        tally(v, &full.layers[layer].v[..t * d]);
    }
    check
}

/// The full pass over `tokens` at `tau`, each head's output through `after_head`, and its logits
/// (T × vocab: the unembedding of the last residual stream with the product the pass uses).
pub fn full_pass(
    model: &Transformer,
    tokens: &[usize],
    tau: f64,
    after_head: &dyn AfterHead,
) -> (ForwardCache, Vec<f64>) {
    let cfg = model.config();
    let mut cache = ForwardCache::default();
    model.forward_under(tokens, &mut cache, tau, &CausalSoftmax, after_head);
    let (t, d, vocab) = (tokens.len(), cfg.d_model, cfg.vocab);
    let unembed = model.offset(ParamGroup::Unembedding);
    let mut logits = vec![0.0; t * vocab];
    matmul(
        &cache.x[cfg.layers],
        &model.params()[unembed..unembed + d * vocab],
        &mut logits,
        t,
        d,
        vocab,
    );
    (cache, logits)
}

/// One generated token and how it was chosen.
#[derive(Debug, Clone, PartialEq)]
pub struct GeneratedStep {
    /// The token chosen.
    pub token: usize,
    /// The logits it was chosen from (the row of the token before it).
    pub logits: Vec<f64>,
    /// The distribution it was drawn from: the sampler's (T, top-k) applied to `logits`.
    pub probs: Vec<f64>,
    /// The uniform draw that picked it; `None` when the sampler is greedy.
    pub draw: Option<f64>,
    /// `−log p(token)` under the model's own distribution at the cache's τ (T = 1, every token
    /// kept): the loss the model gives the token it generated.
    pub loss: f64,
}

/// A prompt continued one token at a time: a [`KvCache`], a [`Sampler`] and a seed.
#[derive(Debug, Clone)]
pub struct Generator<'a> {
    cache: KvCache<'a>,
    sampler: Sampler,
    seed: u64,
    /// The prompt and the tokens generated so far.
    sequence: Vec<usize>,
    prompt_len: usize,
    /// The row of the last token the cache has read.
    last: TokenRow,
}

impl<'a> Generator<'a> {
    /// Reads `prompt` into a fresh cache of `model` as used (τ = 1, every head on).
    pub fn new(
        model: &'a Transformer,
        prompt: &[usize],
        sampler: Sampler,
        seed: u64,
    ) -> Result<Self, String> {
        Self::from_cache(KvCache::new(model), prompt, sampler, seed)
    }

    /// Reads `prompt` into `cache` (empty: its τ and its hook after each head apply to every
    /// step).
    /// Refuses an empty prompt, one with an id outside the vocabulary, and one that leaves no room
    /// in the context for a generated token.
    pub fn from_cache(
        mut cache: KvCache<'a>,
        prompt: &[usize],
        sampler: Sampler,
        seed: u64,
    ) -> Result<Self, String> {
        let cfg = *cache.model.config();
        if !cache.is_empty() {
            return Err("the cache already holds tokens".into());
        }
        if prompt.is_empty() {
            return Err("the prompt is empty: generation needs at least one token".into());
        }
        if prompt.len() >= cfg.max_len {
            return Err(format!(
                "a prompt of {} tokens leaves no room: the model reads at most {} tokens",
                prompt.len(),
                cfg.max_len
            ));
        }
        if let Some(&bad) = prompt.iter().find(|&&t| t >= cfg.vocab) {
            return Err(format!(
                "the prompt's token id {bad} is outside the vocabulary of {} tokens",
                cfg.vocab
            ));
        }
        let mut last = None;
        for &token in prompt {
            last = Some(cache.push(token)?);
        }
        Ok(Self {
            cache,
            sampler,
            seed,
            sequence: prompt.to_vec(),
            prompt_len: prompt.len(),
            last: last.expect("a prompt of at least one token"),
        })
    }

    /// The prompt and every token generated so far.
    pub fn sequence(&self) -> &[usize] {
        &self.sequence
    }

    /// The tokens generated so far.
    pub fn generated(&self) -> &[usize] {
        &self.sequence[self.prompt_len..]
    }

    /// How many more tokens fit in the context.
    pub fn room(&self) -> usize {
        self.cache.model.config().max_len - self.sequence.len()
    }

    /// The cache (for its multiplication count and its keys and values).
    pub fn cache(&self) -> &KvCache<'a> {
        &self.cache
    }

    /// Chooses the next token from the last row's logits with draw `draw(seed, step)` (step 0 is
    /// the first generated token). Fails, with nothing changed, when the context is full.
    pub fn step(&mut self) -> Result<GeneratedStep, String> {
        let max_len = self.cache.model.config().max_len;
        if self.sequence.len() >= max_len {
            return Err(format!(
                "the context is full: the model reads at most {max_len} tokens"
            ));
        }
        // The previous step's token is read only now, when its row is needed.
        if self.cache.len() < self.sequence.len() {
            self.last = self.cache.push(self.sequence[self.sequence.len() - 1])?;
        }
        let step = self.sequence.len() - self.prompt_len;
        let u = (!self.sampler.is_greedy()).then(|| draw(self.seed, step));
        let logits = &self.last.logits;
        let token = self.sampler.choose(logits, u.unwrap_or(0.5));
        self.sequence.push(token);
        Ok(GeneratedStep {
            token,
            logits: logits.clone(),
            probs: self.sampler.distribution(logits),
            draw: u,
            loss: self.last.loss_of(token),
        })
    }
}

/// `count` tokens after `prompt`, from `model` as used, chosen by `sampler` with the draws of
/// `seed`. Fails if the prompt is refused (see [`Generator::from_cache`]) or if `count` tokens do
/// not fit in the context.
pub fn generate(
    model: &Transformer,
    prompt: &[usize],
    count: usize,
    sampler: Sampler,
    seed: u64,
) -> Result<Vec<GeneratedStep>, String> {
    let mut generator = Generator::new(model, prompt, sampler, seed)?;
    if count > generator.room() {
        return Err(format!(
            "{count} tokens after a prompt of {} do not fit: the model reads at most {} tokens",
            prompt.len(),
            model.config().max_len
        ));
    }
    (0..count).map(|_| generator.step()).collect()
}

#[cfg(test)]
mod tests;
