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
//! The tests check every group against central finite differences.

use super::kernels::{matmul_a_bt_acc, matmul_at_b_acc};
use super::transformer::{ForwardCache, ParamGroup, PositionKind, Transformer};

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
    da: Vec<f64>,
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
        assert_eq!(grad.len(), self.params().len());
        let predicted: usize = batch.iter().map(|s| s.len().saturating_sub(1)).sum();
        let weight = 1.0 / predicted.max(1) as f64;
        let mut positions = Vec::with_capacity(batch.len());
        let mut total = 0.0;
        for tokens in batch {
            let losses = self.sequence_loss_and_grad(tokens, weight, grad, ws);
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
        self.forward(tokens, &mut ws.cache);
        let losses = ws.cache.position_losses();
        self.backward(weight, grad, ws);
        losses
    }

    /// The mean loss over `batch` without gradients.
    pub fn batch_loss(&self, batch: &[Vec<usize>]) -> BatchLoss {
        let mut cache = ForwardCache::default();
        let mut positions = Vec::with_capacity(batch.len());
        let (mut total, mut count) = (0.0, 0);
        for tokens in batch {
            self.forward(tokens, &mut cache);
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

    /// Adds `weight ·` the gradient of the summed position losses of the sequence in `ws.cache`
    /// (the last [`Transformer::forward`]) into `grad`.
    fn backward(&self, weight: f64, grad: &mut [f64], ws: &mut Workspace) {
        let cfg = *self.config();
        let (d, vocab, hs) = (cfg.d_model, cfg.vocab, cfg.head_size());
        let p = self.params();
        let cache = &ws.cache;
        let t = cache.tokens.len();
        let td = t * d;

        ws.dlogits.clear();
        ws.dlogits.extend(cache.probs.iter().map(|&pr| pr * weight));
        ws.dlogits[(t - 1) * vocab..].fill(0.0);
        for i in 0..t - 1 {
            ws.dlogits[i * vocab + cache.tokens[i + 1]] -= weight;
        }
        let unembed = self.offset(ParamGroup::Unembedding);
        matmul_at_b_acc(
            &cache.x[cfg.layers],
            &ws.dlogits,
            &mut grad[unembed..unembed + d * vocab],
            t,
            d,
            vocab,
        );
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

        let scale = self.scale();
        for layer in (0..cfg.layers).rev() {
            let off = self.layer_offsets(layer);
            let lc = &cache.layers[layer];
            let x_in = &cache.x[layer];
            matmul_at_b_acc(&lc.z, &ws.dx, &mut grad[off.o..off.o + d * d], t, d, d);
            for buf in [&mut ws.dz, &mut ws.dq, &mut ws.dk, &mut ws.dv] {
                buf.clear();
                buf.resize(td, 0.0);
            }
            matmul_a_bt_acc(&ws.dx, &p[off.o..off.o + d * d], &mut ws.dz, t, d, d);
            ws.da.resize(t, 0.0);
            for head in 0..cfg.heads {
                let c0 = head * hs;
                let a = &lc.attn[head];
                for i in 0..t {
                    let dz_i = &ws.dz[i * d + c0..i * d + c0 + hs];
                    // dA[i, j] = dZ_h[i] · V_h[j], and Σ_j A[i,j] dA[i,j] for the softmax.
                    let mut weighted = 0.0;
                    for j in 0..=i {
                        let v_j = &lc.v[j * d + c0..j * d + c0 + hs];
                        let mut s = 0.0;
                        for (&g, &v) in dz_i.iter().zip(v_j) {
                            s += g * v;
                        }
                        ws.da[j] = s;
                        weighted += a[(i, j)] * s;
                    }
                    for j in 0..=i {
                        let a_ij = a[(i, j)];
                        // dV_h[j] += A[i,j] dZ_h[i]
                        for (dv, &g) in ws.dv[j * d + c0..j * d + c0 + hs].iter_mut().zip(dz_i) {
                            *dv += a_ij * g;
                        }
                        let ds = scale * a_ij * (ws.da[j] - weighted);
                        // dQ[i] += dS[i,j] K[j];  dK[j] += dS[i,j] Q[i]
                        for c in c0..c0 + hs {
                            ws.dq[i * d + c] += ds * lc.k[j * d + c];
                            ws.dk[j * d + c] += ds * lc.q[i * d + c];
                        }
                    }
                }
            }
            if cfg.positions == PositionKind::Rotary {
                self.rotate_rows(&mut ws.dq, t, -1.0);
                self.rotate_rows(&mut ws.dk, t, -1.0);
            }
            for (start, dm) in [(off.q, &ws.dq), (off.k, &ws.dk), (off.v, &ws.dv)] {
                matmul_at_b_acc(x_in, dm, &mut grad[start..start + d * d], t, d, d);
                // The residual already carries dX; the projections add their share.
                matmul_a_bt_acc(dm, &p[start..start + d * d], &mut ws.dx, t, d, d);
            }
        }

        let emb = self.offset(ParamGroup::TokenEmbedding);
        for (i, &tok) in cache.tokens.iter().enumerate() {
            let dst = &mut grad[emb + tok * d..emb + (tok + 1) * d];
            for (g, &dx) in dst.iter_mut().zip(&ws.dx[i * d..(i + 1) * d]) {
                *g += dx;
            }
        }
        if cfg.positions == PositionKind::Learned {
            let pos = self.offset(ParamGroup::Positions);
            for (g, &dx) in grad[pos..pos + td].iter_mut().zip(&ws.dx) {
                *g += dx;
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::rng::SeededRng;
    use crate::model::train::transformer::tests::small;
    use crate::model::train::transformer::ModelConfig;

    fn random_batch(cfg: &ModelConfig, seed: u64, sequences: usize) -> Vec<Vec<usize>> {
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
    fn check_gradients(cfg: ModelConfig, seed: u64) {
        let mut model = Transformer::new(cfg, seed).unwrap();
        let batch = random_batch(&cfg, seed, 3);
        let mut grad = vec![0.0; model.params().len()];
        let mut ws = Workspace::default();
        let loss = model.loss_and_grad(&batch, &mut grad, &mut ws);
        assert!((loss.mean - model.batch_loss(&batch).mean).abs() < 1e-14);
        let h = 1e-5;
        for span in cfg.layout() {
            let (mut diff, mut norm_a, mut norm_n) = (0.0, 0.0, 0.0);
            for index in span.range() {
                let original = model.params()[index];
                model.params_mut()[index] = original + h;
                let plus = model.batch_loss(&batch).mean;
                model.params_mut()[index] = original - h;
                let minus = model.batch_loss(&batch).mean;
                model.params_mut()[index] = original;
                let numeric = (plus - minus) / (2.0 * h);
                diff += (grad[index] - numeric).powi(2);
                norm_a += grad[index].powi(2);
                norm_n += numeric.powi(2);
            }
            let scale = norm_a.sqrt().max(norm_n.sqrt());
            assert!(scale > 1e-8, "{}: gradient vanished", span.group.label());
            let rel = diff.sqrt() / scale;
            assert!(
                rel <= 1e-6,
                "{cfg:?} seed {seed}, {}: relative error {rel:e}",
                span.group.label()
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
        let cfg = ModelConfig {
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
