//! "Predict, then reveal": questions about the live model, each with its exact answer.
//!
//! [`questions`] builds one question per [`Kind`] from the current view (sentence, seed, head
//! split, head, τ, "Break it" mistakes) and a quiz seed: the seed picks the rows, keys, heads and
//! mistakes asked about (the stream `quiz` of [`SeededRng`]), so the same seed and view give every
//! student the same questions. A question whose premise is false for the live model is not asked
//! (one head: no "which of two heads"; no repeated word: no "which two columns"; a mistake that
//! changes nothing here: no "which mistake"), and where the model ties, every tied choice counts
//! as right. [`grade`] marks a response; the words are in `crate::text`.
//!
//! The questions are about the heatmap as shown. With "Break it" mistakes on, that is the broken
//! heatmap: the kinds that read a number off it (row 1, a top key, a future cell, a weight) are
//! asked about the broken weights, with correct attention's number beside them in the reveal; the
//! kinds whose premise is correct attention (τ halved, τ → ∞, two heads' spread, equal columns)
//! are not asked; the two that bring their own setting (which mistake made a heatmap, dropout on
//! average) are asked as always.

use super::broken::{broken_head_weights, Mistake, Mistakes, DROPOUT_P};
use super::claims::{first_repeated_word, top_keys};
use super::explorer::{ExplorerConfig, Prepared};
use super::rng::SeededRng;
use super::stats::{row_entropy_bits, ROUNDING_TOLERANCE};
use super::temperature::SLIDER_MAX_TAU;
use nalgebra::DMatrix;

/// The quiz seed when the link names none.
pub const DEFAULT_QUIZ_SEED: u64 = 1;
/// The quiz seed of the next round: derived from this one, so going round again asks new
/// questions (other rows, keys, heads and mistakes) that a class sharing a link still shares.
/// Within the link's range for seeds, 0 to 2³² − 1.
pub fn next_round_seed(seed: u64) -> u64 {
    SeededRng::stream(seed, "quiz-round").next_u64() % (u64::from(u32::MAX) + 1)
}

/// How far a typed answer may be from an exact number and still count (three decimals).
pub const EXACT_TOLERANCE: f64 = 5e-4;
/// How far a typed guess of a weight may be from the model's and still count.
pub const GUESS_TOLERANCE: f64 = 0.05;

/// What a question asks.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    /// Which key does row `row` give the most weight?
    TopKey,
    /// Does row `row` get peakier, flatter or stay the same when τ halves?
    HalfTau,
    /// The weight of the future cell (`row`, `key`): exactly 0.
    MaskedCell,
    /// Row 1's weight on itself: always 1.
    FirstRow,
    /// Which of two heads spreads its rows more (mean row entropy)?
    SpreadHead,
    /// As τ → ∞, row `row`'s weight on each key: 1/t.
    HotLimit,
    /// With positions off, which two columns are equal (a repeated word)?
    EqualColumns,
    /// Which "Break it" mistake made the shown heatmap?
    WhichMistake,
    /// With dropout, what does row `row` sum to on average over dropout masks? (Exactly 1.)
    DropoutMean,
    /// Guess the weight of row `row` on key `key`.
    Weight,
}

impl Kind {
    /// Every kind, in the order a set asks them. Guessing a weight from the colours comes first:
    /// every Check reveals the heatmap's numbers (and a later question's heatmap prints its own),
    /// so asked later it could be read off what an earlier reveal showed.
    pub const ALL: [Kind; 10] = [
        Kind::Weight,
        Kind::FirstRow,
        Kind::TopKey,
        Kind::MaskedCell,
        Kind::HalfTau,
        Kind::HotLimit,
        Kind::SpreadHead,
        Kind::EqualColumns,
        Kind::WhichMistake,
        Kind::DropoutMean,
    ];

    /// Its name in the page's `data-kind` (tests find questions by it).
    pub fn key(self) -> &'static str {
        match self {
            Kind::TopKey => "top-key",
            Kind::HalfTau => "half-tau",
            Kind::MaskedCell => "masked-cell",
            Kind::FirstRow => "first-row",
            Kind::SpreadHead => "spread-head",
            Kind::HotLimit => "hot-limit",
            Kind::EqualColumns => "equal-columns",
            Kind::WhichMistake => "which-mistake",
            Kind::DropoutMean => "dropout-mean",
            Kind::Weight => "weight",
        }
    }
}

/// How a row changes when τ halves.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Direction {
    More,
    Less,
    Same,
}

/// One choice of a multiple-choice question.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Choice {
    /// A key (token position, from 0).
    Key(usize),
    /// A head (from 0).
    Head(usize),
    Direction(Direction),
    /// Two key columns (from 0).
    Pair(usize, usize),
    Mistake(Mistake),
    /// A number offered as the answer (dropout on average).
    Value(f64),
}

/// The right answer: which choices count, or a number and how close a typed one must be.
#[derive(Debug, Clone, PartialEq)]
pub enum Answer {
    Choices(Vec<usize>),
    Number { value: f64, tolerance: f64 },
}

/// What the learner gave: a choice's index, or a typed number.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Response {
    Choice(usize),
    Number(f64),
}

/// One question, with everything its reveal shows.
#[derive(Debug, Clone, PartialEq)]
pub struct Question {
    pub kind: Kind,
    /// The query row asked about (from 0; the repeated word's first position for
    /// [`Kind::EqualColumns`]; 0 where there is none).
    pub row: usize,
    /// The key asked about (from 0): the cell's column, or the repeated word's second position.
    pub key: usize,
    /// The choices, in the order shown (empty: a typed number).
    pub choices: Vec<Choice>,
    pub answer: Answer,
    /// The exact number the reveal shows (see [`Kind`]): the top weight, max weight after τ
    /// halves, the cell's weight, row 1's weight, the first head's mean entropy, 1/t, the largest
    /// gap between the equal columns, the largest change from correct attention, the row's sum
    /// under the page's one dropout mask, the cell's weight.
    pub value: f64,
    /// The number beside it: max weight before τ halves, the second head's mean entropy, the
    /// largest gap from 1/t at the slider's top τ, the row's sum averaged over
    /// [`DROPOUT_MASKS`] masks; with mistakes on, correct attention's number for the kinds read
    /// off the broken heatmap; otherwise 0.
    pub reference: f64,
    /// The "Break it" mistakes of the heatmap the question is about (none: correct attention).
    pub mistakes: Mistakes,
    /// The heatmap the question shows (the broken weights of [`Kind::WhichMistake`]).
    pub heatmap: Option<DMatrix<f64>>,
}

/// Whether `response` is right.
pub fn grade(question: &Question, response: Response) -> bool {
    match (&question.answer, response) {
        (Answer::Choices(right), Response::Choice(i)) => right.contains(&i),
        (Answer::Number { value, tolerance }, Response::Number(x)) => {
            (x - value).abs() <= *tolerance
        }
        _ => false,
    }
}

/// A head's mean row entropy in bits over the rows that have a choice (rows 2 to t).
pub fn mean_entropy(w: &DMatrix<f64>) -> f64 {
    let t = w.nrows();
    if t < 2 {
        return 0.0;
    }
    let total: f64 = (1..t).map(|i| row_entropy_bits(&row(w, i))).sum();
    total / (t - 1) as f64
}

/// Row `i`'s visible weights (keys 0..=i).
fn row(w: &DMatrix<f64>, i: usize) -> Vec<f64> {
    (0..=i).map(|j| w[(i, j)]).collect()
}

/// The largest difference between two matrices of the same shape.
fn max_gap(a: &DMatrix<f64>, b: &DMatrix<f64>) -> f64 {
    (a - b).abs().max()
}

/// How many seeded dropout masks the dropout question averages a row's sum over.
pub const DROPOUT_MASKS: usize = 2_000;

/// The view a quiz is about.
struct View<'a> {
    p: &'a Prepared,
    head: usize,
    tau: f64,
    /// The mistakes of the heatmap shown (none: correct attention).
    mistakes: Mistakes,
    /// The weights shown: `correct` with `mistakes` made.
    w: DMatrix<f64>,
    /// Correct attention's weights of the same head.
    correct: DMatrix<f64>,
    /// The view's selected row, which questions avoid where they can.
    selected_row: usize,
    rng: SeededRng,
}

impl View<'_> {
    /// A number from 0 to n − 1 (n ≥ 1).
    fn pick(&mut self, n: usize) -> usize {
        (self.rng.next_u64() % n.max(1) as u64) as usize
    }

    /// This head's weights with the single mistake `m` made.
    fn made(&self, m: Mistake) -> DMatrix<f64> {
        broken_head_weights(self.p, Mistakes::NONE.with(m, true), self.tau, self.head)
    }

    /// A row from `from` to t − 1, other than the view's selected row when there is another:
    /// the learner has just read that row's every number in the inspector.
    fn pick_row(&mut self, from: usize) -> usize {
        let t = self.w.nrows();
        self.pick_row_below(from, t)
    }

    /// As [`Self::pick_row`], from the rows `from` to `end − 1`.
    fn pick_row_below(&mut self, from: usize, end: usize) -> usize {
        let rows: Vec<usize> = (from..end).filter(|&r| r != self.selected_row).collect();
        if rows.is_empty() {
            return from + self.pick(end - from);
        }
        rows[self.pick(rows.len())]
    }

    fn ask(&mut self, kind: Kind) -> Option<Question> {
        let t = self.w.nrows();
        let broken = !self.mistakes.is_empty();
        // The kinds whose premise is correct attention are asked only about it.
        if broken
            && matches!(
                kind,
                Kind::HalfTau | Kind::HotLimit | Kind::SpreadHead | Kind::EqualColumns
            )
        {
            return None;
        }
        let mut q = Question {
            kind,
            row: 0,
            key: 0,
            choices: Vec::new(),
            answer: Answer::Choices(Vec::new()),
            value: 0.0,
            reference: 0.0,
            mistakes: self.mistakes,
            heatmap: None,
        };
        let number = |value, tolerance| Answer::Number { value, tolerance };
        match kind {
            Kind::FirstRow => {
                q.value = self.w[(0, 0)];
                q.reference = if broken { self.correct[(0, 0)] } else { 0.0 };
                q.answer = number(q.value, EXACT_TOLERANCE);
            }
            Kind::TopKey => {
                if t < 2 {
                    return None;
                }
                q.row = self.pick_row(1);
                // Correct attention's row sees keys 0..=row; a broken one may weigh any key.
                let keys = if broken { t } else { q.row + 1 };
                let r: Vec<f64> = (0..keys).map(|j| self.w[(q.row, j)]).collect();
                let top = top_keys(&r);
                if top.len() == keys {
                    // Every key ties: no choice could be wrong.
                    return None;
                }
                q.choices = (0..keys).map(Choice::Key).collect();
                q.value = r[top[0]];
                if broken {
                    q.reference = row(&self.correct, q.row).into_iter().fold(0.0, f64::max);
                }
                q.answer = Answer::Choices(top);
            }
            Kind::MaskedCell => {
                if t < 2 {
                    return None;
                }
                // A row with a future, other than the one the inspector shows.
                q.row = self.pick_row_below(0, t - 1);
                q.key = q.row + 1 + self.pick(t - 1 - q.row);
                q.value = self.w[(q.row, q.key)];
                q.reference = if broken {
                    self.correct[(q.row, q.key)]
                } else {
                    0.0
                };
                q.answer = number(q.value, EXACT_TOLERANCE);
            }
            Kind::HalfTau => {
                if t < 2 {
                    return None;
                }
                q.row = self.pick_row(1);
                let colder = self.p.heads[self.head].weights(self.tau / 2.0);
                let (before, after) = (row(&self.w, q.row), row(&colder, q.row));
                let max = |r: &[f64]| r.iter().copied().fold(0.0, f64::max);
                let d_max = max(&after) - max(&before);
                let d_entropy = row_entropy_bits(&after) - row_entropy_bits(&before);
                let even = before
                    .iter()
                    .all(|w| (w - before[0]).abs() < ROUNDING_TOLERANCE);
                let change = if d_max.abs() < ROUNDING_TOLERANCE && d_entropy.abs() < 1e-9 {
                    if !even {
                        // Already one-hot to rounding: "the same" would be true only in print.
                        return None;
                    }
                    Direction::Same
                } else if d_max > 0.0 && d_entropy < 0.0 {
                    Direction::More
                } else {
                    // Colder rows are never flatter (`model::claims`); anything else would be
                    // rounding, with no single right word.
                    return None;
                };
                q.choices = [Direction::More, Direction::Less, Direction::Same]
                    .map(Choice::Direction)
                    .to_vec();
                q.answer = Answer::Choices(vec![q
                    .choices
                    .iter()
                    .position(|&c| c == Choice::Direction(change))?]);
                (q.value, q.reference) = (max(&after), max(&before));
            }
            Kind::HotLimit => {
                q.row = self.pick_row(1.min(t - 1));
                let n = q.row + 1;
                q.value = 1.0 / n as f64;
                let hot = self.p.heads[self.head].weights(SLIDER_MAX_TAU);
                q.reference = row(&hot, q.row)
                    .iter()
                    .map(|w| (w - q.value).abs())
                    .fold(0.0, f64::max);
                q.answer = number(q.value, EXACT_TOLERANCE);
            }
            Kind::SpreadHead => {
                let heads = self.p.heads.len();
                if heads < 2 {
                    return None;
                }
                let a = self.pick(heads);
                let b = (a + 1 + self.pick(heads - 1)) % heads;
                let entropy = |h: usize| mean_entropy(&self.p.heads[h].weights(self.tau));
                (q.value, q.reference) = (entropy(a), entropy(b));
                if (q.value - q.reference).abs() < 1e-9 {
                    return None;
                }
                q.choices = vec![Choice::Head(a), Choice::Head(b)];
                q.answer = Answer::Choices(vec![usize::from(q.reference > q.value)]);
            }
            Kind::EqualColumns => {
                let (i, j) = first_repeated_word(&self.p.config.tokens)?;
                let off = Prepared::new(ExplorerConfig {
                    positions: false,
                    ..self.p.config.clone()
                });
                let w = off.heads[self.head].weights(self.tau);
                // Every pair of columns that is equal in every row that sees both counts.
                let gap = |a: usize, b: usize| {
                    (b..t)
                        .map(|r| (w[(r, a)] - w[(r, b)]).abs())
                        .fold(0.0, f64::max)
                };
                q.value = gap(i, j);
                if q.value > ROUNDING_TOLERANCE {
                    return None;
                }
                (q.row, q.key) = (i, j);
                // The repeated pair and up to three others, in a seeded order.
                let mut pairs = vec![(i, j)];
                let all: Vec<(usize, usize)> =
                    (0..t).flat_map(|b| (0..b).map(move |a| (a, b))).collect();
                while pairs.len() < 4.min(all.len()) {
                    let pair = all[self.pick(all.len())];
                    if !pairs.contains(&pair) {
                        pairs.push(pair);
                    }
                }
                let first = self.pick(pairs.len());
                pairs.swap(0, first);
                q.choices = pairs.iter().map(|&(a, b)| Choice::Pair(a, b)).collect();
                let right = pairs
                    .iter()
                    .enumerate()
                    .filter(|(_, &(a, b))| gap(a, b) <= ROUNDING_TOLERANCE);
                q.answer = Answer::Choices(right.map(|(k, _)| k).collect());
            }
            Kind::WhichMistake => {
                let mistake = Mistake::ALL[self.pick(Mistake::ALL.len())];
                let made = |m: Mistake| self.made(m);
                let shown = made(mistake);
                q.value = max_gap(&shown, &self.correct);
                if q.value < ROUNDING_TOLERANCE {
                    return None;
                }
                q.choices = Mistake::ALL.map(Choice::Mistake).to_vec();
                let right = Mistake::ALL
                    .iter()
                    .enumerate()
                    .filter(|&(_, &m)| max_gap(&made(m), &shown) < ROUNDING_TOLERANCE);
                q.answer = Answer::Choices(right.map(|(k, _)| k).collect());
                q.heatmap = Some(shown);
            }
            Kind::DropoutMean => {
                // Each weight survives with probability 1 − p and is then divided by 1 − p, so
                // its mean is itself and a row's mean sum is the row's own sum, 1. The offered
                // wrong answers are the two slips: forgetting the division (1 − p) and counting
                // only the division (1 / (1 − p)).
                q.row = self.pick_row(1.min(t - 1));
                q.value = self.made(Mistake::Dropout).row(q.row).sum();
                q.reference = mean_dropout_sum(&row(&self.correct, q.row), self.p.config.seed);
                let offered = [1.0 - DROPOUT_P, 1.0, 1.0 / (1.0 - DROPOUT_P)];
                let first = self.pick(offered.len());
                q.choices = (0..offered.len())
                    .map(|k| Choice::Value(offered[(first + k) % offered.len()]))
                    .collect();
                q.answer = Answer::Choices(vec![q
                    .choices
                    .iter()
                    .position(|&c| c == Choice::Value(1.0))?]);
            }
            Kind::Weight => {
                q.row = self.pick_row(1.min(t - 1));
                q.key = self.pick(q.row + 1);
                q.value = self.w[(q.row, q.key)];
                q.reference = if broken {
                    self.correct[(q.row, q.key)]
                } else {
                    0.0
                };
                q.answer = number(q.value, GUESS_TOLERANCE);
            }
        }
        Some(q)
    }
}

/// A causal row's sum under dropout, averaged over [`DROPOUT_MASKS`] seeded masks (the stream
/// `quiz:dropout` under `seed`): each weight kept with probability 1 − p and divided by 1 − p, as
/// the "Break it" switch does. Its exact mean is the row's sum, 1.
pub fn mean_dropout_sum(row: &[f64], seed: u64) -> f64 {
    let mut rng = SeededRng::stream(seed, "quiz:dropout");
    let total: f64 = (0..DROPOUT_MASKS)
        .map(|_| {
            row.iter()
                .filter(|_| rng.next_open01() >= DROPOUT_P)
                .map(|w| w / (1.0 - DROPOUT_P))
                .sum::<f64>()
        })
        .sum();
    total / DROPOUT_MASKS as f64
}

/// What the quiz is about: the heatmap shown (its head, τ and "Break it" mistakes; none: correct
/// attention) and the row the view has selected (its numbers are on screen, so questions about a
/// row ask about another one where they can).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct QuizOn {
    pub head: usize,
    pub tau: f64,
    pub mistakes: Mistakes,
    pub selected_row: usize,
}

/// The quiz about `on` for the model `p`, under quiz seed `seed`: one question per kind whose
/// premise holds, in [`Kind::ALL`] order.
pub fn questions(p: &Prepared, on: QuizOn, seed: u64) -> Vec<Question> {
    let QuizOn {
        head,
        tau,
        mistakes,
        selected_row,
    } = on;
    if p.is_empty() {
        return Vec::new();
    }
    let head = head.min(p.heads.len() - 1);
    let correct = p.heads[head].weights(tau);
    let w = if mistakes.is_empty() {
        correct.clone()
    } else {
        broken_head_weights(p, mistakes, tau, head)
    };
    let mut view = View {
        p,
        head,
        tau,
        mistakes,
        w,
        correct,
        selected_row,
        rng: SeededRng::stream(seed, "quiz"),
    };
    Kind::ALL
        .into_iter()
        .filter_map(|kind| view.ask(kind))
        .collect()
}

#[cfg(test)]
mod tests;
