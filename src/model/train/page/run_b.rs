//! Run B of the training page's A/B: run A's seed and settings with one change, either one
//! training setting or one training mistake ([`RunChange`]). Both runs retrain from the link.

use super::messages::RunSpec;
use super::settings::{
    TaskChoice, TrainSettings, LAYER_CHOICES, LEARNING_RATES, TRAIN_HEAD_CHOICES,
};
use crate::model::host::parse_decimal;
use crate::model::train::lab::mistakes::TrainingMistake;
use crate::model::train::shape::PositionKind;

/// The one thing run B changes.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum RunChange {
    Task(TaskChoice),
    Seed(u64),
    Layers(usize),
    Heads(usize),
    Positions(PositionKind),
    LearningRate(f64),
    Mistake(TrainingMistake),
}

/// The largest seed a link may carry (as `tseed`).
const MAX_SEED: u64 = u32::MAX as u64;

impl RunChange {
    /// Its text in a link (`b=`): `seed:7`, `lr:0.03`, `layers:1`, `heads:4`, `pos:learned`,
    /// `task:grammar` or `mistake:no-mask`.
    pub fn key(&self) -> String {
        match *self {
            Self::Task(t) => format!("task:{}", t.key()),
            Self::Seed(s) => format!("seed:{s}"),
            Self::Layers(n) => format!("layers:{n}"),
            Self::Heads(n) => format!("heads:{n}"),
            Self::Positions(p) => format!("pos:{}", p.name()),
            Self::LearningRate(lr) => format!("lr:{lr}"),
            Self::Mistake(m) => format!("mistake:{}", m.key()),
        }
    }

    /// A link's text read back; `None` if it is not one of [`Self::key`]'s forms with a value
    /// the page offers.
    pub fn parse(text: &str) -> Option<Self> {
        let (kind, value) = text.split_once(':')?;
        Some(match kind {
            "task" => Self::Task(TaskChoice::from_key(value)?),
            "seed" => Self::Seed(value.parse().ok().filter(|&s| s <= MAX_SEED)?),
            "layers" => Self::Layers(value.parse().ok().filter(|n| LAYER_CHOICES.contains(n))?),
            "heads" => Self::Heads(
                value
                    .parse()
                    .ok()
                    .filter(|n| TRAIN_HEAD_CHOICES.contains(n))?,
            ),
            "pos" => Self::Positions(PositionKind::from_name(value)?),
            "lr" => {
                Self::LearningRate(parse_decimal(value).filter(|lr| LEARNING_RATES.contains(lr))?)
            }
            "mistake" => Self::Mistake(TrainingMistake::from_key(value)?),
            _ => return None,
        })
    }

    /// Run B: `a`'s settings with this change (a new task brings its own layers and positions,
    /// as the task menu does).
    pub fn apply(&self, a: TrainSettings) -> RunSpec {
        let mut settings = a;
        let mut mistake = None;
        match *self {
            Self::Task(t) => {
                settings.task = t;
                settings.layers = t.default_layers();
                settings.positions = t.default_positions();
            }
            Self::Seed(s) => settings.seed = s,
            Self::Layers(n) => settings.layers = n,
            Self::Heads(n) => settings.heads = n,
            Self::Positions(p) => settings.positions = p,
            Self::LearningRate(lr) => settings.lr = lr,
            Self::Mistake(m) => mistake = Some(m),
        }
        RunSpec {
            mistake,
            ..RunSpec::new(settings)
        }
    }

    /// The changes the page's menu offers beside run A's settings `a`: every training mistake,
    /// then each other value of each setting the page offers (for the seed, the next one). Each
    /// changes something.
    pub fn offered(a: TrainSettings) -> Vec<Self> {
        let mut out: Vec<Self> = TrainingMistake::ALL.map(Self::Mistake).to_vec();
        out.push(Self::Seed((a.seed + 1) % (MAX_SEED + 1)));
        let others = |choices: &[usize], now: usize| {
            choices
                .iter()
                .copied()
                .filter(move |&n| n != now)
                .collect::<Vec<_>>()
        };
        out.extend(
            others(&LAYER_CHOICES, a.layers)
                .into_iter()
                .map(Self::Layers),
        );
        out.extend(
            others(&TRAIN_HEAD_CHOICES, a.heads)
                .into_iter()
                .map(Self::Heads),
        );
        out.extend(
            PositionKind::ALL
                .into_iter()
                .filter(|&p| p != a.positions)
                .map(Self::Positions),
        );
        out.extend(
            LEARNING_RATES
                .into_iter()
                .filter(|&lr| lr != a.lr)
                .map(Self::LearningRate),
        );
        out.extend(
            TaskChoice::ALL
                .into_iter()
                .filter(|&t| t != a.task)
                .map(Self::Task),
        );
        out
    }

    /// The training mistake, if this change is one.
    pub fn mistake(&self) -> Option<TrainingMistake> {
        match *self {
            Self::Mistake(m) => Some(m),
            _ => None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_change_round_trips_and_changes_one_thing() {
        let a = TrainSettings::default();
        let mut changes = vec![
            RunChange::Task(TaskChoice::Grammar),
            RunChange::Seed(7),
            RunChange::Seed(MAX_SEED),
            RunChange::Layers(1),
            RunChange::Heads(4),
            RunChange::Positions(PositionKind::Learned),
            RunChange::LearningRate(0.03),
        ];
        changes.extend(TrainingMistake::ALL.map(RunChange::Mistake));
        for c in changes {
            assert_eq!(RunChange::parse(&c.key()), Some(c), "{}", c.key());
            let b = c.apply(a);
            let mut differences = 0;
            differences += usize::from(b.settings.task != a.task);
            differences += usize::from(b.settings.seed != a.seed);
            differences += usize::from(b.settings.layers != a.layers);
            differences += usize::from(b.settings.heads != a.heads);
            differences += usize::from(b.settings.positions != a.positions);
            differences += usize::from(b.settings.lr != a.lr);
            differences += usize::from(b.mistake.is_some());
            // A new task brings its own layers and positions.
            let expected = if matches!(c, RunChange::Task(_)) {
                3
            } else {
                1
            };
            assert_eq!(differences, expected, "{}", c.key());
            assert_eq!(b.mistake, c.mistake());
        }
        // The menu's changes, for a few settings of run A: each changes run A, and reads back.
        for seed in [0, 1, MAX_SEED] {
            for heads in TRAIN_HEAD_CHOICES {
                let a = TrainSettings {
                    seed,
                    heads,
                    ..TrainSettings::default()
                };
                let offered = RunChange::offered(a);
                assert_eq!(offered.len(), 5 + 1 + 1 + 2 + 2 + 2 + 1);
                for c in offered {
                    assert_eq!(RunChange::parse(&c.key()), Some(c), "{}", c.key());
                    assert_ne!(c.apply(a), RunSpec::new(a), "{}", c.key());
                }
            }
        }
        for bad in [
            "",
            "seed",
            "seed:x",
            "seed:4294967296",
            "lr:0.02",
            "heads:3",
            "layers:3",
            "pos:x",
            "mistake:x",
            "task:x",
            "nope:1",
        ] {
            assert_eq!(RunChange::parse(bad), None, "{bad}");
        }
    }
}
