//! The whole view as a URL query, so a link reproduces exactly what its sender saw.
//!
//! Parsing never fails: each missing, malformed or out-of-range parameter falls back to its default
//! and adds one short [`Notice`] that the page shows. Serialising a valid state and parsing it back
//! gives the same state.

use super::host::{CoreText, TextHost};
use super::scaling_lab::HEAD_SIZES;
use super::tokenizer::{checked_tokens, MAX_TOKENS};
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
/// Every parameter a link may carry (see [`ViewState::to_query`]).
pub const PARAMS: [&str; 10] = [
    "s",
    "tau",
    "seed",
    "heads",
    "head",
    "row",
    "step",
    "lab_d",
    "pos",
    "max_tokens",
];
/// Tokens in [`DEFAULT_SENTENCE`].
const DEFAULT_TOKENS: usize = 7;

/// The lesson section on screen.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Step {
    Averaging,
    Attention,
    Scaling,
}

impl Step {
    pub const ALL: [Step; 3] = [Step::Averaging, Step::Attention, Step::Scaling];

    pub fn key(self) -> &'static str {
        match self {
            Step::Averaging => "average",
            Step::Attention => "attention",
            Step::Scaling => "scaling",
        }
    }

    pub fn from_key(key: &str) -> Option<Self> {
        Self::ALL.into_iter().find(|s| s.key() == key)
    }
}

/// Everything a link carries.
#[derive(Debug, Clone, PartialEq)]
pub struct ViewState {
    pub sentence: String,
    pub tau: f64,
    pub seed: u64,
    pub heads: usize,
    /// Which head the main heatmap shows (0-based).
    pub head: usize,
    /// Selected query row (0-based).
    pub row: usize,
    pub step: Step,
    /// Head size on the scaling lab (step 4).
    pub lab_head_size: usize,
    pub positions: bool,
    /// Developer setting: token limit (default [`MAX_TOKENS`]).
    pub max_tokens: usize,
}

impl Default for ViewState {
    fn default() -> Self {
        Self {
            sentence: DEFAULT_SENTENCE.to_string(),
            tau: 1.0,
            seed: DEFAULT_SEED,
            heads: DEFAULT_HEADS,
            head: 0,
            row: 5,
            step: Step::Attention,
            lab_head_size: 16,
            positions: false,
            max_tokens: MAX_TOKENS,
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

fn notice(text: String) -> Notice {
    Notice(text.chars().take(MAX_NOTICE_CHARS).collect())
}

impl ViewState {
    /// The state a query string (with or without the leading `?`) describes, and what was corrected.
    pub fn from_query(query: &str) -> (Self, Vec<Notice>) {
        Self::from_query_with::<CoreText>(query)
    }

    /// As [`ViewState::from_query`], reading numbers through `H` (the browser passes its own).
    pub fn from_query_with<H: TextHost>(query: &str) -> (Self, Vec<Notice>) {
        let query = query.strip_prefix('?').unwrap_or(query);
        let mut state = Self::default();
        let mut notices = Vec::new();
        // Only the known parameters are kept (first value wins), so the work and the number of
        // notices stay bounded however long the link is; other keys are ignored.
        let mut values: [Option<String>; PARAMS.len()] = Default::default();
        let mut repeated = [false; PARAMS.len()];
        for (key, value) in form_urlencoded::parse(query.as_bytes()) {
            if let Some(i) = PARAMS.iter().position(|p| *p == key) {
                match values[i] {
                    Some(_) => repeated[i] = true,
                    None => values[i] = Some(value.into_owned()),
                }
            }
        }
        for (name, _) in PARAMS.iter().zip(repeated).filter(|(_, r)| *r) {
            notices.push(notice(format!(
                "The link repeats “{name}”; the first value was used."
            )));
        }
        let get = |name: &str| {
            let i = PARAMS.iter().position(|p| *p == name)?;
            values[i].as_deref()
        };

        if let Some(v) = get("max_tokens") {
            match v.parse::<usize>() {
                Ok(n) if (1..=DEVELOPER_MAX_TOKENS).contains(&n) => state.max_tokens = n,
                _ => notices.push(notice(format!(
                    "Ignored max_tokens={}: it must be a whole number from 1 to {DEVELOPER_MAX_TOKENS}.",
                    quoted(v)
                ))),
            }
        }
        let mut token_count = DEFAULT_TOKENS;
        if let Some(v) = get("s") {
            match checked_tokens(v, state.max_tokens) {
                Ok(tokens) => {
                    state.sentence = v.to_string();
                    token_count = tokens.len();
                }
                Err(e) => notices.push(notice(format!(
                    "The link's sentence was not used. {}",
                    e.message()
                ))),
            }
        }
        if state.sentence == DEFAULT_SENTENCE && state.max_tokens < DEFAULT_TOKENS {
            // The default sentence must fit, or the page would have no sentence to show.
            notices.push(notice(format!(
                "Ignored max_tokens={}: the default sentence has {DEFAULT_TOKENS} tokens.",
                state.max_tokens
            )));
            state.max_tokens = MAX_TOKENS;
        }
        if let Some(v) = get("tau") {
            match H::parse_decimal(v) {
                Some(t) if t.is_finite() && (SLIDER_MIN_TAU..=SLIDER_MAX_TAU).contains(&t) => {
                    state.tau = t
                }
                Some(t) if t.is_finite() && t > 0.0 => {
                    state.tau = t.clamp(SLIDER_MIN_TAU, SLIDER_MAX_TAU);
                    notices.push(notice(format!(
                        "Temperature {} is outside {SLIDER_MIN_TAU}–{SLIDER_MAX_TAU}; using {}.",
                        quoted(v),
                        state.tau
                    )));
                }
                _ => notices.push(notice(format!(
                    "Ignored temperature {}: it must be a positive number; using 1.",
                    quoted(v)
                ))),
            }
        }
        if let Some(v) = get("seed") {
            match v.parse::<u64>() {
                Ok(s) if s <= MAX_SEED => state.seed = s,
                _ => notices.push(notice(format!(
                    "Ignored seed {}: it must be a whole number from 0 to {MAX_SEED}.",
                    quoted(v)
                ))),
            }
        }
        if let Some(v) = get("heads") {
            match v.parse::<usize>() {
                Ok(h) if valid_heads(h) => state.heads = h,
                _ => notices.push(notice(format!(
                    "Ignored heads={}: choose 1, 2, 4 or 8.",
                    quoted(v)
                ))),
            }
        }
        if let Some(v) = get("head") {
            match v.parse::<usize>() {
                Ok(h) if (1..=state.heads).contains(&h) => state.head = h - 1,
                _ => notices.push(notice(format!(
                    "Ignored head={}: there are {} heads.",
                    quoted(v),
                    state.heads
                ))),
            }
        }
        state.row = state.row.min(token_count - 1);
        if let Some(v) = get("row") {
            match v.parse::<usize>() {
                Ok(r) if (1..=token_count).contains(&r) => state.row = r - 1,
                _ => notices.push(notice(format!(
                    "Ignored row={}: the sentence has {token_count} tokens.",
                    quoted(v)
                ))),
            }
        }
        if let Some(v) = get("step") {
            match Step::from_key(v) {
                Some(s) => state.step = s,
                None => notices.push(notice(format!(
                    "Ignored step={}: use average, attention or scaling.",
                    quoted(v)
                ))),
            }
        }
        if let Some(v) = get("lab_d") {
            match v.parse::<usize>() {
                Ok(d) if HEAD_SIZES.contains(&d) => state.lab_head_size = d,
                _ => notices.push(notice(format!(
                    "Ignored lab_d={}: use a power of two from 1 to 512.",
                    quoted(v)
                ))),
            }
        }
        if let Some(v) = get("pos") {
            match v {
                "1" | "true" | "on" => state.positions = true,
                "0" | "false" | "off" => state.positions = false,
                _ => notices.push(notice(format!("Ignored pos={}: use 0 or 1.", quoted(v)))),
            }
        }
        (state, notices)
    }

    /// The query string (without `?`) for this state. Rows and heads are 1-based, as on screen.
    pub fn to_query(&self) -> String {
        let mut out = form_urlencoded::Serializer::new(String::new());
        out.append_pair("s", &self.sentence)
            .append_pair("tau", &self.tau.to_string())
            .append_pair("seed", &self.seed.to_string())
            .append_pair("heads", &self.heads.to_string())
            .append_pair("head", &(self.head + 1).to_string())
            .append_pair("row", &(self.row + 1).to_string())
            .append_pair("step", self.step.key())
            .append_pair("lab_d", &self.lab_head_size.to_string())
            .append_pair("pos", if self.positions { "1" } else { "0" });
        if self.max_tokens != MAX_TOKENS {
            out.append_pair("max_tokens", &self.max_tokens.to_string());
        }
        out.finish()
    }
}

/// τ values a valid state may hold (the model accepts a wider range; see `effective_temperature`).
pub fn tau_is_valid(tau: f64) -> bool {
    (SLIDER_MIN_TAU..=SLIDER_MAX_TAU).contains(&tau)
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
            max_tokens: 256,
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

    #[test]
    fn garbage_percent_encoding_is_harmless() {
        let (state, _) = ViewState::from_query("s=%E0%A4%A&tau=%ZZ&%%%=1&seed=%F0%9F");
        assert!(tau_is_valid(state.tau));
        assert!(!state.sentence.is_empty());
    }
}
