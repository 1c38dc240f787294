//! The training loop: batches from a seeded stream, one Adam step at a time, an evaluation on a
//! fixed held-out set every `eval_every` steps, and the verdicts the page needs (has the circuit
//! formed, is the run stuck).
//!
//! Streams (all under the run's seed, see [`crate::model::rng`]): the initial weights
//! (`train:<group>`), the training batches (`train:batches`), the held-out sequences
//! (`train:held-out`) and the agreement sentences (`train:agreement`). A run is a pure function
//! of its [`TrainConfig`]: stepping the same config twice gives the same numbers bit for bit.
//!
//! The page cannot run a whole step or a whole evaluation at once without holding up the browser,
//! so [`Trainer::work`] does the smallest piece there is: one training sequence's forward and
//! backward pass (the step's Adam update after its last one), or one held-out sequence of an
//! evaluation. The pieces add up in the same order as [`Trainer::step`], so a run cut into pieces
//! gives the same numbers, bit for bit, however the pieces fall between frames. An evaluation is
//! finished before the next step begins, so it always measures the weights of its own step.
//!
//! Every evaluation is also offered to the run's [`Checkpoints`] (the weights and the scores at
//! that step, for the page's replay slider).

use super::adam::Adam;
use super::backward::Workspace;
use super::checkpoints::{Checkpoints, MAX_CHECKPOINTS};
use super::detectors::{agreement_on, AgreementReport};
use super::evaluation::{EvalInProgress, EvalPoint};
use super::knockout::Ablation;
use super::mistakes::TrainingMistake;
use super::shape::{PositionKind, TransformerConfig};
use super::tasks::{Grammar, RepeatTask, Sequence, GRAMMAR_WORDS};
use super::transformer::Transformer;
use super::workers::SequenceGradient;
use crate::model::rng::SeededRng;

/// The repeat task's token names: 32 distinct syllables, consonant then vowel, in token order.
pub const REPEAT_SYLLABLES: [&str; 32] = [
    "ba", "be", "bi", "bo", "da", "de", "di", "do", "ga", "ge", "gi", "go", "ka", "ke", "ki", "ko",
    "ma", "me", "mi", "mo", "na", "ne", "ni", "no", "pa", "pe", "pi", "po", "ta", "te", "ti", "to",
];

/// Which task a run trains on.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Task {
    Repeat(RepeatTask),
    Grammar(Grammar),
}

impl Task {
    pub fn vocab(&self) -> usize {
        match self {
            Self::Repeat(r) => r.vocab,
            Self::Grammar(g) => g.vocab(),
        }
    }

    pub fn seq_len(&self) -> usize {
        match self {
            Self::Repeat(r) => r.seq_len,
            Self::Grammar(g) => g.seq_len,
        }
    }

    /// How the page names token `id`: its word in the grammar; in the repeat task a short
    /// consonant–vowel syllable ([`REPEAT_SYLLABLES`], "ba" … "to", one per token of the
    /// reference vocabulary; `#` and the number past it), so a token reads as a token, never as
    /// a position.
    pub fn token_name(&self, id: usize) -> String {
        match self {
            Self::Repeat(_) => REPEAT_SYLLABLES
                .get(id)
                .map_or_else(|| format!("#{id}"), |s| (*s).to_string()),
            Self::Grammar(_) => GRAMMAR_WORDS
                .get(id)
                .map_or_else(|| id.to_string(), |w| (*w).to_string()),
        }
    }

    /// One sequence (`held_out` picks the grammar's held-out sentences; the repeat task ignores it).
    pub fn sample(&self, rng: &mut SeededRng, held_out: bool) -> Sequence {
        match self {
            Self::Repeat(r) => r.sample(rng),
            Self::Grammar(g) => g.sample(rng, held_out),
        }
    }
}

/// Everything that determines a run.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct TrainConfig {
    pub model: TransformerConfig,
    pub task: Task,
    pub batch: usize,
    pub lr: f64,
    pub seed: u64,
    /// Evaluate (held-out loss and head scores) every this many steps.
    pub eval_every: usize,
    /// Size of the held-out set.
    pub eval_sequences: usize,
    /// A mistake the forward and backward passes make while training, if any
    /// ([`super::mistakes`]); evaluations then report the held-out numbers both with it and as
    /// the model is used ([`EvalPoint::as_used`]).
    pub mistake: Option<TrainingMistake>,
}

impl TrainConfig {
    /// The reference default for the repeat task: 2 layers of 2 rotary heads, `d_model` 32,
    /// vocab 32, sequences of 16 with segments of 4–8, batch 16, Adam lr 1e-2, evaluated every
    /// 25 steps on 64 held-out sequences.
    pub fn repeat_default(seed: u64) -> Self {
        Self {
            model: TransformerConfig::REFERENCE,
            task: Task::Repeat(RepeatTask::REFERENCE),
            batch: 16,
            lr: 1e-2,
            seed,
            eval_every: 25,
            eval_sequences: 64,
            mistake: None,
        }
    }

    /// The tiny grammar: 1 layer of 2 heads (sinusoidal positions, as the explorer draws them),
    /// `d_model` 32, sequences of 16.
    pub fn grammar_default(seed: u64) -> Self {
        let grammar = Grammar::REFERENCE;
        Self {
            model: TransformerConfig {
                vocab: grammar.vocab(),
                d_model: 32,
                layers: 1,
                heads: 2,
                max_len: grammar.seq_len,
                positions: PositionKind::Sinusoidal,
            },
            task: Task::Grammar(grammar),
            batch: 16,
            lr: 1e-2,
            seed,
            eval_every: 25,
            eval_sequences: 64,
            mistake: None,
        }
    }

    /// An evaluation of this run's model at its current weights (both measures after a mistake).
    fn evaluation(&self) -> EvalInProgress {
        EvalInProgress::with(&self.model, self.mistake, Ablation::none())
    }
}

/// A run in progress.
#[derive(Debug, Clone)]
pub struct Trainer {
    config: TrainConfig,
    model: Transformer,
    adam: Adam,
    batches: SeededRng,
    held_out: Vec<Sequence>,
    /// Grammar task: held-out agreement sentences, one per sequence.
    agreement: Vec<Sequence>,
    grad: Vec<f64>,
    workspace: Workspace,
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

/// A step whose batch is part-way through.
#[derive(Debug, Clone)]
struct StepInProgress {
    batch: Vec<Vec<usize>>,
    next: usize,
    /// 1 / (predicted positions in the batch): each position's weight in the mean loss.
    weight: f64,
    total: f64,
}

/// The held-out sequences a run with `config` evaluates on (its own seeded stream, so a saved
/// checkpoint's head scores can be measured again on the same set).
pub fn held_out_set(config: &TrainConfig) -> Vec<Sequence> {
    let mut held = SeededRng::stream(config.seed, "train:held-out");
    (0..config.eval_sequences)
        .map(|_| config.task.sample(&mut held, true))
        .collect()
}

/// The run's held-out agreement sentences (tiny grammar; none for the repeat task): as many as
/// the held-out set, from their own stream.
pub fn agreement_set(config: &TrainConfig) -> Vec<Sequence> {
    match config.task {
        Task::Grammar(_) => Grammar::agreement_sentences(
            &mut SeededRng::stream(config.seed, "train:agreement"),
            config.eval_sequences,
        ),
        Task::Repeat(_) => Vec::new(),
    }
}

impl Trainer {
    pub fn new(config: TrainConfig) -> Result<Self, String> {
        let task = config.task;
        if config.model.vocab < task.vocab() || config.model.max_len < task.seq_len() {
            return Err("the model is smaller than the task's vocabulary or sequences".into());
        }
        if config.batch == 0 || config.eval_every == 0 || config.lr.is_nan() || config.lr <= 0.0 {
            return Err("batch, eval_every and the learning rate must be positive".into());
        }
        let model = Transformer::new(config.model, config.seed)?;
        let held_out = held_out_set(&config);
        let agreement = agreement_set(&config);
        let parameters = model.params().len();
        let mut trainer = Self {
            adam: Adam::new(parameters, config.lr),
            batches: SeededRng::stream(config.seed, "train:batches"),
            grad: vec![0.0; parameters],
            workspace: Workspace::default(),
            train_losses: Vec::new(),
            evals: Vec::new(),
            checkpoints: Checkpoints::new(MAX_CHECKPOINTS, config.eval_every),
            latest_snapshot: None,
            step_in_progress: None,
            eval_in_progress: Some(config.evaluation()),
            config,
            model,
            held_out,
            agreement,
        };
        trainer.finish_evaluation();
        Ok(trainer)
    }

    pub fn config(&self) -> &TrainConfig {
        &self.config
    }

    pub fn model(&self) -> &Transformer {
        &self.model
    }

    pub fn held_out(&self) -> &[Sequence] {
        &self.held_out
    }

    pub fn steps(&self) -> usize {
        self.adam.steps()
    }

    /// One Adam step on a fresh batch (or the rest of the step [`Trainer::work`] began); returns
    /// its training loss. Evaluates after the step when the step count is a multiple of
    /// `eval_every`.
    pub fn step(&mut self) -> f64 {
        self.finish_evaluation();
        loop {
            if let Work::Stepped(loss) = self.work() {
                self.finish_evaluation();
                return loss;
            }
        }
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
                eval.add(&self.model, s);
            }
            if eval.next < self.held_out.len() {
                self.eval_in_progress = Some(eval);
                return Work::EvalSequence;
            }
            let point = eval.finish(self.steps());
            let snapshot = Snapshot {
                params: self.model.params().to_vec(),
                eval: point.clone(),
            };
            self.checkpoints.offer(point.step, || snapshot.clone());
            self.latest_snapshot = Some(snapshot);
            self.evals.push(point);
            return Work::Evaluated;
        }
        let step = match self.step_in_progress.take() {
            Some(step) => step,
            None => self.begin_step(),
        };
        let losses = self.model.sequence_loss_and_grad_with(
            &step.batch[step.next],
            step.weight,
            &mut self.grad,
            &mut self.workspace,
            self.config.mistake,
        );
        self.after_sequence(step, &losses)
    }

    /// A fresh batch from the run's stream and a zeroed gradient.
    fn begin_step(&mut self) -> StepInProgress {
        let batch: Vec<Vec<usize>> = (0..self.config.batch)
            .map(|_| self.config.task.sample(&mut self.batches, false).tokens)
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

    /// The bookkeeping after sequence `step.next`'s gradient is in `self.grad`: its losses added
    /// to the step's, and after the batch's last sequence the Adam update.
    fn after_sequence(&mut self, mut step: StepInProgress, losses: &[f64]) -> Work {
        for &l in losses {
            step.total += l;
        }
        step.next += 1;
        if step.next < step.batch.len() {
            self.step_in_progress = Some(step);
            return Work::Sequence;
        }
        let loss = step.total * step.weight;
        self.adam.step(self.model.params_mut(), &self.grad);
        self.train_losses.push(loss);
        if self.steps() % self.config.eval_every == 0 {
            self.eval_in_progress = Some(self.config.evaluation());
        }
        Work::Stepped(loss)
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
        let step = match self.step_in_progress.take() {
            Some(step) => step,
            None => self.begin_step(),
        };
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
        let step = self
            .step_in_progress
            .take()
            .ok_or("no step is under way: call step_plan first")?;
        let expected = step.batch[step.next].len().saturating_sub(1);
        if gradient.losses().len() != expected {
            let found = gradient.losses().len();
            self.step_in_progress = Some(step);
            return Err(format!(
                "{found} losses for a sequence of {expected} predicted positions"
            ));
        }
        if let Err(e) = gradient.add_to(&mut self.grad) {
            self.step_in_progress = Some(step);
            return Err(e);
        }
        let losses = gradient.losses().to_vec();
        Ok(self.after_sequence(step, &losses))
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
            eval.add(&self.model, s);
        }
        eval.finish(self.steps())
    }

    /// Grammar task: agreement accuracy and attention on the held-out agreement sentences now.
    pub fn agreement(&self) -> Option<AgreementReport> {
        self.agreement_of(&self.model)
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
