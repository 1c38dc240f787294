//! The whole view as a URL query, so a link reproduces exactly what its sender saw.
//!
//! Parsing never fails: each missing, malformed or out-of-range parameter falls back to its default
//! and adds one short [`Notice`] that the page shows. Serialising a valid state and parsing it back
//! gives the same state.
//!
//! Each parameter is declared once, in the table `view_params!`; the [`ViewState`] fields, the
//! parser, the link writer and (in `src/state`) the view's signals are all made from it.

use super::broken::Mistakes;
use super::quiz::DEFAULT_QUIZ_SEED;
use super::tokenizer::MAX_TOKENS;
use super::train::lab::knockout::heads_of_mask;
use super::train::page::settings::{TaskChoice, TrainSettings};
use super::train::shape::PositionKind;
use super::trained::WeightsChoice;
use super::weights::{DEFAULT_HEADS, DEFAULT_SEED};

mod readers;
mod values;

pub use values::{CompareChange, Step};

pub use super::explorer::DEFAULT_SENTENCE;
/// Slider range for τ (log scale). Links outside it are clamped with a notice.
pub use super::temperature::{SLIDER_MAX_TAU, SLIDER_MIN_TAU};
/// Largest seed accepted: seeds stay exact as JSON numbers in every language.
pub const MAX_SEED: u64 = u32::MAX as u64;
/// The developer setting `max_tokens` may raise the token limit up to this (benchmarks).
pub const DEVELOPER_MAX_TOKENS: usize = 512;
/// Longest notice text, a bound however hostile the link (a notice quotes at most 40 characters
/// of the offending value). The longest whole notice, the compare view's list of what setting B
/// can be, is 283 characters with a 40-character value; 240 cut it mid-word.
pub const MAX_NOTICE_CHARS: usize = 400;
/// Tokens in [`DEFAULT_SENTENCE`].
const DEFAULT_TOKENS: usize = 7;
/// The query row selected when the link names none (moved up if the sentence is shorter).
const DEFAULT_ROW: usize = 5;

/// The table of view parameters: every parameter a link may carry is declared here, once.
///
/// An entry reads `field: Type { key, default, read, write, implied, then }`:
/// - `field: Type`: the [`ViewState`] field (and, in `src/state`, the signal) holding it.
/// - `key`: its name in the link. Entries are in link order, the order `to_query` writes them.
/// - `default`: its value when the link has none, or one that cannot be used.
/// - `read`: a `fn(&str, &ReadContext) -> Reading<Type>` checking the link's text; the notice for
///   a bad value is written there. It may look at the parameters read before it
///   (`ReadContext::so_far`): they are read in table order, except [`READ_FIRST`], read before all.
/// - `write`: a `fn(&Type) -> Option<String>`, the text in the link (`None` leaves it out).
/// - `implied` (optional): a `fn(&ViewState) -> bool`, true when the value is the one a link
///   without it would get (a default that depends on other parameters); it is then left out.
/// - `then` (optional): a `fn(&mut ViewState) -> Option<String>` run right after this parameter
///   is read, whether or not the link has it, for a rule between parameters; it returns the
///   notice when it corrects something.
///
/// Adding a parameter: one entry here, its `read` fn in `readers.rs`, and its row in the test
/// `every_parameter_round_trips_and_reports_a_bad_value` (`tests.rs`).
///
/// The table is handed to a generator macro (`view_params!(generator)`): `view_state_from_table`
/// here, `view_signals_from_table` in `src/state/view_signals.rs`.
macro_rules! view_params {
    ($generate:ident) => {
        $generate! {
            /// The sentence whose attention is shown.
            sentence: String {
                key: "s",
                default: DEFAULT_SENTENCE.to_string(),
                read: readers::read_sentence,
                write: display,
                then: readers::settle_sentence,
            }
            /// Softmax temperature τ.
            tau: f64 {
                key: "tau",
                default: 1.0,
                read: readers::read_tau,
                write: display,
            }
            /// Seed of the embeddings and projections.
            seed: u64 {
                key: "seed",
                default: DEFAULT_SEED,
                read: readers::read_seed,
                write: display,
            }
            /// Number of attention heads.
            heads: usize {
                key: "heads",
                default: DEFAULT_HEADS,
                read: readers::read_heads,
                write: display,
            }
            /// Which head the main heatmap shows (0-based; 1-based in the link, as on screen).
            head: usize {
                key: "head",
                default: 0,
                read: readers::read_head,
                write: |&head| Some((head + 1).to_string()),
            }
            /// Selected query row (0-based; 1-based in the link, as on screen).
            row: usize {
                key: "row",
                default: DEFAULT_ROW,
                read: readers::read_row,
                write: |&row| Some((row + 1).to_string()),
            }
            /// The lesson section on screen.
            step: Step {
                key: "step",
                default: Step::Average,
                read: readers::read_step,
                write: |step| Some(step.key().to_string()),
            }
            /// Head size on the scaling lab (step 4).
            lab_head_size: usize {
                key: "lab_d",
                default: 16,
                read: readers::read_lab_head_size,
                write: display,
            }
            /// Sinusoidal position encodings added to the embeddings.
            positions: bool {
                key: "pos",
                default: false,
                read: readers::read_positions,
                write: |&on| Some(if on { "1" } else { "0" }.to_string()),
            }
            /// Random weights or the tiny grammar's trained checkpoint (in the link only when
            /// trained).
            weights: WeightsChoice {
                key: "w",
                default: WeightsChoice::Random,
                read: readers::read_weights,
                write: |&choice| (choice != WeightsChoice::Random).then(|| choice.key().to_string()),
            }
            /// The "Break it" mistakes switched on (in the link only when there are some).
            broken: Mistakes {
                key: "broken",
                default: Mistakes::NONE,
                read: readers::read_broken,
                write: |set| (!set.is_empty()).then(|| set.keys()),
            }
            /// The "Predict, then reveal" question set's seed (in the link only when changed).
            quiz: u64 {
                key: "quiz",
                default: DEFAULT_QUIZ_SEED,
                read: readers::read_quiz,
                write: |&seed| (seed != DEFAULT_QUIZ_SEED).then(|| seed.to_string()),
            }
            /// The compare view's setting B: what it changes from the view (`model::compare`; in
            /// the link only when the compare view is on).
            compare: Option<CompareChange> {
                key: "cmp",
                default: None,
                read: readers::read_compare,
                write: |change| change.as_ref().map(CompareChange::key),
            }
            /// Training view: the task trained on. Layers and positions start from its defaults
            /// (`tlayers` and `tpos`, read after it, change them).
            train_task: TaskChoice {
                key: "train",
                default: TaskChoice::Repeat,
                read: readers::read_train_task,
                write: |&task| (task != TaskChoice::Repeat).then(|| task.key().to_string()),
                then: readers::start_from_task_defaults,
            }
            /// Training view: the seed of the initial weights and the data.
            train_seed: u64 {
                key: "tseed",
                default: TrainSettings::default().seed,
                read: readers::read_train_seed,
                write: |&seed| (seed != TrainSettings::default().seed).then(|| seed.to_string()),
            }
            /// Training view: layers (1 or 2).
            train_layers: usize {
                key: "tlayers",
                default: TrainSettings::default().layers,
                read: readers::read_train_layers,
                write: display,
                implied: |state| state.train_layers == state.train_task.default_layers(),
            }
            /// Training view: heads per layer (1, 2 or 4).
            train_heads: usize {
                key: "theads",
                default: TrainSettings::default().heads,
                read: readers::read_train_heads,
                write: |&n| (n != TrainSettings::default().heads).then(|| n.to_string()),
            }
            /// Training view: the position code.
            train_positions: PositionKind {
                key: "tpos",
                default: TrainSettings::default().positions,
                read: readers::read_train_positions,
                write: |&p| Some(p.name().to_string()),
                implied: |state| state.train_positions == state.train_task.default_positions(),
            }
            /// Training view: Adam's learning rate.
            train_lr: f64 {
                key: "tlr",
                default: TrainSettings::default().lr,
                read: readers::read_train_lr,
                write: |&lr| (lr != TrainSettings::default().lr).then(|| lr.to_string()),
            }
            /// Training view: steps trained (opening the link retrains to this step).
            train_steps: usize {
                key: "tsteps",
                default: 0,
                read: readers::read_train_steps,
                write: |&n| (n > 0).then(|| n.to_string()),
            }
            /// Training view: run B, run A with one change (`model::train::page::run_b::RunChange`, as
            /// its link text: `b=seed:7`, `b=mistake:no-mask`, …; empty: no run B); both runs
            /// retrain from the link.
            train_b: String {
                key: "b",
                default: String::new(),
                read: readers::read_train_b,
                write: |change| (!change.is_empty()).then(|| change.clone()),
            }
            /// Training view: the heads knocked out of the model shown, as a bit set
            /// (`model::train::lab::knockout::mask_of`), written `layer.head` from 1, comma-separated
            /// (`ko=1.2,2.1`); checked against `tlayers` and `theads`.
            train_knockout: usize {
                key: "ko",
                default: 0,
                read: readers::read_train_knockout,
                write: |&mask| (mask != 0).then(|| {
                    heads_of_mask(mask)
                        .iter()
                        .map(|&(l, h)| format!("{}.{}", l + 1, h + 1))
                        .collect::<Vec<_>>()
                        .join(",")
                }),
            }
            /// Training view: knock heads out by mean-ablation (`kokind=mean`) rather than zero.
            train_ko_mean: bool {
                key: "kokind",
                default: false,
                read: readers::read_train_ablation,
                write: |&mean| mean.then(|| "mean".to_string()),
            }
            /// Developer setting, training view: train in Web Workers (on by default; `workers=0`
            /// trains on the page's main thread in slices, as where workers are unavailable).
            train_workers: bool {
                key: "workers",
                default: true,
                read: readers::read_train_workers,
                write: |&on| (!on).then(|| "0".to_string()),
            }
            /// Developer setting: token limit (default `MAX_TOKENS`; in the link only when changed).
            max_tokens: usize {
                key: "max_tokens",
                default: MAX_TOKENS,
                read: readers::read_max_tokens,
                write: |&limit| (limit != MAX_TOKENS).then(|| limit.to_string()),
            }
            /// Display mode: the compact view for an iframe (heatmap, slider, inspector; no
            /// lesson). Kept in the link (only when on) so the embedded page's address bar keeps
            /// `embed=1` while the learner drags; `model::embed` writes the links with and without it.
            embed: bool {
                key: "embed",
                default: false,
                read: readers::read_embed,
                write: |&on| on.then(|| "1".to_string()),
            }
        }
    };
}
// Outside this file only `src/state` (built for the browser alone) expands the table.
#[cfg_attr(not(target_arch = "wasm32"), allow(unused_imports))]
pub(crate) use view_params;

/// Read before every other parameter, wherever it stands in the table: the token limit decides
/// which sentences a link may carry.
const READ_FIRST: &str = "max_tokens";

/// Builds [`ViewState`] (with its `Default`), [`PARAMS`] and the parser's and writer's table
/// from [`view_params!`].
macro_rules! view_state_from_table {
    ($(
        $(#[$doc:meta])*
        $field:ident: $ty:ty {
            key: $key:literal,
            default: $default:expr,
            read: $read:expr,
            write: $write:expr,
            $(implied: $implied:expr,)?
            $(then: $then:expr,)?
        }
    )*) => {
        /// Everything a link carries.
        #[derive(Debug, Clone, PartialEq)]
        pub struct ViewState {
            $($(#[$doc])* pub $field: $ty,)*
        }

        impl Default for ViewState {
            fn default() -> Self {
                Self {
                    $($field: $default,)*
                }
            }
        }

        /// Every parameter a link may carry, in the order [`ViewState::to_query`] writes them.
        pub const PARAMS: &[&str] = &[$($key),*];

        /// The table as the parser and the writer loop over it, one [`Param`] per entry.
        const TABLE: &[Param] = &[$(
            Param {
                key: $key,
                read: |value, state| {
                    let read: fn(&str, &ReadContext) -> Reading<$ty> = $read;
                    read(value, &ReadContext { so_far: &*state })
                        .store(&mut state.$field)
                },
                then: some_or_none!($($then)?),
                write: |state| {
                    let write: fn(&$ty) -> Option<String> = $write;
                    $(
                        let implied: fn(&ViewState) -> bool = $implied;
                        if implied(state) {
                            return None;
                        }
                    )?
                    write(&state.$field)
                },
            },
        )*];
    };
}

/// `Some(f)` for a `then` the entry has, `None` otherwise.
macro_rules! some_or_none {
    () => {
        None
    };
    ($f:expr) => {
        Some($f)
    };
}

view_params!(view_state_from_table);

/// One table entry with its type erased: what the parser and the writer loop over.
struct Param {
    key: &'static str,
    /// Reads the link's value into the state; the notice, if the value was not used as written.
    read: fn(&str, &mut ViewState) -> Option<String>,
    then: Option<fn(&mut ViewState) -> Option<String>>,
    /// The value's text in the link (`None`: left out).
    write: fn(&ViewState) -> Option<String>,
}

/// What a parameter's `read` fn may look at besides its text.
struct ReadContext<'a> {
    /// The view read so far: the parameters read before this one hold their link values.
    so_far: &'a ViewState,
}

/// What a link's text for one parameter comes to.
enum Reading<T> {
    /// Valid as written.
    Valid(T),
    /// Usable once moved into range: the corrected value, and the notice saying so.
    Corrected(T, String),
    /// Not usable: the parameter keeps its default, and the notice says why.
    Ignored(String),
}

impl<T> Reading<T> {
    /// Stores the value (if there is one) in `field` and returns the notice (if there is one).
    fn store(self, field: &mut T) -> Option<String> {
        match self {
            Reading::Valid(value) => {
                *field = value;
                None
            }
            Reading::Corrected(value, notice) => {
                *field = value;
                Some(notice)
            }
            Reading::Ignored(notice) => Some(notice),
        }
    }
}

/// A message about a parameter that was ignored or corrected.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Notice(pub String);

/// Invisible characters that would reorder or hide the text around them (bidi overrides and
/// isolates, direction marks), besides the control characters.
fn is_hidden(c: char) -> bool {
    c.is_control()
        || matches!(c, '\u{200E}' | '\u{200F}' | '\u{061C}' | '\u{202A}'..='\u{202E}' | '\u{2066}'..='\u{2069}')
}

fn quoted(value: &str) -> String {
    let mut short: String = value.chars().filter(|&c| !is_hidden(c)).take(40).collect();
    if value.chars().count() > 40 {
        short.push('…');
    }
    format!("“{short}”")
}

fn notice(mut text: String) -> Notice {
    if let Some((end, _)) = text.char_indices().nth(MAX_NOTICE_CHARS) {
        text.truncate(end);
    }
    Notice(text)
}

/// How most values are written: their `Display` text (an `Option` because that is the table's
/// `write` signature, where `None` leaves a value out of the link).
#[allow(clippy::unnecessary_wraps)]
fn display<T: std::fmt::Display>(value: &T) -> Option<String> {
    Some(value.to_string())
}

impl ViewState {
    /// The state a query string (with or without the leading `?`) describes, and what was corrected.
    pub fn from_query(query: &str) -> (Self, Vec<Notice>) {
        let query = query.strip_prefix('?').unwrap_or(query);
        let mut notices = Vec::new();
        // Only the known parameters are kept (first value wins), so the work and the number of
        // notices stay bounded however long the link is; other keys are ignored.
        let mut values: Vec<Option<String>> = vec![None; TABLE.len()];
        let mut repeated = vec![false; TABLE.len()];
        for (key, value) in form_urlencoded::parse(query.as_bytes()) {
            if let Some(i) = TABLE.iter().position(|p| p.key == key) {
                match values[i] {
                    Some(_) => repeated[i] = true,
                    None => values[i] = Some(value.into_owned()),
                }
            }
        }
        for (param, _) in TABLE.iter().zip(repeated).filter(|(_, r)| *r) {
            notices.push(notice(format!(
                "The link repeats “{}”; the first value was used.",
                param.key
            )));
        }

        // READ_FIRST first, then the rest in table order.
        let (first, rest): (Vec<_>, Vec<_>) = TABLE
            .iter()
            .zip(values)
            .partition(|(param, _)| param.key == READ_FIRST);
        let mut state = Self::default();
        for (param, value) in first.into_iter().chain(rest) {
            if let Some(value) = value {
                notices.extend((param.read)(&value, &mut state).map(notice));
            }
            if let Some(then) = param.then {
                notices.extend(then(&mut state).map(notice));
            }
        }
        (state, notices)
    }

    /// The query string (without `?`) for this state. Rows and heads are 1-based, as on screen.
    pub fn to_query(&self) -> String {
        let mut out = form_urlencoded::Serializer::new(String::new());
        for param in TABLE {
            if let Some(text) = (param.write)(self) {
                out.append_pair(param.key, &text);
            }
        }
        out.finish()
    }
}

#[cfg(test)]
mod tests;
