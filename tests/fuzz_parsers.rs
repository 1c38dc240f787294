//! Fuzzers (proptest) for the two parsers that read untrusted text: the tokenizer (sentence box
//! and links) and the link parser (`ViewState::from_query` / `to_query`).
//!
//! The normal suite runs 256 cases per property. The long run (at least 1e5 cases each):
//!
//! ```text
//! PROPTEST_CASES=100000 cargo test --release --test fuzz_parsers
//! ```
//!
//! Properties: no panic on any input (arbitrary Unicode, controls, bidi marks, percent-encoding
//! garbage incl. invalid UTF-8 and lone surrogates, repeated and contradicting parameters, inputs
//! far beyond the limits); outputs bounded (tokens ≤ limit, ≤ 1000 characters accepted, at most one
//! notice per parameter plus one per repeated parameter, each ≤ 240 characters); every parsed state
//! valid; state → link → state is the identity for every valid state.
#![cfg(not(target_arch = "wasm32"))]

use attention_explorer::model::broken::{Mistake, Mistakes};
use attention_explorer::model::host::is_decimal_literal;
use attention_explorer::model::scaling_lab::HEAD_SIZES;
use attention_explorer::model::tokenizer::{
    checked_tokens, is_punctuation, tokenize, SentenceError, MAX_SENTENCE_CHARS, MAX_TOKENS,
};
use attention_explorer::model::train::page::settings::{
    TaskChoice, LAYER_CHOICES, LEARNING_RATES, MAX_LINK_STEPS, TRAIN_HEAD_CHOICES,
};
use attention_explorer::model::train::shape::PositionKind;
use attention_explorer::model::trained::WeightsChoice;
use attention_explorer::model::url_state::{
    CompareChange, Step, ViewState, DEFAULT_SENTENCE, DEVELOPER_MAX_TOKENS, MAX_NOTICE_CHARS,
    MAX_SEED, PARAMS, SLIDER_MAX_TAU, SLIDER_MIN_TAU,
};
use attention_explorer::model::weights::{DEFAULT_SEED, HEAD_CHOICES};
use proptest::prelude::*;
use proptest::test_runner::Config;

/// 256 cases by default; `PROPTEST_CASES` overrides (proptest reads it in `Config::default`).
fn config() -> Config {
    Config {
        // Shrinking huge inputs can take long; a failure is reported with its seed either way.
        max_shrink_iters: 2_000,
        ..Config::default()
    }
}

// ---------------------------------------------------------------------------------------------
// Input generators
// ---------------------------------------------------------------------------------------------

/// Characters that exercise every branch of the tokenizer and of percent-decoding.
fn tricky_char() -> impl Strategy<Value = char> {
    prop::sample::select(vec![
        'a',
        'Z',
        '7',
        'é',
        'ß',
        '猫',
        'が',
        'ש',
        'ل',
        '٣',
        '🐈',
        '👍',
        '\u{1F3FD}', // letters, digits, emoji
        '.',
        ',',
        '!',
        '?',
        '(',
        ')',
        '<',
        '>',
        '&',
        '=',
        '+',
        '%',
        '#',
        '"',
        '/',
        ';', // ASCII punct.
        '\'',
        '’',
        '-', // word joiners
        '¿',
        '«',
        '»',
        '…',
        '—',
        '「',
        '。',
        '؟',
        '،',
        '।', // Unicode punctuation
        ' ',
        '\t',
        '\n',
        '\r',
        '\u{A0}',
        '\u{2028}',
        '\u{3000}',
        '\u{85}', // white space
        '\0',
        '\u{7}',
        '\u{1B}',
        '\u{7F}',
        '\u{9F}', // controls
        '\u{200B}',
        '\u{200D}',
        '\u{FEFF}',
        '\u{301}',
        '\u{FE0F}', // zero-width, joiners, marks
        '\u{202E}',
        '\u{2066}',
        '\u{200F}', // bidi overrides and marks
        '\u{FFFD}',
        '\u{10FFFF}',
        '\u{E000}',
    ])
}

/// Arbitrary Unicode text: uniformly random scalar values, tricky characters, or a mix.
fn unicode_text(max_len: usize) -> impl Strategy<Value = String> {
    prop_oneof![
        prop::collection::vec(any::<char>(), 0..=max_len).prop_map(String::from_iter),
        prop::collection::vec(tricky_char(), 0..=max_len).prop_map(String::from_iter),
        prop::collection::vec(prop_oneof![any::<char>(), tricky_char()], 0..=max_len)
            .prop_map(String::from_iter),
        "\\PC{0,80}",
    ]
}

/// A sentence: short, near the limits, or far beyond them (repeated fragments up to ~40k chars).
fn sentence() -> impl Strategy<Value = String> {
    prop_oneof![
        6 => unicode_text(120),
        2 => prop::collection::vec(prop_oneof!["[a-z]{1,6}", "[.,!?'’-]", "\\PL{1,3}"], 55..=75)
            .prop_map(|w| w.join(" ")),
        1 => (unicode_text(12), 60usize..=4_000).prop_map(|(s, n)| s.repeat(n.min(40_000 / s.len().max(1)))),
    ]
}

/// Percent-encoding garbage: raw bytes (invalid UTF-8, lone surrogates, overlongs), broken
/// escapes, `+`, and the separators `&` `=` `;` themselves.
fn encoded_garbage() -> impl Strategy<Value = String> {
    let piece = prop_oneof![
        any::<u8>().prop_map(|b| format!("%{b:02X}")),
        any::<u8>().prop_map(|b| format!("%{b:02x}")),
        Just("%ED%A0%80".to_string()), // lone high surrogate, UTF-8 encoded
        Just("%ED%BF%BF".to_string()), // lone low surrogate
        Just("%C0%80".to_string()),    // overlong NUL
        Just("%F4%90%80%80".to_string()), // beyond U+10FFFF
        Just("%".to_string()),
        Just("%4".to_string()),
        Just("%zz".to_string()),
        Just("%%".to_string()),
        Just("+".to_string()),
        Just("=".to_string()),
        Just("&".to_string()),
        Just(";".to_string()),
        Just("#".to_string()),
        "[a-z0-9.]{1,4}",
        tricky_char().prop_map(String::from),
    ];
    prop::collection::vec(piece, 0..=24).prop_map(|v| v.concat())
}

/// `text` percent-encoded the way a browser would put it into a link.
fn encode(text: &str) -> String {
    form_urlencoded::byte_serialize(text.as_bytes()).collect()
}

/// A value for parameter `key`: valid, on the edge, out of range, or garbage.
fn value_for(key: &'static str) -> BoxedStrategy<String> {
    let valid: BoxedStrategy<String> = match key {
        "s" => sentence().prop_map(|s| encode(&s)).boxed(),
        "tau" => prop_oneof![
            (SLIDER_MIN_TAU..=SLIDER_MAX_TAU).prop_map(|t| t.to_string()),
            (-200i32..=200).prop_map(|k| 10f64.powf(f64::from(k) / 100.0).to_string()),
        ]
        .boxed(),
        "seed" => (0..=MAX_SEED).prop_map(|s| s.to_string()).boxed(),
        "heads" | "head" => (0usize..=9).prop_map(|h| h.to_string()).boxed(),
        "row" => (0usize..=80).prop_map(|r| r.to_string()).boxed(),
        "step" => prop::sample::select(vec![
            "average",
            "softmax",
            "attention",
            "scaling",
            "heads",
            "positions",
        ])
        .prop_map(String::from)
        .boxed(),
        "lab_d" => prop::sample::select(HEAD_SIZES.to_vec())
            .prop_map(|d| d.to_string())
            .boxed(),
        "pos" => prop::sample::select(vec!["0", "1", "true", "false", "on", "off"])
            .prop_map(String::from)
            .boxed(),
        _ => (0usize..=600).prop_map(|n| n.to_string()).boxed(),
    };
    let edge = prop::sample::select(vec![
        "",
        "NaN",
        "nan",
        "inf",
        "-inf",
        "infinity",
        "-1",
        "0",
        "-0",
        "1e308",
        "1e-320",
        "1e999",
        "0.009999",
        "100.00001",
        "+1",
        " 1",
        "1 ",
        "0x10",
        "1_000",
        "１",
        "٣",
        "4294967295",
        "4294967296",
        "18446744073709551615",
        "18446744073709551616",
        "9".repeat(400).leak(),
        "true",
        "yes",
        "AVERAGE",
        "Scaling",
        "attention%00",
        "%00",
        "%ED%A0%80",
        "%FF%FE",
        "<script>alert(1)</script>",
        "%3Cimg%20src%3Dx%20onerror%3Dalert(1)%3E",
    ])
    .prop_map(String::from);
    prop_oneof![
        4 => valid,
        2 => edge,
        1 => encoded_garbage(),
        1 => unicode_text(40).prop_map(|s| encode(&s)),
        1 => unicode_text(40), // raw, unencoded text
    ]
    .boxed()
}

/// One `key=value` piece of a query.
fn piece() -> impl Strategy<Value = String> {
    let known = prop::sample::select(PARAMS.to_vec())
        .prop_flat_map(|k| (Just(k), value_for(k)))
        .prop_map(|(k, v)| format!("{k}={v}"));
    prop_oneof![
        8 => known,
        // A known key whose name is itself percent-encoded or `+`-mangled.
        1 => (prop::sample::select(PARAMS.to_vec()), value_for("tau"))
            .prop_map(|(k, v)| format!("{}={v}", k.bytes().map(|b| format!("%{b:02X}")).collect::<String>())),
        1 => prop::sample::select(PARAMS.to_vec()).prop_map(String::from), // key without '='
        1 => ("[a-z_]{1,12}", encoded_garbage()).prop_map(|(k, v)| format!("{k}={v}")),
        1 => encoded_garbage(),
        1 => unicode_text(30),
        1 => Just("debug_panic=0".to_string()),
    ]
}

/// A whole query: a few pieces, many pieces, or huge values.
fn query() -> impl Strategy<Value = String> {
    let sep = prop::sample::select(vec!["&", "&", "&", "&&", ";", "&amp;"]);
    prop_oneof![
        6 => prop::collection::vec((piece(), sep.clone()), 0..=24)
            .prop_map(|v| v.into_iter().flat_map(|(p, s)| [p, s.to_string()]).collect::<String>()),
        // Contradictions: each known key up to 3 times with independent values.
        2 => prop::collection::vec(piece(), 10..=30).prop_map(|v| v.join("&")),
        // Huge: a 10k+ character sentence, or thousands of parameters.
        1 => (unicode_text(8), 2_000usize..=12_000)
            .prop_map(|(s, n)| format!("tau=2&s={}&row=3", encode(&s.repeat(n / s.len().max(1) + 1)))),
        1 => (piece(), 500usize..=5_000).prop_map(|(p, n)| format!("{p}&").repeat(n)),
        // With or without the leading '?'.
        1 => prop::collection::vec(piece(), 0..=12).prop_map(|v| format!("?{}", v.join("&"))),
    ]
}

/// A valid view: its sentence passes the gate under its own token limit, row and head in range.
fn valid_state() -> impl Strategy<Value = ViewState> {
    let sentence = prop_oneof![
        unicode_text(120),
        prop::collection::vec("[a-zA-Z]{1,8}|[.,;:!?]|\\PC{1,4}", 1..=80).prop_map(|w| w.join(" ")),
        Just(DEFAULT_SENTENCE.to_string()),
    ]
    .prop_filter_map("sentence refused by the gate", |s| {
        checked_tokens(&s, DEVELOPER_MAX_TOKENS)
            .ok()
            .map(|t| (s, t.len()))
    });
    let tau = prop_oneof![
        SLIDER_MIN_TAU..=SLIDER_MAX_TAU,
        (-2.0f64..=2.0).prop_map(|e| 10f64.powf(e).clamp(SLIDER_MIN_TAU, SLIDER_MAX_TAU)),
        (-200i32..=200).prop_map(|k| 10f64.powf(f64::from(k) / 100.0)),
        Just(SLIDER_MIN_TAU),
        Just(SLIDER_MAX_TAU),
        Just(1.0),
        Just(0.25),
    ];
    (sentence, prop::sample::select(HEAD_CHOICES.to_vec()))
        .prop_flat_map(move |((s, n), heads)| {
            let max_tokens = if n <= MAX_TOKENS {
                prop_oneof![3 => Just(MAX_TOKENS), 1 => n..=DEVELOPER_MAX_TOKENS].boxed()
            } else {
                (n..=DEVELOPER_MAX_TOKENS).boxed()
            };
            (
                Just(s),
                tau.clone(),
                // The model's seed and the quiz's.
                (0..=MAX_SEED, 0..=MAX_SEED),
                Just(heads),
                0..heads,
                0..n,
                prop::sample::select(Step::ALL.to_vec()),
                prop::sample::select(HEAD_SIZES.to_vec()),
                any::<bool>(),
                any::<u8>(),
                max_tokens,
                any::<bool>(),
            )
        })
        .prop_map(
            |(
                sentence,
                tau,
                (seed, quiz),
                heads,
                head,
                row,
                step,
                lab_head_size,
                positions,
                broken_bits,
                max_tokens,
                embed,
            )| {
                let broken: Mistakes = Mistake::ALL
                    .into_iter()
                    .enumerate()
                    .filter(|(k, _)| (broken_bits >> k) & 1 == 1)
                    .map(|(_, m)| m)
                    .collect();
                // The compare view's change, spread over its kinds by the seed.
                let compare = match seed % 6 {
                    0 => None,
                    1 => Some(CompareChange::Tau(tau)),
                    2 => Some(CompareChange::Seed(seed / 3)),
                    3 => Some(CompareChange::Positions),
                    4 => Some(CompareChange::Sentence(sentence.clone())),
                    _ => Some(CompareChange::Broken(broken)),
                };
                ViewState {
                    sentence,
                    tau,
                    seed,
                    heads,
                    head,
                    row,
                    step,
                    lab_head_size,
                    positions,
                    weights: if seed % 2 == 0 {
                        WeightsChoice::Random
                    } else {
                        WeightsChoice::Grammar
                    },
                    broken,
                    quiz,
                    compare,
                    max_tokens,
                    embed,
                    ..ViewState::default()
                }
            },
        )
        .prop_flat_map(|view| (Just(view), train_settings()))
        .prop_map(
            |(
                view,
                (
                    train_task,
                    train_seed,
                    train_layers,
                    train_heads,
                    train_positions,
                    train_lr,
                    train_steps,
                ),
            )| ViewState {
                train_task,
                train_seed,
                train_layers,
                train_heads,
                train_positions,
                train_lr,
                train_steps,
                ..view
            },
        )
}

/// The training view's settings, every offered value.
fn train_settings(
) -> impl Strategy<Value = (TaskChoice, u64, usize, usize, PositionKind, f64, usize)> {
    (
        prop::sample::select(TaskChoice::ALL.to_vec()),
        0..=MAX_SEED,
        prop::sample::select(LAYER_CHOICES.to_vec()),
        prop::sample::select(TRAIN_HEAD_CHOICES.to_vec()),
        prop::sample::select(PositionKind::ALL.to_vec()),
        prop::sample::select(LEARNING_RATES.to_vec()),
        0..=MAX_LINK_STEPS,
    )
}

// ---------------------------------------------------------------------------------------------
// Checks
// ---------------------------------------------------------------------------------------------

fn is_separator(c: char) -> bool {
    c.is_whitespace() || c.is_control()
}

fn check_tokens(s: &str, tokens: &[String]) -> Result<(), TestCaseError> {
    let visible: String = s.chars().filter(|&c| !is_separator(c)).collect();
    // Nothing lost, nothing invented: the tokens are the visible text, in order.
    prop_assert_eq!(tokens.concat(), visible.clone());
    prop_assert!(tokens.len() <= visible.chars().count());
    for t in tokens {
        prop_assert!(!t.is_empty());
        prop_assert!(!t.chars().any(is_separator), "separator inside {:?}", t);
        let chars: Vec<char> = t.chars().collect();
        if chars.len() > 1 {
            // A word holds punctuation only as an apostrophe/hyphen between two alphanumerics.
            for (i, &c) in chars.iter().enumerate() {
                if is_punctuation(c) {
                    prop_assert!(matches!(c, '\'' | '’' | '-'), "{:?} in {:?}", c, t);
                    prop_assert!(i > 0 && chars[i - 1].is_alphanumeric(), "{:?}", t);
                    prop_assert!(
                        chars.get(i + 1).is_some_and(|n| n.is_alphanumeric()),
                        "{:?}",
                        t
                    );
                }
            }
        }
    }
    // Tokenizing is stable: re-tokenizing the tokens joined by spaces gives them back.
    prop_assert_eq!(tokenize(&tokens.join(" ")), tokens.to_vec());
    Ok(())
}

/// What a parsed state must satisfy for the page to show it.
fn check_valid(state: &ViewState) -> Result<(), TestCaseError> {
    prop_assert!((1..=DEVELOPER_MAX_TOKENS).contains(&state.max_tokens));
    let tokens = checked_tokens(&state.sentence, state.max_tokens);
    prop_assert!(
        tokens.is_ok(),
        "sentence {:?} fails its own gate: {:?}",
        state.sentence,
        tokens
    );
    let tokens = tokens.unwrap();
    prop_assert!(state.sentence.chars().count() <= MAX_SENTENCE_CHARS);
    prop_assert!(state.row < tokens.len());
    prop_assert!(HEAD_CHOICES.contains(&state.heads) && state.head < state.heads);
    prop_assert!(state.tau.is_finite() && (SLIDER_MIN_TAU..=SLIDER_MAX_TAU).contains(&state.tau));
    prop_assert!(state.seed <= MAX_SEED);
    prop_assert!(HEAD_SIZES.contains(&state.lab_head_size));
    Ok(())
}

/// The first value of each known parameter, and how many known parameters repeat.
fn decoded(query: &str) -> (Vec<(String, String)>, usize) {
    let query = query.strip_prefix('?').unwrap_or(query);
    let mut first: Vec<(String, String)> = Vec::new();
    let mut repeated: Vec<String> = Vec::new();
    for (k, v) in form_urlencoded::parse(query.as_bytes()) {
        if !PARAMS.contains(&k.as_ref()) {
            continue;
        }
        if first.iter().any(|(f, _)| *f == k) {
            if !repeated.iter().any(|r| *r == k) {
                repeated.push(k.into_owned());
            }
        } else {
            first.push((k.into_owned(), v.into_owned()));
        }
    }
    (first, repeated.len())
}

/// The longest link a valid state can produce: each sentence character is at most 4 UTF-8 bytes,
/// 12 characters once percent-encoded; the other parameters need well under 200.
const MAX_QUERY_LEN: usize = 12 * MAX_SENTENCE_CHARS + 200;

proptest! {
    #![proptest_config(config())]

    #[test]
    fn tokenizer_never_panics_loses_nothing_and_is_stable(s in sentence()) {
        let tokens = tokenize(&s);
        check_tokens(&s, &tokens)?;
    }

    #[test]
    fn the_sentence_gate_bounds_its_output(s in sentence(), limit in 1usize..=DEVELOPER_MAX_TOKENS) {
        let chars = s.chars().count();
        match checked_tokens(&s, limit) {
            Ok(tokens) => {
                prop_assert!(chars <= MAX_SENTENCE_CHARS);
                prop_assert!(!tokens.is_empty() && tokens.len() <= limit);
                prop_assert_eq!(&tokens, &tokenize(&s));
            }
            Err(e) => {
                match e {
                    SentenceError::TooLong { chars: c, limit: l } => {
                        prop_assert_eq!((c, l), (chars, MAX_SENTENCE_CHARS));
                        prop_assert!(chars > MAX_SENTENCE_CHARS);
                    }
                    SentenceError::Empty => {
                        prop_assert!(chars <= MAX_SENTENCE_CHARS && tokenize(&s).is_empty());
                    }
                    SentenceError::TooManyTokens { count, limit: l } => {
                        prop_assert!(chars <= MAX_SENTENCE_CHARS);
                        prop_assert_eq!((count, l), (tokenize(&s).len(), limit));
                        prop_assert!(count > limit);
                    }
                }
                // The message is short and quotes no user text (numbers only).
                let message = e.message();
                prop_assert!(!message.is_empty() && message.chars().count() <= MAX_NOTICE_CHARS);
                prop_assert!(message.is_ascii());
            }
        }
    }

    #[test]
    fn any_link_gives_a_valid_state_and_bounded_notices(q in query()) {
        let (state, notices) = ViewState::from_query(&q);
        check_valid(&state)?;
        let (first, repeated) = decoded(&q);
        // At most one notice per parameter present, plus one per repeated parameter.
        prop_assert!(notices.len() <= first.len() + repeated, "{} notices for {:?}", notices.len(), notices);
        for n in &notices {
            let len = n.0.chars().count();
            prop_assert!(len > 0 && len <= MAX_NOTICE_CHARS, "notice of {} chars", len);
            prop_assert!(!n.0.chars().any(|c| c.is_control() || matches!(c, '\u{202A}'..='\u{202E}' | '\u{2066}'..='\u{2069}')),
                "invisible characters in {:?}", n.0);
        }
        // The first value of each simple parameter decides, exactly as documented.
        let get = |k: &str| first.iter().find(|(f, _)| f == k).map(|(_, v)| v.as_str());
        let expect_seed = get("seed").and_then(|v| v.parse::<u64>().ok()).filter(|s| *s <= MAX_SEED);
        prop_assert_eq!(state.seed, expect_seed.unwrap_or(DEFAULT_SEED));
        let expect_step = get("step").and_then(Step::from_key);
        prop_assert_eq!(state.step, expect_step.unwrap_or(Step::Average));
        let expect_lab = get("lab_d").and_then(|v| v.parse::<usize>().ok()).filter(|d| HEAD_SIZES.contains(d));
        prop_assert_eq!(state.lab_head_size, expect_lab.unwrap_or(16));
        match get("tau").and_then(|v| v.parse::<f64>().ok()) {
            Some(t) if t.is_finite() && t > 0.0 => prop_assert_eq!(state.tau, t.clamp(SLIDER_MIN_TAU, SLIDER_MAX_TAU)),
            _ => prop_assert_eq!(state.tau, 1.0),
        }
        // A sentence that was not used is always reported.
        if get("s").is_some_and(|s| s != state.sentence) {
            prop_assert!(notices.iter().any(|n| n.0.starts_with("The link's sentence was not used.")));
        }
        if get("s").is_some_and(|s| checked_tokens(s, MAX_TOKENS).is_ok()) && get("max_tokens").is_none() {
            prop_assert_eq!(Some(state.sentence.as_str()), get("s"));
        }
        // Whatever came in, the state's own link reproduces it without notices.
        let link = state.to_query();
        prop_assert!(link.len() <= MAX_QUERY_LEN);
        let (again, more) = ViewState::from_query(&link);
        prop_assert_eq!(&again, &state);
        prop_assert!(more.is_empty(), "{:?}", more);
    }

    #[test]
    fn every_valid_state_round_trips_through_its_link(state in valid_state()) {
        check_valid(&state)?;
        let link = state.to_query();
        prop_assert!(link.len() <= MAX_QUERY_LEN);
        // A link is plain ASCII, safe to paste anywhere.
        prop_assert!(link.bytes().all(|b| b.is_ascii_graphic()));
        let (again, notices) = ViewState::from_query(&link);
        prop_assert!(notices.is_empty(), "{:?}", notices);
        prop_assert_eq!(&again, &state);
        prop_assert_eq!(again.to_query(), link.clone());
        // The leading '?' a browser adds changes nothing.
        prop_assert_eq!(ViewState::from_query(&format!("?{link}")).0, state);
    }

    /// The number syntax the link parser accepts (and hands to the browser's `parseFloat`) is
    /// exactly what Rust parses, minus the words (inf, NaN): nothing lenient gets through.
    #[test]
    fn decimal_literals_are_exactly_rusts_numbers_without_words(
        s in prop_oneof![
            "[-+]?[0-9]{0,20}(\\.[0-9]{0,20})?([eE][-+]?[0-9]{0,4})?",
            "[ +\\-.0-9eEinfINFaAxX_,]{0,12}",
            unicode_text(12),
        ]
    ) {
        let rust = s.parse::<f64>();
        let is_word = s.trim_start_matches(['+', '-']).chars().any(|c| c.is_ascii_alphabetic() && !"eE".contains(c));
        prop_assert_eq!(is_decimal_literal(&s), rust.is_ok() && !is_word, "{:?}", s);
    }
}

/// The exact hostile cases named in the reliability requirements, checked deterministically (the fuzzers reach them at random).
#[test]
fn named_hostile_links() {
    let huge_s = format!("s={}", "w".repeat(10_000));
    for q in [
        "tau=NaN",
        "tau=-1",
        "tau=0",
        "tau=1e308",
        "tau=inf",
        "s=%ED%A0%80",
        "s=%ED%A0%80%ED%B0%80+cat",
        "s=%E0%A4%A&tau=%ZZ&%%%=1&seed=%F0%9F",
        "tau=2&tau=0.5&heads=8&heads=1&head=8&row=7&row=1",
        "heads=1&head=2",
        "max_tokens=1",
        "max_tokens=0&s=a",
        "max_tokens=513",
        huge_s.as_str(),
    ] {
        let (state, notices) = ViewState::from_query(q);
        check_valid(&state).unwrap_or_else(|e| panic!("{q}: {e}"));
        assert!(
            !notices.is_empty() || q.starts_with("s=%ED"),
            "{q}: no notice"
        );
        assert!(notices
            .iter()
            .all(|n| n.0.chars().count() <= MAX_NOTICE_CHARS));
    }
    // Lone surrogates decode to U+FFFD, a visible (non-punctuation) character: one token.
    let (state, notices) = ViewState::from_query("s=%ED%A0%80");
    assert!(notices.is_empty());
    assert_eq!(tokenize(&state.sentence), ["\u{FFFD}\u{FFFD}\u{FFFD}"]);
    let (state, _) = ViewState::from_query("tau=2&tau=0.5&heads=8&heads=1&head=8");
    assert_eq!((state.tau, state.heads, state.head), (2.0, 8, 7));
}
