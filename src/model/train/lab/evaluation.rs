//! One evaluation of a model on its run's held-out set ([`EvalPoint`]), and what the page reads
//! from it: the best head of a layer for a detector, the repeat task's copying circuit (three
//! conditions with their thresholds) and whether a run is stuck.
//!
//! An evaluation adds up one held-out sequence at a time ([`EvalInProgress`]), so the page can
//! spread it over several slices; the trainer decides when to evaluate.
//!
//! A run trained with a mistake ([`super::mistakes`]) is evaluated twice over, from the same
//! weights: **as it trains** (the forward pass making the mistake: the numbers its training loss
//! is made of) and **as a model is used** (correct causal attention, what generation must do:
//! [`EvalPoint::as_used`]). An evaluation can also knock heads out ([`super::ablation`]).

use super::detectors::{HeadScores, HeadSums};
use super::knockout::Ablation;
use super::mistakes::TrainingMistake;
use super::pass::Pass;
use crate::model::train::shape::TransformerConfig;
use crate::model::train::tasks::Sequence;
use crate::model::train::transformer::{ForwardCache, Transformer};

/// One evaluation on the held-out set.
#[derive(Debug, Clone, PartialEq)]
pub struct EvalPoint {
    pub step: usize,
    /// Mean next-token loss over every predicted position.
    pub loss: f64,
    /// Repeat task: mean loss on the predictable tokens of the first copy and of the repeat.
    pub first_copy_loss: Option<f64>,
    pub repeated_loss: Option<f64>,
    /// `[layer][head]`.
    pub heads: Vec<Vec<HeadScores>>,
    /// For a run trained with a mistake, the same evaluation of the same weights with correct
    /// causal attention (this point's numbers are the mistaken pass's); `None` otherwise.
    pub used: Option<Box<EvalPoint>>,
}

/// The copying circuit's thresholds: a layer-1 head's previous-token score of at least
/// [`PREVIOUS_TOKEN_MIN`], a layer-2 head's induction score of at least [`INDUCTION_MIN`], and the
/// repeated part's loss at most [`REPEAT_RATIO_MAX`] of the first copy's.
pub const PREVIOUS_TOKEN_MIN: f64 = 0.7;
pub const INDUCTION_MIN: f64 = 0.5;
pub const REPEAT_RATIO_MAX: f64 = 0.3;

/// The head of a layer with the highest score on one detector (0-based head number).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct BestHead {
    pub head: usize,
    pub score: f64,
}

/// The repeat task's copying circuit at one evaluation: a previous-token head in layer 1 whose
/// output lets a layer-2 head find the token after the current token's earlier occurrence
/// (induction), and the loss that copying saves. The page lists the three conditions, met or not.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct CircuitCheck {
    /// Layer 1's best previous-token head.
    pub previous_token: BestHead,
    /// Layer 2's best induction head (`None` for a one-layer model).
    pub induction: Option<BestHead>,
    /// The repeated part's loss over the first copy's.
    pub repeat_ratio: f64,
}

impl CircuitCheck {
    pub fn previous_token_met(&self) -> bool {
        self.previous_token.score >= PREVIOUS_TOKEN_MIN
    }

    pub fn induction_met(&self) -> bool {
        self.induction.is_some_and(|b| b.score >= INDUCTION_MIN)
    }

    pub fn copying_met(&self) -> bool {
        self.repeat_ratio <= REPEAT_RATIO_MAX
    }

    /// All three at once: the circuit has formed.
    pub fn formed(&self) -> bool {
        self.previous_token_met() && self.induction_met() && self.copying_met()
    }
}

/// The step from which a run that has not learned to copy counts as stuck.
pub const STUCK_CHECK_STEP: usize = 2_500;

impl EvalPoint {
    /// The evaluation as a model is used, with correct causal attention: for a run trained with
    /// a mistake its second measure, otherwise this point itself.
    pub fn as_used(&self) -> &EvalPoint {
        self.used.as_deref().unwrap_or(self)
    }

    /// The head of `layer` (0-based) with the highest `score`, the first of equals, so a tie names
    /// the lower head number (`None` without such a layer or score).
    pub fn best_head(
        &self,
        layer: usize,
        score: fn(&HeadScores) -> Option<f64>,
    ) -> Option<BestHead> {
        self.heads
            .get(layer)?
            .iter()
            .enumerate()
            .filter_map(|(head, s)| {
                Some(BestHead {
                    head,
                    score: score(s)?,
                })
            })
            .reduce(|best, h| if h.score > best.score { h } else { best })
    }

    /// The largest previous-token score among the heads of `layer` (0-based; 0 without it).
    pub fn best_previous_token(&self, layer: usize) -> f64 {
        self.best_head(layer, |s| Some(s.previous_token))
            .map_or(0.0, |b| b.score)
    }

    /// The largest induction score among the heads of `layer` (0-based; 0 without it).
    pub fn best_induction(&self, layer: usize) -> f64 {
        self.best_head(layer, |s| s.induction)
            .map_or(0.0, |b| b.score)
    }

    /// Repeated-part loss over first-copy loss (repeat task).
    pub fn repeat_ratio(&self) -> Option<f64> {
        Some(self.repeated_loss? / self.first_copy_loss?)
    }

    /// The copying circuit has formed: its three conditions hold at once (see [`CircuitCheck`]).
    pub fn circuit_formed(&self) -> bool {
        self.circuit_check().is_some_and(|c| c.formed())
    }

    /// The three conditions of the copying circuit at this evaluation, with the heads that come
    /// closest (`None` for the tiny grammar, which has no repeated part).
    pub fn circuit_check(&self) -> Option<CircuitCheck> {
        Some(CircuitCheck {
            repeat_ratio: self.repeat_ratio()?,
            previous_token: self.best_head(0, |s| Some(s.previous_token))?,
            induction: self.best_head(1, |s| s.induction),
        })
    }

    /// The stuck test: at or after step 2,500, the repeated part's loss is still above half
    /// the first copy's (the model found no copying solution, typically a "look k back" one).
    pub fn stuck(&self) -> bool {
        self.step >= STUCK_CHECK_STEP && self.repeat_ratio().is_some_and(|r| r > 0.5)
    }
}

/// The sums of one measure of an evaluation (one kind of forward pass), one sequence at a time.
#[derive(Debug, Clone)]
struct Sums {
    total: f64,
    count: usize,
    first: f64,
    repeated: f64,
    repeat_rows: usize,
    heads: HeadSums,
}

impl Sums {
    fn new(config: &TransformerConfig) -> Self {
        Self {
            total: 0.0,
            count: 0,
            first: 0.0,
            repeated: 0.0,
            repeat_rows: 0,
            heads: HeadSums::new(config.layers, config.heads),
        }
    }

    /// Adds the sequence `s` that `cache` holds the forward pass of.
    fn add(&mut self, cache: &ForwardCache, s: &Sequence) {
        let losses = cache.position_losses();
        for &l in &losses {
            self.total += l;
        }
        self.count += losses.len();
        if let Some(r) = s.repeat {
            self.first += losses[r.first_copy_rows()].iter().sum::<f64>();
            self.repeated += losses[r.repeated_rows()].iter().sum::<f64>();
            self.repeat_rows += r.len - 1;
        }
        self.heads.add(&cache.layers, s);
    }

    fn finish(&self, step: usize) -> EvalPoint {
        let mean = |x: f64| (self.repeat_rows > 0).then(|| x / self.repeat_rows as f64);
        EvalPoint {
            step,
            loss: self.total / self.count.max(1) as f64,
            first_copy_loss: mean(self.first),
            repeated_loss: mean(self.repeated),
            heads: self.heads.scores(),
            used: None,
        }
    }
}

/// An evaluation part-way through the held-out set: the sums an evaluation adds up, one sequence
/// at a time, for the pass the run trains with and, after a training mistake, the pass as used.
#[derive(Debug, Clone)]
pub(crate) struct EvalInProgress {
    pub(crate) next: usize,
    sums: Sums,
    used: Option<Sums>,
    mistake: Option<TrainingMistake>,
    ablation: Ablation,
    cache: ForwardCache,
}

impl EvalInProgress {
    /// An evaluation of a model trained with `mistake` (both measures when there is one), with
    /// `ablation`'s heads knocked out in both.
    pub(crate) fn with(
        config: &TransformerConfig,
        mistake: Option<TrainingMistake>,
        ablation: Ablation,
    ) -> Self {
        Self {
            next: 0,
            sums: Sums::new(config),
            used: mistake.map(|_| Sums::new(config)),
            mistake,
            ablation,
            cache: ForwardCache::default(),
        }
    }

    /// Adds held-out sequence `s` (one forward pass per measure: its losses and its attention).
    pub(crate) fn add(&mut self, model: &Transformer, s: &Sequence) {
        let pass = Pass::with_mistake(self.mistake).knocking_out(&self.ablation);
        model.forward_with(&s.tokens, &mut self.cache, 1.0, pass);
        self.sums.add(&self.cache, s);
        if let Some(used) = &mut self.used {
            let pass = Pass::default().knocking_out(&self.ablation);
            model.forward_with(&s.tokens, &mut self.cache, 1.0, pass);
            used.add(&self.cache, s);
        }
        self.next += 1;
    }

    pub(crate) fn finish(&self, step: usize) -> EvalPoint {
        let mut point = self.sums.finish(step);
        point.used = self.used.as_ref().map(|u| Box::new(u.finish(step)));
        point
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn verdicts_follow_their_definitions() {
        let head = |prev: f64, ind: f64| HeadScores {
            previous_token: prev,
            induction: Some(ind),
            first_token: 0.0,
            self_token: 0.0,
            entropy_bits: 0.0,
        };
        let point = |step, first, repeated, prev, ind| EvalPoint {
            step,
            loss: 1.0,
            first_copy_loss: Some(first),
            repeated_loss: Some(repeated),
            heads: vec![vec![head(prev, 0.0), head(0.1, 0.0)], vec![head(0.0, ind)]],
            used: None,
        };
        assert!(point(900, 3.4, 1.0, 0.7, 0.5).circuit_formed());
        let check = point(900, 3.4, 1.0, 0.7, 0.5).circuit_check().unwrap();
        assert_eq!(
            check.previous_token,
            BestHead {
                head: 0,
                score: 0.7
            }
        );
        assert_eq!(
            check.induction,
            Some(BestHead {
                head: 0,
                score: 0.5
            })
        );
        assert_eq!(check.repeat_ratio, 1.0 / 3.4);
        assert!(!point(900, 3.4, 1.1, 0.7, 0.5).circuit_formed());
        assert!(!point(900, 3.4, 1.0, 0.69, 0.5).circuit_formed());
        assert!(!point(900, 3.4, 1.0, 0.7, 0.49).circuit_formed());
        assert!(point(2_500, 3.4, 1.8, 0.7, 0.5).stuck());
        assert!(!point(2_499, 3.4, 1.8, 0.7, 0.5).stuck());
        assert!(!point(2_500, 3.4, 1.6, 0.7, 0.5).stuck());
    }

    /// The page's checklist names the head with the highest score of its layer (the lower number
    /// on a tie), says when a model has no layer 2, and is absent for the tiny grammar.
    #[test]
    fn the_circuit_check_names_each_layer_s_best_head() {
        let head = |prev: f64, ind: Option<f64>| HeadScores {
            previous_token: prev,
            induction: ind,
            first_token: 0.0,
            self_token: 0.0,
            entropy_bits: 0.0,
        };
        let mut e = EvalPoint {
            step: 50,
            loss: 3.0,
            first_copy_loss: Some(3.0),
            repeated_loss: Some(2.4),
            heads: vec![
                vec![
                    head(0.2, Some(0.9)),
                    head(0.8, Some(0.0)),
                    head(0.8, Some(0.0)),
                ],
                vec![head(0.9, Some(0.3)), head(0.0, Some(0.6))],
            ],
            used: None,
        };
        let check = e.circuit_check().unwrap();
        assert_eq!(
            check.previous_token,
            BestHead {
                head: 1,
                score: 0.8
            }
        );
        assert_eq!(
            check.induction,
            Some(BestHead {
                head: 1,
                score: 0.6
            })
        );
        assert!(check.previous_token_met() && check.induction_met() && !check.copying_met());
        assert!(!check.formed() && !e.circuit_formed());
        e.repeated_loss = Some(0.9);
        assert!(e.circuit_check().unwrap().formed() && e.circuit_formed());
        e.heads.truncate(1);
        let one_layer = e.circuit_check().unwrap();
        assert_eq!(one_layer.induction, None);
        assert!(!one_layer.induction_met() && !one_layer.formed());
        e.first_copy_loss = None;
        e.repeated_loss = None;
        assert_eq!(e.circuit_check(), None);
    }
}
