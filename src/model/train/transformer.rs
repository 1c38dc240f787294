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
//! Why flat buffers instead of `DMatrix` products: see [`super::kernels`]. The attention weights,
//! the only non-linear piece, still come from [`crate::model::attention::causal_softmax`], and a
//! test runs the same model through the explorer's `HeadProjections`/`attend`/`LayerOutput` and
//! checks the two agree.

use super::kernels::{matmul, matmul_acc};
use super::knockout::Ablation;
use super::mistakes::{mistaken_weights, score_scale, uses_positions, TrainingMistake};
use super::shape::{ParamGroup, PositionKind, TransformerConfig};
use crate::model::attention::{attend, causal_softmax, HeadProjections, LayerOutput};
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

/// How a forward pass runs, besides the weights and the temperature: the training mistake it
/// makes, if any ([`TrainingMistake`]), and the heads it knocks out, if any ([`Ablation`]). The
/// default is the model as used: correct causal attention, every head on, which is the plain
/// [`Transformer::forward`] bit for bit.
#[derive(Debug, Clone, Copy, Default)]
pub struct Pass<'a> {
    pub mistake: Option<TrainingMistake>,
    pub ablation: Option<&'a Ablation>,
}

impl<'a> Pass<'a> {
    /// A pass making `mistake` (none: correct attention), every head on.
    pub fn with_mistake(mistake: Option<TrainingMistake>) -> Self {
        Self {
            mistake,
            ablation: None,
        }
    }

    /// This pass with `ablation`'s heads knocked out.
    #[must_use]
    pub fn knocking_out(self, ablation: &'a Ablation) -> Self {
        Self {
            ablation: Some(ablation),
            ..self
        }
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

    /// Rotates every head's pairs of row `pos` by `+angle` (`sign = 1.0`) or back (`-1.0`, the
    /// transpose, which the backward pass needs).
    pub(crate) fn rotate_rows(&self, m: &mut [f64], t: usize, sign: f64) {
        let (d, hs) = (self.config.d_model, self.config.head_size());
        let half = hs / 2;
        for pos in 0..t {
            let row = &mut m[pos * d..(pos + 1) * d];
            for head in row.chunks_exact_mut(hs) {
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
        self.forward_with(tokens, cache, tau, Pass::default());
    }

    /// [`Self::forward_at`] making `pass.mistake` and knocking out `pass.ablation`'s heads (see
    /// [`Pass`]). With the default pass it is the same arithmetic, bit for bit: every change is
    /// behind a test of the pass. A mistake is remembered in `cache` for the backward pass; an
    /// ablation is for forward passes only (the backward pass refuses its cache).
    pub fn forward_with(&self, tokens: &[usize], cache: &mut ForwardCache, tau: f64, pass: Pass) {
        let cfg = &self.config;
        let (t, d, vocab, hs) = (tokens.len(), cfg.d_model, cfg.vocab, cfg.head_size());
        assert!(
            (1..=cfg.max_len).contains(&t),
            "{t} tokens (1..={})",
            cfg.max_len
        );
        cache.prepare(cfg, t);
        let p = &self.params;
        let emb = self.offset(ParamGroup::TokenEmbedding);
        let x0 = &mut cache.x[0];
        for (i, &tok) in tokens.iter().enumerate() {
            assert!(tok < vocab, "token id {tok} outside the vocabulary");
            x0[i * d..(i + 1) * d].copy_from_slice(&p[emb + tok * d..emb + (tok + 1) * d]);
        }
        let positions = uses_positions(pass.mistake);
        match cfg.positions {
            PositionKind::Sinusoidal if positions => {
                add_assign(&mut x0[..t * d], &self.sinusoid[..t * d]);
            }
            PositionKind::Learned if positions => {
                let pos = self.offset(ParamGroup::Positions);
                add_assign(&mut x0[..t * d], &p[pos..pos + t * d]);
            }
            _ => {}
        }
        let scale = score_scale(pass.mistake, hs, tau);
        // How far right each row's scores and values are read: the past, or every key.
        let sees_future = pass.mistake.is_some_and(TrainingMistake::sees_future);
        let last = |i: usize| if sees_future { t - 1 } else { i };
        for layer in 0..cfg.layers {
            let off = self.layer_offsets(layer);
            let (before, after) = cache.x.split_at_mut(layer + 1);
            let (x_in, x_out) = (&before[layer], &mut after[0]);
            let lc = &mut cache.layers[layer];
            matmul(x_in, &p[off.q..off.q + d * d], &mut lc.q, t, d, d);
            matmul(x_in, &p[off.k..off.k + d * d], &mut lc.k, t, d, d);
            matmul(x_in, &p[off.v..off.v + d * d], &mut lc.v, t, d, d);
            if cfg.positions == PositionKind::Rotary && positions {
                self.rotate_rows(&mut lc.q, t, 1.0);
                self.rotate_rows(&mut lc.k, t, 1.0);
            }
            lc.z.fill(0.0);
            for head in 0..cfg.heads {
                let cols = head * hs..(head + 1) * hs;
                // Scores QKᵀ for this head; entries above the diagonal stay 0 (the softmax masks
                // them) unless a mistake lets rows see the future.
                let mut scores = DMatrix::<f64>::zeros(t, t);
                for i in 0..t {
                    let q_i = &lc.q[i * d + cols.start..i * d + cols.end];
                    for j in 0..=last(i) {
                        let k_j = &lc.k[j * d + cols.start..j * d + cols.end];
                        scores[(i, j)] = dot(q_i, k_j);
                    }
                }
                let weights = match pass.mistake {
                    Some(m) if m.changes_softmax() => mistaken_weights(m, &scores, scale),
                    _ => causal_softmax(&scores, scale),
                };
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
                if let Some(row) = pass.ablation.and_then(|a| a.replacement(layer, head)) {
                    for z_row in lc.z.chunks_exact_mut(d).take(t) {
                        z_row[cols.clone()].copy_from_slice(row);
                    }
                }
            }
            x_out[..t * d].copy_from_slice(&x_in[..t * d]);
            matmul_acc(&lc.z, &p[off.o..off.o + d * d], x_out, t, d, d);
        }
        let unembed = self.offset(ParamGroup::Unembedding);
        matmul(
            &cache.x[cfg.layers],
            &p[unembed..unembed + d * vocab],
            &mut cache.probs,
            t,
            d,
            vocab,
        );
        // Softmax of each row of logits, keeping log Σ exp and the next token's logit for the loss.
        for i in 0..t {
            let row = &mut cache.probs[i * vocab..(i + 1) * vocab];
            cache.target_logit[i] = if i + 1 < t { row[tokens[i + 1]] } else { 0.0 };
            let max = row.iter().copied().fold(f64::NEG_INFINITY, f64::max);
            let mut sum = 0.0;
            for l in row.iter_mut() {
                *l = (*l - max).exp();
                sum += *l;
            }
            for l in row.iter_mut() {
                *l /= sum;
            }
            cache.log_norm[i] = max + sum.ln();
        }
        cache.tokens.clear();
        cache.tokens.extend_from_slice(tokens);
        cache.mistake = pass.mistake;
        cache.ablated = pass.ablation.is_some_and(|a| !a.is_empty());
    }

    /// Each head's attention weights for `tokens`, `[layer][head]`, T × T each.
    pub fn attention(&self, tokens: &[usize]) -> Vec<Vec<DMatrix<f64>>> {
        self.attention_at(tokens, 1.0)
    }

    /// [`Self::attention`] at temperature `tau` (see [`Self::forward_at`]).
    pub fn attention_at(&self, tokens: &[usize], tau: f64) -> Vec<Vec<DMatrix<f64>>> {
        self.attention_with(tokens, tau, Pass::default())
    }

    /// Each head's weights under `pass` (a training mistake, knocked-out heads; see [`Pass`]),
    /// `[layer][head]`: the head grid of a run trained with a mistake, or of a model with heads
    /// knocked out (a knocked-out head's own weights are unchanged; the layers after it change).
    pub fn attention_with(&self, tokens: &[usize], tau: f64, pass: Pass) -> Vec<Vec<DMatrix<f64>>> {
        let mut cache = ForwardCache::default();
        self.forward_with(tokens, &mut cache, tau, pass);
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

fn dot(a: &[f64], b: &[f64]) -> f64 {
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
    /// The training mistake the pass made (the backward pass follows it).
    pub mistake: Option<TrainingMistake>,
    /// Whether the pass knocked out any head (then there is no backward pass).
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
