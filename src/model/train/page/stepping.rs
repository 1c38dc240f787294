//! A run of the training page ([`Trainer`]): the core's training loop, an evaluation on a fixed
//! held-out set every `eval_every` steps, the checkpoints the page replays, and the verdicts the
//! page needs (has the circuit formed, is the run stuck).
//!
//! The page cannot run a whole step or a whole evaluation at once without holding up the browser,
//! so [`Trainer::work`] does the smallest piece there is: one training sequence's forward and
//! backward pass (the step's Adam update after its last one), or one held-out sequence of an
//! evaluation. The pieces are the loop's own ([`TrainingLoop::begin_step`],
//! [`TrainingLoop::add_sequence`], [`TrainingLoop::apply_step`]) in the order of
//! [`TrainingLoop::step`], so a run cut into pieces gives the same numbers, bit for bit, however
//! the pieces fall between frames. An evaluation is finished before the next step begins, so it
//! always measures the weights of its own step.
//!
//! Every evaluation is also offered to the run's [`Checkpoints`] (the weights and the scores at
//! that step, for the page's replay slider).

use super::checkpoints::{Checkpoints, MAX_CHECKPOINTS};
use super::workers::SequenceGradient;
use crate::model::train::lab::detectors::{agreement_on, AgreementReport};
use crate::model::train::lab::evaluation::{EvalInProgress, EvalPoint};
use crate::model::train::lab::mistakes::TrainingMistake;
use crate::model::train::lab::run_config::{agreement_set, held_out_set, TrainConfig};
use crate::model::train::shape::TransformerConfig;
use crate::model::train::tasks::Sequence;
use crate::model::train::trainer::{StepInProgress, TrainingLoop};
use crate::model::train::transformer::Transformer;

/// A run in progress.
#[derive(Debug, Clone)]
pub struct Trainer {
    config: TrainConfig,
    training: TrainingLoop<Option<TrainingMistake>>,
    held_out: Vec<Sequence>,
    /// Grammar task: held-out agreement sentences, one per sequence.
    agreement: Vec<Sequence>,
    /// The training loss of every step taken (step n's loss at index n − 1).
    pub train_losses: Vec<f64>,
    /// Evaluations, at step 0 and every `eval_every` steps.
    pub evals: Vec<EvalPoint>,
    /// The weights and scores at evaluated steps, thinned to at most [`MAX_CHECKPOINTS`].
    pub checkpoints: Checkpoints<Snapshot>,
    /// The weights and scores of the latest evaluation (kept or not).
    latest_snapshot: Option<Snapshot>,
    step_in_progress: Option<StepInProgress>,
    eval_in_progress: Option<EvalInProgress>,
}

/// A checkpoint: the weights after a step and the evaluation of them.
#[derive(Debug, Clone, PartialEq)]
pub struct Snapshot {
    pub params: Vec<f64>,
    pub eval: EvalPoint,
}

impl Snapshot {
    /// The model with these weights.
    pub fn model(&self, config: TransformerConfig) -> Transformer {
        Transformer::with_params(config, self.params.clone())
    }
}

/// What one call of [`Trainer::work`] did.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Work {
    /// One sequence of the batch went forward and back; the step is not finished.
    Sequence,
    /// A step finished (its Adam update is applied); its training loss.
    Stepped(f64),
    /// One held-out sequence of an evaluation; the evaluation is not finished.
    EvalSequence,
    /// An evaluation finished and is in `evals`.
    Evaluated,
}

/// A step's batch, for computing its sequences' gradients elsewhere ([`Trainer::step_plan`]).
#[derive(Debug, Clone, PartialEq)]
pub struct StepPlan {
    /// The step this batch makes (1 for the first).
    pub step: usize,
    pub batch: Vec<Vec<usize>>,
    /// Each predicted position's weight in the step's mean loss (the `weight` of
    /// [`SequenceGradient::compute`]).
    pub weight: f64,
    /// The first sequence whose gradient the step still needs (0 unless [`Trainer::work`] or
    /// [`Trainer::add_sequence_gradient`] already added some).
    pub next: usize,
    /// The run's training mistake, which the gradients must make too.
    pub mistake: Option<TrainingMistake>,
}

impl Trainer {
    pub fn new(config: TrainConfig) -> Result<Self, String> {
        let training = config.training_loop()?;
        let mut trainer = Self {
            training,
            held_out: held_out_set(&config),
            agreement: agreement_set(&config),
            train_losses: Vec::new(),
            evals: Vec::new(),
            checkpoints: Checkpoints::new(MAX_CHECKPOINTS, config.eval_every),
            latest_snapshot: None,
            step_in_progress: None,
            eval_in_progress: Some(config.evaluation()),
            config,
        };
        trainer.finish_evaluation();
        Ok(trainer)
    }

    pub fn config(&self) -> &TrainConfig {
        &self.config
    }

    pub fn model(&self) -> &Transformer {
        self.training.model()
    }

    pub fn held_out(&self) -> &[Sequence] {
        &self.held_out
    }

    pub fn steps(&self) -> usize {
        self.training.steps()
    }

    /// One step of the training loop (or the rest of the step [`Trainer::work`] began); returns
    /// its training loss. Evaluates after the step when the step count is a multiple of
    /// `eval_every`.
    pub fn step(&mut self) -> f64 {
        self.finish_evaluation();
        let loss = match self.step_in_progress.take() {
            Some(step) => self.training.complete_step(step),
            None => self.training.step(),
        };
        self.after_step(loss);
        self.finish_evaluation();
        loss
    }

    /// Steps until `steps()` reaches `target`.
    pub fn run_to(&mut self, target: usize) {
        while self.steps() < target {
            self.step();
        }
    }

    /// The next smallest piece of work (see the module documentation): one held-out sequence
    /// while an evaluation is under way, otherwise one sequence of the current step (starting a
    /// step on a fresh batch if none is under way).
    pub fn work(&mut self) -> Work {
        if let Some(mut eval) = self.eval_in_progress.take() {
            if let Some(s) = self.held_out.get(eval.next) {
                eval.add(self.training.model(), s);
            }
            if eval.next < self.held_out.len() {
                self.eval_in_progress = Some(eval);
                return Work::EvalSequence;
            }
            let point = eval.finish(self.steps());
            let snapshot = Snapshot {
                params: self.model().params().to_vec(),
                eval: point.clone(),
            };
            self.checkpoints.offer(point.step, || snapshot.clone());
            self.latest_snapshot = Some(snapshot);
            self.evals.push(point);
            return Work::Evaluated;
        }
        let mut step = self.current_step();
        self.training.add_sequence(&mut step);
        self.after_sequence(step)
    }

    /// The step under way, or a fresh one.
    fn current_step(&mut self) -> StepInProgress {
        match self.step_in_progress.take() {
            Some(step) => step,
            None => self.training.begin_step(),
        }
    }

    /// After a sequence's gradient is in the step's sum: the step kept for later, or, after the
    /// batch's last sequence, its Adam update.
    fn after_sequence(&mut self, step: StepInProgress) -> Work {
        if !step.is_complete() {
            self.step_in_progress = Some(step);
            return Work::Sequence;
        }
        let loss = self.training.apply_step(&step);
        self.after_step(loss);
        Work::Stepped(loss)
    }

    /// The bookkeeping after a step: its loss kept, and an evaluation begun when one is due.
    fn after_step(&mut self, loss: f64) {
        self.train_losses.push(loss);
        if self.steps() % self.config.eval_every == 0 {
            self.eval_in_progress = Some(self.config.evaluation());
        }
    }

    /// The step under way, for computing its sequences' gradients elsewhere (Web Workers, each
    /// with a copy of [`Self::model`]'s parameters; see [`super::workers`]): starts a step on a
    /// fresh batch if none is under way, exactly as [`Self::work`] would. `None` while an
    /// evaluation is under way: its pieces come first ([`Self::work`]), so it measures the
    /// weights of its own step.
    pub fn step_plan(&mut self) -> Option<StepPlan> {
        if self.eval_in_progress.is_some() {
            return None;
        }
        let step = self.current_step();
        let plan = StepPlan {
            step: self.steps() + 1,
            batch: step.batch.clone(),
            weight: step.weight,
            next: step.next,
            mistake: self.config.mistake,
        };
        self.step_in_progress = Some(step);
        Some(plan)
    }

    /// Adds the gradient of the step's next sequence (number [`StepPlan::next`], computed by
    /// [`SequenceGradient::compute`] from this model's parameters) to the step's running sum,
    /// exactly as [`Self::work`] would have computed and added it; after the batch's last
    /// sequence, the Adam update. Gradients added in sequence order give the run
    /// [`Self::step`] gives, bit for bit, however the sequences were shared out. Refuses a
    /// gradient when no step is under way or when it has the wrong number of losses or a
    /// malformed buffer (nothing is added then).
    pub fn add_sequence_gradient(&mut self, gradient: &SequenceGradient) -> Result<Work, String> {
        let mut step = self
            .step_in_progress
            .take()
            .ok_or("no step is under way: call step_plan first")?;
        let expected = step.next_sequence().len().saturating_sub(1);
        if gradient.losses().len() != expected {
            let found = gradient.losses().len();
            self.step_in_progress = Some(step);
            return Err(format!(
                "{found} losses for a sequence of {expected} predicted positions"
            ));
        }
        if let Err(e) = gradient.add_to(self.training.gradient_mut()) {
            self.step_in_progress = Some(step);
            return Err(e);
        }
        step.record(gradient.losses());
        Ok(self.after_sequence(step))
    }

    /// Whether no step and no evaluation is part-way through.
    pub fn is_idle(&self) -> bool {
        self.step_in_progress.is_none() && self.eval_in_progress.is_none()
    }

    /// Finishes an evaluation under way, if any (a step part-way through stays so).
    pub fn finish_evaluation(&mut self) {
        while self.eval_in_progress.is_some() {
            self.work();
        }
    }

    /// Loss and head scores on the held-out set now, in one go (the same sums, in the same order,
    /// as the evaluation [`Trainer::work`] does piece by piece).
    pub fn evaluate(&self) -> EvalPoint {
        let mut eval = self.config.evaluation();
        for s in &self.held_out {
            eval.add(self.model(), s);
        }
        eval.finish(self.steps())
    }

    /// Grammar task: agreement accuracy and attention on the held-out agreement sentences now.
    pub fn agreement(&self) -> Option<AgreementReport> {
        self.agreement_of(self.model())
    }

    /// Grammar task: the same report for `model`, e.g. a checkpoint's (`None` for the repeat task).
    pub fn agreement_of(&self, model: &Transformer) -> Option<AgreementReport> {
        agreement_on(model, &self.agreement)
    }

    pub fn latest(&self) -> &EvalPoint {
        self.evals.last().expect("an evaluation at step 0")
    }

    /// The weights and scores of the latest evaluation (the model may have trained on since).
    pub fn latest_snapshot(&self) -> &Snapshot {
        self.latest_snapshot
            .as_ref()
            .expect("an evaluation at step 0")
    }

    /// Whether the run is stuck (see [`EvalPoint::stuck`]), judged on the latest evaluation.
    pub fn stuck(&self) -> bool {
        self.latest().stuck()
    }

    /// The first evaluated step at which `test` held, if any.
    pub fn first_step_where(&self, test: impl Fn(&EvalPoint) -> bool) -> Option<usize> {
        self.evals.iter().find(|e| test(e)).map(|e| e.step)
    }
}

#[cfg(test)]
mod tests;
