//! The training loop: batches from a seeded stream, each batch's gradient, one Adam step.
//!
//! [`TrainingLoop::step`] is the whole loop body: [`TrainingLoop::begin_step`] draws a batch and
//! zeroes the gradient, [`TrainingLoop::add_sequence`] adds one sequence's loss and gradient at a
//! time, and [`TrainingLoop::apply_step`] makes the Adam update. The pieces are public so that a
//! caller can spread a step over several calls (the training page does, one sequence at a time, or
//! with sequences computed elsewhere): pieces taken in order give the step bit for bit. Deciding
//! when to evaluate is the caller's.
//!
//! A loop is a pure function of its settings: the initial weights come from the seed's
//! `train:<group>` streams and the batches from its `train:batches` stream (see
//! [`crate::model::rng`]), so the same settings give the same losses bit for bit.

use super::adam::Adam;
use super::backward::Workspace;
use super::scoring::{CausalSoftmax, ScoringRule};
use super::shape::TransformerConfig;
use super::tasks::Task;
use super::transformer::Transformer;
use crate::model::rng::SeededRng;

/// A model, its optimiser and its stream of batches, trained with every head scoring by `R`
/// (correct causal attention unless told otherwise).
#[derive(Debug, Clone)]
pub struct TrainingLoop<R = CausalSoftmax> {
    model: Transformer,
    task: Task,
    batch: usize,
    rule: R,
    adam: Adam,
    batches: SeededRng,
    /// The running gradient of the step under way (zeroed by [`Self::begin_step`]).
    grad: Vec<f64>,
    workspace: Workspace,
}

/// A step whose batch is part-way through: the sequences whose gradients are in the running sum
/// come first.
#[derive(Debug, Clone)]
pub struct StepInProgress {
    pub batch: Vec<Vec<usize>>,
    /// The next sequence whose gradient the step needs.
    pub next: usize,
    /// 1 / (predicted positions in the batch): each position's weight in the mean loss.
    pub weight: f64,
    /// The sum of the position losses added so far.
    total: f64,
}

impl StepInProgress {
    /// The tokens of the next sequence whose gradient the step needs.
    pub fn next_sequence(&self) -> &[usize] {
        &self.batch[self.next]
    }

    /// Records that the next sequence's gradient is in the sum, with its position `losses`.
    pub fn record(&mut self, losses: &[f64]) {
        for &l in losses {
            self.total += l;
        }
        self.next += 1;
    }

    /// Whether every sequence's gradient is in the sum.
    pub fn is_complete(&self) -> bool {
        self.next == self.batch.len()
    }
}

impl<R: ScoringRule> TrainingLoop<R> {
    /// A freshly initialised model of shape `model` ([`Transformer::new`] with `seed`) to train
    /// on `task` in batches of `batch` sequences with Adam at learning rate `lr`.
    pub fn new(
        model: TransformerConfig,
        task: Task,
        batch: usize,
        lr: f64,
        seed: u64,
        rule: R,
    ) -> Result<Self, String> {
        if model.vocab < task.vocab() || model.max_len < task.seq_len() {
            return Err("the model is smaller than the task's vocabulary or sequences".into());
        }
        if batch == 0 || lr.is_nan() || lr <= 0.0 {
            return Err("the batch and the learning rate must be positive".into());
        }
        let model = Transformer::new(model, seed)?;
        let parameters = model.params().len();
        Ok(Self {
            model,
            task,
            batch,
            rule,
            adam: Adam::new(parameters, lr),
            batches: SeededRng::stream(seed, "train:batches"),
            grad: vec![0.0; parameters],
            workspace: Workspace::default(),
        })
    }

    pub fn model(&self) -> &Transformer {
        &self.model
    }

    /// How many steps have been taken.
    pub fn steps(&self) -> usize {
        self.adam.steps()
    }

    /// One step: a fresh batch, its gradient, one Adam update; returns the batch's mean loss.
    pub fn step(&mut self) -> f64 {
        let step = self.begin_step();
        self.complete_step(step)
    }

    /// The rest of `step`: the gradient of every sequence not yet added, then the Adam update.
    pub fn complete_step(&mut self, mut step: StepInProgress) -> f64 {
        while !step.is_complete() {
            self.add_sequence(&mut step);
        }
        self.apply_step(&step)
    }

    /// A fresh batch from the stream and a zeroed gradient.
    pub fn begin_step(&mut self) -> StepInProgress {
        let batch: Vec<Vec<usize>> = (0..self.batch)
            .map(|_| self.task.sample(&mut self.batches, false).tokens)
            .collect();
        let predicted: usize = batch.iter().map(|s| s.len().saturating_sub(1)).sum();
        self.grad.fill(0.0);
        StepInProgress {
            batch,
            next: 0,
            weight: 1.0 / predicted.max(1) as f64,
            total: 0.0,
        }
    }

    /// The next sequence of `step`: its forward and backward pass, its gradient added to the
    /// running sum and its losses to the step's.
    pub fn add_sequence(&mut self, step: &mut StepInProgress) {
        let losses = self.model.sequence_loss_and_grad_under(
            step.next_sequence(),
            step.weight,
            &mut self.grad,
            &mut self.workspace,
            &self.rule,
        );
        step.record(&losses);
    }

    /// The running gradient of the step under way, for adding a sequence's gradient computed
    /// elsewhere (then [`StepInProgress::record`] its losses).
    pub fn gradient_mut(&mut self) -> &mut [f64] {
        &mut self.grad
    }

    /// The Adam update of a complete step; returns its mean loss.
    pub fn apply_step(&mut self, step: &StepInProgress) -> f64 {
        assert!(step.is_complete(), "a step's every sequence comes first");
        let loss = step.total * step.weight;
        self.adam.step(self.model.params_mut(), &self.grad);
        loss
    }
}
