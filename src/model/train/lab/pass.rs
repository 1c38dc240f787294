//! A forward pass with the lab's two changes: a training mistake as the heads' scoring rule and
//! knocked-out heads as the hook after each head ([`Pass`]), and the model's passes and losses
//! under a mistake.

use super::knockout::Ablation;
use super::mistakes::TrainingMistake;
use crate::model::train::backward::{BatchLoss, Workspace};
use crate::model::train::transformer::{AfterHead, ForwardCache, KeepOutputs, Transformer};
use nalgebra::DMatrix;

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

    /// What happens after each head: `ablation`'s knock-outs, or nothing.
    fn after_head(&self) -> &'a dyn AfterHead {
        match self.ablation {
            Some(ablation) => ablation,
            None => &KeepOutputs,
        }
    }
}

impl Transformer {
    /// [`Self::forward_at`] making `pass.mistake` and knocking out `pass.ablation`'s heads
    /// ([`Self::forward_under`] with the mistake as the scoring rule and the ablation as the hook
    /// after each head). With the default pass it is the same arithmetic, bit for bit. A pass
    /// with knocked-out heads is for forward passes only (the backward pass refuses its cache).
    pub fn forward_with(&self, tokens: &[usize], cache: &mut ForwardCache, tau: f64, pass: Pass) {
        self.forward_under(tokens, cache, tau, &pass.mistake, pass.after_head());
    }

    /// Each head's weights under `pass`, `[layer][head]`: the head grid of a run trained with a
    /// mistake, or of a model with heads knocked out (a knocked-out head's own weights are
    /// unchanged; the layers after it change).
    pub fn attention_with(&self, tokens: &[usize], tau: f64, pass: Pass) -> Vec<Vec<DMatrix<f64>>> {
        self.attention_under(tokens, tau, &pass.mistake, pass.after_head())
    }

    /// [`Self::sequence_loss_and_grad`] for a model trained with `mistake` (its forward pass and
    /// the matching backward pass; `None` is the same arithmetic bit for bit).
    pub fn sequence_loss_and_grad_with(
        &self,
        tokens: &[usize],
        weight: f64,
        grad: &mut [f64],
        ws: &mut Workspace,
        mistake: Option<TrainingMistake>,
    ) -> Vec<f64> {
        self.sequence_loss_and_grad_under(tokens, weight, grad, ws, &mistake)
    }

    /// [`Self::loss_and_grad`] for a model trained with `mistake`.
    pub fn loss_and_grad_with(
        &self,
        batch: &[Vec<usize>],
        grad: &mut [f64],
        ws: &mut Workspace,
        mistake: Option<TrainingMistake>,
    ) -> BatchLoss {
        self.loss_and_grad_under(batch, grad, ws, &mistake)
    }

    /// [`Self::batch_loss`] with the forward pass making `mistake`.
    pub fn batch_loss_with(
        &self,
        batch: &[Vec<usize>],
        mistake: Option<TrainingMistake>,
    ) -> BatchLoss {
        self.batch_loss_under(batch, &mistake)
    }
}
