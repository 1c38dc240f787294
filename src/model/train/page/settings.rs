//! What the training view lets a learner choose, and the [`TrainConfig`] it stands for.
//!
//! The choices (task, seed, layers, heads, positions, learning rate) are kept in the page's link,
//! so they are small, checked values; [`TrainSettings::config`] turns them into the run, starting
//! from the task's reference default ([`TrainConfig::repeat_default`],
//! [`TrainConfig::grammar_default`]). A run is a pure function of its config, so the same
//! settings trained for the same number of steps give the same weights.

use crate::model::train::lab::run_config::TrainConfig;
use crate::model::train::shape::PositionKind;
use crate::model::train::tasks::Task;

/// The tiny grammar's two floors, in nats (see `tasks::Grammar`).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct GrammarFloors {
    /// The mean held-out loss of a model that predicts with the grammar's rules: the floor of
    /// the curve the page plots ([`Grammar::held_out_floor`](crate::model::train::tasks::Grammar::held_out_floor)).
    pub held_out: f64,
    /// The smallest mean loss any model can reach on the training sentences
    /// ([`Grammar::achievable_minimum`](crate::model::train::tasks::Grammar::achievable_minimum)).
    pub training: f64,
}

/// The two built-in tasks.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TaskChoice {
    Repeat,
    Grammar,
}

impl TaskChoice {
    pub const ALL: [Self; 2] = [Self::Repeat, Self::Grammar];

    /// Its name in a link.
    pub fn key(self) -> &'static str {
        match self {
            Self::Repeat => "repeat",
            Self::Grammar => "grammar",
        }
    }

    pub fn from_key(key: &str) -> Option<Self> {
        Self::ALL.into_iter().find(|t| t.key() == key)
    }

    /// Its name in the task menu.
    pub fn label(self) -> &'static str {
        match self {
            Self::Repeat => "Repeat a random sequence",
            Self::Grammar => "Tiny grammar",
        }
    }

    /// Its name in sentences ("trained … on the repeat task").
    pub fn name(self) -> &'static str {
        match self {
            Self::Repeat => "repeat",
            Self::Grammar => "tiny grammar",
        }
    }

    /// The layer count each task starts with: two for the repeat task (the copying circuit needs
    /// a layer to look back and one to copy), one for the grammar (what the explorer can show).
    pub fn default_layers(self) -> usize {
        match self {
            Self::Repeat => 2,
            Self::Grammar => 1,
        }
    }

    /// The position code each task starts with: rotary for the repeat task (the circuit forms
    /// there in hundreds of steps, not thousands), sinusoidal for the grammar (as the explorer).
    pub fn default_positions(self) -> PositionKind {
        match self {
            Self::Repeat => PositionKind::Rotary,
            Self::Grammar => PositionKind::Sinusoidal,
        }
    }
}

/// The learning rates offered.
pub const LEARNING_RATES: [f64; 3] = [0.003, 0.01, 0.03];
/// Layer counts offered.
pub const LAYER_CHOICES: [usize; 2] = [1, 2];
/// Head counts offered (each divides `d_model` = 32 into an even head size).
pub const TRAIN_HEAD_CHOICES: [usize; 3] = [1, 2, 4];
/// The most steps a link may ask the page to retrain.
pub const MAX_LINK_STEPS: usize = 20_000;

/// The learner's choices.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct TrainSettings {
    pub task: TaskChoice,
    pub seed: u64,
    pub layers: usize,
    pub heads: usize,
    pub positions: PositionKind,
    pub lr: f64,
}

impl Default for TrainSettings {
    /// The reference default for the repeat task, seed 1.
    fn default() -> Self {
        Self {
            task: TaskChoice::Repeat,
            seed: 1,
            layers: TaskChoice::Repeat.default_layers(),
            heads: 2,
            positions: TaskChoice::Repeat.default_positions(),
            lr: 0.01,
        }
    }
}

impl TrainSettings {
    /// Why the explorer cannot show this run's model, if it cannot. The explorer reads the tiny
    /// grammar's words and draws one layer with sinusoidal position codes (its own), and its lesson
    /// compares heads while trained weights fix the head count: so a tiny-grammar run of one layer
    /// of 2 or 4 heads with sinusoidal positions, any seed and learning rate
    /// ([`crate::model::trained::checkpoint_ids`] reads exactly these).
    pub fn explorer_problem(&self) -> Option<&'static str> {
        let fits = self.task == TaskChoice::Grammar
            && self.layers == 1
            && self.heads >= 2
            && self.positions == PositionKind::Sinusoidal;
        (!fits).then_some(
            "The explorer can show a tiny-grammar model of 1 layer with 2 or 4 heads and sinusoidal positions (any seed and learning rate): choose those to open your model there.",
        )
    }

    /// The run these settings describe.
    pub fn config(&self) -> TrainConfig {
        let mut config = match self.task {
            TaskChoice::Repeat => TrainConfig::repeat_default(self.seed),
            TaskChoice::Grammar => TrainConfig::grammar_default(self.seed),
        };
        config.model.layers = self.layers;
        config.model.heads = self.heads;
        config.model.positions = self.positions;
        config.lr = self.lr;
        config
    }

    /// Tokens the run reads per step (batch × sequence length).
    pub fn tokens_per_step(&self) -> usize {
        let config = self.config();
        config.batch * config.task.seq_len()
    }

    /// The tiny grammar's floors in nats: (for the held-out loss the page plots, on its
    /// training sentences); `None` for the repeat task, whose random first copy has no such floor
    /// the page could draw.
    pub fn grammar_floors(&self) -> Option<GrammarFloors> {
        match self.config().task {
            Task::Grammar(grammar) => Some(GrammarFloors {
                held_out: grammar.held_out_floor(),
                training: grammar.achievable_minimum(),
            }),
            Task::Repeat(_) => None,
        }
    }

    /// Whether the task is the repeat task.
    pub fn is_repeat(&self) -> bool {
        matches!(self.config().task, Task::Repeat(_))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::train::page::stepping::Trainer;

    #[test]
    fn the_default_is_the_reference_run() {
        let settings = TrainSettings::default();
        assert_eq!(settings.config(), TrainConfig::repeat_default(1));
        assert_eq!(settings.tokens_per_step(), 16 * 16);
        assert!(settings.is_repeat());
        let grammar = TrainSettings {
            task: TaskChoice::Grammar,
            layers: TaskChoice::Grammar.default_layers(),
            positions: TaskChoice::Grammar.default_positions(),
            ..settings
        };
        assert_eq!(grammar.config(), TrainConfig::grammar_default(1));
        assert!(!grammar.is_repeat());
    }

    #[test]
    fn every_offered_choice_builds_a_trainer() {
        for task in TaskChoice::ALL {
            assert_eq!(TaskChoice::from_key(task.key()), Some(task));
            for layers in LAYER_CHOICES {
                for heads in TRAIN_HEAD_CHOICES {
                    for positions in PositionKind::ALL {
                        let settings = TrainSettings {
                            task,
                            seed: 3,
                            layers,
                            heads,
                            positions,
                            lr: LEARNING_RATES[0],
                        };
                        let mut config = settings.config();
                        config.eval_sequences = 2;
                        let t = Trainer::new(config).expect("a valid choice");
                        assert_eq!(t.latest().heads.len(), layers);
                        assert_eq!(t.latest().heads[0].len(), heads);
                    }
                }
            }
        }
        assert_eq!(TaskChoice::from_key("nope"), None);
    }

    #[test]
    fn settings_change_the_run() {
        let base = TrainSettings::default();
        let lr = TrainSettings { lr: 0.03, ..base };
        assert_eq!(lr.config().lr, 0.03);
        let seed = TrainSettings { seed: 9, ..base };
        assert_eq!(seed.config().seed, 9);
        let mut a = Trainer::new(base.config()).unwrap();
        let mut b = Trainer::new(lr.config()).unwrap();
        a.run_to(2);
        b.run_to(2);
        assert_ne!(a.train_losses[1], b.train_losses[1]);
    }
}
