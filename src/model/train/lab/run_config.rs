//! What determines a run of the training page ([`TrainConfig`]: the training loop's settings,
//! when and on what it is evaluated, and the training mistake it makes, if any), and the held-out
//! sets it is evaluated on.
//!
//! Streams (all under the run's seed, see [`crate::model::rng`]): besides the loop's own
//! (`train:<group>` for the weights, `train:batches`), the held-out sequences (`train:held-out`)
//! and the agreement sentences (`train:agreement`). A run is a pure function of its
//! [`TrainConfig`]: the same config gives the same numbers bit for bit.

use super::evaluation::EvalInProgress;
use super::knockout::Ablation;
use super::mistakes::TrainingMistake;
use crate::model::rng::SeededRng;
use crate::model::train::shape::{PositionKind, TransformerConfig};
use crate::model::train::tasks::{Grammar, RepeatTask, Sequence, Task};
use crate::model::train::trainer::TrainingLoop;

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
    /// the model is used ([`EvalPoint::as_used`](super::evaluation::EvalPoint::as_used)).
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
    /// `d_model` 32, sequences of 16; batch, learning rate and evaluations as
    /// [`Self::repeat_default`].
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
            ..Self::repeat_default(seed)
        }
    }

    /// Refuses a model smaller than its task, and a batch, evaluation interval or learning rate
    /// that is not positive.
    pub fn check(&self) -> Result<(), String> {
        let task = self.task;
        if self.model.vocab < task.vocab() || self.model.max_len < task.seq_len() {
            return Err("the model is smaller than the task's vocabulary or sequences".into());
        }
        if self.batch == 0 || self.eval_every == 0 || self.lr.is_nan() || self.lr <= 0.0 {
            return Err("batch, eval_every and the learning rate must be positive".into());
        }
        Ok(())
    }

    /// The run's training loop, with its mistake as the heads' scoring rule.
    pub fn training_loop(&self) -> Result<TrainingLoop<Option<TrainingMistake>>, String> {
        self.check()?;
        TrainingLoop::new(
            self.model,
            self.task,
            self.batch,
            self.lr,
            self.seed,
            self.mistake,
        )
    }

    /// An evaluation of this run's model at its current weights (both measures after a mistake).
    pub(crate) fn evaluation(&self) -> EvalInProgress {
        EvalInProgress::with(&self.model, self.mistake, Ablation::none())
    }
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
