//! [`Knockout`]: the training page's knock-out switches (which heads, zero or mean; in the link
//! as `ko` and `kokind`), the learner's prediction, and the result once predicted. The result
//! is computed only after the prediction (its numbers are hidden until then) and only for the
//! heads and kind predicted for; changing either asks again. While the run trains, a result is
//! kept for the step it was computed at (each costs one or two passes over the held-out set, too
//! much for every evaluation on the main thread); it follows the latest evaluation again on
//! pause, and a new choice or Replay computes it at once.

use super::{Training, ViewSignals};
use crate::model::train::lab::ablation::AblatedEval;
use crate::model::train::lab::evaluation::EvalPoint;
use crate::model::train::lab::knockout::{heads_of_mask, mask_of, AblationKind};
use crate::model::train::lab::prediction::{Graded, LossChange};
use leptos::prelude::*;

/// A knock-out's result beside the intact model, with the prediction graded.
#[derive(Clone, Debug, PartialEq)]
pub struct KnockoutResult {
    pub intact: EvalPoint,
    pub knocked: AblatedEval,
    pub graded: Graded,
    /// What it was computed for: the set of heads, mean-ablation or not, the replayed step.
    key: (usize, bool, Option<usize>),
}

#[derive(Clone, Copy)]
pub struct Knockout {
    /// The link's set of heads (`model::train::lab::knockout::mask_of`).
    mask: RwSignal<usize>,
    /// The link's kind: mean-ablation if on, else zero.
    mean: RwSignal<bool>,
    /// The prediction and the choice (set, kind) it was made for.
    predicted: RwSignal<Option<(usize, bool, LossChange)>>,
    /// The result, once predicted (tracks the evaluations and Replay).
    pub result: Memo<Option<KnockoutResult>>,
}

impl Knockout {
    pub fn new(view: ViewSignals, training: Training) -> Self {
        let (mask, mean) = (view.train_knockout, view.train_ko_mean);
        let predicted = RwSignal::new(None);
        let knockout = Self {
            mask,
            mean,
            predicted,
            result: Memo::new(move |_| None),
        };
        let result = Memo::new(move |previous: Option<&Option<KnockoutResult>>| {
            let change = knockout.prediction()?;
            let key = (mask.get(), mean.get(), training.replay.get());
            if training.run.running.get() {
                if let Some(Some(r)) = previous.filter(|p| {
                    p.as_ref()
                        .is_some_and(|r| r.key == key && r.graded.predicted == change)
                }) {
                    return Some(r.clone());
                }
            } else {
                training.run.evals.track();
            }
            let (intact, knocked) =
                untrack(|| training.knocked_out(&knockout.heads(), knockout.kind()))?;
            let graded = Graded::new(change, &intact, &knocked.eval);
            Some(KnockoutResult {
                intact,
                knocked,
                graded,
                key,
            })
        });
        Self { result, ..knockout }
    }

    /// The heads knocked out, `(layer, head)` from 0, sorted (tracked).
    pub fn heads(self) -> Vec<(usize, usize)> {
        heads_of_mask(self.mask.get())
    }

    /// Whether any head is knocked out (tracked).
    pub fn any(self) -> bool {
        self.mask.get() != 0
    }

    /// Whether `head` is knocked out (tracked).
    pub fn is_on(self, head: (usize, usize)) -> bool {
        self.mask.get() & mask_of(&[head]) != 0
    }

    /// How the heads are knocked out (tracked).
    pub fn kind(self) -> AblationKind {
        if self.mean.get() {
            AblationKind::Mean
        } else {
            AblationKind::Zero
        }
    }

    /// The prediction for the current choice, if made (tracked).
    pub fn prediction(self) -> Option<LossChange> {
        let (mask, mean) = (self.mask.get(), self.mean.get());
        match self.predicted.get() {
            Some((m, k, change)) if m == mask && k == mean => Some(change),
            _ => None,
        }
    }

    /// Turns head `(layer, head)` on or off.
    pub fn toggle(self, head: (usize, usize), on: bool) {
        let bit = mask_of(&[head]);
        self.mask
            .update(|m| *m = if on { *m | bit } else { *m & !bit });
    }

    /// Knock out by zero- or mean-ablation.
    pub fn set_kind(self, kind: AblationKind) {
        self.mean.set(kind == AblationKind::Mean);
    }

    /// The learner's prediction for the current choice.
    pub fn predict(self, change: LossChange) {
        let choice = (self.mask.get_untracked(), self.mean.get_untracked());
        self.predicted.set(Some((choice.0, choice.1, change)));
    }
}
