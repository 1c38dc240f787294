//! The random views every property is checked over, and what the properties share: their case
//! counts, recounts from the raw weights (largest, ties, entropy), the sentences' ways of naming
//! tokens and counts, and the check that a sentence prints no non-finite number.

use attention_explorer::model::broken::{Mistake, Mistakes};
use attention_explorer::model::explorer::{ExplorerConfig, Prepared};
use attention_explorer::model::temperature::{unscaled_tau, SLIDER_MAX_TAU, SLIDER_MIN_TAU};
use attention_explorer::model::tokenizer::{checked_tokens, tokenize, MAX_TOKENS};
use attention_explorer::model::train::page::checkpoint_file::{decode, Checkpoint};
use attention_explorer::model::train::tasks::GRAMMAR_WORDS;
use attention_explorer::model::weights::HEAD_CHOICES;
use nalgebra::DMatrix;
use proptest::prelude::*;
use proptest::test_runner::FileFailurePersistence;
use std::sync::{Arc, OnceLock};

/// "Equal up to rounding", as the page's sentences use it (`model::stats::ROUNDING_TOLERANCE`).
pub const ROUNDING: f64 = 1e-12;

/// Words for random sentences: repeated words and capitals (ties without positions), punctuation,
/// words the embedding folds together ("É"/"é", "ΣΑΣ"/"σας"), and hostile Unicode: emoji, CJK,
/// a zero-width space, a bidi override, markup.
pub const VOCAB: [&str; 30] = [
    "the",
    "The",
    "cat",
    "sat",
    "on",
    "mat",
    ".",
    "dog",
    "a",
    "ran",
    "the",
    "cat",
    ",",
    "É",
    "é",
    "Straße",
    "STRASSE",
    "ΣΑΣ",
    "σας",
    "日本",
    "😀",
    "<b>",
    "&amp;",
    "“",
    "it's",
    "—",
    "...",
    "a\u{200b}b",
    "x\u{202e}y",
    "İ",
];

/// The shipped tiny-grammar checkpoint, decoded once.
pub fn checkpoint() -> &'static Arc<Checkpoint> {
    static CHECKPOINT: OnceLock<Arc<Checkpoint>> = OnceLock::new();
    CHECKPOINT.get_or_init(|| {
        Arc::new(
            decode(include_bytes!("../../assets/checkpoints/grammar.bin"))
                .expect("the shipped grammar checkpoint decodes"),
        )
    })
}

/// One view as drawn: the raw choices, resolved against the model in [`Case::build`].
#[derive(Debug, Clone)]
pub struct Case {
    words: Vec<usize>,
    seed: u64,
    heads: usize,
    positions: bool,
    trained: bool,
    tau_kind: u8,
    tau_exponent: f64,
    head: u64,
    row: u64,
    mistakes: u8,
    other_seed: u64,
}

/// A view resolved: the model and the settings the page would show it with.
pub struct View {
    pub sentence: String,
    pub p: Prepared,
    pub tau: f64,
    pub head: usize,
    pub row: usize,
    pub mistakes: Mistakes,
    pub other_seed: u64,
}

impl View {
    pub fn tokens(&self) -> &[String] {
        &self.p.config.tokens
    }

    pub fn d(&self) -> usize {
        self.p.head_size()
    }

    pub fn trained(&self) -> bool {
        self.p.weights.checkpoint().is_some()
    }
}

impl Case {
    pub fn build(&self) -> View {
        let (sentence, p) = if self.trained {
            let words: Vec<&str> = self
                .words
                .iter()
                .map(|&w| GRAMMAR_WORDS[w % GRAMMAR_WORDS.len()])
                .collect();
            let sentence = words.join(" ");
            let p = Prepared::from_checkpoint(tokenize(&sentence), checkpoint())
                .expect("grammar words are the checkpoint's");
            (sentence, p)
        } else {
            let words: Vec<&str> = self.words.iter().map(|&w| VOCAB[w]).collect();
            let sentence = words.join(" ");
            let tokens = checked_tokens(&sentence, MAX_TOKENS).expect("a valid sentence");
            let p = Prepared::new(ExplorerConfig {
                tokens,
                seed: self.seed,
                heads: self.heads,
                positions: self.positions,
            });
            (sentence, p)
        };
        let d = p.head_size();
        let u = unscaled_tau(d);
        let tau = match self.tau_kind {
            0 => SLIDER_MIN_TAU,
            1 => SLIDER_MAX_TAU,
            2 => 1.0,
            3 => u,
            4 => u * (1.0 + self.tau_exponent / 100.0),
            5 => 1.0 + self.tau_exponent / 100.0,
            // The slider is logarithmic: 10^x for x in [−2, 2].
            _ => 10f64.powf(self.tau_exponent),
        };
        let head = (self.head % p.heads.len() as u64) as usize;
        let row = (self.row % p.len() as u64) as usize;
        let mistakes: Mistakes = Mistake::ALL
            .into_iter()
            .enumerate()
            .filter(|(k, _)| self.mistakes & (1 << k) != 0)
            .map(|(_, m)| m)
            .collect();
        View {
            sentence,
            p,
            tau,
            head,
            row,
            mistakes,
            other_seed: self.other_seed,
        }
    }
}

fn seed() -> impl Strategy<Value = u64> {
    prop_oneof![
        Just(1337u64),
        Just(0u64),
        Just(u64::MAX),
        0u64..100,
        any::<u64>(),
    ]
}

/// Random views; a quarter with no mistake at all, so correct attention is well covered.
pub fn case() -> impl Strategy<Value = Case> {
    (
        prop::collection::vec(0..VOCAB.len(), 1..=12),
        seed(),
        0..HEAD_CHOICES.len(),
        any::<bool>(),
        prop::bool::weighted(0.15),
        (0u8..12, -2.0f64..=2.0),
        (any::<u64>(), any::<u64>()),
        prop_oneof![Just(0u8), 0u8..128],
        any::<u64>(),
    )
        .prop_map(
            |(words, seed, h, positions, trained, (tau_kind, e), (head, row), mistakes, other)| {
                Case {
                    words,
                    seed,
                    heads: HEAD_CHOICES[h],
                    positions,
                    trained,
                    tau_kind,
                    // Near a mark (kinds 4 and 5): within ±4 %, the "close to" band, and beyond.
                    tau_exponent: if (4..=5).contains(&tau_kind) {
                        e * 3.0
                    } else {
                        e
                    },
                    head,
                    row,
                    mistakes,
                    other_seed: other,
                }
            },
        )
}

/// `cases` cases, times `SENTENCES_SCALE` when that is set (a longer hunt:
/// `SENTENCES_SCALE=50 cargo test --release --test sentences`). Every module's failures are saved
/// in, and replayed from, the one `tests/sentences.proptest-regressions` (proptest's default for a
/// test split into modules would be a file per module under `tests/proptest-regressions/`).
pub fn config(cases: u32) -> ProptestConfig {
    let scale: u32 = std::env::var("SENTENCES_SCALE")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(1);
    ProptestConfig {
        cases: cases * scale.max(1),
        failure_persistence: Some(Box::new(FileFailurePersistence::Direct(concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/tests/sentences.proptest-regressions"
        )))),
        ..ProptestConfig::default()
    }
}

/// Row `i`'s visible weights (keys 0..=i).
pub fn visible(w: &DMatrix<f64>, i: usize) -> Vec<f64> {
    (0..=i).map(|j| w[(i, j)]).collect()
}

/// Row `i` over every key.
pub fn full(w: &DMatrix<f64>, i: usize) -> Vec<f64> {
    w.row(i).iter().copied().collect()
}

pub fn max_of(row: &[f64]) -> f64 {
    row.iter().copied().fold(f64::NEG_INFINITY, f64::max)
}

pub fn min_of(row: &[f64]) -> f64 {
    row.iter().copied().fold(f64::INFINITY, f64::min)
}

/// −Σ w·log₂ w over the positive weights, summed here by hand.
pub fn entropy(row: &[f64]) -> f64 {
    let mut h = 0.0;
    for &w in row {
        if w > 0.0 {
            h -= w * w.log2();
        }
    }
    h.max(0.0)
}

/// The keys whose weight is the row's largest, up to rounding.
pub fn tied_top(row: &[f64]) -> Vec<usize> {
    let max = max_of(row);
    let mut keys = Vec::new();
    for (j, &w) in row.iter().enumerate() {
        if max - w < ROUNDING {
            keys.push(j);
        }
    }
    keys
}

pub fn quote(t: &str) -> String {
    format!("“{t}”")
}

/// “a”, “b” and “c”.
pub fn names(tokens: &[String], keys: &[usize], visible: usize) -> String {
    // A token the row sees more than once is named with its place.
    let q: Vec<String> = keys
        .iter()
        .map(|&k| {
            let times = tokens[..visible]
                .iter()
                .filter(|&t| *t == tokens[k])
                .count();
            if times > 1 {
                format!("key {} {}", k + 1, quote(&tokens[k]))
            } else {
                quote(&tokens[k])
            }
        })
        .collect();
    match q.split_last() {
        None => String::new(),
        Some((last, [])) => last.clone(),
        Some((last, rest)) => format!("{} and {last}", rest.join(", ")),
    }
}

/// "none of the 6 rows", "all 6 rows", "2 of the 6 rows".
pub fn of_rows(n: usize, m: usize) -> String {
    if n == 0 {
        format!("none of the {m} rows")
    } else if n == m {
        format!("all {m} rows")
    } else {
        format!("{n} of the {m} rows")
    }
}

pub fn plural(n: usize, one: &str, many: &str) -> String {
    format!("{n} {}", if n == 1 { one } else { many })
}

/// Whether a sentence is non-empty and prints no `NaN` or `inf` (the mask-fill note's "(−∞) − (−∞)
/// = NaN", which explains what −∞ does, is the one NaN a sentence may name).
pub fn clean(text: &str) -> bool {
    let text = text.replace("(−∞) − (−∞) = NaN (“not a number”) in every entry", "");
    !text.trim().is_empty()
        && !text
            .split(|c: char| !c.is_alphanumeric())
            .any(|w| w == "NaN" || w == "inf")
}

/// Fails the case when a sentence is empty or prints a non-finite number.
macro_rules! prop_assert_clean {
    ($text:expr) => {{
        let text: &str = &$text;
        prop_assert!(
            clean(text),
            "empty, or a non-finite number printed: {}",
            text
        );
    }};
}

/// The number printed right after `before` in `text` (up to the next space or closing mark).
pub fn number_after(text: &str, before: &str) -> f64 {
    let start = text
        .find(before)
        .unwrap_or_else(|| panic!("{before:?} not in {text}"))
        + before.len();
    let digits: String = text[start..]
        .chars()
        .take_while(|c| c.is_ascii_digit() || matches!(c, '.' | 'e' | '-'))
        .collect();
    let digits = digits.trim_end_matches('.');
    digits
        .parse()
        .unwrap_or_else(|_| panic!("no number after {before:?} in {text}"))
}
