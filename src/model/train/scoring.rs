//! How one head turns its raw scores into attention weights, forward and backward: the
//! [`ScoringRule`] a pass follows, and [`CausalSoftmax`], the correct rule every pass uses unless
//! it is given another.
//!
//! Per head, with raw scores `S = Q Kᵀ` (T × T) and the scale `s = 1/(√d · τ)`, the correct rule
//! reads keys `j ≤ i` only, adds the position code to the embeddings (rotates q and k for rotary
//! positions), and takes `A = causal_softmax(s · S)`, the explorer's own function. Its backward
//! pass is the Jacobian–vector product of each row's softmax:
//! `dS[i,j] = s · A[i,j] · (dA[i,j] − Σ_{k≤i} A[i,k] dA[i,k])` for `j ≤ i`, 0 above the diagonal.
//! A rule that differs (a training mistake) overrides only the parts it changes.

use crate::model::attention::causal_softmax;
use crate::model::temperature::logit_scale;
use nalgebra::DMatrix;

/// The parts of attention a forward pass (and its backward pass) may do differently. Every
/// method's default is correct causal attention.
pub trait ScoringRule {
    /// Whether the pass adds the position code to the embeddings and rotates queries and keys.
    fn adds_positions(&self) -> bool {
        true
    }

    /// What the raw scores are multiplied by at temperature `tau`: `1/(√d · τ)`, d the head size.
    fn score_scale(&self, head_size: usize, tau: f64) -> f64 {
        logit_scale(head_size, tau)
    }

    /// Whether a row reads later keys (their scores and values) as well as the past's.
    fn reads_future(&self) -> bool {
        false
    }

    /// One head's T × T weights from its raw scores (filled in for every key the rule reads) and
    /// the scale.
    fn weights(&self, scores: &DMatrix<f64>, scale: f64) -> DMatrix<f64> {
        causal_softmax(scores, scale)
    }

    /// The backward pass of [`Self::weights`]: `ds` holds `dA` (T × T, row-major) and becomes
    /// `dS`, the gradient with respect to the raw scores; `a` is the weights the pass used.
    fn weights_backward(&self, a: &DMatrix<f64>, ds: &mut [f64], scale: f64) {
        causal_softmax_backward(a, ds, scale);
    }
}

/// Correct causal attention: every method of [`ScoringRule`] as it is by default.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct CausalSoftmax;

impl ScoringRule for CausalSoftmax {}

/// No rule given is the correct one: `None` scores as [`CausalSoftmax`].
impl<R: ScoringRule> ScoringRule for Option<R> {
    fn adds_positions(&self) -> bool {
        self.as_ref().is_none_or(R::adds_positions)
    }

    fn score_scale(&self, head_size: usize, tau: f64) -> f64 {
        match self {
            Some(rule) => rule.score_scale(head_size, tau),
            None => CausalSoftmax.score_scale(head_size, tau),
        }
    }

    fn reads_future(&self) -> bool {
        self.as_ref().is_some_and(R::reads_future)
    }

    fn weights(&self, scores: &DMatrix<f64>, scale: f64) -> DMatrix<f64> {
        match self {
            Some(rule) => rule.weights(scores, scale),
            None => CausalSoftmax.weights(scores, scale),
        }
    }

    fn weights_backward(&self, a: &DMatrix<f64>, ds: &mut [f64], scale: f64) {
        match self {
            Some(rule) => rule.weights_backward(a, ds, scale),
            None => CausalSoftmax.weights_backward(a, ds, scale),
        }
    }
}

/// The backward pass of [`causal_softmax`], row by row (see the module documentation). Above the
/// diagonal A and dS are exactly 0, which adds nothing to any later sum, so every entry is the
/// same sum in the same order as a loop over `j ≤ i`.
pub fn causal_softmax_backward(a: &DMatrix<f64>, ds: &mut [f64], scale: f64) {
    let t = a.nrows();
    for i in 0..t {
        let row = &mut ds[i * t..(i + 1) * t];
        let mut weighted = 0.0;
        for (j, &da) in row[..=i].iter().enumerate() {
            weighted += a[(i, j)] * da;
        }
        for (j, ds) in row.iter_mut().enumerate() {
            *ds = if j <= i {
                scale * a[(i, j)] * (*ds - weighted)
            } else {
                0.0
            };
        }
    }
}
