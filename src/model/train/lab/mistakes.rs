//! Training with a mistake: five classic ways to get attention wrong, made **during training**,
//! forward and backward, so the training page can show what each one does to a run. Each is a
//! [`ScoringRule`], the one thing the core's forward and backward passes let a caller change.
//!
//! Notation, per head: raw scores `S = Q Kᵀ` (T × T, every pair, the future's too), the scale
//! `s = 1/√d` (d the head size), logits `L`, weights `A`, output `Z = A V`. The correct rule is
//! `L_ij = s S_ij` for `j ≤ i`, `L_ij = −∞` for `j > i`, and `A = softmax over each row`. Each
//! [`TrainingMistake`] changes exactly one thing:
//!
//! | mistake | what is computed |
//! |---|---|
//! | [`NoCausalMask`](TrainingMistake::NoCausalMask) | `L_ij = s S_ij` for every j; row softmax over all T keys |
//! | [`MaskWithZero`](TrainingMistake::MaskWithZero) | `L_ij = s S_ij` for `j ≤ i`, `L_ij = 0` for `j > i`; row softmax over all T keys |
//! | [`NoScaling`](TrainingMistake::NoScaling) | `s = 1` instead of `1/√d`; causal as usual |
//! | [`NoPositions`](TrainingMistake::NoPositions) | no position code added and no rotation, in every layer; causal as usual |
//! | [`SoftmaxOverQueries`](TrainingMistake::SoftmaxOverQueries) | the future stays masked (`−∞`), but each **column** is softmaxed: `A_ij = exp(L_ij) / Σ_{k ≥ j} exp(L_kj)` for `i ≥ j` (`dim=-2` in `PyTorch`); rows no longer sum to 1 |
//!
//! Three of them let a row's output depend on later tokens: without the mask row i reads every
//! value; with the mask filled with 0 each future key still gets weight `e⁰ / Σ`; and a softmax over
//! the queries divides `A_ij` by a sum over the later queries `k ≥ j`, so row i's weights depend
//! on later tokens' queries. A model trained that way can lower its training loss by reading the
//! answer, which is why an evaluation also reports the same weights used correctly
//! ([`EvalPoint::as_used`](super::evaluation::EvalPoint::as_used)): generation has no future to read.
//!
//! ## The backward pass of each
//!
//! The backward pass up to `dA = dZ Vᵀ` and after `dS` (`dQ = dS K`, `dK = dSᵀ Q`) is the one in
//! [`crate::model::train::backward`]; only `dA → dS` changes:
//!
//! - **Row softmax over a set `R_i` of keys** (every key for `NoCausalMask` and `MaskWithZero`,
//!   `j ≤ i` otherwise): `∂A_ik/∂L_ij = A_ik (δ_jk − A_ij)`, so
//!   `dL_ij = A_ij (dA_ij − Σ_{k∈R_i} A_ik dA_ik)`. Entries outside `R_i` have `A = 0`, so the sum
//!   may run over every k.
//! - **`dS = s · dL` where the logit depends on `S`.** With `MaskWithZero` the future logits are
//!   the constant 0: they share the softmax's normaliser (so they appear in the sum above) but
//!   pass nothing on, `dS_ij = 0` for `j > i`.
//! - **Column softmax** (`SoftmaxOverQueries`): the same Jacobian along each column j over the
//!   queries `i ≥ j`: `dL_ij = A_ij (dA_ij − Σ_{k≥j} A_kj dA_kj)`, `dS_ij = s dL_ij` for `i ≥ j`,
//!   0 above the diagonal.
//! - **`NoScaling`**: the same as correct attention with `s = 1`.
//! - **`NoPositions`**: no rotation to undo and no position table to update (for learned
//!   positions its gradient is exactly 0: the table is never read).
//!
//! The tests check every parameter group against central finite differences for every mistake,
//! with the tolerance of the correct model's check; `tests/training_lab.rs` checks that the two
//! mistakes the explorer's Break it also makes give Break it's weights.

use crate::model::attention::causal_softmax;
use crate::model::temperature::logit_scale;
use crate::model::train::scoring::{causal_softmax_backward, ScoringRule};
use nalgebra::DMatrix;

/// One way to get attention wrong while training (see the module documentation).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TrainingMistake {
    /// Every row sees every key: no causal mask.
    NoCausalMask,
    /// The future's scores are set to 0 instead of −∞ before the softmax.
    MaskWithZero,
    /// The scores are not divided by √d.
    NoScaling,
    /// No position code and no rotation at all: only the causal mask tells positions apart.
    NoPositions,
    /// The softmax runs over the queries (each column), the future still masked.
    SoftmaxOverQueries,
}

impl TrainingMistake {
    /// Every mistake, in the order the page lists them.
    pub const ALL: [Self; 5] = [
        Self::NoCausalMask,
        Self::MaskWithZero,
        Self::NoScaling,
        Self::NoPositions,
        Self::SoftmaxOverQueries,
    ];

    /// Its name in a link and in the JSON download (the explorer's Break it uses the same keys
    /// for the two mistakes both have: `mask-zero`, `columns`).
    pub fn key(self) -> &'static str {
        match self {
            Self::NoCausalMask => "no-mask",
            Self::MaskWithZero => "mask-zero",
            Self::NoScaling => "no-scaling",
            Self::NoPositions => "no-positions",
            Self::SoftmaxOverQueries => "columns",
        }
    }

    pub fn from_key(key: &str) -> Option<Self> {
        Self::ALL.into_iter().find(|m| m.key() == key)
    }

    /// A short description for a menu.
    pub fn label(self) -> &'static str {
        match self {
            Self::NoCausalMask => "No causal mask",
            Self::MaskWithZero => "Mask filled with 0 instead of −∞",
            Self::NoScaling => "No 1/√d scaling",
            Self::NoPositions => "No positions",
            Self::SoftmaxOverQueries => "Softmax over the queries (wrong axis)",
        }
    }

    /// Whether a row's weights cover later keys, so the forward pass needs every score and every
    /// value, not just the past's.
    pub fn sees_future(self) -> bool {
        matches!(self, Self::NoCausalMask | Self::MaskWithZero)
    }

    /// Whether the softmax itself differs from [`causal_softmax`] (rather than its scale or its
    /// inputs).
    pub fn changes_softmax(self) -> bool {
        matches!(
            self,
            Self::NoCausalMask | Self::MaskWithZero | Self::SoftmaxOverQueries
        )
    }
}

/// A mistake changes the rule in exactly the place its row of the module's table says.
impl ScoringRule for TrainingMistake {
    fn adds_positions(&self) -> bool {
        uses_positions(Some(*self))
    }

    fn score_scale(&self, head_size: usize, tau: f64) -> f64 {
        score_scale(Some(*self), head_size, tau)
    }

    fn reads_future(&self) -> bool {
        self.sees_future()
    }

    fn weights(&self, scores: &DMatrix<f64>, scale: f64) -> DMatrix<f64> {
        mistaken_weights(*self, scores, scale)
    }

    fn weights_backward(&self, a: &DMatrix<f64>, ds: &mut [f64], scale: f64) {
        if self.changes_softmax() {
            scores_backward(*self, a, ds, scale);
        } else {
            causal_softmax_backward(a, ds, scale);
        }
    }
}

/// Whether a pass under `mistake` adds position codes and rotates queries and keys.
pub fn uses_positions(mistake: Option<TrainingMistake>) -> bool {
    mistake != Some(TrainingMistake::NoPositions)
}

/// What a pass under `mistake` multiplies the raw scores by: `1/(√d · τ)`, or `1/τ` without the
/// scaling.
pub fn score_scale(mistake: Option<TrainingMistake>, head_size: usize, tau: f64) -> f64 {
    if mistake == Some(TrainingMistake::NoScaling) {
        logit_scale(1, tau)
    } else {
        logit_scale(head_size, tau)
    }
}

/// Softmax of `logits` (`n` entries, some −∞), written into `out`.
fn softmax(logits: &[f64], out: &mut [f64]) {
    let max = logits.iter().copied().fold(f64::NEG_INFINITY, f64::max);
    let mut sum = 0.0;
    for (w, &l) in out.iter_mut().zip(logits) {
        *w = if l == f64::NEG_INFINITY {
            0.0
        } else {
            (l - max).exp()
        };
        sum += *w;
    }
    for w in out.iter_mut() {
        *w /= sum;
    }
}

/// One head's T × T weights under `mistake`, from its raw scores `S` (`scores`, every entry the
/// rule reads filled in: the whole square for [`TrainingMistake::NoCausalMask`], on and below
/// the diagonal otherwise) and the scale `s` ([`score_scale`]). The mistakes that keep the correct
/// softmax go through the explorer's [`causal_softmax`].
pub fn mistaken_weights(
    mistake: TrainingMistake,
    scores: &DMatrix<f64>,
    scale: f64,
) -> DMatrix<f64> {
    let t = scores.nrows();
    let logit = |i: usize, j: usize| match mistake {
        _ if j <= i => scores[(i, j)] * scale,
        TrainingMistake::NoCausalMask => scores[(i, j)] * scale,
        TrainingMistake::MaskWithZero => 0.0,
        _ => f64::NEG_INFINITY,
    };
    let mut weights = DMatrix::zeros(t, t);
    let (mut line, mut out) = (vec![0.0; t], vec![0.0; t]);
    match mistake {
        TrainingMistake::NoCausalMask | TrainingMistake::MaskWithZero => {
            for i in 0..t {
                for (j, l) in line.iter_mut().enumerate() {
                    *l = logit(i, j);
                }
                softmax(&line, &mut out);
                for (j, &w) in out.iter().enumerate() {
                    weights[(i, j)] = w;
                }
            }
        }
        TrainingMistake::SoftmaxOverQueries => {
            for j in 0..t {
                for (i, l) in line.iter_mut().enumerate() {
                    *l = logit(i, j);
                }
                softmax(&line, &mut out);
                for (i, &w) in out.iter().enumerate() {
                    weights[(i, j)] = w;
                }
            }
        }
        TrainingMistake::NoScaling | TrainingMistake::NoPositions => {
            return causal_softmax(scores, scale);
        }
    }
    weights
}

/// The backward pass of [`mistaken_weights`] for the mistakes that change the softmax (see the
/// module documentation): `ds` holds `dA` (T × T, row-major) and becomes `dS`, the gradient with
/// respect to the raw scores.
pub(crate) fn scores_backward(
    mistake: TrainingMistake,
    a: &DMatrix<f64>,
    ds: &mut [f64],
    scale: f64,
) {
    let t = a.nrows();
    match mistake {
        TrainingMistake::NoCausalMask | TrainingMistake::MaskWithZero => {
            for i in 0..t {
                let row = &mut ds[i * t..(i + 1) * t];
                let mut weighted = 0.0;
                for (j, &da) in row.iter().enumerate() {
                    weighted += a[(i, j)] * da;
                }
                for (j, ds) in row.iter_mut().enumerate() {
                    // The zero-filled future is a constant: it takes part in the sum, not in dS.
                    let constant = mistake == TrainingMistake::MaskWithZero && j > i;
                    *ds = if constant {
                        0.0
                    } else {
                        scale * a[(i, j)] * (*ds - weighted)
                    };
                }
            }
        }
        TrainingMistake::SoftmaxOverQueries => {
            for j in 0..t {
                let mut weighted = 0.0;
                for i in j..t {
                    weighted += a[(i, j)] * ds[i * t + j];
                }
                for i in 0..t {
                    let d = &mut ds[i * t + j];
                    *d = if i >= j {
                        scale * a[(i, j)] * (*d - weighted)
                    } else {
                        0.0
                    };
                }
            }
        }
        TrainingMistake::NoScaling | TrainingMistake::NoPositions => {
            unreachable!("{mistake:?} keeps the causal softmax")
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::rng::SeededRng;
    use crate::model::train::backward::tests::{check_gradients_under, random_batch};
    use crate::model::train::backward::Workspace;
    use crate::model::train::shape::{PositionKind, TransformerConfig};
    use crate::model::train::transformer::tests::small;
    use crate::model::train::transformer::Transformer;

    /// The core's gradient check (central differences, group by group) for a model trained with
    /// `mistake`.
    fn check_gradients_with(cfg: TransformerConfig, seed: u64, mistake: Option<TrainingMistake>) {
        check_gradients_under(cfg, seed, &mistake);
    }

    fn random_scores(t: usize, seed: u64) -> DMatrix<f64> {
        let mut rng = SeededRng::stream(seed, "mistake-scores");
        DMatrix::from_fn(t, t, |_, _| 3.0 * rng.normal())
    }

    #[test]
    fn keys_round_trip_and_name_every_mistake_once() {
        for m in TrainingMistake::ALL {
            assert_eq!(TrainingMistake::from_key(m.key()), Some(m));
            assert!(!m.label().is_empty());
        }
        assert_eq!(TrainingMistake::from_key("nope"), None);
        let keys: std::collections::BTreeSet<_> =
            TrainingMistake::ALL.iter().map(|m| m.key()).collect();
        assert_eq!(keys.len(), 5);
    }

    #[test]
    fn each_mistake_computes_what_its_row_says() {
        let t = 6;
        let scores = random_scores(t, 9);
        let s = 0.5;
        let exp_row = |cols: &[usize], l: &dyn Fn(usize) -> f64| -> Vec<f64> {
            let z: f64 = cols.iter().map(|&j| l(j).exp()).sum();
            (0..t)
                .map(|j| {
                    if cols.contains(&j) {
                        l(j).exp() / z
                    } else {
                        0.0
                    }
                })
                .collect()
        };
        let all: Vec<usize> = (0..t).collect();
        let no_mask = mistaken_weights(TrainingMistake::NoCausalMask, &scores, s);
        let zero = mistaken_weights(TrainingMistake::MaskWithZero, &scores, s);
        let columns = mistaken_weights(TrainingMistake::SoftmaxOverQueries, &scores, s);
        for i in 0..t {
            let want = exp_row(&all, &|j| s * scores[(i, j)]);
            let want_zero = exp_row(&all, &|j| if j <= i { s * scores[(i, j)] } else { 0.0 });
            for j in 0..t {
                assert!((no_mask[(i, j)] - want[j]).abs() < 1e-15);
                assert!((zero[(i, j)] - want_zero[j]).abs() < 1e-15);
            }
            // Every row of the two full-row softmaxes sums to 1 and sees the future.
            assert!((no_mask.row(i).sum() - 1.0).abs() < 1e-14);
            if i + 1 < t {
                assert!(zero[(i, t - 1)] > 0.0);
            }
        }
        // Over the queries: each column sums to 1 over the rows that may see it; the future is 0.
        for j in 0..t {
            assert!((columns.column(j).rows(j, t - j).sum() - 1.0).abs() < 1e-14);
            for i in 0..j {
                assert_eq!(columns[(i, j)], 0.0);
            }
        }
        assert_eq!(columns[(t - 1, t - 1)], 1.0);
        // The other two keep the causal softmax, NoScaling with scale 1.
        assert_eq!(
            mistaken_weights(TrainingMistake::NoScaling, &scores, 1.0),
            causal_softmax(&scores, 1.0)
        );
        assert_eq!(score_scale(Some(TrainingMistake::NoScaling), 16, 1.0), 1.0);
        assert_eq!(score_scale(None, 16, 1.0), 0.25);
        assert!(!uses_positions(Some(TrainingMistake::NoPositions)));
        assert!(uses_positions(Some(TrainingMistake::NoScaling)) && uses_positions(None));
    }

    /// `scores_backward` against central differences of a scalar `Σ G ⊙ A(S)` for a random `G`,
    /// for each mistake that changes the softmax (the model-level check is below).
    #[test]
    fn the_softmax_backward_of_each_mistake_matches_finite_differences() {
        let t = 5;
        let scale = 0.7;
        let g = random_scores(t, 4);
        for mistake in TrainingMistake::ALL
            .into_iter()
            .filter(|m| m.changes_softmax())
        {
            let mut scores = random_scores(t, 5);
            let objective =
                |s: &DMatrix<f64>| mistaken_weights(mistake, s, scale).component_mul(&g).sum();
            let a = mistaken_weights(mistake, &scores, scale);
            let mut ds: Vec<f64> = (0..t * t).map(|n| g[(n / t, n % t)]).collect();
            scores_backward(mistake, &a, &mut ds, scale);
            let h = 1e-6;
            for i in 0..t {
                for j in 0..t {
                    let original = scores[(i, j)];
                    scores[(i, j)] = original + h;
                    let plus = objective(&scores);
                    scores[(i, j)] = original - h;
                    let minus = objective(&scores);
                    scores[(i, j)] = original;
                    let numeric = (plus - minus) / (2.0 * h);
                    assert!(
                        (ds[i * t + j] - numeric).abs() < 1e-8,
                        "{mistake:?} ({i}, {j}): {} vs {numeric}",
                        ds[i * t + j]
                    );
                }
            }
        }
    }

    /// Every mistake, every position kind, 1 and 2 layers, 1, 2 and 4 heads: the hand-written
    /// backward pass of the mistaken model matches its finite differences, group by group.
    #[test]
    fn gradients_match_finite_differences_for_every_mistake() {
        for mistake in TrainingMistake::ALL {
            for positions in PositionKind::ALL {
                for (layers, heads) in [(1, 2), (2, 4), (2, 1)] {
                    check_gradients_with(small(positions, layers, heads), 13, Some(mistake));
                }
            }
        }
    }

    /// The mistakes change the loss (each is a different function of the same weights), and
    /// without a mistake the `_with` path is the plain one bit for bit.
    #[test]
    fn each_mistake_is_a_different_loss_and_none_is_the_plain_one() {
        let cfg = small(PositionKind::Rotary, 2, 2);
        let model = Transformer::new(cfg, 3).unwrap();
        let batch = random_batch(&cfg, 3, 2);
        let plain = model.batch_loss(&batch).mean;
        assert_eq!(
            model.batch_loss_with(&batch, None).mean.to_bits(),
            plain.to_bits()
        );
        let (mut g1, mut g2) = (
            vec![0.0; cfg.parameter_count()],
            vec![0.0; cfg.parameter_count()],
        );
        let mut ws = Workspace::default();
        model.loss_and_grad(&batch, &mut g1, &mut ws);
        model.loss_and_grad_with(&batch, &mut g2, &mut ws, None);
        assert_eq!(g1, g2);
        let losses: Vec<f64> = TrainingMistake::ALL
            .iter()
            .map(|&m| model.batch_loss_with(&batch, Some(m)).mean)
            .collect();
        for (n, l) in losses.iter().enumerate() {
            assert!((l - plain).abs() > 1e-6, "{:?}", TrainingMistake::ALL[n]);
        }
    }
}
