//! The link's own value types: the lesson step on screen and the compare view's setting B.

use super::{MAX_SEED, SLIDER_MAX_TAU, SLIDER_MIN_TAU};
use crate::model::broken::{Mistake, Mistakes};
use crate::model::host::parse_decimal;

/// The lesson section on screen: the lesson's six steps, in order (their titles and one-line
/// summaries are in `crate::text`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Step {
    /// 1: the plain average of the past, as a loop and as `wei · X`.
    Average,
    /// 2: the same average as a softmax over a masked score matrix.
    Softmax,
    /// 3: queries, keys and values.
    Attention,
    /// 4: why the scores are divided by √d.
    Scaling,
    /// 5: several heads, combined by `W_o`.
    Heads,
    /// 6: positions.
    Positions,
}

impl Step {
    pub const ALL: [Step; 6] = [
        Step::Average,
        Step::Softmax,
        Step::Attention,
        Step::Scaling,
        Step::Heads,
        Step::Positions,
    ];

    /// Its name in a link (`step=…`); older links' keys keep their meaning.
    pub fn key(self) -> &'static str {
        match self {
            Step::Average => "average",
            Step::Softmax => "softmax",
            Step::Attention => "attention",
            Step::Scaling => "scaling",
            Step::Heads => "heads",
            Step::Positions => "positions",
        }
    }

    pub fn from_key(key: &str) -> Option<Self> {
        Self::ALL.into_iter().find(|s| s.key() == key)
    }

    /// Its number on screen, counted from 1.
    pub fn number(self) -> usize {
        Self::ALL
            .iter()
            .position(|&s| s == self)
            .map_or(1, |i| i + 1)
    }

    /// The step before this one (none before the first).
    pub fn previous(self) -> Option<Self> {
        Self::ALL.get(self.number().checked_sub(2)?).copied()
    }

    /// The step after this one (none after the last).
    pub fn next(self) -> Option<Self> {
        Self::ALL.get(self.number()).copied()
    }
}

/// The one thing setting B changes.
#[derive(Debug, Clone, PartialEq)]
pub enum CompareChange {
    /// Another temperature τ.
    Tau(f64),
    /// Another seed.
    Seed(u64),
    /// Positions switched the other way.
    Positions,
    /// Another sentence (B is shown only when it has as many tokens as A's).
    Sentence(String),
    /// These "Break it" mistakes instead of A's (none: correct attention).
    Broken(Mistakes),
}

impl CompareChange {
    /// Its text in a link (`cmp=…`).
    pub fn key(&self) -> String {
        match self {
            CompareChange::Tau(tau) => format!("tau:{tau}"),
            CompareChange::Seed(seed) => format!("seed:{seed}"),
            CompareChange::Positions => "pos".to_string(),
            CompareChange::Sentence(s) => format!("s:{s}"),
            CompareChange::Broken(m) => format!("broken:{}", m.keys()),
        }
    }

    /// Reads a link's `cmp` text; `None` if it is not one.
    pub fn parse(text: &str) -> Option<Self> {
        let (kind, value) = text.split_once(':').unwrap_or((text, ""));
        match kind {
            "tau" => parse_decimal(value)
                .filter(|t| t.is_finite() && (SLIDER_MIN_TAU..=SLIDER_MAX_TAU).contains(t))
                .map(CompareChange::Tau),
            "seed" => value
                .parse()
                .ok()
                .filter(|&s| s <= MAX_SEED)
                .map(CompareChange::Seed),
            "pos" if value.is_empty() => Some(CompareChange::Positions),
            "s" if !value.trim().is_empty() => Some(CompareChange::Sentence(value.to_string())),
            "broken" => {
                let names = value.split(',').filter(|n| !n.is_empty());
                let set: Option<Vec<Mistake>> = names.map(Mistake::from_key).collect();
                set.map(|s| CompareChange::Broken(s.into_iter().collect()))
            }
            _ => None,
        }
    }
}
