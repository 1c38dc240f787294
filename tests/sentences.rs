//! Property tests of the page's sentences over random views: every sentence whose words depend on
//! numbers (counts, "all"/"none", "exactly", "every row", comparisons, the names of the largest
//! weights, floors) is built for many views — random seeds, random sentences of 1–12 words (with
//! repeated words, capitals, punctuation and hostile Unicode), 1, 2, 4 or 8 heads, every head,
//! positions on and off, the grammar checkpoint's trained weights, τ over the whole slider and at
//! its marks, every row and any set of "Break it" mistakes — and its claim is recounted here from
//! the raw weights, another way than the model function that built it.
//!
//! No sentence may panic or print `NaN` or `inf`.
//!
//! Each run draws new views (a failure is saved in `tests/sentences.proptest-regressions` and
//! replayed first). For a longer hunt, multiply every case count:
//! `SENTENCES_SCALE=60 cargo test --release --test sentences` (about 90 s).
#![cfg(not(target_arch = "wasm32"))]

use attention_explorer::format::{fixed, percent, scientific};
use attention_explorer::model::attention::{averaging_error, averaging_matrix};
use attention_explorer::model::broken::{
    broken_scale, broken_weights, broken_weights_all, Damage, Mistake, Mistakes,
};
use attention_explorer::model::claims::{first_repeated_word, HeadShape};
use attention_explorer::model::compare::{difference, setting_b, view_weights};
use attention_explorer::model::explorer::{ExplorerConfig, Prepared};
use attention_explorer::model::masked_average::{mask_fill_demo, zero_score_softmax};
use attention_explorer::model::multihead::HeadsRow;
use attention_explorer::model::positions::{order_demo, shuffle_the_past, PAST_SWAPPED, PRESETS};
use attention_explorer::model::quiz::{questions, Answer, Choice, Direction, Kind, QuizOn};
use attention_explorer::model::scaling_lab::{lab_point, times_eight, SATURATED};
use attention_explorer::model::temperature::{
    logit_scale, unscaled_tau, Regime, SLIDER_MAX_TAU, SLIDER_MIN_TAU,
};
use attention_explorer::model::tokenizer::{checked_tokens, tokenize, MAX_TOKENS};
use attention_explorer::model::trace::{QkvRow, RowTrace};
use attention_explorer::model::train::checkpoint_file::{decode, Checkpoint};
use attention_explorer::model::train::detectors::AgreementReport;
use attention_explorer::model::train::evaluation::{
    BestHead, CircuitCheck, INDUCTION_MIN, PREVIOUS_TOKEN_MIN, REPEAT_RATIO_MAX,
};
use attention_explorer::model::train::settings::GrammarFloors;
use attention_explorer::model::train::tasks::GRAMMAR_WORDS;
use attention_explorer::model::url_state::{CompareChange, ViewState};
use attention_explorer::model::weights::{D_MODEL, HEAD_CHOICES};
use attention_explorer::text;
use nalgebra::DMatrix;
use proptest::prelude::*;
use std::sync::{Arc, OnceLock};

/// "Equal up to rounding", as the page's sentences use it (`model::stats::ROUNDING_TOLERANCE`).
const ROUNDING: f64 = 1e-12;

/// Words for random sentences: repeated words and capitals (ties without positions), punctuation,
/// words the embedding folds together ("É"/"é", "ΣΑΣ"/"σας"), and hostile Unicode: emoji, CJK,
/// a zero-width space, a bidi override, markup.
const VOCAB: [&str; 30] = [
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

fn checkpoint() -> &'static Arc<Checkpoint> {
    static CHECKPOINT: OnceLock<Arc<Checkpoint>> = OnceLock::new();
    CHECKPOINT.get_or_init(|| {
        Arc::new(
            decode(include_bytes!("../assets/checkpoints/grammar.bin"))
                .expect("the shipped grammar checkpoint decodes"),
        )
    })
}

/// One view as drawn: the raw choices, resolved against the model in [`Case::build`].
#[derive(Debug, Clone)]
struct Case {
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
struct View {
    sentence: String,
    p: Prepared,
    tau: f64,
    head: usize,
    row: usize,
    mistakes: Mistakes,
    other_seed: u64,
}

impl View {
    fn tokens(&self) -> &[String] {
        &self.p.config.tokens
    }

    fn d(&self) -> usize {
        self.p.head_size()
    }

    fn trained(&self) -> bool {
        self.p.weights.checkpoint().is_some()
    }
}

impl Case {
    fn build(&self) -> View {
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
fn case() -> impl Strategy<Value = Case> {
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
/// `SENTENCES_SCALE=50 cargo test --release --test sentences`).
fn config(cases: u32) -> ProptestConfig {
    let scale: u32 = std::env::var("SENTENCES_SCALE")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(1);
    ProptestConfig {
        cases: cases * scale.max(1),
        ..ProptestConfig::default()
    }
}

/// Row `i`'s visible weights (keys 0..=i).
fn visible(w: &DMatrix<f64>, i: usize) -> Vec<f64> {
    (0..=i).map(|j| w[(i, j)]).collect()
}

/// Row `i` over every key.
fn full(w: &DMatrix<f64>, i: usize) -> Vec<f64> {
    w.row(i).iter().copied().collect()
}

fn max_of(row: &[f64]) -> f64 {
    row.iter().copied().fold(f64::NEG_INFINITY, f64::max)
}

fn min_of(row: &[f64]) -> f64 {
    row.iter().copied().fold(f64::INFINITY, f64::min)
}

/// −Σ w·log₂ w over the positive weights, summed here by hand.
fn entropy(row: &[f64]) -> f64 {
    let mut h = 0.0;
    for &w in row {
        if w > 0.0 {
            h -= w * w.log2();
        }
    }
    h.max(0.0)
}

/// The keys whose weight is the row's largest, up to rounding.
fn tied_top(row: &[f64]) -> Vec<usize> {
    let max = max_of(row);
    let mut keys = Vec::new();
    for (j, &w) in row.iter().enumerate() {
        if max - w < ROUNDING {
            keys.push(j);
        }
    }
    keys
}

fn quote(t: &str) -> String {
    format!("“{t}”")
}

/// “a”, “b” and “c”.
fn names(tokens: &[String], keys: &[usize]) -> String {
    let q: Vec<String> = keys.iter().map(|&k| quote(&tokens[k])).collect();
    match q.split_last() {
        None => String::new(),
        Some((last, [])) => last.clone(),
        Some((last, rest)) => format!("{} and {last}", rest.join(", ")),
    }
}

/// "none of the 6 rows", "all 6 rows", "2 of the 6 rows".
fn of_rows(n: usize, m: usize) -> String {
    if n == 0 {
        format!("none of the {m} rows")
    } else if n == m {
        format!("all {m} rows")
    } else {
        format!("{n} of the {m} rows")
    }
}

fn plural(n: usize, one: &str, many: &str) -> String {
    format!("{n} {}", if n == 1 { one } else { many })
}

/// Whether a sentence is non-empty and prints no `NaN` or `inf` (the mask-fill note's "(−∞) − (−∞)
/// = NaN", which explains what −∞ does, is the one NaN a sentence may name).
fn clean(text: &str) -> bool {
    let text = text.replace("(−∞) − (−∞) = NaN in every entry", "");
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
fn number_after(text: &str, before: &str) -> f64 {
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

proptest! {
    #![proptest_config(config(128))]

    /// `regime_sentence` / `shape_sentence`: the counts ("none of / k of / all m rows … put over
    /// 95 % on one key", "k of them split … tied keys"), the mean largest weight, "exactly" and the
    /// named mark only at the mark, the regime's side of the marks, and "every row is at least as
    /// peaked as at τ = 1" / "at most as peaked as without the scaling" / "rows flatten toward the
    /// average", row by row, for every head.
    #[test]
    fn regime_sentence_counts_and_comparisons(case in case()) {
        let v = case.build();
        let (d, tau, t) = (v.d(), v.tau, v.p.len());
        let u = unscaled_tau(d);
        for head in &v.p.heads {
            let w = head.weights(tau);
            let text = text::regime_sentence(Regime::of(tau, d), tau, d, &HeadShape::of(&w));
            prop_assert_clean!(&text);
            if t == 1 {
                prop_assert_eq!(w[(0, 0)], 1.0);
                prop_assert!(text.ends_with("The only row sees only its own token, so it is always 100 % on it."), "{}", text);
            } else {
                let m = t - 1;
                let rows: Vec<Vec<f64>> = (1..t).map(|i| visible(&w, i)).collect();
                let one_hot = rows.iter().filter(|r| r.iter().any(|&x| x > 0.95)).count();
                let tied = rows.iter().filter(|r| tied_top(r).len() > 1).count();
                let mean = rows.iter().map(|r| max_of(r)).sum::<f64>() / m as f64;
                let counts = format!("In this head {} that see more than one key put over 95.0% of their weight on one key; averaged over those {m} rows, the largest weight is {}.", of_rows(one_hot, m), percent(mean));
                prop_assert!(text.contains(&counts), "expected {:?} in {}", counts, text);
                match tied {
                    0 => prop_assert!(!text.contains("tied"), "{}", text),
                    1 => prop_assert!(text.ends_with(" 1 of them splits its top weight equally between tied keys."), "{}", text),
                    k => prop_assert!(text.ends_with(&format!(" {k} of them split their top weight equally between tied keys.")), "{}", text),
                }
            }
            // The mark is named, and "exactly" said, only at the mark itself.
            if text.starts_with("τ = 1/√") {
                prop_assert_eq!(tau, u);
            }
            if text.starts_with("τ = 1:") {
                prop_assert_eq!(tau, 1.0);
            }
            if text.contains("exactly") {
                prop_assert!(tau == u || tau == 1.0, "{}", text);
            }
            if text.contains(&format!("close to 1/√{d}")) {
                prop_assert!(tau != u && (tau / u - 1.0).abs() < 0.04, "{}", text);
            }
            if text.contains("close to 1 (") {
                prop_assert!(tau != 1.0 && (tau - 1.0).abs() <= 0.04, "{}", text);
            }
            if text.starts_with("Colder") {
                prop_assert!(tau < u);
            }
            if text.starts_with("Between") {
                prop_assert!(u < tau && tau < 1.0);
            }
            if text.starts_with("Hotter") {
                prop_assert!(tau > 1.0);
            }
            // The comparisons, row by row against τ = 1 and τ = 1/√d.
            let standard = head.weights(1.0);
            let unscaled = head.weights(u);
            let peaked_as_standard = text.contains("at least as peaked as");
            let flatter_than_unscaled = text.contains("at most as peaked as without the scaling");
            let flattens = text.contains("rows flatten toward the plain average");
            for i in 0..t {
                let (now, one, raw) = (visible(&w, i), visible(&standard, i), visible(&unscaled, i));
                if peaked_as_standard {
                    prop_assert!(max_of(&now) >= max_of(&one) - ROUNDING, "row {}: {}", i, text);
                    prop_assert!(entropy(&now) <= entropy(&one) + 1e-9, "row {}: {}", i, text);
                }
                if flatter_than_unscaled {
                    prop_assert!(max_of(&now) <= max_of(&raw) + ROUNDING, "row {}: {}", i, text);
                    prop_assert!(entropy(&now) >= entropy(&raw) - 1e-9, "row {}: {}", i, text);
                }
                if flattens {
                    let even = 1.0 / (i + 1) as f64;
                    let gap = |r: &[f64]| r.iter().map(|x| (x - even).abs()).fold(0.0, f64::max);
                    prop_assert!(gap(&now) <= gap(&one) + ROUNDING, "row {}: {}", i, text);
                    prop_assert!(entropy(&now) >= entropy(&one) - 1e-9, "row {}: {}", i, text);
                }
            }
        }
    }

    /// `row_summary`, `row_glance`, `bar_chart_label` and `cell_description`: the row named, every
    /// key that shares the largest weight named (and no other), its weight, "evenly" only for an
    /// even row, the entropy, "masked (future)" only above the diagonal, for every row of every
    /// head.
    #[test]
    fn row_sentences_name_the_largest_weights(case in case()) {
        let v = case.build();
        let tokens = v.tokens();
        for head in &v.p.heads {
            let w = head.weights(v.tau);
            for i in 0..v.p.len() {
                let row = visible(&w, i);
                let summary = text::row_summary(tokens, &w, i);
                prop_assert_clean!(&summary);
                let lead = format!("Row {} {} ", i + 1, quote(&tokens[i]));
                prop_assert!(summary.starts_with(&lead), "{}", summary);
                let top = tied_top(&row);
                if summary.contains("spreads its attention evenly") {
                    prop_assert!(i > 0);
                    prop_assert!(max_of(&row) - min_of(&row) < ROUNDING, "{}", summary);
                    prop_assert!(summary.ends_with(&format!(": {} on each of its {} tokens.", percent(1.0 / (i + 1) as f64), i + 1)), "{}", summary);
                } else {
                    prop_assert!(i == 0 || max_of(&row) - min_of(&row) >= ROUNDING, "{}", summary);
                    let each = if top.len() > 1 { " each" } else { "" };
                    let said = format!("attends most to {} ({}{each}).", names(tokens, &top), percent(row[top[0]]));
                    prop_assert!(summary.ends_with(&said), "expected {:?}: {}", said, summary);
                }
                let glance = text::row_glance(tokens, &w, i);
                prop_assert_eq!(glance, format!("{summary} Entropy {} bits.", fixed(entropy(&row), 3)));
                let bars = text::bar_chart_label(tokens, i, &row);
                let which = if top.len() > 1 { "bars are" } else { "bar is" };
                let each = if top.len() > 1 { " each" } else { "" };
                let said = format!("the largest {which} {} at {}{each}.", names(tokens, &top), percent(row[top[0]]));
                prop_assert!(bars.contains(&said), "expected {:?}: {}", said, bars);
                for j in 0..v.p.len() {
                    let cell = text::cell_description(tokens, &w, i, j);
                    prop_assert_clean!(&cell);
                    if j > i {
                        prop_assert_eq!(w[(i, j)], 0.0);
                        prop_assert!(cell.ends_with(": masked (future)"), "{}", cell);
                    } else {
                        prop_assert!(cell.ends_with(&format!(": {}", percent(w[(i, j)]))), "{}", cell);
                    }
                }
            }
        }
    }

    /// `positions_help` and `pair_in_row`: the repeated pair named is the first pair of one word
    /// (capitals folded); without positions it gets "identical keys and values" and "every row that
    /// sees both gives them exactly the same weight" (bit for bit, every head); with positions
    /// "different keys" and "rows weigh them differently"; a row's "exactly the same weight" only
    /// when the two doubles are equal.
    #[test]
    fn positions_help_and_the_repeated_pair(case in case()) {
        let v = case.build();
        let tokens = v.tokens();
        let positions = v.p.config.positions;
        let pair = first_repeated_word(tokens);
        // The pair, found here another way: the first later token equal to an earlier one, folded.
        let by_hand = (0..tokens.len()).flat_map(|b| (0..b).map(move |a| (a, b)))
            .find(|&(a, b)| tokens[a].to_lowercase() == tokens[b].to_lowercase());
        prop_assert_eq!(pair, by_hand);
        let help = text::positions_help(positions, tokens, pair);
        prop_assert_clean!(&help);
        let Some((a, b)) = pair else {
            prop_assert!(help.contains("would"), "{}", help);
            return Ok(());
        };
        prop_assert!(help.contains(&format!("{} (token {}) and {} (token {})", quote(&tokens[a]), a + 1, quote(&tokens[b]), b + 1)), "{}", help);
        for head in &v.p.heads {
            let w = head.weights(v.tau);
            let same_k = head.k.row(a) == head.k.row(b);
            let same_v = head.v.row(a) == head.v.row(b);
            if help.contains("get identical keys and values") {
                prop_assert!(same_k && same_v, "{}", help);
            }
            if help.contains("every row that sees both gives them exactly the same weight") {
                for r in b..w.nrows() {
                    prop_assert_eq!(w[(r, a)].to_bits(), w[(r, b)].to_bits(), "row {}: {}", r, help);
                }
            }
            if help.contains("now get different keys") {
                prop_assert!(!same_k, "{}", help);
            }
            prop_assert!(!help.contains("rows weigh them differently"), "{}", help);
            let i = v.row;
            let said = text::pair_in_row(tokens, i, &visible(&w, i), (a, b));
            prop_assert_clean!(&said);
            if b > i {
                prop_assert!(said.contains("does not see both"), "{}", said);
                prop_assert!(said.contains(&format!("pick row {} or later", b + 1)), "{}", said);
            } else if w[(i, a)] == w[(i, b)] {
                prop_assert!(said.contains(&format!("exactly the same weight, {} each.", percent(w[(i, a)]))), "{}", said);
            } else {
                prop_assert!(said.ends_with(&format!("different weights: {} and {}.", percent(w[(i, a)]), percent(w[(i, b)]))), "{}", said);
            }
        }
    }

    /// `shuffle_check`: "bit-identical" only when every key kept its weight bit for bit, "kept its
    /// score q·k bit for bit" only when the scores did, otherwise the largest change; the shuffled
    /// row is recomputed here from the shuffled sentence. Without positions the scores never move.
    #[test]
    fn shuffle_check_states_the_comparison(case in case()) {
        let v = case.build();
        let (h, row) = (v.head, v.row);
        let cmp = shuffle_the_past(&v.p, h, v.tau, row, v.other_seed);
        // The order: a permutation of the past that leaves the row and the future in place.
        let mut sorted = cmp.order.clone();
        sorted.sort_unstable();
        prop_assert_eq!(sorted, (0..v.p.len()).collect::<Vec<_>>());
        prop_assert!((row..v.p.len()).all(|p| cmp.order[p] == p));
        // The row after the shuffle, recomputed from the shuffled tokens.
        let shuffled: Vec<String> = cmp.order.iter().map(|&i| v.tokens()[i].clone()).collect();
        let q = v.p.weights.prepare(ExplorerConfig { tokens: shuffled, ..v.p.config.clone() }).unwrap();
        let (wb, wa) = (v.p.heads[h].weights(v.tau), q.heads[h].weights(v.tau));
        let mut same_weights = true;
        let mut same_scores = true;
        let mut largest: f64 = 0.0;
        for p in 0..=row {
            let k = cmp.order[p];
            same_weights &= wb[(row, k)].to_bits() == wa[(row, p)].to_bits();
            same_scores &= v.p.heads[h].scores[(row, k)].to_bits() == q.heads[h].scores[(row, p)].to_bits();
            largest = largest.max((wb[(row, k)] - wa[(row, p)]).abs());
        }
        let said = text::shuffle_check(&cmp);
        prop_assert_clean!(&said);
        prop_assert_eq!(said.contains("bit-identical"), same_weights && same_scores, "{}", said);
        prop_assert_eq!(said.starts_with("✓ Every key kept its score"), same_scores, "{}", said);
        prop_assert_eq!(said.contains("every key kept its weight bit for bit"), same_weights && !same_scores, "{}", said);
        if !same_scores && !same_weights {
            prop_assert!(said.ends_with(&format!("{} percentage points.", fixed(largest * 100.0, 2))), "{}", said);
        } else if !same_weights {
            prop_assert!(said.contains(&format!("within {}", scientific(largest, 1))), "{}", said);
        }
        if !v.p.config.positions {
            prop_assert!(same_scores, "without positions a shuffle keeps every score: {}", said);
        }
    }

    /// `presets_note`: "all 3 words / k of the 3 words get a different output row" and "it does not
    /// change beyond rounding" / "it changes by up to x", recomputed from the presets' outputs;
    /// without positions the swapped past never changes the row.
    #[test]
    fn presets_note_states_the_live_comparison(case in case()) {
        let v = case.build();
        let config = ExplorerConfig { tokens: Vec::new(), ..v.p.config.clone() };
        let outputs = |s: &str| {
            let p = Prepared::new(ExplorerConfig { tokens: tokenize(s), ..config.clone() });
            p.heads.iter().map(|h| h.weights(v.tau) * &h.v).collect::<Vec<DMatrix<f64>>>()
        };
        let gap = |x: &[DMatrix<f64>], i: usize, y: &[DMatrix<f64>], j: usize| {
            x.iter().zip(y).map(|(m, n)| (m.row(i) - n.row(j)).abs().max()).fold(0.0, f64::max)
        };
        let (a, b) = (tokenize(PRESETS[0]), tokenize(PRESETS[1]));
        let (oa, ob) = (outputs(PRESETS[0]), outputs(PRESETS[1]));
        let differ = (0..a.len())
            .filter(|&i| gap(&oa, i, &ob, b.iter().position(|w| *w == a[i]).unwrap()) > ROUNDING)
            .count();
        let swap = gap(&oa, 2, &outputs(PAST_SWAPPED), 2);
        let positions = v.p.config.positions;
        let said = text::presets_note(&order_demo(&config, v.tau), positions);
        prop_assert_clean!(&said);
        let expected = match differ {
            3 => "here all 3 words get a different output row".to_string(),
            0 => "here no word's output row differs beyond rounding at this τ".to_string(),
            n => format!("here {n} of the 3 words get a different output row"),
        };
        prop_assert!(said.contains(&expected), "expected {:?}: {}", expected, said);
        if swap <= ROUNDING {
            prop_assert!(said.contains("it does not change beyond rounding"), "{}", said);
        } else {
            prop_assert!(said.contains(&format!("it changes by up to {}", fixed(swap, 3))), "{}", said);
        }
        if !positions {
            prop_assert!(swap <= ROUNDING, "the order inside a past changed a row without positions: {}", swap);
        }
    }

    /// `mask_fill_note`: "the same weights, bit for bit, with an exact 0 for every future key" only
    /// when the −1e9 fill gives exactly that, else "e^(−1e9 − max) is not 0"; "1/T each" for a row
    /// with nothing visible, and NaN in every entry with −∞.
    #[test]
    fn mask_fill_note_follows_the_fills(case in case()) {
        let v = case.build();
        let (t, i) = (v.p.len(), v.row);
        let scale = logit_scale(v.d(), v.tau);
        let demo = mask_fill_demo(&v.p.heads[v.head].scores, i, scale);
        let said = text::mask_fill_note(&demo, &v.tokens()[i], i);
        prop_assert_clean!(&said);
        let same = demo.with_infinity.iter().zip(&demo.with_large).all(|(x, y)| x.to_bits() == y.to_bits());
        let future_zero = demo.with_large[i + 1..].iter().all(|&x| x == 0.0);
        prop_assert!(said.contains(&format!("For row {} {}", i + 1, quote(&v.tokens()[i]))), "{}", said);
        if said.contains("the same weights, bit for bit, with an exact 0 for every future key") {
            prop_assert!(same && future_zero, "{}", said);
        } else {
            prop_assert!(!future_zero, "{}", said);
        }
        prop_assert!(said.contains(&format!("an even split, 1/{t} each")), "{}", said);
        prop_assert!(demo.all_masked_large.iter().all(|&x| (x - 1.0 / t as f64).abs() < ROUNDING));
        prop_assert!(demo.all_masked_infinity.iter().all(|x| x.is_nan()));
    }

    /// `damage_sentences`, `broken_heatmap_label`, `cheating_sentence`, `broken_row_summary` and
    /// `broken_cell_description`: the largest change and its cell ("exactly" only at 0), how many
    /// rows no longer sum to 1 and the furthest off, how many cells see the future and their
    /// weight, "peakier"/"flatter" by mean entropy, how many columns sum to 1, the row that gives
    /// the next token most — all recounted from the correct and broken weights of every head.
    #[test]
    fn damage_sentences_recount_the_damage(case in case()) {
        let v = case.build();
        let (t, heads, mistakes) = (v.p.len(), v.p.heads.len(), v.mistakes);
        let tokens = v.tokens();
        for (h, broken) in broken_weights_all(&v.p, mistakes, v.tau).iter().enumerate() {
            let correct = v.p.heads[h].weights(v.tau);
            let said = text::damage_sentences(&Damage::new(&correct, broken), mistakes, heads);
            for s in &said {
                prop_assert_clean!(s);
            }
            // 1. The largest change.
            let mut change = (0.0f64, 0, 0);
            for i in 0..t {
                for j in 0..t {
                    let c = (broken[(i, j)] - correct[(i, j)]).abs();
                    if c > change.0 {
                        change = (c, i, j);
                    }
                }
            }
            if change.0 == 0.0 {
                prop_assert!(said[0].starts_with("No weight changed: every weight is exactly correct attention's."), "{}", said[0]);
            } else if change.0 < ROUNDING {
                prop_assert!(said[0].starts_with("No weight changed beyond rounding"), "{}", said[0]);
                prop_assert!(!said[0].contains("exactly"), "{}", said[0]);
            } else {
                let (r, k) = (number_after(&said[0], "(row ") as usize - 1, number_after(&said[0], ", key ") as usize - 1);
                prop_assert_eq!((broken[(r, k)] - correct[(r, k)]).abs(), change.0, "{}", said[0]);
                prop_assert!(said[0].starts_with(&format!("The largest change of any weight is {} ", fixed(change.0, 3))), "{}", said[0]);
            }
            if heads == 1 && mistakes == Mistakes::NONE.with(Mistake::ScaleByModelWidth, true) {
                prop_assert_eq!(change.0, 0.0, "with one head √d_model is √d");
            }
            // 2. Row sums.
            let sums: Vec<f64> = (0..t).map(|i| full(broken, i).iter().sum()).collect();
            let off: Vec<usize> = (0..t).filter(|&i| (sums[i] - 1.0).abs() > ROUNDING).collect();
            if off.is_empty() {
                prop_assert_eq!(&said[1], "Every row still sums to 1.");
            } else {
                prop_assert!(said[1].starts_with(&format!("{} of {t} no longer sum to 1; the furthest off is row ", plural(off.len(), "row", "rows"))), "{}", said[1]);
                let r = number_after(&said[1], "the furthest off is row ") as usize - 1;
                let furthest = off.iter().map(|&i| (sums[i] - 1.0).abs()).fold(0.0, f64::max);
                prop_assert_eq!((sums[r] - 1.0).abs(), furthest, "{}", said[1]);
                prop_assert!(said[1].contains(&format!("which sums to {} (", fixed(sums[r], 3))), "{}", said[1]);
            }
            // 3. The future.
            let future: Vec<(usize, usize)> = (0..t).flat_map(|i| (i + 1..t).map(move |j| (i, j))).filter(|&(i, j)| broken[(i, j)] > 0.0).collect();
            let future_weight: f64 = future.iter().map(|&(i, j)| broken[(i, j)]).sum();
            if future.is_empty() {
                prop_assert_eq!(&said[2], "No cell sees the future: every weight above the diagonal is 0.");
            } else {
                let verb = if future.len() == 1 { "sees" } else { "see" };
                prop_assert!(said[2].starts_with(&format!("{} above the diagonal {verb} the future, with {} of weight in all", plural(future.len(), "cell", "cells"), fixed(future_weight, 3))), "{}", said[2]);
            }
            let label = text::broken_heatmap_label("Head", t, future.len());
            prop_assert!(label.contains(&format!("{} above the diagonal", plural(future.len(), "cell", "cells"))), "{}", label);
            // 4. Peakier or flatter, by the mean entropy of the rows (each divided by its sum).
            let mean = |f: &dyn Fn(usize) -> f64| (0..t).map(f).sum::<f64>() / t as f64;
            let be = mean(&|i| {
                let row = full(broken, i);
                let s: f64 = row.iter().sum();
                if s > 0.0 { entropy(&row.iter().map(|w| w / s).collect::<Vec<_>>()) } else { 0.0 }
            });
            let ce = mean(&|i| entropy(&full(&correct, i)));
            let shape = if be < ce - 1e-9 {
                "by entropy, the rows are peakier"
            } else if be > ce + 1e-9 {
                "by entropy, the rows are flatter"
            } else {
                "by entropy, the rows are as peaked as correct ones"
            };
            prop_assert!(said[3].contains(shape), "expected {:?}: {}", shape, said[3]);
            prop_assert!(said[3].contains(&format!("its entropy {} bits", fixed(be, 3))), "{}", said[3]);
            // 5. Columns.
            if mistakes.contains(Mistake::SoftmaxOverColumns) {
                let ones = (0..t).filter(|&j| (broken.column(j).sum() - 1.0).abs() <= ROUNDING).count();
                prop_assert!(said[4].starts_with(&format!("{ones} of {t} columns sum to 1")), "{}", said[4]);
            } else {
                prop_assert_eq!(said.len(), 4);
            }
            // The row that gives the next token most.
            let next = (0..t.saturating_sub(1)).map(|i| (i, broken[(i, i + 1)])).filter(|&(_, w)| w > ROUNDING)
                .fold(None, |best: Option<(usize, f64)>, (i, w)| match best { Some((_, b)) if b >= w => best, _ => Some((i, w)) });
            match (text::cheating_sentence(tokens, broken), next) {
                (None, None) => {}
                (Some(s), Some((i, w))) => {
                    prop_assert_clean!(&s);
                    let r = number_after(&s, "Look first at row ") as usize - 1;
                    prop_assert_eq!(broken[(r, r + 1)], w, "{}", s);
                    prop_assert!(s.contains(&format!("it now gives {} of its weight to {}", percent(w), quote(&tokens[r + 1]))), "{}", s);
                    prop_assert!(i <= r || broken[(r, r + 1)] == w);
                }
                (s, n) => prop_assert!(false, "cheating sentence {:?} for {:?}", s, n),
            }
            if mistakes.is_empty() {
                prop_assert!(future.is_empty());
            }
            // The selected row and its cells.
            let i = v.row;
            let row = full(broken, i);
            let summary = text::broken_row_summary(tokens, broken, i);
            prop_assert_clean!(&summary);
            let top = tied_top(&row);
            let each = if top.len() > 1 { " each" } else { "" };
            prop_assert!(summary.ends_with(&format!("attends most to {} ({}{each}); its weights sum to {}.", names(tokens, &top), percent(row[top[0]]), fixed(sums[i], 3))), "{}", summary);
            for j in 0..t {
                let cell = text::broken_cell_description(tokens, broken, i, j);
                prop_assert_eq!(cell.ends_with(" (sees the future!)"), j > i && broken[(i, j)] > 0.0, "{}", cell);
            }
        }
    }

    /// `mistake_why`: each mistake's general claim holds for the live head with that mistake alone —
    /// √d_model makes every row at least as flat (the same with one head), ×√d makes the scores d
    /// times correct attention's and every row at least as peaked, masking after the softmax leaves
    /// every row that gave the future weight summing to less than 1, the column softmax makes every
    /// column sum to 1, triu hides every past key, masking with 0 leaves the future a share, dropout
    /// zeroes a weight or divides it by 0.9.
    #[test]
    fn mistake_explanations_hold_for_the_live_head(case in case()) {
        let v = case.build();
        let (t, d, tau, h) = (v.p.len(), v.d(), v.tau, v.head);
        let scores = &v.p.heads[h].scores;
        let correct = v.p.heads[h].weights(tau);
        let made = |m: Mistake| broken_weights(scores, Mistakes::NONE.with(m, true), (d, v.p.d_model), tau, (v.p.config.seed, h));
        for m in Mistake::ALL {
            prop_assert_clean!(text::mistake_why(m));
            let w = made(m);
            match m {
                Mistake::ScaleByModelWidth => {
                    if v.p.heads.len() == 1 {
                        prop_assert_eq!(&w, &correct);
                    }
                    for i in 0..t {
                        prop_assert!(max_of(&visible(&w, i)) <= max_of(&visible(&correct, i)) + ROUNDING);
                        prop_assert!(entropy(&visible(&w, i)) >= entropy(&visible(&correct, i)) - 1e-9);
                    }
                }
                Mistake::MultiplyBySqrtD => {
                    let ratio = broken_scale(Mistakes::NONE.with(m, true), d, v.p.d_model, tau) / logit_scale(d, tau);
                    prop_assert!((ratio / d as f64 - 1.0).abs() < 1e-12, "ratio {}", ratio);
                    for i in 0..t {
                        prop_assert!(max_of(&visible(&w, i)) >= max_of(&visible(&correct, i)) - ROUNDING);
                        prop_assert!(entropy(&visible(&w, i)) <= entropy(&visible(&correct, i)) + 1e-9);
                    }
                }
                Mistake::MaskAfterSoftmax => {
                    // The share the future got before it was zeroed: the full row's softmax.
                    for i in 0..t {
                        let sum: f64 = full(&w, i).iter().sum();
                        let logits: Vec<f64> = (0..t).map(|j| scores[(i, j)] * logit_scale(d, tau)).collect();
                        let top = max_of(&logits);
                        let e: Vec<f64> = logits.iter().map(|l| (l - top).exp()).collect();
                        let future_share = e[i + 1..].iter().sum::<f64>() / e.iter().sum::<f64>();
                        if future_share > ROUNDING {
                            prop_assert!(sum < 1.0, "row {} gave the future {} and sums to {}", i, future_share, sum);
                        }
                    }
                }
                Mistake::SoftmaxOverColumns => {
                    // "the columns sum to 1 and the rows … need not": with two tokens or more
                    // the rows sum to 1 only when one query takes (to rounding) all of each column.
                    for j in 0..t {
                        prop_assert!((w.column(j).sum() - 1.0).abs() <= ROUNDING, "column {}", j);
                    }
                    if t >= 2 {
                        let off = (0..t).filter(|&i| (full(&w, i).iter().sum::<f64>() - 1.0).abs() > ROUNDING).count();
                        prop_assert!(off > 0 || text::mistake_why(m).contains("the rows, each query's share of attention, need not"), "every row still sums to 1 at τ {}", tau);
                    }
                }
                Mistake::WrongTriangle => {
                    for i in 0..t {
                        prop_assert!((0..i).all(|j| w[(i, j)] == 0.0), "row {} sees its past", i);
                        prop_assert!(w[(i, i)] > 0.0 || (i + 1..t).any(|j| w[(i, j)] > 0.0));
                    }
                }
                Mistake::MaskWithZero => {
                    // "the future keeps a share … unless … the share rounds to 0": a row whose
                    // future gets exactly 0 has a visible score so far above 0 that e^(0 − max)
                    // underflows.
                    for i in 0..t.saturating_sub(1) {
                        let share: f64 = (i + 1..t).map(|j| w[(i, j)]).sum();
                        let top = (0..=i).map(|j| scores[(i, j)] * logit_scale(d, tau)).fold(f64::NEG_INFINITY, f64::max);
                        prop_assert!(share > 0.0 || (top > 700.0 && text::mistake_why(m).contains("rounds to 0")), "row {}: the future keeps no share at τ {} (top score {})", i, tau, top);
                    }
                }
                Mistake::Dropout => {
                    for i in 0..t {
                        for j in 0..t {
                            let x = w[(i, j)];
                            prop_assert!(x == 0.0 || x == correct[(i, j)] / 0.9, "({}, {}): {}", i, j, x);
                        }
                    }
                }
            }
        }
    }

    /// The quiz (`quiz_prompt`, `quiz_choice`, `quiz_verdict`, `quiz_number`, `quiz_why`): every
    /// right answer recounted from the heatmap shown (broken or not) — the top keys, the future
    /// cell's 0, the direction when τ halves, the head with the higher mean entropy, the equal
    /// columns, the mistakes that make the shown heatmap — and every "within x" / "at most x" is a
    /// true bound as printed.
    #[test]
    fn quiz_answers_and_reveals_are_the_models(case in case(), quiz_seed in any::<u64>()) {
        let v = case.build();
        let (t, h, tau) = (v.p.len(), v.head, v.tau);
        let tokens = v.tokens();
        let on = QuizOn { head: h, tau, mistakes: v.mistakes, selected_row: v.row };
        let correct = v.p.heads[h].weights(tau);
        let shown = if v.mistakes.is_empty() {
            correct.clone()
        } else {
            broken_weights(&v.p.heads[h].scores, v.mistakes, (v.d(), v.p.d_model), tau, (v.p.config.seed, h))
        };
        for q in questions(&v.p, on, quiz_seed) {
            let texts = [
                text::quiz::quiz_prompt(&q, tokens, tau),
                text::quiz::quiz_verdict(&q, tokens, true),
                text::quiz::quiz_verdict(&q, tokens, false),
                text::quiz::quiz_number(&q, tokens),
                text::quiz::quiz_why(&q, tokens),
            ];
            for s in &texts {
                prop_assert_clean!(s);
            }
            for &c in &q.choices {
                prop_assert_clean!(&text::quiz::quiz_choice(c, tokens));
            }
            let number = &texts[3];
            let right: Vec<Choice> = match &q.answer {
                Answer::Choices(ks) => ks.iter().map(|&k| q.choices[k]).collect(),
                Answer::Number { .. } => Vec::new(),
            };
            match q.kind {
                Kind::FirstRow => {
                    prop_assert_eq!(q.value, shown[(0, 0)]);
                    if v.mistakes.is_empty() {
                        prop_assert_eq!(q.value, 1.0);
                    }
                }
                Kind::TopKey => {
                    let keys = if v.mistakes.is_empty() { q.row + 1 } else { t };
                    let row: Vec<f64> = (0..keys).map(|j| shown[(q.row, j)]).collect();
                    let top: Vec<Choice> = tied_top(&row).into_iter().map(Choice::Key).collect();
                    prop_assert_eq!(&right, &top);
                    prop_assert!(max_of(&row) - q.value < ROUNDING);
                    if v.mistakes.is_empty() {
                        // "the key whose q·k is largest gets the largest weight".
                        let scores: Vec<f64> = (0..=q.row).map(|j| v.p.heads[h].scores[(q.row, j)]).collect();
                        let best = (0..=q.row).fold(0, |b, j| if scores[j] > scores[b] { j } else { b });
                        prop_assert!(right.contains(&Choice::Key(best)), "{}", texts[4]);
                    }
                }
                Kind::MaskedCell => {
                    prop_assert!(q.key > q.row);
                    prop_assert_eq!(q.value, shown[(q.row, q.key)]);
                    if v.mistakes.is_empty() {
                        prop_assert_eq!(q.value, 0.0);
                    }
                }
                Kind::HalfTau => {
                    let (before, after) = (visible(&correct, q.row), visible(&v.p.heads[h].weights(tau / 2.0), q.row));
                    match right.as_slice() {
                        [Choice::Direction(Direction::More)] => {
                            prop_assert!(max_of(&after) > max_of(&before) && entropy(&after) < entropy(&before));
                            prop_assert!(texts[4].contains("the top key takes a larger share"));
                        }
                        [Choice::Direction(Direction::Same)] => {
                            // "This row's scores are all equal, so at any τ its weights are too."
                            let s: Vec<f64> = (0..=q.row).map(|j| v.p.heads[h].scores[(q.row, j)]).collect();
                            prop_assert!(max_of(&s) - min_of(&s) <= 1e-9 * (1.0 + max_of(&s).abs()), "scores {:?}: {}", s, texts[4]);
                        }
                        other => prop_assert!(false, "half τ answered {:?}", other),
                    }
                }
                Kind::HotLimit => {
                    // "every weight of the model's row is already within x of it": x as printed.
                    let hot = visible(&v.p.heads[h].weights(SLIDER_MAX_TAU), q.row);
                    let limit = 1.0 / (q.row + 1) as f64;
                    let gap = hot.iter().map(|w| (w - limit).abs()).fold(0.0, f64::max);
                    let printed = number_after(number, "already within ");
                    prop_assert!(gap <= printed, "gap {} is not within the printed {}: {}", gap, printed, number);
                }
                Kind::SpreadHead => {
                    let (Choice::Head(a), Choice::Head(b)) = (q.choices[0], q.choices[1]) else { unreachable!() };
                    let mean = |k: usize| {
                        let w = v.p.heads[k].weights(tau);
                        (1..t).map(|i| entropy(&visible(&w, i))).sum::<f64>() / (t - 1) as f64
                    };
                    let (ea, eb) = (mean(a), mean(b));
                    prop_assert!((ea - q.value).abs() < 1e-9 && (eb - q.reference).abs() < 1e-9);
                    prop_assert_eq!(&right, &vec![Choice::Head(if eb > ea { b } else { a })]);
                    // As printed, the two means never contradict the answer.
                    let (pa, pb) = (fixed(ea, 3).parse::<f64>().unwrap(), fixed(eb, 3).parse::<f64>().unwrap());
                    prop_assert!(if eb > ea { pb >= pa } else { pa >= pb }, "{}", number);
                }
                Kind::EqualColumns => {
                    let off = Prepared::new(ExplorerConfig { positions: false, ..v.p.config.clone() });
                    let w = off.heads[h].weights(tau);
                    let gap = |a: usize, b: usize| (b..t).map(|r| (w[(r, a)] - w[(r, b)]).abs()).fold(0.0, f64::max);
                    for (k, &c) in q.choices.iter().enumerate() {
                        let Choice::Pair(a, b) = c else { unreachable!() };
                        prop_assert_eq!(right.contains(&c), gap(a, b) <= ROUNDING, "choice {}", k);
                    }
                    let printed = number_after(number, "differ by at most ");
                    prop_assert!(gap(q.row, q.key) <= printed, "{}", number);
                    prop_assert_eq!(tokens[q.row].to_lowercase(), tokens[q.key].to_lowercase());
                }
                Kind::WhichMistake => {
                    let shown = q.heatmap.clone().unwrap();
                    prop_assert!((&shown - &correct).abs().max() >= ROUNDING);
                    let scores = &v.p.heads[h].scores;
                    for &c in &q.choices {
                        let Choice::Mistake(m) = c else { unreachable!() };
                        let w = broken_weights(scores, Mistakes::NONE.with(m, true), (v.d(), v.p.d_model), tau, (v.p.config.seed, h));
                        prop_assert_eq!(right.contains(&c), (&w - &shown).abs().max() < ROUNDING, "{:?}", m);
                    }
                    let Choice::Mistake(first) = right[0] else { unreachable!() };
                    prop_assert!(texts[4].contains(text::mistake_why(first)));
                }
                Kind::DropoutMean => {
                    prop_assert_eq!(&right, &vec![Choice::Value(1.0)]);
                    prop_assert!((q.reference - 1.0).abs() < 0.05, "mean sum {}", q.reference);
                }
                Kind::Weight => {
                    prop_assert!(q.key <= q.row);
                    prop_assert_eq!(q.value, shown[(q.row, q.key)]);
                }
            }
        }
    }

    /// `row_saturation_text`: "puts x on its top key at τ = 1 and y unscaled", and "saturated (over
    /// 99 %)" only when it is; row 1 "its weight is 1 at any τ".
    #[test]
    fn row_saturation_is_the_rows(case in case()) {
        let v = case.build();
        let (i, h) = (v.row, v.head);
        let head = &v.p.heads[h];
        let scaled = max_of(&visible(&head.weights(1.0), i));
        let unscaled = max_of(&visible(&head.weights(unscaled_tau(v.d())), i));
        let said = text::row_saturation_text(&v.tokens()[i], i, h, scaled, unscaled);
        prop_assert_clean!(&said);
        if i == 0 {
            prop_assert_eq!(head.weights(v.tau)[(0, 0)], 1.0);
            prop_assert!(said.contains("its weight is 1 at any τ"), "{}", said);
        } else {
            prop_assert!(said.contains(&format!("puts {} on its top key at τ = 1 and {} unscaled", percent(scaled), percent(unscaled))), "{}", said);
            prop_assert_eq!(said.contains("saturated"), unscaled > SATURATED, "{}", said);
            prop_assert!(unscaled >= scaled - ROUNDING, "unscaled is never flatter");
        }
    }

    /// The lesson's checks (`heads_check`, `heads_sum_check`, `trace_check`, `zero_scores_check`,
    /// `averaging_check`, `heads_split`, `heads_shapes`): ✓ only when the two computations agree,
    /// the printed difference is the one measured, and the shapes are the model's.
    #[test]
    fn lesson_checks_and_shapes_are_the_models(case in case()) {
        let v = case.build();
        let (t, heads, d) = (v.p.len(), v.p.heads.len(), v.d());
        let weights = v.p.weights_all(v.tau);
        let refs: Vec<&DMatrix<f64>> = weights.iter().collect();
        let row = HeadsRow::new(&v.p, &refs, v.row);
        for (said, diff) in [(text::heads_check(&row), row.diff), (text::heads_sum_check(&row), row.sum_diff)] {
            prop_assert_clean!(&said);
            prop_assert_eq!(said.starts_with('✓'), diff < ROUNDING, "{}", said);
            prop_assert!(said.contains(&scientific(diff, 1)), "{}", said);
            prop_assert!(said.starts_with('✓'), "the layer output disagrees with itself: {}", said);
        }
        let trace = RowTrace::new(&v.p.heads[v.head], &weights[v.head], v.row, v.tau);
        let said = text::trace_check(&trace);
        prop_assert_clean!(&said);
        let blend: Vec<f64> = (0..trace.out_row.len()).map(|c| (0..=v.row).map(|j| weights[v.head][(v.row, j)] * v.p.heads[v.head].v[(j, c)]).sum()).collect();
        let diff = blend.iter().zip(&trace.out_row).map(|(a, b)| (a - b).abs()).fold(0.0, f64::max);
        prop_assert_eq!(said.starts_with('✓'), trace.diff < ROUNDING, "{}", said);
        prop_assert!(diff < 1e-9, "the trace's blend {}", diff);
        let wei = averaging_matrix(t);
        let said = text::averaging_row(v.tokens(), v.row);
        prop_assert!(said.contains(&format!("takes {} from each of its {} visible tokens", percent(wei[(v.row, 0)]), v.row + 1)), "{}", said);
        prop_assert!((0..=v.row).all(|j| wei[(v.row, j)] == wei[(v.row, 0)]));
        let gap = (&weights[v.head] - &wei).abs().max();
        prop_assert_clean!(text::live_gap(v.tau, v.head, gap));
        let zeros = zero_score_softmax(t);
        let identical = zeros.iter().zip(wei.iter()).all(|(a, b)| a.to_bits() == b.to_bits());
        let gap = (&zeros - &wei).abs().max();
        let said = text::zero_scores_check(gap, identical);
        prop_assert_eq!(said.contains("bit for bit"), identical, "{}", said);
        prop_assert!(said.starts_with('✓'), "{}", said);
        let split = text::heads_split(heads, d, D_MODEL);
        prop_assert_eq!(heads * d, D_MODEL);
        prop_assert!(v.p.heads.iter().all(|h| h.q.ncols() == d && h.k.ncols() == d && h.v.ncols() == d));
        if heads > 1 {
            prop_assert!(split.contains(&format!("cut into {heads} slices of {d} columns")), "{}", split);
            // "as many multiplications as one head of d_model": projections 3·T·d_model·d per head,
            // scores and A·V T·T·d each.
            prop_assert_eq!(heads * (3 * t * D_MODEL * d + 2 * t * t * d), 3 * t * D_MODEL * D_MODEL + 2 * t * t * D_MODEL);
        }
        let qkv = QkvRow::new(&v.p, v.head, v.row);
        let said = text::qkv_check(&qkv);
        prop_assert_clean!(&said);
        prop_assert_eq!(said.starts_with('✓'), qkv.diff < ROUNDING, "{}", said);
        prop_assert!(said.contains(&format!("each of the head's {d} columns")), "{}", said);
        let said = text::averaging_check(averaging_error(&wei, &v.p.x));
        prop_assert!(said.starts_with('✓'), "{}", said);
        // The glossary's sizes and its softmax example, recomputed.
        let glossary = text::glossary(t, D_MODEL, heads, v.trained());
        let def = |s: &str| glossary.iter().find(|(k, _)| *k == s).map(|(_, v)| v.clone()).unwrap_or_default();
        prop_assert!(def("T").contains(&format!("(here {t})")), "{}", def("T"));
        prop_assert!(def("h").contains(&format!("(here {heads})")), "{}", def("h"));
        prop_assert!(def("d").contains(&format!("(here {D_MODEL} ÷ {heads} = {d})")), "{}", def("d"));
        let e: Vec<f64> = [2f64, 1.0, 0.0].iter().map(|s| s.exp()).collect();
        let total: f64 = e.iter().sum();
        let example: Vec<String> = e.iter().map(|x| fixed(x / total, 3)).collect();
        prop_assert!(def("softmax").contains(&format!("scores 2, 1, 0 give weights {}", example.join(", "))), "{}", def("softmax"));
        // What is trained and what is not.
        let note = text::weights_note(&v.p.weights, v.p.config.seed);
        prop_assert_clean!(&note);
        match v.p.weights.checkpoint() {
            None => prop_assert!(note.contains(&format!("random (seed {})", v.p.config.seed)), "{}", note),
            Some(c) => {
                let cfg = c.model.config();
                prop_assert!(note.contains(&format!("a {}-layer, {}-head attention model", cfg.layers, cfg.heads)), "{}", note);
                prop_assert!(note.contains(&format!("for {} steps (seed {})", c.steps, c.seed)), "{}", note);
                prop_assert_eq!(cfg.heads, heads);
            }
        }
        let shapes = text::heads_shapes(t, heads, d, D_MODEL, v.trained());
        prop_assert!(shapes.contains(&format!("T × d = {t} × {d}")), "{}", shapes);
        let out = v.p.layer_output(&refs);
        prop_assert_eq!(out.output.shape(), (t, D_MODEL));
    }

    /// The compare view (`compare_text`, `row_change_text`, `change_sentence`): the three rows
    /// that changed most, largest Σ|Δ| first, each with its largest change, its key, its sign and
    /// who gives the key more, recomputed from A − B; "unchanged" only for a row that did not move.
    #[test]
    fn compare_sentences_recount_the_difference(case in case(), which in 0u8..4, other_mistakes in 0u8..128, tau_b in -2.0f64..=2.0) {
        let v = case.build();
        if v.trained() {
            // A setting (`ViewState`) here is built for random weights; trained views are covered
            // by the other tests.
            return Ok(());
        }
        let a = ViewState {
            sentence: v.sentence.clone(),
            tau: v.tau,
            seed: v.p.config.seed,
            heads: v.p.heads.len(),
            head: v.head,
            row: v.row,
            positions: v.p.config.positions,
            broken: v.mistakes,
            ..ViewState::default()
        };
        let change = match which {
            0 => CompareChange::Tau(10f64.powf(tau_b)),
            1 => CompareChange::Seed(v.other_seed),
            2 => CompareChange::Positions,
            _ => CompareChange::Broken(Mistake::ALL.into_iter().enumerate().filter(|(k, _)| other_mistakes & (1 << k) != 0).map(|(_, m)| m).collect()),
        };
        let b = setting_b(&change, &a);
        let diff = difference(&view_weights(&a), &view_weights(&b));
        let ct = text::compare_text(&change, (&a, &b), v.tokens(), &diff);
        prop_assert_clean!(&ct.change);
        prop_assert_clean!(&ct.legend);
        match &change {
            CompareChange::Positions => {
                let (on, off) = if a.positions { ("off", "on") } else { ("on", "off") };
                prop_assert_eq!(&ct.change, &format!("B has positions {on} (A has them {off})."));
                prop_assert_eq!(b.positions, !a.positions);
            }
            CompareChange::Broken(m) if m.is_empty() => prop_assert!(ct.change.contains("correct attention"), "{}", ct.change),
            CompareChange::Broken(m) => {
                for x in m.iter() {
                    prop_assert!(ct.change.contains(text::mistake_label(x)), "{}", ct.change);
                }
            }
            _ => {}
        }
        let t = v.p.len();
        let l1: Vec<f64> = (0..t).map(|i| diff.row(i).iter().map(|x| x.abs()).sum()).collect();
        let mut order: Vec<usize> = (0..t).collect();
        order.sort_by(|&x, &y| l1[y].total_cmp(&l1[x]).then(x.cmp(&y)));
        prop_assert_eq!(ct.rows_changed.len(), t.min(3));
        for (said, &i) in ct.rows_changed.iter().zip(&order) {
            prop_assert_clean!(said);
            prop_assert!(said.starts_with(&format!("Row {} {}:", i + 1, quote(&v.tokens()[i]))), "{} (expected row {})", said, i + 1);
            if l1[i] == 0.0 {
                prop_assert!(said.ends_with(": unchanged."), "{}", said);
                continue;
            }
            let col = number_after(said, "the largest change is on key ") as usize - 1;
            let largest = diff.row(i).iter().map(|x| x.abs()).fold(0.0, f64::max);
            prop_assert_eq!(diff[(i, col)].abs(), largest, "{}", said);
            let (sign, who) = if diff[(i, col)] < 0.0 { ("−", "B gives it more") } else { ("+", "A gives it more") };
            prop_assert!(said.ends_with(&format!("{sign}{} ({who}).", fixed(largest, 3))), "{}", said);
            prop_assert!(said.contains(&format!("Σ|Δ| = {};", fixed(l1[i], 3))), "{}", said);
        }
        prop_assert!(ct.legend.contains(&format!("±the largest |Δ|, {};", fixed(diff.abs().max(), 3))), "{}", ct.legend);
    }
}

proptest! {
    #![proptest_config(config(256))]

    /// `circuit_items` and `circuit_summary`: "Met" exactly when the score reaches its threshold, a
    /// score printed beside its threshold never reads as the threshold unless it is, and the
    /// summary's branch (formed, cannot form, forms later, held before, not yet) is the check's.
    #[test]
    fn the_circuit_checklist_is_its_thresholds(
        prev in 0.0f64..1.0, induction in prop::option::of((0usize..8, 0.0f64..1.0)),
        ratio in 0.0f64..2.0, near in 0u8..4, step in 0usize..5000, first in prop::option::of(0usize..5000),
        head in 0usize..8,
    ) {
        // Sometimes exactly at, or a hair from, a threshold.
        let at = |x: f64, min: f64| match near { 0 => min, 1 => min + 1e-9, 2 => min - 1e-9, _ => x };
        let check = CircuitCheck {
            previous_token: BestHead { head, score: at(prev, PREVIOUS_TOKEN_MIN) },
            induction: induction.map(|(h, s)| BestHead { head: h, score: at(s, INDUCTION_MIN) }),
            repeat_ratio: at(ratio, REPEAT_RATIO_MAX),
        };
        let items = text::circuit_items(&check);
        let met = [
            check.previous_token.score >= PREVIOUS_TOKEN_MIN,
            check.induction.is_some_and(|b| b.score >= INDUCTION_MIN),
            check.repeat_ratio <= REPEAT_RATIO_MAX,
        ];
        for (item, (met, (score, limit))) in items.iter().zip(met.into_iter().zip([
            (Some(check.previous_token.score), PREVIOUS_TOKEN_MIN),
            (check.induction.map(|b| b.score), INDUCTION_MIN),
            (Some(check.repeat_ratio * 100.0), REPEAT_RATIO_MAX * 100.0),
        ])) {
            prop_assert_clean!(&item.text);
            prop_assert_eq!(item.met, met, "{}", item.text);
            match score {
                None => prop_assert_eq!(item.status, "Not possible"),
                Some(score) => {
                    prop_assert_eq!(item.status, if met { "Met" } else { "Not yet" });
                    let printed = if limit > 1.0 { number_after(&item.text, "is ") } else { number_after(&item.text, "scores ") };
                    if score != limit {
                        prop_assert!(printed != limit, "{} printed as its threshold {}: {}", score, limit, item.text);
                    }
                }
            }
        }
        let summary = text::circuit_summary(step, &check, first);
        prop_assert_clean!(&summary);
        let formed = met.iter().all(|&m| m);
        prop_assert_eq!(summary.contains("has formed"), formed, "{}", summary);
        if !formed && check.induction.is_none() {
            prop_assert!(summary.contains("cannot form"), "{}", summary);
        }
        if let (false, Some(_), Some(f)) = (formed, check.induction, first) {
            prop_assert_eq!(summary.contains("forms at the evaluation"), f > step, "{}", summary);
        }
    }

    /// `grammar_verdict`, `loss_explainer`, `first_copy_note`, `repeat_verdict`: "above"/"below the
    /// line", "worse"/"better than"/"the same as" the even guess, "above"/"below it" and "more than
    /// half" are the numbers' own order, and the printed numbers never contradict the word.
    #[test]
    fn training_verdicts_follow_the_numbers(
        loss in 0.0f64..5.0, floor in 0.1f64..3.0, vocab in 2usize..64, sequences in 1usize..500,
        ratio in 0.0f64..1.5, step in 0usize..10_000, first in prop::option::of(0usize..10_000), stuck in any::<bool>(),
    ) {
        let floors = GrammarFloors { held_out: floor, training: floor * 0.9 };
        let verdict = text::grammar_verdict(step, loss, floors, sequences, first);
        prop_assert_clean!(&verdict);
        let gap = loss / floor - 1.0;
        prop_assert_eq!(verdict.contains("above the line"), gap >= 0.0, "{}", verdict);
        prop_assert_eq!(verdict.contains("has not come within"), first.is_none(), "{}", verdict);
        let even = (vocab as f64).ln();
        let explainer = text::loss_explainer(vocab, sequences, Some(loss));
        prop_assert_clean!(&explainer);
        let word = if loss > even { "worse than" } else if loss < even { "better than" } else { "the same as" };
        prop_assert!(explainer.contains(word), "{}", explainer);
        let note = text::first_copy_note(vocab, loss, sequences);
        prop_assert_clean!(&note);
        prop_assert_eq!(note.contains("above it"), loss >= even, "{}", note);
        let stuck = stuck && ratio > 0.5;
        let repeat = text::repeat_verdict(step, ratio, stuck);
        prop_assert_clean!(&repeat);
        prop_assert!(repeat.contains(&percent(ratio)), "{}", repeat);
    }

    /// `agreement_summary`, `training_status`, `checkpoints_note`: the counts and shares are the
    /// report's, the head named looks at the subject most (first of equals), and "1 step" /
    /// "1 checkpoint" only for one.
    #[test]
    fn agreement_and_counts_are_the_reports(
        sentences in 0usize..400, correct in 0.0f64..=1.0, mismatched in 0.0f64..=1.0, right in 0.0f64..=1.0,
        weights in prop::collection::vec(prop::collection::vec(0.0f64..1.0, 0..5), 0..3),
        step in 0usize..10_000, kept in 0usize..40,
    ) {
        let correct = (correct * sentences as f64) as usize;
        let mismatched = (mismatched * sentences as f64) as usize;
        let mismatched_correct = (right * mismatched as f64) as usize;
        let report = AgreementReport {
            sentences,
            correct,
            mismatched,
            mismatched_correct,
            attractor_weight: weights.iter().map(|l| l.iter().map(|w| 1.0 - w).collect()).collect(),
            subject_weight: weights.clone(),
        };
        let said = text::agreement_summary(step, &report);
        prop_assert_clean!(&said);
        let share = |n: usize, of: usize| percent(n as f64 / of.max(1) as f64);
        prop_assert!(said.contains(&format!("in {correct} of {sentences} held-out sentences ({})", share(correct, sentences))), "{}", said);
        prop_assert!(said.contains(&format!("in {mismatched_correct} of the {mismatched} whose nearer noun")), "{}", said);
        prop_assert!(said.contains(&format!("({}).", share(mismatched_correct, mismatched))), "{}", said);
        let best = weights.iter().enumerate().flat_map(|(l, ws)| ws.iter().enumerate().map(move |(h, &w)| (l, h, w)))
            .fold(None, |best: Option<(usize, usize, f64)>, x| match best { Some(b) if b.2 >= x.2 => Some(b), _ => Some(x) });
        match best {
            None => prop_assert!(!said.contains("looks at the subject"), "{}", said),
            Some((l, h, w)) => {
                let layer = number_after(&said, "From the nearer noun's row, layer ") as usize - 1;
                let head = number_after(&said, &format!("layer {}, head ", layer + 1)) as usize - 1;
                prop_assert_eq!(weights[layer][head], w, "{}", said);
                prop_assert!(layer < l || (layer == l && head <= h), "not the first of equals: {}", said);
                prop_assert!(said.contains(&format!("{} of its weight on average, against {}", fixed(w, 2), fixed(1.0 - w, 2))), "{}", said);
            }
        }
        let status = text::training_status(step, "repeat", false);
        prop_assert_eq!(status.contains(" 1 step "), step == 1, "{}", status);
        prop_assert_eq!(status.starts_with("Not trained yet"), step == 0, "{}", status);
        let note = text::checkpoints_note(kept, 50, 32);
        prop_assert!(note.starts_with(&format!("{} kept", plural(kept, "checkpoint", "checkpoints"))), "{}", note);
    }

    /// `closer_row_summary`: the largest weight is the row's largest and sits on the key named; the
    /// entropy and its range (0 to log₂ n) are the row's.
    #[test]
    fn closer_row_summary_names_the_largest(weights in prop::collection::vec(0.0f64..1.0, 1..16), words in prop::collection::vec(0..VOCAB.len(), 16)) {
        let sum: f64 = weights.iter().sum();
        let row: Vec<f64> = if sum > 0.0 { weights.iter().map(|w| w / sum).collect() } else { vec![1.0 / weights.len() as f64; weights.len()] };
        let tokens: Vec<String> = words.iter().map(|&w| VOCAB[w].to_string()).collect();
        let said = text::closer_row_summary(&tokens, &row);
        prop_assert_clean!(&said);
        let key = number_after(&said, " on key ") as usize - 1;
        prop_assert_eq!(row[key], max_of(&row), "{}", said);
        prop_assert!(said.starts_with(&format!("Largest weight {} on key {} {};", percent(max_of(&row)), key + 1, quote(&tokens[key]))), "{}", said);
        prop_assert!(said.contains(&format!("entropy {} bits", fixed(entropy(&row), 2))), "{}", said);
    }
}

proptest! {
    #![proptest_config(config(12))]

    /// Step 4 (`notebook_draws`, `gradient_readout`, `times_eight_text`) over lab seeds: how many of
    /// the notebook's pairs lie in the bands, the range of the scaled mean, and the branch that says
    /// unscaled "looks better: its gradient is larger" only when its mean is larger; ×8 "raises"
    /// the largest weight and says "nearly one-hot" only above 95 %.
    #[test]
    fn scaling_sentences_follow_the_lab(seed in any::<u64>(), draws in 40usize..120) {
        let points: Vec<_> = [1, 4, 16, 64, 256].iter().map(|&d| lab_point(d, draws, seed)).collect();
        let said = text::notebook_draws(&points);
        prop_assert_clean!(&said);
        let inside = attention_explorer::model::scaling_lab::NOTEBOOK_DRAWS.iter().filter(|&&(d, u, s)| {
            let p = points.iter().find(|p| p.head_size == d).unwrap();
            (p.unscaled.p10..=p.unscaled.p90).contains(&u) && (p.scaled.p10..=p.scaled.p90).contains(&s)
        }).count();
        prop_assert!(said.contains(&format!("{inside} of these 2 pairs lie inside")), "{}", said);
        let lo = points.iter().map(|p| p.scaled.mean).fold(f64::INFINITY, f64::min);
        let hi = points.iter().map(|p| p.scaled.mean).fold(f64::NEG_INFINITY, f64::max);
        prop_assert!(said.contains(&format!("between {} and {} at every head size from 1 to 256", fixed(lo, 2), fixed(hi, 2))), "{}", said);
        for p in &points {
            let g = text::gradient_readout(p);
            prop_assert_clean!(&g);
            if g.contains("its gradient is larger") {
                prop_assert!(p.gradient_unscaled.mean > p.gradient_scaled.mean, "d {}: {}", p.head_size, g);
            }
            if g.contains("yet the median is") {
                prop_assert!(p.gradient_unscaled.median < p.gradient_scaled.median, "{}", g);
            }
            if g.contains("so scaling changes nothing") {
                prop_assert_eq!(p.head_size, 1);
                prop_assert_eq!(p.gradient_unscaled, p.gradient_scaled);
                prop_assert_eq!(p.unscaled, p.scaled);
            }
            // "Dividing every score by √d divides the variance by d."
            let said = text::variance_readout(p);
            prop_assert_clean!(&said);
            let d = p.head_size as f64;
            prop_assert!((p.variance_scaled * d - p.variance_unscaled).abs() <= 1e-9 * p.variance_unscaled.max(1.0), "{}", said);
            prop_assert_clean!(text::lab_readout(p));
        }
        let x = times_eight(seed);
        let said = text::times_eight_text(&x);
        prop_assert_clean!(&said);
        let (before, after) = (max_of(&x.weights), max_of(&x.weights_times_eight));
        prop_assert!(after >= before, "×8 lowered the largest weight: {}", said);
        prop_assert_eq!(said.contains("nearly one-hot"), after > 0.95, "{}", said);
    }
}
