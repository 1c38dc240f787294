//! The training loop: batches from a seeded stream, one Adam step at a time, an evaluation on a
//! fixed held-out set every `eval_every` steps, and the verdicts the page needs (has the circuit
//! formed, is the run stuck).
//!
//! Streams (all under the run's seed, see [`crate::model::rng`]): the initial weights
//! (`train:<group>`), the training batches (`train:batches`), the held-out sequences
//! (`train:held-out`) and the agreement sentences (`train:agreement`). A run is a pure function
//! of its [`TrainConfig`]: stepping the same config twice gives the same numbers bit for bit.

use super::adam::Adam;
use super::backward::Workspace;
use super::detectors::{agreement_report, score_heads, AgreementReport, HeadScores};
use super::tasks::{Grammar, RepeatTask, Sequence};
use super::transformer::{ModelConfig, PositionKind, Transformer};
use crate::model::rng::SeededRng;

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
    pub model: ModelConfig,
    pub task: Task,
    pub batch: usize,
    pub lr: f64,
    pub seed: u64,
    /// Evaluate (held-out loss and head scores) every this many steps.
    pub eval_every: usize,
    /// Size of the held-out set.
    pub eval_sequences: usize,
}

impl TrainConfig {
    /// Issue 13's reference default for the repeat task: 2 layers of 2 rotary heads, `d_model` 32,
    /// vocab 32, sequences of 16 with segments of 4–8, batch 16, Adam lr 1e-2, evaluated every
    /// 25 steps on 64 held-out sequences.
    pub fn repeat_default(seed: u64) -> Self {
        Self {
            model: ModelConfig::REFERENCE,
            task: Task::Repeat(RepeatTask::REFERENCE),
            batch: 16,
            lr: 1e-2,
            seed,
            eval_every: 25,
            eval_sequences: 64,
        }
    }

    /// The tiny grammar: 1 layer of 2 heads (sinusoidal positions, as the explorer draws them),
    /// `d_model` 32, sequences of 16.
    pub fn grammar_default(seed: u64) -> Self {
        let grammar = Grammar::REFERENCE;
        Self {
            model: ModelConfig {
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
        }
    }
}

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
}

/// The step from which a run that has not learned to copy counts as stuck.
pub const STUCK_CHECK_STEP: usize = 2_500;

impl EvalPoint {
    /// The largest previous-token score among the heads of `layer` (0-based).
    pub fn best_previous_token(&self, layer: usize) -> f64 {
        self.heads.get(layer).map_or(0.0, |l| {
            l.iter().map(|h| h.previous_token).fold(0.0, f64::max)
        })
    }

    /// The largest induction score among the heads of `layer` (0-based).
    pub fn best_induction(&self, layer: usize) -> f64 {
        self.heads.get(layer).map_or(0.0, |l| {
            l.iter().filter_map(|h| h.induction).fold(0.0, f64::max)
        })
    }

    /// Repeated-part loss over first-copy loss (repeat task).
    pub fn repeat_ratio(&self) -> Option<f64> {
        Some(self.repeated_loss? / self.first_copy_loss?)
    }

    /// Issue 13's "circuit formed": the repeated part's loss at most 30 % of the first copy's,
    /// some layer-2 head's induction score ≥ 0.5 and some layer-1 head's previous-token score
    /// ≥ 0.7.
    pub fn circuit_formed(&self) -> bool {
        self.repeat_ratio().is_some_and(|r| r <= 0.3)
            && self.best_induction(1) >= 0.5
            && self.best_previous_token(0) >= 0.7
    }

    /// Issue 13's stuck test: at or after step 2,500, the repeated part's loss is still above half
    /// the first copy's (the model found no copying solution, typically a "look k back" one).
    pub fn stuck(&self) -> bool {
        self.step >= STUCK_CHECK_STEP && self.repeat_ratio().is_some_and(|r| r > 0.5)
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
        let mut held = SeededRng::stream(config.seed, "train:held-out");
        let held_out = (0..config.eval_sequences)
            .map(|_| task.sample(&mut held, true))
            .collect();
        let agreement = match task {
            Task::Grammar(_) => Grammar::agreement_sentences(
                &mut SeededRng::stream(config.seed, "train:agreement"),
                config.eval_sequences,
            ),
            Task::Repeat(_) => Vec::new(),
        };
        let parameters = model.params().len();
        let mut trainer = Self {
            adam: Adam::new(parameters, config.lr),
            batches: SeededRng::stream(config.seed, "train:batches"),
            grad: vec![0.0; parameters],
            workspace: Workspace::default(),
            train_losses: Vec::new(),
            evals: Vec::new(),
            config,
            model,
            held_out,
            agreement,
        };
        let first = trainer.evaluate();
        trainer.evals.push(first);
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

    /// One Adam step on a fresh batch; returns its training loss. Evaluates after the step when
    /// the step count is a multiple of `eval_every`.
    pub fn step(&mut self) -> f64 {
        let batch: Vec<Vec<usize>> = (0..self.config.batch)
            .map(|_| self.config.task.sample(&mut self.batches, false).tokens)
            .collect();
        self.grad.fill(0.0);
        let loss = self
            .model
            .loss_and_grad(&batch, &mut self.grad, &mut self.workspace)
            .mean;
        self.adam.step(self.model.params_mut(), &self.grad);
        self.train_losses.push(loss);
        if self.steps() % self.config.eval_every == 0 {
            let point = self.evaluate();
            self.evals.push(point);
        }
        loss
    }

    /// Steps until `steps()` reaches `target`.
    pub fn run_to(&mut self, target: usize) {
        while self.steps() < target {
            self.step();
        }
    }

    /// Loss and head scores on the held-out set now.
    pub fn evaluate(&self) -> EvalPoint {
        let tokens: Vec<Vec<usize>> = self.held_out.iter().map(|s| s.tokens.clone()).collect();
        let losses = self.model.batch_loss(&tokens);
        let (mut first, mut repeated, mut rows) = (0.0, 0.0, 0);
        for (s, l) in self.held_out.iter().zip(&losses.positions) {
            if let Some(r) = s.repeat {
                first += l[r.first_copy_rows()].iter().sum::<f64>();
                repeated += l[r.repeated_rows()].iter().sum::<f64>();
                rows += r.len - 1;
            }
        }
        let mean = |x: f64| (rows > 0).then(|| x / rows as f64);
        EvalPoint {
            step: self.steps(),
            loss: losses.mean,
            first_copy_loss: mean(first),
            repeated_loss: mean(repeated),
            heads: score_heads(&self.model, &self.held_out),
        }
    }

    /// Grammar task: agreement accuracy and attention on the held-out agreement sentences now.
    pub fn agreement(&self) -> Option<AgreementReport> {
        (!self.agreement.is_empty()).then(|| agreement_report(&self.model, &self.agreement))
    }

    pub fn latest(&self) -> &EvalPoint {
        self.evals.last().expect("an evaluation at step 0")
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
mod tests {
    use super::*;

    fn tiny(seed: u64) -> TrainConfig {
        TrainConfig {
            model: ModelConfig {
                vocab: 8,
                d_model: 8,
                layers: 2,
                heads: 2,
                max_len: 8,
                positions: PositionKind::Rotary,
            },
            task: Task::Repeat(RepeatTask {
                vocab: 8,
                seq_len: 8,
                min_segment: 2,
                max_segment: 4,
            }),
            batch: 4,
            lr: 1e-2,
            seed,
            eval_every: 5,
            eval_sequences: 8,
        }
    }

    #[test]
    fn same_seed_same_curve_bit_for_bit() {
        let mut a = Trainer::new(tiny(3)).unwrap();
        let mut b = Trainer::new(tiny(3)).unwrap();
        a.run_to(30);
        b.run_to(30);
        assert_eq!(a.train_losses.len(), 30);
        let bits = |t: &Trainer| {
            t.train_losses
                .iter()
                .map(|l| l.to_bits())
                .collect::<Vec<_>>()
        };
        assert_eq!(bits(&a), bits(&b));
        assert_eq!(a.evals, b.evals);
        assert_eq!(a.model().params(), b.model().params());
        let mut c = Trainer::new(tiny(4)).unwrap();
        c.run_to(30);
        assert_ne!(bits(&a), bits(&c));
        // Evaluations at 0, 5, …, 30.
        let steps: Vec<usize> = a.evals.iter().map(|e| e.step).collect();
        assert_eq!(steps, vec![0, 5, 10, 15, 20, 25, 30]);
    }

    #[test]
    fn training_lowers_the_loss() {
        let mut t = Trainer::new(tiny(1)).unwrap();
        let before = t.latest().loss;
        t.run_to(60);
        assert!(t.latest().loss < before, "{} vs {before}", t.latest().loss);
        let e = t.latest();
        assert!(e.first_copy_loss.is_some() && e.repeated_loss.is_some());
        assert_eq!(e.heads.len(), 2);
        assert_eq!(e.heads[1].len(), 2);
        assert!(e.heads[1][0].induction.is_some());
    }

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
        };
        assert!(point(900, 3.4, 1.0, 0.7, 0.5).circuit_formed());
        assert!(!point(900, 3.4, 1.1, 0.7, 0.5).circuit_formed());
        assert!(!point(900, 3.4, 1.0, 0.69, 0.5).circuit_formed());
        assert!(!point(900, 3.4, 1.0, 0.7, 0.49).circuit_formed());
        assert!(point(2_500, 3.4, 1.8, 0.7, 0.5).stuck());
        assert!(!point(2_499, 3.4, 1.8, 0.7, 0.5).stuck());
        assert!(!point(2_500, 3.4, 1.6, 0.7, 0.5).stuck());
    }

    #[test]
    fn grammar_runs_and_configs_are_checked() {
        let mut config = TrainConfig::grammar_default(2);
        config.batch = 2;
        config.eval_sequences = 4;
        let mut t = Trainer::new(config).unwrap();
        t.run_to(3);
        assert_eq!(t.latest().first_copy_loss, None);
        assert_eq!(t.latest().heads[0][0].induction, None);
        assert_eq!(t.agreement().unwrap().sentences, 4);
        assert!(Trainer::new(tiny(1)).unwrap().agreement().is_none());
        let mut bad = TrainConfig::repeat_default(1);
        bad.model.vocab = 16;
        assert!(Trainer::new(bad).is_err());
        let mut bad = TrainConfig::repeat_default(1);
        bad.lr = f64::NAN;
        assert!(Trainer::new(bad).is_err());
    }
}
