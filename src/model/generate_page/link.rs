//! The generate page's link: the prompt, the sampling settings, the seed and how many tokens
//! were generated, so that opening the link writes the same text again. A value out of range is
//! clamped (or, when it is not a number at all, ignored) with a notice naming it, as the
//! explorer's link does.

use crate::model::host::parse_decimal;
use crate::model::sampling::TEMPERATURE_RANGE;
use crate::model::train::tasks::GRAMMAR_WORDS;
use crate::model::url_state::MAX_SEED;

/// The attention temperatures τ the page's slider spans (the measured curve's range).
pub const TAU_RANGE: (f64, f64) = (0.1, 10.0);
/// The most tokens a link may ask to generate: the tiny grammar's context length, 16, less one
/// prompt token (a longer prompt leaves fewer; the page stops at the context's end and says so).
pub const MAX_GENERATED: usize = 15;
/// The prompt when the link names none.
pub const DEFAULT_PROMPT: &str = "the cat";
/// The trained models' vocabulary size: the largest top-k, and its default (every token kept).
pub const VOCAB: usize = GRAMMAR_WORDS.len();

/// Whose weights write the text: the checkpoint that ships with the app, or the tiny-grammar
/// model the learner trained on the training page (kept in this browser).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Writer {
    #[default]
    Shipped,
    Yours,
}

/// Everything the link holds.
#[derive(Debug, Clone, PartialEq)]
pub struct GenerateLink {
    /// The prompt as typed (checked against the vocabulary when the model reads it).
    pub prompt: String,
    /// Sampling temperature T, dividing the logits (0: greedy).
    pub temperature: f64,
    /// How many of the most likely tokens are kept (the vocabulary: all of them).
    pub top_k: usize,
    /// Step i of the text draws `sampling::draw(seed, i)`.
    pub seed: u64,
    /// Tokens generated after the prompt.
    pub generated: usize,
    /// Attention temperature τ, dividing the scores inside every layer (1: the model as trained).
    pub tau: f64,
    pub writer: Writer,
}

impl Default for GenerateLink {
    fn default() -> Self {
        Self {
            prompt: DEFAULT_PROMPT.into(),
            temperature: 1.0,
            top_k: VOCAB,
            seed: 1,
            generated: 0,
            tau: 1.0,
            writer: Writer::Shipped,
        }
    }
}

/// `value` in quotes, cut to 40 characters, for a notice.
fn quoted(value: &str) -> String {
    let mut short: String = value.chars().filter(|c| !c.is_control()).take(40).collect();
    if value.chars().count() > 40 {
        short.push('…');
    }
    format!("“{short}”")
}

/// A decimal in `low..=high`, clamped with a notice; `None` with a notice when it is no number.
fn read_range(
    key: &str,
    what: &str,
    value: &str,
    (low, high): (f64, f64),
) -> (Option<f64>, Option<String>) {
    match parse_decimal(value) {
        Some(x) if (low..=high).contains(&x) => (Some(x), None),
        Some(x) if x.is_finite() => {
            let clamped = x.clamp(low, high);
            let note = format!(
                "The link's {what} {key}={} is outside {low}–{high}; using {clamped}.",
                quoted(value)
            );
            (Some(clamped), Some(note))
        }
        _ => (
            None,
            Some(format!(
                "Ignored {key}={}: the {what} must be a number from {low} to {high}.",
                quoted(value)
            )),
        ),
    }
}

/// A whole number in `low..=high`, clamped with a notice; `None` with a notice when it is none.
fn read_count(
    key: &str,
    what: &str,
    value: &str,
    (low, high): (u64, u64),
) -> (Option<u64>, Option<String>) {
    match value.parse::<u64>() {
        Ok(n) if (low..=high).contains(&n) => (Some(n), None),
        Ok(n) => {
            let clamped = n.clamp(low, high);
            let note =
                format!("The link's {what} {key}={n} is outside {low}–{high}; using {clamped}.");
            (Some(clamped), Some(note))
        }
        Err(_) => (
            None,
            Some(format!(
                "Ignored {key}={}: the {what} must be a whole number from {low} to {high}.",
                quoted(value)
            )),
        ),
    }
}

impl GenerateLink {
    /// The link's keys, in the order they are written.
    pub const KEYS: [&'static str; 7] = ["p", "t", "k", "seed", "n", "tau", "w"];

    /// The settings a query string (with or without `?`) describes, and what was corrected.
    pub fn from_query(query: &str) -> (Self, Vec<String>) {
        let query = query.strip_prefix('?').unwrap_or(query);
        let mut link = Self::default();
        let mut notices = Vec::new();
        let mut seen = [false; Self::KEYS.len()];
        for (key, value) in form_urlencoded::parse(query.as_bytes()) {
            let Some(i) = Self::KEYS.iter().position(|k| *k == key) else {
                continue;
            };
            if std::mem::replace(&mut seen[i], true) {
                notices.push(format!(
                    "The link repeats “{key}”; the first value was used."
                ));
                continue;
            }
            let note = match i {
                0 => {
                    link.prompt = value.chars().take(400).collect();
                    None
                }
                1 => {
                    let (t, note) = read_range("t", "sampling temperature", &value, TEMPERATURE_RANGE);
                    link.temperature = t.unwrap_or(link.temperature);
                    note
                }
                2 => {
                    let (k, note) = read_count("k", "top-k", &value, (1, VOCAB as u64));
                    link.top_k = k.map_or(link.top_k, |k| k as usize);
                    note
                }
                3 => {
                    let (s, note) = read_count("seed", "seed", &value, (0, MAX_SEED));
                    link.seed = s.unwrap_or(link.seed);
                    note
                }
                4 => {
                    let (n, note) = read_count("n", "number of generated tokens", &value, (0, MAX_GENERATED as u64));
                    link.generated = n.map_or(link.generated, |n| n as usize);
                    note
                }
                5 => {
                    let (tau, note) = read_range("tau", "attention temperature", &value, TAU_RANGE);
                    link.tau = tau.unwrap_or(link.tau);
                    note
                }
                _ => match &*value {
                    "grammar" => None,
                    "yours" => {
                        link.writer = Writer::Yours;
                        None
                    }
                    other => Some(format!("Ignored w={}: the weights are “grammar” (shipped with the app) or “yours”.", quoted(other))),
                },
            };
            notices.extend(note);
        }
        (link, notices)
    }

    /// The query string (without `?`): only what differs from the defaults.
    pub fn to_query(&self) -> String {
        let base = Self::default();
        let mut out = form_urlencoded::Serializer::new(String::new());
        if self.prompt != base.prompt {
            out.append_pair("p", &self.prompt);
        }
        if self.temperature != base.temperature {
            out.append_pair("t", &self.temperature.to_string());
        }
        if self.top_k != base.top_k {
            out.append_pair("k", &self.top_k.to_string());
        }
        if self.seed != base.seed {
            out.append_pair("seed", &self.seed.to_string());
        }
        if self.generated != base.generated {
            out.append_pair("n", &self.generated.to_string());
        }
        if self.tau != base.tau {
            out.append_pair("tau", &self.tau.to_string());
        }
        if self.writer == Writer::Yours {
            out.append_pair("w", "yours");
        }
        out.finish()
    }
}
