//! A small trainable transformer: decoder-only and attention-only, exactly as the explorer draws it.
//!
//! The model, for a sequence of T token ids:
//! 1. `X₀[t] = E[token_t]` (+ the position code of row t for sinusoidal or learned positions).
//! 2. Each of 1 or 2 layers, with H heads of size `d = d_model / H`: `Q = X·W_q`, `K = X·W_k`,
//!    `V = X·W_v` (`d_model × d_model` each; head h owns columns `h·d … (h+1)·d`, as in
//!    [`crate::model::weights::Projections::head_columns`]). With rotary positions, each head's q
//!    and k rows are rotated pair by pair (see [`PositionKind::Rotary`]). Head h's weights are
//!    `causal_softmax(Q_h K_hᵀ, 1/√d)` — the explorer's own function — and its output `A_h V_h`.
//!    The heads' outputs are concatenated (T × `d_model`) and multiplied by `W_o`, and the result
//!    is **added** to the residual stream: `X_{l+1} = X_l + concat · W_o`.
//! 3. `logits = X_L · W_U` (`d_model × vocab`), and the loss is the next-token cross-entropy,
//!    averaged over every position that has a next token.
//!
//! No `LayerNorm`, no MLP, no biases: the reference experiment this trainer was built for formed the
//! previous-token → induction circuit without them, and a final `LayerNorm` stopped it forming.
//!
//! The pass reads in that order: [`Transformer::embed`], [`Transformer::attention_layer`] (each
//! head in [`Transformer::attention_head`]) and [`Transformer::unembed_and_loss`]. Two things may
//! be changed from outside without touching it: how a head turns scores into weights (a
//! [`ScoringRule`], correct causal attention by default) and what happens to a head's output
//! before the layer adds it ([`AfterHead`], nothing by default).
//!
//! Why flat buffers instead of `DMatrix` products: see [`super::kernels`]. The attention weights,
//! the only non-linear piece, still come from [`crate::model::attention::causal_softmax`], and a
//! test runs the same model through the explorer's `HeadProjections`/`attend`/`LayerOutput` and
//! checks the two agree.

use super::kernels::{matmul, matmul_acc};
use super::scoring::{CausalSoftmax, ScoringRule};
use super::shape::{ParamGroup, PositionKind, TransformerConfig};
use crate::model::attention::{attend, HeadProjections, LayerOutput};
use crate::model::rng::SeededRng;
use crate::model::temperature::logit_scale;
use crate::model::weights::sinusoidal_positions;
use nalgebra::DMatrix;

/// Offsets of one layer's four matrices.
#[derive(Debug, Clone, Copy)]
pub(crate) struct LayerOffsets {
    pub q: usize,
    pub k: usize,
    pub v: usize,
    pub o: usize,
}

/// What happens to each head's output `Z_h = A_h V_h` before its layer adds it to the residual
/// stream: nothing ([`KeepOutputs`]), or a row that replaces every row of it (a knock-out). The
/// head's weights are computed (and kept) either way.
pub trait AfterHead {
    /// The row (head size long) replacing each output row of head `head` of layer `layer`, if any.
    fn replacement(&self, layer: usize, head: usize) -> Option<&[f64]>;

    /// Whether any head's output is replaced (a pass that replaces one has no backward pass).
    fn replaces_any(&self) -> bool;
}

/// Every head's output as computed: the model as used.
#[derive(Debug, Clone, Copy, Default)]
pub struct KeepOutputs;

impl AfterHead for KeepOutputs {
    fn replacement(&self, _layer: usize, _head: usize) -> Option<&[f64]> {
        None
    }

    fn replaces_any(&self) -> bool {
        false
    }
}

/// A model: its shape, its parameters (one flat vector, see [`TransformerConfig::layout`]) and the
/// fixed position tables.
#[derive(Debug, Clone, PartialEq)]
pub struct Transformer {
    config: TransformerConfig,
    params: Vec<f64>,
    /// `max_len × d_model` sine–cosine code (sinusoidal positions only), row-major.
    sinusoid: Vec<f64>,
    /// `max_len × d/2` cosines and sines of the rotary angles (rotary only), row-major.
    rope_cos: Vec<f64>,
    rope_sin: Vec<f64>,
}

impl Transformer {
    /// A seeded initialisation: embeddings and learned positions N(0, 1); `W_q`, `W_k`, `W_v`,
    /// `W_o` and the unembedding N(0, 1/`d_model`), so queries, keys and logits start with unit
    /// variance. Each group draws from its own named stream (`train:<group label>`), row by row.
    pub fn new(config: TransformerConfig, seed: u64) -> Result<Self, String> {
        config.check()?;
        let mut params = vec![0.0; config.parameter_count()];
        let small = 1.0 / (config.d_model as f64).sqrt();
        for span in config.layout() {
            let std_dev = match span.group {
                ParamGroup::TokenEmbedding | ParamGroup::Positions => 1.0,
                _ => small,
            };
            let mut rng = SeededRng::stream(seed, &format!("train:{}", span.group.label()));
            for value in &mut params[span.range()] {
                *value = rng.normal() * std_dev;
            }
        }
        Ok(Self::with_params(config, params))
    }

    /// A model with the given parameters (laid out as [`TransformerConfig::layout`] says).
    pub fn with_params(config: TransformerConfig, params: Vec<f64>) -> Self {
        assert_eq!(params.len(), config.parameter_count(), "parameter count");
        let (max_len, d) = (config.max_len, config.d_model);
        let sinusoid = if config.positions == PositionKind::Sinusoidal {
            sinusoidal_positions(max_len, d)
                .transpose()
                .as_slice()
                .to_vec()
        } else {
            Vec::new()
        };
        let (mut rope_cos, mut rope_sin) = (Vec::new(), Vec::new());
        if config.positions == PositionKind::Rotary {
            let hs = config.head_size();
            for pos in 0..max_len {
                for pair in 0..hs / 2 {
                    let theta = 10_000f64.powf(-((2 * pair) as f64) / hs as f64);
                    let angle = pos as f64 * theta;
                    rope_cos.push(angle.cos());
                    rope_sin.push(angle.sin());
                }
            }
        }
        Self {
            config,
            params,
            sinusoid,
            rope_cos,
            rope_sin,
        }
    }

    pub fn config(&self) -> &TransformerConfig {
        &self.config
    }

    pub fn params(&self) -> &[f64] {
        &self.params
    }

    pub fn params_mut(&mut self) -> &mut [f64] {
        &mut self.params
    }

    /// One parameter group as a matrix (for exports and the heatmaps).
    pub fn matrix(&self, group: ParamGroup) -> Option<DMatrix<f64>> {
        let span = self
            .config
            .layout()
            .into_iter()
            .find(|s| s.group == group)?;
        Some(DMatrix::from_row_slice(
            span.rows,
            span.cols,
            &self.params[span.range()],
        ))
    }

    pub(crate) fn offset(&self, group: ParamGroup) -> usize {
        self.config
            .layout()
            .into_iter()
            .find(|s| s.group == group)
            .map_or(usize::MAX, |s| s.start)
    }

    pub(crate) fn layer_offsets(&self, layer: usize) -> LayerOffsets {
        LayerOffsets {
            q: self.offset(ParamGroup::Query(layer)),
            k: self.offset(ParamGroup::Key(layer)),
            v: self.offset(ParamGroup::Value(layer)),
            o: self.offset(ParamGroup::Output(layer)),
        }
    }

    /// The softmax scale `1/√d` (the explorer's `logit_scale` at τ = 1).
    pub fn scale(&self) -> f64 {
        logit_scale(self.config.head_size(), 1.0)
    }

    /// Rotates every head's pairs of rows `0..t` of `m`, row `pos` by `pos`'s angles, forward
    /// (`sign = 1.0`) or back (`-1.0`, the transpose, which the backward pass needs).
    pub(crate) fn rotate_rows(&self, m: &mut [f64], t: usize, sign: f64) {
        let d = self.config.d_model;
        for (pos, row) in m.chunks_exact_mut(d).take(t).enumerate() {
            self.rotate_row(row, pos, sign);
        }
    }

    /// Rotates every head's pairs `(2i, 2i+1)` of one `d_model` row at position `pos` by
    /// `sign · pos · θ_i` (see [`PositionKind::Rotary`]).
    pub(crate) fn rotate_row(&self, row: &mut [f64], pos: usize, sign: f64) {
        let half = self.config.head_size() / 2;
        for head in row.chunks_exact_mut(self.config.head_size()) {
            for pair in 0..half {
                let (c, s) = (
                    self.rope_cos[pos * half + pair],
                    sign * self.rope_sin[pos * half + pair],
                );
                let (a, b) = (head[2 * pair], head[2 * pair + 1]);
                head[2 * pair] = a * c - b * s;
                head[2 * pair + 1] = a * s + b * c;
            }
        }
    }

    /// Runs the model on `tokens` (ids below `vocab`, at most `max_len` of them), keeping every
    /// intermediate the backward pass needs in `cache`.
    pub fn forward(&self, tokens: &[usize], cache: &mut ForwardCache) {
        self.forward_at(tokens, cache, 1.0);
    }

    /// [`Self::forward`] with every layer's scores divided by the temperature `tau` as well (the
    /// explorer's τ, applied to the trained model for the training page's closer look; training
    /// uses τ = 1, where this is the same arithmetic bit for bit).
    pub fn forward_at(&self, tokens: &[usize], cache: &mut ForwardCache, tau: f64) {
        self.forward_under(tokens, cache, tau, &CausalSoftmax, &KeepOutputs);
    }

    /// The forward pass, top to bottom: [`Self::embed`], each [`Self::attention_layer`] in turn,
    /// then [`Self::unembed_and_loss`]. Every head scores by `rule` (correct causal attention is
    /// [`CausalSoftmax`]) and its output goes through `after_head` ([`KeepOutputs`]: unchanged).
    /// The backward pass of this cache must be given the same rule; a pass that replaced a head's
    /// output has none (see [`ForwardCache::ablated`]).
    pub fn forward_under(
        &self,
        tokens: &[usize],
        cache: &mut ForwardCache,
        tau: f64,
        rule: &dyn ScoringRule,
        after_head: &dyn AfterHead,
    ) {
        let cfg = &self.config;
        let t = tokens.len();
        assert!(
            (1..=cfg.max_len).contains(&t),
            "{t} tokens (1..={})",
            cfg.max_len
        );
        cache.prepare(cfg, t);
        cache.tokens.clear();
        cache.tokens.extend_from_slice(tokens);
        self.embed(tokens, rule, &mut cache.x[0]);
        let scale = rule.score_scale(cfg.head_size(), tau);
        for layer in 0..cfg.layers {
            self.attention_layer(layer, cache, scale, rule, after_head);
        }
        self.unembed_and_loss(cache);
        cache.ablated = after_head.replaces_any();
    }

    /// `X₀[t] = E[token_t]`, plus the position code of row t for sinusoidal or learned positions
    /// (unless `rule` adds none), into the first `T · d_model` entries of `x0`.
    pub fn embed(&self, tokens: &[usize], rule: &dyn ScoringRule, x0: &mut [f64]) {
        let d = self.config.d_model;
        for (pos, (&token, row)) in tokens.iter().zip(x0.chunks_exact_mut(d)).enumerate() {
            self.embed_row(token, pos, rule.adds_positions(), row);
        }
    }

    /// One row of [`Self::embed`]: `E[token]`, plus the position code of row `pos` for sinusoidal
    /// or learned positions if `adds_positions`, into `row` (`d_model` entries).
    pub(crate) fn embed_row(
        &self,
        token: usize,
        pos: usize,
        adds_positions: bool,
        row: &mut [f64],
    ) {
        let (d, p) = (self.config.d_model, &self.params);
        assert!(
            token < self.config.vocab,
            "token id {token} outside the vocabulary"
        );
        let emb = self.offset(ParamGroup::TokenEmbedding) + token * d;
        row.copy_from_slice(&p[emb..emb + d]);
        match self.config.positions {
            PositionKind::Sinusoidal if adds_positions => {
                add_assign(row, &self.sinusoid[pos * d..(pos + 1) * d]);
            }
            PositionKind::Learned if adds_positions => {
                let start = self.offset(ParamGroup::Positions) + pos * d;
                add_assign(row, &p[start..start + d]);
            }
            _ => {}
        }
    }

    /// Layer `layer` on the sequence in `cache` (its input `cache.x[layer]`): `Q`, `K`, `V`
    /// (rotated for rotary positions), each head's weights and output ([`Self::attention_head`],
    /// then `after_head`), and `X_{l+1} = X_l + concat · W_o` into `cache.x[layer + 1]`.
    pub fn attention_layer(
        &self,
        layer: usize,
        cache: &mut ForwardCache,
        scale: f64,
        rule: &dyn ScoringRule,
        after_head: &dyn AfterHead,
    ) {
        let cfg = &self.config;
        let (t, d, hs) = (cache.tokens.len(), cfg.d_model, cfg.head_size());
        let p = &self.params;
        let off = self.layer_offsets(layer);
        let (before, after) = cache.x.split_at_mut(layer + 1);
        let (x_in, x_out) = (&before[layer], &mut after[0]);
        let lc = &mut cache.layers[layer];
        matmul(x_in, &p[off.q..off.q + d * d], &mut lc.q, t, d, d);
        matmul(x_in, &p[off.k..off.k + d * d], &mut lc.k, t, d, d);
        matmul(x_in, &p[off.v..off.v + d * d], &mut lc.v, t, d, d);
        if cfg.positions == PositionKind::Rotary && rule.adds_positions() {
            self.rotate_rows(&mut lc.q, t, 1.0);
            self.rotate_rows(&mut lc.k, t, 1.0);
        }
        lc.z.fill(0.0);
        for head in 0..cfg.heads {
            self.attention_head(head, lc, t, scale, rule);
            if let Some(row) = after_head.replacement(layer, head) {
                for z_row in lc.z.chunks_exact_mut(d).take(t) {
                    z_row[head * hs..(head + 1) * hs].copy_from_slice(row);
                }
            }
        }
        x_out[..t * d].copy_from_slice(&x_in[..t * d]);
        matmul_acc(&lc.z, &p[off.o..off.o + d * d], x_out, t, d, d);
    }

    /// Head `head` of a layer whose `q`, `k` and `v` are in `lc`: its scores `q_i · k_j` for every
    /// key row i reads (`j ≤ i`, or every key if `rule` reads the future; the rest stay 0, which the
    /// softmax masks), its weights by `rule` into `lc.attn[head]`, and its output `A V_h` into its
    /// columns of `lc.z` (which hold 0 before).
    pub fn attention_head(
        &self,
        head: usize,
        lc: &mut LayerCache,
        t: usize,
        scale: f64,
        rule: &dyn ScoringRule,
    ) {
        let (d, hs) = (self.config.d_model, self.config.head_size());
        let cols = head * hs..(head + 1) * hs;
        let last = |i: usize| if rule.reads_future() { t - 1 } else { i };
        let mut scores = DMatrix::<f64>::zeros(t, t);
        for i in 0..t {
            let q_i = &lc.q[i * d + cols.start..i * d + cols.end];
            for j in 0..=last(i) {
                let k_j = &lc.k[j * d + cols.start..j * d + cols.end];
                scores[(i, j)] = dot(q_i, k_j);
            }
        }
        let weights = rule.weights(&scores, scale);
        for i in 0..t {
            for j in 0..=last(i) {
                let a = weights[(i, j)];
                let (z_row, v_row) = (
                    &mut lc.z[i * d + cols.start..i * d + cols.end],
                    &lc.v[j * d + cols.start..j * d + cols.end],
                );
                for (z, &v) in z_row.iter_mut().zip(v_row) {
                    *z += a * v;
                }
            }
        }
        lc.attn[head] = weights;
    }

    /// `logits = X_L · W_U`, each row's softmax into `cache.probs`, and what the loss needs:
    /// `log Σ exp` of each row and the next token's logit.
    pub fn unembed_and_loss(&self, cache: &mut ForwardCache) {
        let cfg = &self.config;
        let (t, d, vocab) = (cache.tokens.len(), cfg.d_model, cfg.vocab);
        let unembed = self.offset(ParamGroup::Unembedding);
        matmul(
            &cache.x[cfg.layers],
            &self.params[unembed..unembed + d * vocab],
            &mut cache.probs,
            t,
            d,
            vocab,
        );
        for i in 0..t {
            let row = &mut cache.probs[i * vocab..(i + 1) * vocab];
            cache.target_logit[i] = if i + 1 < t {
                row[cache.tokens[i + 1]]
            } else {
                0.0
            };
            cache.log_norm[i] = softmax_in_place(row);
        }
    }

    /// Each head's attention weights for `tokens`, `[layer][head]`, T × T each.
    pub fn attention(&self, tokens: &[usize]) -> Vec<Vec<DMatrix<f64>>> {
        self.attention_at(tokens, 1.0)
    }

    /// [`Self::attention`] at temperature `tau` (see [`Self::forward_at`]).
    pub fn attention_at(&self, tokens: &[usize], tau: f64) -> Vec<Vec<DMatrix<f64>>> {
        self.attention_under(tokens, tau, &CausalSoftmax, &KeepOutputs)
    }

    /// Each head's weights from [`Self::forward_under`], `[layer][head]`. A head whose output
    /// `after_head` replaces keeps its own weights; the layers after it change.
    pub fn attention_under(
        &self,
        tokens: &[usize],
        tau: f64,
        rule: &dyn ScoringRule,
        after_head: &dyn AfterHead,
    ) -> Vec<Vec<DMatrix<f64>>> {
        let mut cache = ForwardCache::default();
        self.forward_under(tokens, &mut cache, tau, rule, after_head);
        cache.layers.into_iter().map(|l| l.attn).collect()
    }

    /// Every head on `tokens`, `[layer][head]`, with every layer's scores divided by `tau` as in
    /// [`Self::forward_at`] (layer 2's inputs are layer 1's outputs at that τ), from one forward
    /// pass: its weights (as [`Self::attention_at`] gives them) and what the explorer's step-3
    /// trace ([`crate::model::trace::RowTrace`]) reads beside them, the head's queries, keys and
    /// values and its raw scores `q_i · k_j` for every pair (the future's too). With rotary
    /// positions the queries and keys are the rotated ones, the ones the scores compare; each score
    /// on or below the diagonal is the same sum, bit for bit, as the one the softmax got.
    pub fn heads_at(&self, tokens: &[usize], tau: f64) -> Vec<Vec<HeadOnTokens>> {
        let mut cache = ForwardCache::default();
        self.forward_at(tokens, &mut cache, tau);
        let (t, d, hs) = (tokens.len(), self.config.d_model, self.config.head_size());
        cache
            .layers
            .into_iter()
            .map(|LayerCache { q, k, v, attn, .. }| {
                attn.into_iter()
                    .enumerate()
                    .map(|(head, weights)| {
                        let start = |i: usize| i * d + head * hs;
                        let block = |m: &[f64]| DMatrix::from_fn(t, hs, |i, c| m[start(i) + c]);
                        let scores = DMatrix::from_fn(t, t, |i, j| {
                            dot(&q[start(i)..][..hs], &k[start(j)..][..hs])
                        });
                        HeadOnTokens {
                            projections: HeadProjections {
                                q: block(&q),
                                k: block(&k),
                                v: block(&v),
                                scores,
                            },
                            weights,
                        }
                    })
                    .collect()
            })
            .collect()
    }

    /// Next-token probabilities, T × vocab (row t predicts token t + 1).
    pub fn next_token_probs(&self, tokens: &[usize]) -> DMatrix<f64> {
        let mut cache = ForwardCache::default();
        self.forward(tokens, &mut cache);
        DMatrix::from_row_slice(tokens.len(), self.config.vocab, &cache.probs)
    }

    /// The cross-entropy (natural log) at each position that has a next token: `T − 1` values.
    pub fn position_losses(&self, tokens: &[usize]) -> Vec<f64> {
        let mut cache = ForwardCache::default();
        self.forward(tokens, &mut cache);
        cache.position_losses()
    }

    /// The straightforward version of [`Transformer::forward`]: `DMatrix` products and the
    /// explorer's own `HeadProjections`, `attend` and `LayerOutput`, one allocation per product.
    /// It is the reference the fast path is tested against, and the baseline `examples/train.rs`
    /// times it against. Returns the per-position losses and the weights `[layer][head]`.
    pub fn reference_forward(&self, tokens: &[usize]) -> (Vec<f64>, Vec<Vec<DMatrix<f64>>>) {
        let cfg = self.config();
        let (t, d, hs) = (tokens.len(), cfg.d_model, cfg.head_size());
        let emb = self.matrix(ParamGroup::TokenEmbedding).unwrap();
        let mut x = DMatrix::from_fn(t, d, |i, c| emb[(tokens[i], c)]);
        match cfg.positions {
            PositionKind::Sinusoidal => x += sinusoidal_positions(t, d),
            PositionKind::Learned => {
                x += self
                    .matrix(ParamGroup::Positions)
                    .unwrap()
                    .rows(0, t)
                    .into_owned();
            }
            PositionKind::Rotary => {}
        }
        let rotate = |m: &DMatrix<f64>| {
            let mut out = m.clone();
            for pos in 0..t {
                for head in 0..cfg.heads {
                    for pair in 0..hs / 2 {
                        let angle = pos as f64 * 10_000f64.powf(-((2 * pair) as f64) / hs as f64);
                        let (c0, c1) = (head * hs + 2 * pair, head * hs + 2 * pair + 1);
                        let (a, b) = (m[(pos, c0)], m[(pos, c1)]);
                        out[(pos, c0)] = a * angle.cos() - b * angle.sin();
                        out[(pos, c1)] = a * angle.sin() + b * angle.cos();
                    }
                }
            }
            out
        };
        let mut all_weights = Vec::new();
        for layer in 0..cfg.layers {
            let w = |g| self.matrix(g).unwrap();
            let (mut q, mut k) = (
                &x * w(ParamGroup::Query(layer)),
                &x * w(ParamGroup::Key(layer)),
            );
            let v = &x * w(ParamGroup::Value(layer));
            if cfg.positions == PositionKind::Rotary {
                q = rotate(&q);
                k = rotate(&k);
            }
            let mut outputs = Vec::new();
            let mut weights = Vec::new();
            for head in 0..cfg.heads {
                let cols = |m: &DMatrix<f64>| m.columns(head * hs, hs).into_owned();
                let (qh, kh) = (cols(&q), cols(&k));
                let scores = &qh * kh.transpose();
                let projections = HeadProjections {
                    q: qh,
                    k: kh,
                    v: cols(&v),
                    scores,
                };
                let att = attend(&projections, 1.0);
                outputs.push(att.output);
                weights.push(att.weights);
            }
            let refs: Vec<&DMatrix<f64>> = outputs.iter().collect();
            x += LayerOutput::new(&refs, &w(ParamGroup::Output(layer))).output;
            all_weights.push(weights);
        }
        let logits = &x * self.matrix(ParamGroup::Unembedding).unwrap();
        let losses = (0..t - 1)
            .map(|i| {
                let row: Vec<f64> = logits.row(i).iter().copied().collect();
                let max = row.iter().copied().fold(f64::NEG_INFINITY, f64::max);
                let lse = max + row.iter().map(|l| (l - max).exp()).sum::<f64>().ln();
                lse - row[tokens[i + 1]]
            })
            .collect();
        (losses, all_weights)
    }
}

/// `Σ a_i b_i`, summed from 0 in index order (every score of a pass).
pub(crate) fn dot(a: &[f64], b: &[f64]) -> f64 {
    let mut sum = 0.0;
    for (&x, &y) in a.iter().zip(b) {
        sum += x * y;
    }
    sum
}

fn add_assign(a: &mut [f64], b: &[f64]) {
    for (x, &y) in a.iter_mut().zip(b) {
        *x += y;
    }
}

/// One row of logits becomes its softmax (the maximum subtracted, `exp`, divided by the sum, in
/// index order); returns `log Σ exp` of the logits, from which a token's loss is
/// `log Σ exp − logit`.
pub(crate) fn softmax_in_place(row: &mut [f64]) -> f64 {
    let max = row.iter().copied().fold(f64::NEG_INFINITY, f64::max);
    let mut sum = 0.0;
    for l in row.iter_mut() {
        *l = (*l - max).exp();
        sum += *l;
    }
    for l in row.iter_mut() {
        *l /= sum;
    }
    max + sum.ln()
}

/// One head of a model on one sequence ([`Transformer::heads_at`]).
#[derive(Debug, Clone, PartialEq)]
pub struct HeadOnTokens {
    /// Its queries, keys, values and raw scores.
    pub projections: HeadProjections,
    /// Its attention weights, T × T.
    pub weights: DMatrix<f64>,
}

/// One layer's intermediates for one sequence (row-major, T × `d_model` unless noted).
#[derive(Debug, Clone, Default)]
pub struct LayerCache {
    /// Queries after the rotation (rotary) — what the scores used.
    pub q: Vec<f64>,
    pub k: Vec<f64>,
    pub v: Vec<f64>,
    /// The heads' outputs side by side.
    pub z: Vec<f64>,
    /// Each head's T × T attention weights.
    pub attn: Vec<DMatrix<f64>>,
}

/// Everything a forward pass computed for one sequence; reused between sequences so a training
/// step allocates only the attention matrices.
#[derive(Debug, Clone, Default)]
pub struct ForwardCache {
    pub tokens: Vec<usize>,
    /// The residual stream before layer 1, after each layer: `layers + 1` matrices, T × `d_model`.
    pub x: Vec<Vec<f64>>,
    pub layers: Vec<LayerCache>,
    /// T × vocab next-token probabilities.
    pub probs: Vec<f64>,
    /// `log Σ exp(logits)` of each row.
    pub log_norm: Vec<f64>,
    /// The logit of the next token at each row (0 at the last row).
    pub target_logit: Vec<f64>,
    /// Whether the pass replaced any head's output ([`AfterHead`], a knock-out): then there is no
    /// backward pass.
    pub ablated: bool,
}

impl ForwardCache {
    fn prepare(&mut self, cfg: &TransformerConfig, t: usize) {
        let td = t * cfg.d_model;
        self.x.resize_with(cfg.layers + 1, Vec::new);
        for x in &mut self.x {
            x.resize(td, 0.0);
        }
        self.layers.resize_with(cfg.layers, LayerCache::default);
        for l in &mut self.layers {
            for m in [&mut l.q, &mut l.k, &mut l.v, &mut l.z] {
                m.resize(td, 0.0);
            }
            l.attn.resize_with(cfg.heads, || DMatrix::zeros(0, 0));
        }
        self.probs.resize(t * cfg.vocab, 0.0);
        self.log_norm.resize(t, 0.0);
        self.target_logit.resize(t, 0.0);
    }

    /// `−log p(next token)` at each of the first `T − 1` rows.
    pub fn position_losses(&self) -> Vec<f64> {
        let t = self.tokens.len();
        (0..t.saturating_sub(1))
            .map(|i| self.log_norm[i] - self.target_logit[i])
            .collect()
    }
}

#[cfg(test)]
pub(crate) mod tests;
