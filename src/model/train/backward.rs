//! Backpropagation through [`Transformer`], written out by hand for every parameter group.
//!
//! For one sequence, with `w` the weight of each predicted position in the mean loss
//! (1 / number of predicted positions in the batch), going backwards:
//! - cross-entropy and softmax of the logits: `dlogits[t] = w · (p[t] − onehot(token[t+1]))`,
//!   zero at the last row (it predicts nothing);
//! - unembedding: `dW_U += X_Lᵀ · dlogits`, `dX_L = dlogits · W_Uᵀ`;
//! - each layer, last first, `X_out = X_in + Z · W_o`: `dW_o += Zᵀ · dX`, `dZ = dX · W_oᵀ`, and the
//!   residual passes `dX` straight through to `dX_in`;
//! - each head: `Z_h = A V_h` gives `dA = dZ_h V_hᵀ` and `dV_h = Aᵀ dZ_h`; the row-wise softmax
//!   `A = softmax(s · S)` gives `dS[i,j] = s · A[i,j] · (dA[i,j] − Σ_k A[i,k] dA[i,k])` (the
//!   Jacobian–vector product of each row; masked entries have `A = 0` and get nothing); the
//!   scores `S = Q Kᵀ` give `dQ = dS K` and `dK = dSᵀ Q`;
//! - rotary positions: the rotation is orthogonal, so its gradient is the rotation back;
//! - projections: `dW_q += X_inᵀ dQ` (and k, v), `dX_in += dQ W_qᵀ + dK W_kᵀ + dV W_vᵀ`;
//! - inputs: `dE[token_t] += dX₀[t]`, and `dP[t] += dX₀[t]` for learned positions.
//!
//! A pass that scores by another [`ScoringRule`] (a training mistake) differs only in
//! `dA → dS`, which the rule supplies ([`ScoringRule::weights_backward`]), and in whether the
//! rotation and the position table take part ([`ScoringRule::adds_positions`]). The tests check
//! every group against central finite differences; the lab runs the same check for each training
//! mistake.
//!
//! **Where the gradient goes.** Every contribution to the parameters' gradient is one of two
//! operations on the running sum: a product `grad[block] += aᵀ · b` (the weight gradients
//! `X_inᵀ dQ`, `Zᵀ dX`, `X_Lᵀ dlogits`) or a row added entry by entry (an embedding row, the
//! position table). The backward pass hands each to a [`GradSink`]: [`Direct`] applies it to the
//! step's gradient at once (what a step does), and [`super::page::workers`] records its operands so
//! that another thread can compute a sequence and the step can still apply the very same
//! operations, in the same order, to its running sum (the bits depend on that order: the
//! products add each term onto the sum in turn).

use super::kernels::{matmul_a_bt_acc, matmul_acc, matmul_at_b_acc};
use super::scoring::{CausalSoftmax, ScoringRule};
use super::shape::{ParamGroup, PositionKind};
use super::transformer::{ForwardCache, KeepOutputs, Transformer};

/// Receives the backward pass's contributions to the gradient (see the module documentation).
pub(crate) trait GradSink {
    /// `grad[start..start + k·n] += aᵀ · b`, `a` m × k and `b` m × n (row-major), every entry's
    /// terms added onto it in the order `p = 0, 1, …` (`kernels::matmul_at_b_acc`).
    fn at_b(&mut self, start: usize, a: &[f64], b: &[f64], dims: [usize; 3]);
    /// `grad[start + i] += x[i]` for each i in turn.
    fn add(&mut self, start: usize, x: &[f64]);
}

/// The sink of a step: the contributions go straight into the gradient vector.
pub(crate) struct Direct<'a>(pub &'a mut [f64]);

impl GradSink for Direct<'_> {
    fn at_b(&mut self, start: usize, a: &[f64], b: &[f64], [m, k, n]: [usize; 3]) {
        matmul_at_b_acc(a, b, &mut self.0[start..start + k * n], m, k, n);
    }

    fn add(&mut self, start: usize, x: &[f64]) {
        for (g, &v) in self.0[start..start + x.len()].iter_mut().zip(x) {
            *g += v;
        }
    }
}

/// Reusable buffers for one sequence's backward pass.
#[derive(Debug, Clone, Default)]
pub struct Workspace {
    pub cache: ForwardCache,
    dlogits: Vec<f64>,
    dx: Vec<f64>,
    dz: Vec<f64>,
    dq: Vec<f64>,
    dk: Vec<f64>,
    dv: Vec<f64>,
    /// One head's blocks (T × head size, row-major), copied out of the T × `d_model` buffers.
    head: HeadBlocks,
}

/// One head's T × `head_size` slices of the layer's matrices, contiguous for the products, and
/// its T × T `dA`, then `dS`.
#[derive(Debug, Clone, Default)]
struct HeadBlocks {
    q: Vec<f64>,
    k: Vec<f64>,
    v: Vec<f64>,
    dz: Vec<f64>,
    dq: Vec<f64>,
    dk: Vec<f64>,
    dv: Vec<f64>,
    ds: Vec<f64>,
}

/// The loss of a batch and what it is made of.
#[derive(Debug, Clone, PartialEq)]
pub struct BatchLoss {
    /// Mean cross-entropy over every predicted position of every sequence.
    pub mean: f64,
    /// `[sequence][position]`: the loss at each row that has a next token.
    pub positions: Vec<Vec<f64>>,
}

impl Transformer {
    /// The mean next-token loss over `batch`, and its gradient **added** into `grad` (a vector laid
    /// out like the parameters; the caller zeroes it).
    pub fn loss_and_grad(
        &self,
        batch: &[Vec<usize>],
        grad: &mut [f64],
        ws: &mut Workspace,
    ) -> BatchLoss {
        self.loss_and_grad_under(batch, grad, ws, &CausalSoftmax)
    }

    /// One sequence of [`Transformer::loss_and_grad`]: adds `weight ·` the gradient of its summed
    /// position losses into `grad` and returns those losses. A batch is these calls in order (the
    /// trainer spreads them over animation frames).
    pub fn sequence_loss_and_grad(
        &self,
        tokens: &[usize],
        weight: f64,
        grad: &mut [f64],
        ws: &mut Workspace,
    ) -> Vec<f64> {
        self.sequence_loss_and_grad_under(tokens, weight, grad, ws, &CausalSoftmax)
    }

    /// [`Self::sequence_loss_and_grad`] for a model whose heads score by `rule` (its forward pass
    /// and the matching backward pass; [`CausalSoftmax`] is the plain one bit for bit).
    pub fn sequence_loss_and_grad_under(
        &self,
        tokens: &[usize],
        weight: f64,
        grad: &mut [f64],
        ws: &mut Workspace,
        rule: &dyn ScoringRule,
    ) -> Vec<f64> {
        assert_eq!(grad.len(), self.params().len());
        self.forward_under(tokens, &mut ws.cache, 1.0, rule, &KeepOutputs);
        let losses = ws.cache.position_losses();
        self.backward(weight, &mut Direct(grad), ws, rule);
        losses
    }

    /// [`Self::loss_and_grad`] for a model whose heads score by `rule`.
    pub fn loss_and_grad_under(
        &self,
        batch: &[Vec<usize>],
        grad: &mut [f64],
        ws: &mut Workspace,
        rule: &dyn ScoringRule,
    ) -> BatchLoss {
        let predicted: usize = batch.iter().map(|s| s.len().saturating_sub(1)).sum();
        let weight = 1.0 / predicted.max(1) as f64;
        let mut positions = Vec::with_capacity(batch.len());
        let mut total = 0.0;
        for tokens in batch {
            let losses = self.sequence_loss_and_grad_under(tokens, weight, grad, ws, rule);
            for &l in &losses {
                total += l;
            }
            positions.push(losses);
        }
        BatchLoss {
            mean: total * weight,
            positions,
        }
    }

    /// The mean loss over `batch` without gradients.
    pub fn batch_loss(&self, batch: &[Vec<usize>]) -> BatchLoss {
        self.batch_loss_under(batch, &CausalSoftmax)
    }

    /// [`Self::batch_loss`] with every head scoring by `rule`.
    pub fn batch_loss_under(&self, batch: &[Vec<usize>], rule: &dyn ScoringRule) -> BatchLoss {
        let mut cache = ForwardCache::default();
        let mut positions = Vec::with_capacity(batch.len());
        let (mut total, mut count) = (0.0, 0);
        for tokens in batch {
            self.forward_under(tokens, &mut cache, 1.0, rule, &KeepOutputs);
            let losses = cache.position_losses();
            for &l in &losses {
                total += l;
            }
            count += losses.len();
            positions.push(losses);
        }
        BatchLoss {
            mean: total / count.max(1) as f64,
            positions,
        }
    }

    /// Hands `weight ·` the gradient of the summed position losses of the sequence in `ws.cache`
    /// (the last forward pass, at τ = 1, scored by `rule`: the caller passes the rule that pass
    /// used) to `grad`.
    pub(crate) fn backward(
        &self,
        weight: f64,
        grad: &mut impl GradSink,
        ws: &mut Workspace,
        rule: &dyn ScoringRule,
    ) {
        let cfg = *self.config();
        let (d, vocab) = (cfg.d_model, cfg.vocab);
        let p = self.params();
        let cache = &ws.cache;
        assert!(!cache.ablated, "no backward pass through knocked-out heads");
        let positions = rule.adds_positions();
        let t = cache.tokens.len();
        let td = t * d;

        ws.dlogits.clear();
        ws.dlogits.extend(cache.probs.iter().map(|&pr| pr * weight));
        ws.dlogits[(t - 1) * vocab..].fill(0.0);
        for i in 0..t - 1 {
            ws.dlogits[i * vocab + cache.tokens[i + 1]] -= weight;
        }
        let unembed = self.offset(ParamGroup::Unembedding);
        grad.at_b(unembed, &cache.x[cfg.layers], &ws.dlogits, [t, d, vocab]);
        ws.dx.clear();
        ws.dx.resize(td, 0.0);
        matmul_a_bt_acc(
            &ws.dlogits,
            &p[unembed..unembed + d * vocab],
            &mut ws.dx,
            t,
            vocab,
            d,
        );

        for layer in (0..cfg.layers).rev() {
            let off = self.layer_offsets(layer);
            let z = &ws.cache.layers[layer].z;
            grad.at_b(off.o, z, &ws.dx, [t, d, d]);
            for buf in [&mut ws.dz, &mut ws.dq, &mut ws.dk, &mut ws.dv] {
                buf.clear();
                buf.resize(td, 0.0);
            }
            matmul_a_bt_acc(&ws.dx, &p[off.o..off.o + d * d], &mut ws.dz, t, d, d);
            for head in 0..cfg.heads {
                self.head_backward(layer, head, ws, rule);
            }
            if cfg.positions == PositionKind::Rotary && positions {
                self.rotate_rows(&mut ws.dq, t, -1.0);
                self.rotate_rows(&mut ws.dk, t, -1.0);
            }
            let x_in = &ws.cache.x[layer];
            for (start, dm) in [(off.q, &ws.dq), (off.k, &ws.dk), (off.v, &ws.dv)] {
                grad.at_b(start, x_in, dm, [t, d, d]);
                // The residual already carries dX; the projections add their share.
                matmul_a_bt_acc(dm, &p[start..start + d * d], &mut ws.dx, t, d, d);
            }
        }

        let emb = self.offset(ParamGroup::TokenEmbedding);
        for (i, &tok) in ws.cache.tokens.iter().enumerate() {
            grad.add(emb + tok * d, &ws.dx[i * d..(i + 1) * d]);
        }
        if cfg.positions == PositionKind::Learned && positions {
            grad.add(self.offset(ParamGroup::Positions), &ws.dx[..td]);
        }
    }

    /// Head `head` of layer `layer` (its `dZ` in `ws.dz`): writes the head's columns of `ws.dq`,
    /// `ws.dk` and `ws.dv` (each head owns its columns, which are 0 before). With A the head's
    /// weights and `dA = dZ_h V_hᵀ`: `dV_h = Aᵀ dZ_h`, `dS = scale · A ⊙ (dA − rowsum(A ⊙ dA))`,
    /// `dQ_h = dS K_h`, `dK_h = dSᵀ Q_h`, with `dA → dS` as `rule` says
    /// ([`ScoringRule::weights_backward`]).
    fn head_backward(&self, layer: usize, head: usize, ws: &mut Workspace, rule: &dyn ScoringRule) {
        let (d, hs) = (self.config().d_model, self.config().head_size());
        let (c0, scale) = (head * hs, rule.score_scale(hs, 1.0));
        let lc = &ws.cache.layers[layer];
        let t = ws.cache.tokens.len();
        let h = &mut ws.head;
        let copy_out = |m: &[f64], out: &mut Vec<f64>| {
            out.clear();
            for i in 0..t {
                out.extend_from_slice(&m[i * d + c0..][..hs]);
            }
        };
        copy_out(&lc.q, &mut h.q);
        copy_out(&lc.k, &mut h.k);
        copy_out(&lc.v, &mut h.v);
        copy_out(&ws.dz, &mut h.dz);
        for (out, len) in [
            (&mut h.dq, t * hs),
            (&mut h.dk, t * hs),
            (&mut h.dv, t * hs),
            (&mut h.ds, t * t),
        ] {
            out.clear();
            out.resize(len, 0.0);
        }

        // A is column-major, so its storage read row by row is Aᵀ.
        let a = &lc.attn[head];
        matmul_acc(a.as_slice(), &h.dz, &mut h.dv, t, t, hs);
        // dA, then dS in its place, row by row.
        matmul_a_bt_acc(&h.dz, &h.v, &mut h.ds, t, hs, t);
        rule.weights_backward(a, &mut h.ds, scale);
        matmul_acc(&h.ds, &h.k, &mut h.dq, t, t, hs);
        matmul_at_b_acc(&h.ds, &h.q, &mut h.dk, t, t, hs);
        for (whole, block) in [
            (&mut ws.dq, &h.dq),
            (&mut ws.dk, &h.dk),
            (&mut ws.dv, &h.dv),
        ] {
            for i in 0..t {
                whole[i * d + c0..][..hs].copy_from_slice(&block[i * hs..][..hs]);
            }
        }
    }
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use crate::model::rng::SeededRng;
    use crate::model::train::shape::TransformerConfig;
    use crate::model::train::transformer::tests::small;

    pub(crate) fn random_batch(
        cfg: &TransformerConfig,
        seed: u64,
        sequences: usize,
    ) -> Vec<Vec<usize>> {
        let mut rng = SeededRng::stream(seed, "gradcheck-batch");
        (0..sequences)
            .map(|s| {
                // Different lengths, the longest the model allows included.
                let len = cfg.max_len - s % 3;
                (0..len)
                    .map(|_| (rng.next_u64() % cfg.vocab as u64) as usize)
                    .collect()
            })
            .collect()
    }

    /// Central differences `(L(θ + h) − L(θ − h)) / 2h` for every parameter, compared group by
    /// group with the hand-written gradient: `‖g − g_fd‖ / max(‖g‖, ‖g_fd‖) ≤ 1e-6`.
    fn check_gradients(cfg: TransformerConfig, seed: u64) {
        check_gradients_under(cfg, seed, &CausalSoftmax);
    }

    /// [`check_gradients`] for a model whose heads score by `rule`: the loss differenced is the
    /// forward pass under the rule. Without positions, a learned position table is never read,
    /// so its gradient must be exactly 0 (and its differences are).
    pub(crate) fn check_gradients_under(
        cfg: TransformerConfig,
        seed: u64,
        rule: &(impl ScoringRule + std::fmt::Debug),
    ) {
        let mut model = Transformer::new(cfg, seed).unwrap();
        let batch = random_batch(&cfg, seed, 3);
        let mut grad = vec![0.0; model.params().len()];
        let mut ws = Workspace::default();
        let loss = model.loss_and_grad_under(&batch, &mut grad, &mut ws, rule);
        let loss_of = |m: &Transformer| m.batch_loss_under(&batch, rule).mean;
        assert!((loss.mean - loss_of(&model)).abs() < 1e-14);
        let h = 1e-5;
        for span in cfg.layout() {
            let (mut diff, mut norm_a, mut norm_n) = (0.0, 0.0, 0.0);
            for index in span.range() {
                let original = model.params()[index];
                model.params_mut()[index] = original + h;
                let plus = loss_of(&model);
                model.params_mut()[index] = original - h;
                let minus = loss_of(&model);
                model.params_mut()[index] = original;
                let numeric = (plus - minus) / (2.0 * h);
                diff += (grad[index] - numeric).powi(2);
                norm_a += grad[index].powi(2);
                norm_n += numeric.powi(2);
            }
            let label = span.group.label();
            if span.group == ParamGroup::Positions && !rule.adds_positions() {
                assert_eq!((norm_a, norm_n), (0.0, 0.0), "{label} is never read");
                continue;
            }
            let scale = norm_a.sqrt().max(norm_n.sqrt());
            assert!(scale > 1e-8, "{label}: gradient vanished");
            let rel = diff.sqrt() / scale;
            assert!(
                rel <= 1e-6,
                "{cfg:?} seed {seed} {rule:?}, {label}: relative error {rel:e}"
            );
        }
    }

    #[test]
    fn gradients_match_finite_differences_for_every_group() {
        for positions in PositionKind::ALL {
            for (layers, heads) in [(1, 1), (1, 2), (2, 4), (2, 2)] {
                for seed in [11, 12] {
                    check_gradients(small(positions, layers, heads), seed);
                }
            }
        }
    }

    #[test]
    fn gradients_match_on_a_wider_model() {
        let cfg = TransformerConfig {
            vocab: 10,
            d_model: 16,
            layers: 2,
            heads: 4,
            max_len: 9,
            positions: PositionKind::Rotary,
        };
        check_gradients(cfg, 3);
    }
}
