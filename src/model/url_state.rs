//! The whole view as a URL query, so a link reproduces exactly what its sender saw.
//!
//! Parsing never fails: each missing, malformed or out-of-range parameter falls back to its default
//! and adds one short [`Notice`] that the page shows. Serialising a valid state and parsing it back
//! gives the same state.
//!
//! Each parameter is declared once, in the table `view_params!`; the [`ViewState`] fields, the
//! parser, the link writer and (in `src/state`) the view's signals are all made from it.

use super::broken::{Mistake, Mistakes};
use super::compare::Change;
use super::host::{CoreText, TextHost};
use super::quiz::DEFAULT_QUIZ_SEED;
use super::scaling_lab::HEAD_SIZES;
use super::tokenizer::{checked_tokens, tokenize, MAX_TOKENS};
use super::train::settings::{
    TaskKind, TrainSettings, LAYER_CHOICES, LEARNING_RATES, MAX_LINK_STEPS, TRAIN_HEAD_CHOICES,
};
use super::train::transformer::PositionKind;
use super::trained::WeightsChoice;
use super::weights::{valid_heads, DEFAULT_HEADS, DEFAULT_SEED};

pub const DEFAULT_SENTENCE: &str = "The cat sat on the mat .";
/// Slider range for τ (log scale). Links outside it are clamped with a notice.
pub use super::temperature::{SLIDER_MAX_TAU, SLIDER_MIN_TAU};
/// Largest seed accepted: seeds stay exact as JSON numbers in every language.
pub const MAX_SEED: u64 = u32::MAX as u64;
/// The developer setting `max_tokens` may raise the token limit up to this (benchmarks).
pub const DEVELOPER_MAX_TOKENS: usize = 512;
/// Longest notice text; a notice quotes at most this much of the offending value.
pub const MAX_NOTICE_CHARS: usize = 240;
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
/// Adding a parameter: one entry here, its `read` fn below, and its row in the test
/// `every_parameter_round_trips_and_reports_a_bad_value`.
///
/// The table is handed to a generator macro (`view_params!(generator)`): `view_state_from_table`
/// here, `view_signals_from_table` in `src/state/app_state.rs`.
macro_rules! view_params {
    ($generate:ident) => {
        $generate! {
            /// The sentence whose attention is shown.
            sentence: String {
                key: "s",
                default: DEFAULT_SENTENCE.to_string(),
                read: read_sentence,
                write: display,
                then: settle_sentence,
            }
            /// Softmax temperature τ.
            tau: f64 {
                key: "tau",
                default: 1.0,
                read: read_tau,
                write: display,
            }
            /// Seed of the embeddings and projections.
            seed: u64 {
                key: "seed",
                default: DEFAULT_SEED,
                read: read_seed,
                write: display,
            }
            /// Number of attention heads.
            heads: usize {
                key: "heads",
                default: DEFAULT_HEADS,
                read: read_heads,
                write: display,
            }
            /// Which head the main heatmap shows (0-based; 1-based in the link, as on screen).
            head: usize {
                key: "head",
                default: 0,
                read: read_head,
                write: |&head| Some((head + 1).to_string()),
            }
            /// Selected query row (0-based; 1-based in the link, as on screen).
            row: usize {
                key: "row",
                default: DEFAULT_ROW,
                read: read_row,
                write: |&row| Some((row + 1).to_string()),
            }
            /// The lesson section on screen.
            step: Step {
                key: "step",
                default: Step::Average,
                read: read_step,
                write: |step| Some(step.key().to_string()),
            }
            /// Head size on the scaling lab (step 4).
            lab_head_size: usize {
                key: "lab_d",
                default: 16,
                read: read_lab_head_size,
                write: display,
            }
            /// Sinusoidal position encodings added to the embeddings.
            positions: bool {
                key: "pos",
                default: false,
                read: read_positions,
                write: |&on| Some(if on { "1" } else { "0" }.to_string()),
            }
            /// Random weights or the tiny grammar's trained checkpoint (in the link only when
            /// trained).
            weights: WeightsChoice {
                key: "w",
                default: WeightsChoice::Random,
                read: read_weights,
                write: |&choice| (choice != WeightsChoice::Random).then(|| choice.key().to_string()),
            }
            /// The "Break it" mistakes switched on (in the link only when there are some).
            broken: Mistakes {
                key: "broken",
                default: Mistakes::NONE,
                read: read_broken,
                write: |set| (!set.is_empty()).then(|| set.keys()),
            }
            /// The "Predict, then reveal" question set's seed (in the link only when changed).
            quiz: u64 {
                key: "quiz",
                default: DEFAULT_QUIZ_SEED,
                read: read_quiz,
                write: |&seed| (seed != DEFAULT_QUIZ_SEED).then(|| seed.to_string()),
            }
            /// The compare view's setting B: what it changes from the view (`model::compare`; in
            /// the link only when the compare view is on).
            compare: Option<Change> {
                key: "cmp",
                default: None,
                read: read_compare,
                write: |change| change.as_ref().map(Change::key),
            }
            /// Training view: the task trained on. Layers and positions start from its defaults
            /// (`tlayers` and `tpos`, read after it, change them).
            train_task: TaskKind {
                key: "train",
                default: TaskKind::Repeat,
                read: read_train_task,
                write: |&task| (task != TaskKind::Repeat).then(|| task.key().to_string()),
                then: start_from_task_defaults,
            }
            /// Training view: the seed of the initial weights and the data.
            train_seed: u64 {
                key: "tseed",
                default: TrainSettings::default().seed,
                read: read_train_seed,
                write: |&seed| (seed != TrainSettings::default().seed).then(|| seed.to_string()),
            }
            /// Training view: layers (1 or 2).
            train_layers: usize {
                key: "tlayers",
                default: TrainSettings::default().layers,
                read: read_train_layers,
                write: display,
                implied: |state| state.train_layers == state.train_task.default_layers(),
            }
            /// Training view: heads per layer (1, 2 or 4).
            train_heads: usize {
                key: "theads",
                default: TrainSettings::default().heads,
                read: read_train_heads,
                write: |&n| (n != TrainSettings::default().heads).then(|| n.to_string()),
            }
            /// Training view: the position code.
            train_positions: PositionKind {
                key: "tpos",
                default: TrainSettings::default().positions,
                read: read_train_positions,
                write: |&p| Some(p.name().to_string()),
                implied: |state| state.train_positions == state.train_task.default_positions(),
            }
            /// Training view: Adam's learning rate.
            train_lr: f64 {
                key: "tlr",
                default: TrainSettings::default().lr,
                read: read_train_lr,
                write: |&lr| (lr != TrainSettings::default().lr).then(|| lr.to_string()),
            }
            /// Training view: steps trained (opening the link retrains to this step).
            train_steps: usize {
                key: "tsteps",
                default: 0,
                read: read_train_steps,
                write: |&n| (n > 0).then(|| n.to_string()),
            }
            /// Developer setting: token limit (default `MAX_TOKENS`; in the link only when changed).
            max_tokens: usize {
                key: "max_tokens",
                default: MAX_TOKENS,
                read: read_max_tokens,
                write: |&limit| (limit != MAX_TOKENS).then(|| limit.to_string()),
            }
            /// Display mode: the compact view for an iframe (heatmap, slider, inspector; no
            /// lesson). Kept in the link (only when on) so the embedded page's address bar keeps
            /// `embed=1` while the learner drags; `model::embed` writes the links with and without it.
            embed: bool {
                key: "embed",
                default: false,
                read: read_embed,
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
                read: |value, state, parse_decimal| {
                    let read: fn(&str, &ReadContext) -> Reading<$ty> = $read;
                    read(value, &ReadContext { so_far: &*state, parse_decimal })
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
    read: fn(&str, &mut ViewState, ParseDecimal) -> Option<String>,
    then: Option<fn(&mut ViewState) -> Option<String>>,
    /// The value's text in the link (`None`: left out).
    write: fn(&ViewState) -> Option<String>,
}

/// Reads a decimal number (in the page, the browser's own parser; see [`TextHost`]).
type ParseDecimal = fn(&str) -> Option<f64>;

/// What a parameter's `read` fn may look at besides its text.
struct ReadContext<'a> {
    /// The view read so far: the parameters read before this one hold their link values.
    so_far: &'a ViewState,
    parse_decimal: ParseDecimal,
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

// ---------------------------------------------------------------------------------------------
// Reading each parameter (in table order)
// ---------------------------------------------------------------------------------------------

fn read_sentence(value: &str, cx: &ReadContext) -> Reading<String> {
    match checked_tokens(value, cx.so_far.max_tokens) {
        Ok(_) => Reading::Valid(value.to_string()),
        Err(e) => Reading::Ignored(format!("The link's sentence was not used. {}", e.message())),
    }
}

/// Once the task is read: layers and positions start from its defaults (the parameters after it
/// override them), so `?train=grammar` alone is the grammar's own run, as the task menu makes it.
#[allow(clippy::unnecessary_wraps)]
fn start_from_task_defaults(state: &mut ViewState) -> Option<String> {
    state.train_layers = state.train_task.default_layers();
    state.train_positions = state.train_task.default_positions();
    None
}

/// Once the sentence is settled (the link's, or the default): the token limit must hold it, and
/// the default row must be one of its tokens.
fn settle_sentence(state: &mut ViewState) -> Option<String> {
    state.row = state.row.min(tokenize(&state.sentence).len() - 1);
    if state.sentence == DEFAULT_SENTENCE && state.max_tokens < DEFAULT_TOKENS {
        // The default sentence must fit, or the page would have no sentence to show.
        let notice = format!(
            "Ignored max_tokens={}: the default sentence has {DEFAULT_TOKENS} tokens.",
            state.max_tokens
        );
        state.max_tokens = MAX_TOKENS;
        return Some(notice);
    }
    None
}

fn read_tau(value: &str, cx: &ReadContext) -> Reading<f64> {
    match (cx.parse_decimal)(value) {
        Some(t) if t.is_finite() && (SLIDER_MIN_TAU..=SLIDER_MAX_TAU).contains(&t) => {
            Reading::Valid(t)
        }
        Some(t) if t.is_finite() && t > 0.0 => {
            let tau = t.clamp(SLIDER_MIN_TAU, SLIDER_MAX_TAU);
            Reading::Corrected(
                tau,
                format!(
                    "Temperature {} is outside {SLIDER_MIN_TAU}–{SLIDER_MAX_TAU}; using {tau}.",
                    quoted(value)
                ),
            )
        }
        _ => Reading::Ignored(format!(
            "Ignored temperature {}: it must be a positive number; using 1.",
            quoted(value)
        )),
    }
}

fn read_seed(value: &str, _: &ReadContext) -> Reading<u64> {
    match value.parse::<u64>() {
        Ok(seed) if seed <= MAX_SEED => Reading::Valid(seed),
        _ => Reading::Ignored(format!(
            "Ignored seed {}: it must be a whole number from 0 to {MAX_SEED}.",
            quoted(value)
        )),
    }
}

fn read_heads(value: &str, _: &ReadContext) -> Reading<usize> {
    match value.parse::<usize>() {
        Ok(heads) if valid_heads(heads) => Reading::Valid(heads),
        _ => Reading::Ignored(format!(
            "Ignored heads={}: choose 1, 2, 4 or 8.",
            quoted(value)
        )),
    }
}

fn read_head(value: &str, cx: &ReadContext) -> Reading<usize> {
    let heads = cx.so_far.heads;
    match value.parse::<usize>() {
        Ok(head) if (1..=heads).contains(&head) => Reading::Valid(head - 1),
        _ => Reading::Ignored(format!(
            "Ignored head={}: there are {heads} heads.",
            quoted(value)
        )),
    }
}

fn read_row(value: &str, cx: &ReadContext) -> Reading<usize> {
    let token_count = tokenize(&cx.so_far.sentence).len();
    match value.parse::<usize>() {
        Ok(row) if (1..=token_count).contains(&row) => Reading::Valid(row - 1),
        _ => Reading::Ignored(format!(
            "Ignored row={}: the sentence has {token_count} tokens.",
            quoted(value)
        )),
    }
}

fn read_step(value: &str, _: &ReadContext) -> Reading<Step> {
    match Step::from_key(value) {
        Some(step) => Reading::Valid(step),
        None => Reading::Ignored(format!(
            "Ignored step={}: use {}.",
            quoted(value),
            step_keys()
        )),
    }
}

/// The valid `step` keys as the notice lists them: "average, softmax, …, heads or positions".
fn step_keys() -> String {
    let keys: Vec<&str> = Step::ALL.iter().map(|s| s.key()).collect();
    match keys.split_last() {
        Some((last, rest)) if !rest.is_empty() => format!("{} or {last}", rest.join(", ")),
        _ => keys.concat(),
    }
}

fn read_lab_head_size(value: &str, _: &ReadContext) -> Reading<usize> {
    match value.parse::<usize>() {
        Ok(d) if HEAD_SIZES.contains(&d) => Reading::Valid(d),
        _ => Reading::Ignored(format!(
            "Ignored lab_d={}: use a power of two from 1 to 512.",
            quoted(value)
        )),
    }
}

fn read_positions(value: &str, _: &ReadContext) -> Reading<bool> {
    read_switch("pos", value)
}

fn read_weights(value: &str, _: &ReadContext) -> Reading<WeightsChoice> {
    match WeightsChoice::parse(value) {
        Some(choice) => Reading::Valid(choice),
        None => Reading::Ignored(format!(
            "Ignored w={}: use random or grammar.",
            quoted(value)
        )),
    }
}

fn read_embed(value: &str, _: &ReadContext) -> Reading<bool> {
    read_switch("embed", value)
}

/// An on/off parameter: `1`, `true`, `on` or `0`, `false`, `off`.
fn read_switch(key: &str, value: &str) -> Reading<bool> {
    match value {
        "1" | "true" | "on" => Reading::Valid(true),
        "0" | "false" | "off" => Reading::Valid(false),
        _ => Reading::Ignored(format!("Ignored {key}={}: use 0 or 1.", quoted(value))),
    }
}

fn read_broken(value: &str, _: &ReadContext) -> Reading<Mistakes> {
    let names = value.split(',').filter(|name| !name.is_empty());
    let set: Mistakes = names.clone().filter_map(Mistake::from_key).collect();
    let unknown: Vec<&str> = names.filter(|n| Mistake::from_key(n).is_none()).collect();
    if unknown.is_empty() {
        return Reading::Valid(set);
    }
    let keys: Vec<&str> = Mistake::ALL.iter().map(|m| m.key()).collect();
    let notice = format!(
        "Ignored broken={}: no such mistake; use {}.",
        quoted(&unknown.join(",")),
        keys.join(", ")
    );
    if set.is_empty() {
        Reading::Ignored(notice)
    } else {
        Reading::Corrected(set, notice)
    }
}

fn read_quiz(value: &str, _: &ReadContext) -> Reading<u64> {
    match value.parse::<u64>() {
        Ok(seed) if seed <= MAX_SEED => Reading::Valid(seed),
        _ => Reading::Ignored(format!(
            "Ignored quiz={}: it must be a whole number from 0 to {MAX_SEED}.",
            quoted(value)
        )),
    }
}

fn read_compare(value: &str, cx: &ReadContext) -> Reading<Option<Change>> {
    match Change::parse(value, cx.parse_decimal) {
        Some(change) => Reading::Valid(Some(change)),
        None => Reading::Ignored(format!(
            "Ignored cmp={}: use tau:2, seed:7, pos, s:<sentence> or broken:<mistakes>.",
            quoted(value)
        )),
    }
}

fn read_train_task(value: &str, _: &ReadContext) -> Reading<TaskKind> {
    match TaskKind::from_key(value) {
        Some(task) => Reading::Valid(task),
        None => Reading::Ignored(format!(
            "Ignored train={}: use repeat or grammar.",
            quoted(value)
        )),
    }
}

fn read_train_seed(value: &str, _: &ReadContext) -> Reading<u64> {
    match value.parse::<u64>() {
        Ok(seed) if seed <= MAX_SEED => Reading::Valid(seed),
        _ => Reading::Ignored(format!(
            "Ignored tseed={}: it must be a whole number from 0 to {MAX_SEED}.",
            quoted(value)
        )),
    }
}

/// A count that must be one of `choices`.
fn read_choice(key: &str, value: &str, choices: &[usize]) -> Reading<usize> {
    match value.parse::<usize>() {
        Ok(n) if choices.contains(&n) => Reading::Valid(n),
        _ => Reading::Ignored(format!(
            "Ignored {key}={}: use {}.",
            quoted(value),
            choices
                .iter()
                .map(ToString::to_string)
                .collect::<Vec<_>>()
                .join(" or ")
        )),
    }
}

fn read_train_layers(value: &str, _: &ReadContext) -> Reading<usize> {
    read_choice("tlayers", value, &LAYER_CHOICES)
}

fn read_train_heads(value: &str, _: &ReadContext) -> Reading<usize> {
    read_choice("theads", value, &TRAIN_HEAD_CHOICES)
}

fn read_train_positions(value: &str, _: &ReadContext) -> Reading<PositionKind> {
    match PositionKind::from_name(value) {
        Some(kind) => Reading::Valid(kind),
        None => Reading::Ignored(format!(
            "Ignored tpos={}: use sinusoidal, learned or rotary.",
            quoted(value)
        )),
    }
}

fn read_train_lr(value: &str, cx: &ReadContext) -> Reading<f64> {
    match (cx.parse_decimal)(value) {
        Some(lr) if LEARNING_RATES.contains(&lr) => Reading::Valid(lr),
        _ => Reading::Ignored(format!(
            "Ignored tlr={}: use 0.003, 0.01 or 0.03.",
            quoted(value)
        )),
    }
}

fn read_train_steps(value: &str, _: &ReadContext) -> Reading<usize> {
    match value.parse::<usize>() {
        Ok(n) if n <= MAX_LINK_STEPS => Reading::Valid(n),
        _ => Reading::Ignored(format!(
            "Ignored tsteps={}: it must be a whole number from 0 to {MAX_LINK_STEPS}.",
            quoted(value)
        )),
    }
}

fn read_max_tokens(value: &str, _: &ReadContext) -> Reading<usize> {
    match value.parse::<usize>() {
        Ok(limit) if (1..=DEVELOPER_MAX_TOKENS).contains(&limit) => Reading::Valid(limit),
        _ => Reading::Ignored(format!(
            "Ignored max_tokens={}: it must be a whole number from 1 to {DEVELOPER_MAX_TOKENS}.",
            quoted(value)
        )),
    }
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
        Self::from_query_with::<CoreText>(query)
    }

    /// As [`ViewState::from_query`], reading numbers through `H` (the browser passes its own).
    pub fn from_query_with<H: TextHost>(query: &str) -> (Self, Vec<Notice>) {
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

        let mut in_read_order: Vec<_> = TABLE.iter().zip(values).collect();
        // A stable sort: READ_FIRST moves to the front, the rest keep their table order.
        in_read_order.sort_by_key(|(param, _)| param.key != READ_FIRST);
        let mut state = Self::default();
        for (param, value) in in_read_order {
            if let Some(value) = value {
                notices.extend((param.read)(&value, &mut state, H::parse_decimal).map(notice));
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
mod tests {
    use super::*;
    use crate::model::tokenizer::tokenize;

    #[test]
    fn empty_query_is_the_default_view() {
        assert_eq!(ViewState::from_query(""), (ViewState::default(), vec![]));
        assert_eq!(ViewState::from_query("?"), (ViewState::default(), vec![]));
    }

    #[test]
    fn a_full_state_round_trips() {
        let state = ViewState {
            sentence: "Ein <b>Test</b> & 猫 🐈 ?".into(),
            tau: 0.123_456_789,
            seed: 42,
            heads: 4,
            head: 3,
            row: 2,
            step: Step::Scaling,
            lab_head_size: 256,
            positions: true,
            weights: WeightsChoice::Grammar,
            broken: [Mistake::MaskWithZero, Mistake::WrongTriangle]
                .into_iter()
                .collect(),
            quiz: 2024,
            compare: Some(Change::Sentence("a <b> & c, d?".into())),
            train_task: TaskKind::Grammar,
            train_seed: 77,
            train_layers: 1,
            train_heads: 4,
            train_positions: PositionKind::Learned,
            train_lr: 0.003,
            train_steps: 150,
            max_tokens: 256,
            embed: true,
        };
        let query = state.to_query();
        assert_eq!(ViewState::from_query(&query), (state, vec![]));
    }

    #[test]
    fn bad_values_fall_back_with_notices() {
        let (state, notices) = ViewState::from_query(
            "tau=NaN&seed=-1&heads=3&row=99&step=zzz&lab_d=3&pos=maybe&head=0",
        );
        assert_eq!(state, ViewState::default());
        assert_eq!(notices.len(), 8, "{notices:?}");
        let (state, notices) = ViewState::from_query("tau=1e308");
        assert_eq!(state.tau, SLIDER_MAX_TAU);
        assert_eq!(notices.len(), 1);
        let (state, _) = ViewState::from_query("tau=0");
        assert_eq!(state.tau, 1.0);
    }

    #[test]
    fn duplicates_keep_the_first_value() {
        let (state, notices) = ViewState::from_query("tau=2&tau=3&tau=4");
        assert_eq!(state.tau, 2.0);
        assert_eq!(notices.len(), 1);
    }

    #[test]
    fn a_refused_sentence_keeps_the_default() {
        let long = vec!["w"; 65].join("+");
        let (state, notices) = ViewState::from_query(&format!("s={long}"));
        assert_eq!(state.sentence, DEFAULT_SENTENCE);
        assert!(notices[0].0.contains("64"));
        let (state, notices) = ViewState::from_query(&format!("max_tokens=256&s={long}"));
        assert_eq!((state.sentence.split(' ').count(), notices.len()), (65, 0));
        assert_eq!(state.row, 5);
    }

    #[test]
    fn a_token_limit_below_the_default_sentence_is_refused() {
        assert_eq!(tokenize(DEFAULT_SENTENCE).len(), DEFAULT_TOKENS);
        let (state, notices) = ViewState::from_query("max_tokens=3");
        assert_eq!((state.max_tokens, notices.len()), (MAX_TOKENS, 1));
        assert!(checked_tokens(&state.sentence, state.max_tokens).is_ok());
        let (state, notices) = ViewState::from_query("max_tokens=3&s=a+b");
        assert_eq!((state.max_tokens, state.sentence.as_str()), (3, "a b"));
        assert!(notices.is_empty());
        assert_eq!(ViewState::from_query(&state.to_query()), (state, vec![]));
    }

    #[test]
    fn unknown_and_repeated_keys_stay_cheap_and_bounded() {
        // 200,000 distinct unknown keys and 200,000 repeats of a known one: linear work, and at
        // most one notice per known parameter.
        let mut query: String = (0..200_000).map(|i| format!("k{i}=1&")).collect();
        query.push_str(&"seed=1&".repeat(200_000));
        let (state, notices) = ViewState::from_query(&query);
        assert_eq!(state.seed, 1);
        assert_eq!(notices.len(), 1, "{notices:?}");
        let (_, notices) = ViewState::from_query("zz=1&zz=2");
        assert!(notices.is_empty());
    }

    #[test]
    fn notices_strip_invisible_reordering_characters() {
        let (_, notices) = ViewState::from_query("step=%E2%80%AEtxe%00t%E2%81%A6");
        assert_eq!(notices.len(), 1);
        assert!(notices[0].0.contains("“txet”"), "{notices:?}");
    }

    /// Per parameter, in table order: a valid value other than the default, a value that cannot be
    /// used, and a word the notice about that bad value contains.
    const SAMPLES: [(&str, &str, &str, &str); 22] = [
        ("s", "a+b", "", "sentence"),
        ("tau", "2", "NaN", "temperature"),
        ("seed", "42", "-1", "seed"),
        ("heads", "4", "3", "heads="),
        ("head", "2", "0", "head="),
        ("row", "3", "99", "row="),
        ("step", "scaling", "zzz", "step="),
        ("lab_d", "64", "3", "lab_d="),
        ("pos", "1", "maybe", "pos="),
        ("w", "grammar", "gpt4", "w="),
        ("broken", "triu", "zzz", "broken="),
        ("quiz", "7", "x", "quiz="),
        ("cmp", "tau%3A2", "tau%3Ax", "cmp="),
        ("train", "grammar", "chess", "train="),
        ("tseed", "5", "-1", "tseed="),
        ("tlayers", "1", "3", "tlayers="),
        ("theads", "4", "3", "theads="),
        ("tpos", "learned", "alibi", "tpos="),
        ("tlr", "0.03", "0.5", "tlr="),
        ("tsteps", "100", "20001", "tsteps="),
        ("max_tokens", "256", "0", "max_tokens="),
        ("embed", "1", "maybe", "embed="),
    ];

    #[test]
    fn every_parameter_round_trips_and_reports_a_bad_value() {
        let keys: Vec<&str> = SAMPLES.iter().map(|sample| sample.0).collect();
        assert_eq!(keys, PARAMS, "one sample per table entry, in table order");
        for (key, good, bad, word) in SAMPLES {
            let (state, notices) = ViewState::from_query(&format!("{key}={good}"));
            assert!(notices.is_empty(), "{key}={good}: {notices:?}");
            assert_ne!(state, ViewState::default(), "{key}={good}");
            let link = state.to_query();
            assert!(
                link.split('&').any(|pair| pair == format!("{key}={good}")),
                "{link}"
            );
            assert_eq!(ViewState::from_query(&link), (state, vec![]));

            let (state, notices) = ViewState::from_query(&format!("{key}={bad}"));
            assert_eq!(state, ViewState::default(), "{key}={bad}");
            assert_eq!(notices.len(), 1, "{key}={bad}: {notices:?}");
            assert!(notices[0].0.contains(word), "{key}={bad}: {notices:?}");
        }
    }

    #[test]
    fn a_task_brings_its_own_layers_and_positions() {
        // A bare task link is that task's own run, as the task menu sets it up.
        let (state, notices) = ViewState::from_query("train=grammar");
        assert!(notices.is_empty());
        assert_eq!(
            (state.train_layers, state.train_positions),
            (1, PositionKind::Sinusoidal)
        );
        let training_part = |state: &ViewState| {
            let link = state.to_query();
            let pairs: Vec<String> = link
                .split('&')
                .filter(|pair| pair.starts_with('t') && !pair.starts_with("tau="))
                .map(String::from)
                .collect();
            pairs.join("&")
        };
        assert_eq!(training_part(&state), "train=grammar");
        let (state, _) = ViewState::from_query("");
        assert_eq!(
            (state.train_layers, state.train_positions),
            (2, PositionKind::Rotary)
        );
        // Choices away from the task's defaults are written, whichever task they belong to,
        // and come back; the order of the parameters in a link does not matter.
        for (query, layers, positions) in [
            (
                "train=grammar&tlayers=2&tpos=rotary",
                2,
                PositionKind::Rotary,
            ),
            (
                "tpos=rotary&tlayers=2&train=grammar",
                2,
                PositionKind::Rotary,
            ),
            ("tlayers=1&tpos=sinusoidal", 1, PositionKind::Sinusoidal),
            ("train=grammar&tpos=learned", 1, PositionKind::Learned),
        ] {
            let (state, notices) = ViewState::from_query(query);
            assert!(notices.is_empty(), "{query}");
            assert_eq!(
                (state.train_layers, state.train_positions),
                (layers, positions),
                "{query}"
            );
            let link = state.to_query();
            assert_eq!(ViewState::from_query(&link), (state, vec![]), "{link}");
        }
        let grammar_default = ViewState {
            train_task: TaskKind::Grammar,
            train_layers: 1,
            train_positions: PositionKind::Sinusoidal,
            ..ViewState::default()
        };
        assert_eq!(training_part(&grammar_default), "train=grammar");
        let two_layers = ViewState {
            train_layers: 2,
            ..grammar_default
        };
        assert_eq!(training_part(&two_layers), "train=grammar&tlayers=2");
    }

    #[test]
    fn steps_are_numbered_in_order_and_old_keys_keep_their_meaning() {
        assert_eq!(
            ViewState::default().step,
            Step::Average,
            "a bare link opens step 1"
        );
        let numbers: Vec<usize> = Step::ALL.iter().map(|s| s.number()).collect();
        assert_eq!(numbers, [1, 2, 3, 4, 5, 6]);
        for (key, step) in [
            ("average", Step::Average),
            ("softmax", Step::Softmax),
            ("attention", Step::Attention),
            ("scaling", Step::Scaling),
            ("heads", Step::Heads),
            ("positions", Step::Positions),
        ] {
            let (state, notices) = ViewState::from_query(&format!("step={key}"));
            assert_eq!((state.step, notices), (step, vec![]));
        }
        assert_eq!(Step::Average.previous(), None);
        assert_eq!(Step::Average.next(), Some(Step::Softmax));
        assert_eq!(Step::Heads.previous(), Some(Step::Scaling));
        assert_eq!(Step::Positions.next(), None);
        for pair in Step::ALL.windows(2) {
            assert_eq!(
                (pair[0].next(), pair[1].previous()),
                (Some(pair[1]), Some(pair[0]))
            );
        }
        let (_, notices) = ViewState::from_query("step=nope");
        assert_eq!(
            notices[0].0,
            "Ignored step=“nope”: use average, softmax, attention, scaling, heads or positions."
        );
    }

    #[test]
    fn broken_lists_mistakes_and_reports_unknown_names() {
        let (state, notices) = ViewState::from_query("broken=triu,mask-zero");
        assert_eq!(
            (state.broken.keys().as_str(), notices.len()),
            ("triu,mask-zero", 0)
        );
        assert!(state.to_query().contains("broken=triu%2Cmask-zero"));
        let (state, notices) = ViewState::from_query("broken=columns,nope,dropout");
        assert_eq!(state.broken.keys(), "columns,dropout");
        assert_eq!(notices.len(), 1);
        assert!(notices[0].0.contains("“nope”") && notices[0].0.contains("d-model"));
        assert!(ViewState::default()
            .to_query()
            .split('&')
            .all(|p| !p.starts_with("broken")));
        let every = Mistake::ALL.map(Mistake::key).join(",");
        let (state, notices) = ViewState::from_query(&format!("broken={every}"));
        assert_eq!((state.broken.iter().count(), notices.len()), (7, 0));
    }

    #[test]
    fn garbage_percent_encoding_is_harmless() {
        let (state, _) = ViewState::from_query("s=%E0%A4%A&tau=%ZZ&%%%=1&seed=%F0%9F");
        assert!((SLIDER_MIN_TAU..=SLIDER_MAX_TAU).contains(&state.tau));
        assert!(!state.sentence.is_empty());
    }
}
