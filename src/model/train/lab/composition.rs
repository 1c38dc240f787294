//! The composition test: a **causal** check of the repeat task's copying circuit.
//!
//! The circuit checklist ([`CircuitCheck`](super::evaluation::CircuitCheck)) is correlational: a
//! previous-token head in layer 1 and an induction head in layer 2 exist, and the repeated part's
//! loss fell. This test knocks heads out and watches what breaks. The claim is that layer 2's
//! induction head finds the earlier occurrence through what layer 1's previous-token head wrote,
//! so:
//!
//! - knocking out **layer 1's previous-token head** (the best by previous-token score) must
//!   **break** copying: the intact best induction head's score falls below
//!   [`INDUCTION_MIN`] (0.5) **and** the repeated part's loss rises above
//!   [`COPYING_RATIO_MAX`] (60 %) of the first copy's;
//! - knocking out **each other layer-1 head** must **not** break it: that head's induction score
//!   stays at least 0.5 **and** the repeated part's loss stays at most 60 % of the first copy's;
//! - and the intact model must copy by the same two measures (else there is nothing to break).
//!
//! The verdict uses **zero-ablation**: the question is whether layer 2 needs what the head
//! writes, and zero removes all of it. Mean-ablation keeps the head's average output, which a
//! model with no biases and no `LayerNorm` may lean on as a constant offset, so a failure there
//! could be a broken offset rather than lost information; its numbers are reported beside the
//! verdict ([`Composition::mean`], [`Composition::holds_with_mean`]).
//!
//! The score watched is that of the **intact** model's best induction head (the same head, not the
//! best one after the knock-out). For a run trained with a mistake, everything is measured with
//! its mistake (how it computes while it trains).

use super::ablation::{evaluate_ablated, HeadMeans};
use super::evaluation::{BestHead, EvalPoint, INDUCTION_MIN};
use super::knockout::{Ablation, AblationKind};
use super::run_config::TrainConfig;
use crate::model::train::tasks::{Sequence, Task};
use crate::model::train::transformer::Transformer;

/// The largest repeated-part loss, as a share of the first copy's, that still counts as copying.
pub const COPYING_RATIO_MAX: f64 = 0.6;

/// How well the model copies under one knock-out (or none).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct CopyingNumbers {
    /// The induction score of the intact model's best layer-2 induction head.
    pub induction: f64,
    pub first_copy_loss: f64,
    pub repeated_loss: f64,
}

impl CopyingNumbers {
    fn of(eval: &EvalPoint, induction_head: usize) -> Self {
        Self {
            induction: eval.heads[1][induction_head].induction.unwrap_or(0.0),
            first_copy_loss: eval.first_copy_loss.unwrap_or(f64::NAN),
            repeated_loss: eval.repeated_loss.unwrap_or(f64::NAN),
        }
    }

    /// The repeated part's loss over the first copy's.
    pub fn repeat_ratio(&self) -> f64 {
        self.repeated_loss / self.first_copy_loss
    }

    /// Copying works: the induction score is at least 0.5 and the ratio at most 60 %.
    pub fn copies(&self) -> bool {
        self.induction >= INDUCTION_MIN && self.repeat_ratio() <= COPYING_RATIO_MAX
    }

    /// Copying is broken: the induction score is below 0.5 and the ratio above 60 %.
    pub fn broken(&self) -> bool {
        self.induction < INDUCTION_MIN && self.repeat_ratio() > COPYING_RATIO_MAX
    }
}

/// The composition test's numbers (see the module documentation). Heads are numbered from 0.
#[derive(Debug, Clone, PartialEq)]
pub struct Composition {
    /// Layer 1's best previous-token head, intact.
    pub previous_token_head: BestHead,
    /// Layer 2's best induction head, intact: the head whose score is watched.
    pub induction_head: BestHead,
    pub intact: CopyingNumbers,
    /// With each layer-1 head zero-ablated, by head.
    pub zero: Vec<CopyingNumbers>,
    /// With each layer-1 head mean-ablated, by head.
    pub mean: Vec<CopyingNumbers>,
}

impl Composition {
    fn verdict(&self, knocked: &[CopyingNumbers]) -> bool {
        let prev = self.previous_token_head.head;
        self.intact.copies()
            && knocked.iter().enumerate().all(
                |(h, n)| {
                    if h == prev {
                        n.broken()
                    } else {
                        n.copies()
                    }
                },
            )
    }

    /// The verdict, with zero-ablation: composition holds.
    pub fn holds(&self) -> bool {
        self.verdict(&self.zero)
    }

    /// The same verdict with mean-ablation (reported, not the verdict).
    pub fn holds_with_mean(&self) -> bool {
        self.verdict(&self.mean)
    }
}

/// The composition test for `model` (a run with `config`) on the run's held-out set `held_out`:
/// `None` when it cannot apply (the tiny grammar, one layer). Costs `2 + 2 · heads` evaluations
/// of the held-out set (the means, the intact model, each layer-1 head zero- and mean-ablated).
pub fn composition(
    config: &TrainConfig,
    model: &Transformer,
    held_out: &[Sequence],
) -> Option<Composition> {
    let cfg = model.config();
    if !matches!(config.task, Task::Repeat(_)) || cfg.layers < 2 || held_out.is_empty() {
        return None;
    }
    let mistake = config.mistake;
    let evaluate = |ablation: &Ablation| evaluate_ablated(model, held_out, 0, ablation, mistake);
    let intact = evaluate(&Ablation::none()).eval;
    let previous_token_head = intact.best_head(0, |s| Some(s.previous_token))?;
    let induction_head = intact.best_head(1, |s| s.induction)?;
    let means = HeadMeans::measure(model, held_out, mistake);
    let knocked = |kind| -> Vec<CopyingNumbers> {
        (0..cfg.heads)
            .map(|h| {
                let ablation = means.ablation(&[(0, h, kind)]).expect("a head of layer 1");
                CopyingNumbers::of(&evaluate(&ablation).eval, induction_head.head)
            })
            .collect()
    };
    Some(Composition {
        previous_token_head,
        induction_head,
        intact: CopyingNumbers::of(&intact, induction_head.head),
        zero: knocked(AblationKind::Zero),
        mean: knocked(AblationKind::Mean),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn numbers(induction: f64, ratio: f64) -> CopyingNumbers {
        CopyingNumbers {
            induction,
            first_copy_loss: 3.0,
            repeated_loss: 3.0 * ratio,
        }
    }

    #[test]
    fn the_verdict_follows_its_definition() {
        let mut c = Composition {
            previous_token_head: BestHead {
                head: 1,
                score: 0.9,
            },
            induction_head: BestHead {
                head: 0,
                score: 0.8,
            },
            intact: numbers(0.8, 0.2),
            zero: vec![numbers(0.7, 0.3), numbers(0.1, 0.9)],
            mean: vec![numbers(0.7, 0.3), numbers(0.6, 0.5)],
        };
        assert!(c.holds() && !c.holds_with_mean());
        // Both conditions are needed to call it broken, and both to call it intact.
        c.zero[1] = numbers(0.1, 0.5);
        assert!(!c.holds());
        c.zero[1] = numbers(0.1, 0.9);
        c.zero[0] = numbers(0.4, 0.3);
        assert!(!c.holds());
        c.zero[0] = numbers(0.7, 0.3);
        c.intact = numbers(0.45, 0.2);
        assert!(!c.holds());
        assert!(numbers(0.5, 0.6).copies() && !numbers(0.5, 0.6).broken());
    }

    #[test]
    fn it_does_not_apply_to_the_grammar_or_one_layer() {
        use crate::model::train::lab::run_config::held_out_set;
        let mut grammar = TrainConfig::grammar_default(1);
        grammar.model.layers = 2;
        grammar.eval_sequences = 2;
        let model = Transformer::new(grammar.model, 1).unwrap();
        assert_eq!(composition(&grammar, &model, &held_out_set(&grammar)), None);
        let mut one = TrainConfig::repeat_default(1);
        one.model.layers = 1;
        one.eval_sequences = 2;
        let model = Transformer::new(one.model, 1).unwrap();
        assert_eq!(composition(&one, &model, &held_out_set(&one)), None);
        let mut two = one;
        two.model.layers = 2;
        let model = Transformer::new(two.model, 1).unwrap();
        let c = composition(&two, &model, &held_out_set(&two)).unwrap();
        assert_eq!((c.zero.len(), c.mean.len()), (2, 2));
        // An untrained model does not copy, so composition cannot hold.
        assert!(!c.intact.copies() && !c.holds());
    }
}
