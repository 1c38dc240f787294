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
use super::shape::{PositionKind, TransformerConfig};
use super::tasks::{Grammar, RepeatTask, Sequence, GRAMMAR_WORDS};
use super::transformer::Transformer;
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

    /// How the page names token `id`: its word in the grammar, `#` and its number in the repeat
    /// task (so a token is never read as a position).
    pub fn token_name(&self, id: usize) -> String {
        match self {
            Self::Repeat(_) => format!("#{id}"),
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
        }
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
            eval_in_progress: Some(EvalInProgress::new(&config.model)),
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
        let mut step = if let Some(step) = self.step_in_progress.take() {
            step
        } else {
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
        };
        let losses = self.model.sequence_loss_and_grad(
            &step.batch[step.next],
            step.weight,
            &mut self.grad,
            &mut self.workspace,
        );
        for &l in &losses {
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
            self.eval_in_progress = Some(EvalInProgress::new(&self.config.model));
        }
        Work::Stepped(loss)
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
        let mut eval = EvalInProgress::new(&self.config.model);
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
mod tests {
    use super::*;

    fn tiny(seed: u64) -> TrainConfig {
        TrainConfig {
            model: TransformerConfig {
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
    fn work_in_pieces_gives_the_same_run_bit_for_bit() {
        let mut whole = Trainer::new(tiny(5)).unwrap();
        whole.run_to(40);
        let mut pieces = Trainer::new(tiny(5)).unwrap();
        let mut counts = [0usize; 4];
        // Pieces until step 40 is taken and evaluated, as the page's frames do.
        while pieces.steps() < 40 || !pieces.is_idle() {
            counts[match pieces.work() {
                Work::Sequence => 0,
                Work::Stepped(_) => 1,
                Work::EvalSequence => 2,
                Work::Evaluated => 3,
            }] += 1;
        }
        // Batch 4: 3 unfinished sequences and 1 finishing one per step; 8 held-out sequences.
        assert_eq!(counts, [3 * 40, 40, 7 * 8, 8]);
        let bits = |t: &Trainer| {
            t.train_losses
                .iter()
                .map(|l| l.to_bits())
                .collect::<Vec<_>>()
        };
        assert_eq!(bits(&pieces), bits(&whole));
        assert_eq!(pieces.evals, whole.evals);
        assert_eq!(pieces.model().params(), whole.model().params());
        assert_eq!(pieces.checkpoints, whole.checkpoints);
        // An evaluation in one go equals the one made piece by piece.
        assert_eq!(&whole.evaluate(), whole.latest());
        assert_eq!(&whole.latest_snapshot().eval, whole.latest());
        assert_eq!(whole.latest_snapshot().params, whole.model().params());

        // Stopping part-way through a step and finishing with step() changes nothing either.
        let mut mixed = Trainer::new(tiny(5)).unwrap();
        mixed.run_to(12);
        mixed.work();
        mixed.work();
        assert!(!mixed.is_idle());
        assert_eq!(mixed.steps(), 12);
        mixed.step();
        mixed.run_to(40);
        assert_eq!(bits(&mixed), bits(&whole));
        assert_eq!(mixed.evals, whole.evals);
    }

    #[test]
    fn checkpoints_hold_the_weights_and_scores_of_their_step() {
        let mut config = tiny(2);
        config.eval_every = 1;
        let mut t = Trainer::new(config).unwrap();
        // 80 evaluations into at most 64 checkpoints: thinned once, to every 2nd step.
        t.run_to(80);
        let kept = t.checkpoints.kept();
        assert!(kept.len() <= MAX_CHECKPOINTS);
        assert_eq!(t.checkpoints.interval(), 2);
        let steps: Vec<usize> = kept.iter().map(|(s, _)| *s).collect();
        assert_eq!(steps, (0..=80).step_by(2).collect::<Vec<_>>());
        for &(step, ref snap) in kept.iter().step_by(7) {
            let mut fresh = Trainer::new(config).unwrap();
            fresh.run_to(step);
            assert_eq!(
                snap.params,
                fresh.model().params(),
                "weights at step {step}"
            );
            assert_eq!(&snap.eval, fresh.latest(), "scores at step {step}");
            assert_eq!(snap.eval.step, step);
            // The snapshot's model scores its held-out set to the same numbers.
            let model = snap.model(config.model);
            assert_eq!(
                model.attention(&t.held_out()[0].tokens),
                fresh.model().attention(&t.held_out()[0].tokens)
            );
        }
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

    /// The one-pass report equals the plain computation bit for bit: the probabilities from
    /// `next_token_probs` and the weights from `attention`, two forward passes per sentence.
    #[test]
    fn agreement_report_equals_the_two_pass_computation() {
        let mut config = TrainConfig::grammar_default(3);
        config.model.layers = 2;
        config.batch = 4;
        let mut t = Trainer::new(config).unwrap();
        t.run_to(40);
        let sentences = crate::model::train::tasks::Grammar::agreement_sentences(
            &mut SeededRng::stream(3, "agreement-check"),
            12,
        );
        let model = t.model();
        let (is, are) = (
            crate::model::train::tasks::Grammar::encode("is").unwrap()[0],
            crate::model::train::tasks::Grammar::encode("are").unwrap()[0],
        );
        let (mut correct, mut mismatched, mut mismatched_correct) = (0, 0, 0);
        let mut subject = vec![vec![0.0; 2]; 2];
        let mut attractor = vec![vec![0.0; 2]; 2];
        for s in &sentences {
            let a = s.agreement.unwrap();
            let probs = model.next_token_probs(&s.tokens);
            let (right, wrong) = if a.subject_plural {
                (are, is)
            } else {
                (is, are)
            };
            let ok = probs[(a.attractor, right)] > probs[(a.attractor, wrong)];
            correct += usize::from(ok);
            if a.subject_plural != a.attractor_plural {
                mismatched += 1;
                mismatched_correct += usize::from(ok);
            }
            for (l, layer) in model.attention(&s.tokens).iter().enumerate() {
                for (h, w) in layer.iter().enumerate() {
                    subject[l][h] += w[(a.attractor, a.subject)];
                    attractor[l][h] += w[(a.attractor, a.attractor)];
                }
            }
        }
        for x in subject.iter_mut().chain(attractor.iter_mut()).flatten() {
            *x /= 12.0;
        }
        let expected = crate::model::train::detectors::AgreementReport {
            sentences: 12,
            correct,
            mismatched,
            mismatched_correct,
            subject_weight: subject,
            attractor_weight: attractor,
        };
        assert_eq!(
            crate::model::train::detectors::agreement_report(model, &sentences),
            expected
        );
        assert_eq!(t.agreement_of(model), t.agreement());
    }
}
