//! Links read and written: defaults, round trips, every parameter's bad values and notices.

use super::*;
use crate::model::broken::Mistake;
use crate::model::tokenizer::{checked_tokens, tokenize};
use crate::model::train::lab::knockout::{heads_of_mask, mask_of};

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
        compare: Some(CompareChange::Sentence("a <b> & c, d?".into())),
        train_task: TaskChoice::Grammar,
        train_seed: 77,
        train_layers: 1,
        train_heads: 4,
        train_positions: PositionKind::Learned,
        train_lr: 0.003,
        train_steps: 150,
        train_b: "seed:9".into(),
        train_knockout: mask_of(&[(0, 1), (0, 3)]),
        train_ko_mean: true,
        train_workers: false,
        max_tokens: 256,
        embed: true,
    };
    let query = state.to_query();
    assert_eq!(ViewState::from_query(&query), (state, vec![]));
}

#[test]
fn bad_values_fall_back_with_notices() {
    let (state, notices) =
        ViewState::from_query("tau=NaN&seed=-1&heads=3&row=99&step=zzz&lab_d=3&pos=maybe&head=0");
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
const SAMPLES: [(&str, &str, &str, &str); 26] = [
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
    ("b", "mistake%3Ano-mask", "seed%3Ax", "b="),
    ("ko", "1.2", "3.1", "ko="),
    ("kokind", "mean", "half", "kokind="),
    ("workers", "0", "2", "workers="),
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
        // Whole sentences: no notice is cut by the length bound.
        assert!(notices[0].0.ends_with('.'), "{key}={bad}: {notices:?}");
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
        train_task: TaskChoice::Grammar,
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

#[test]
fn knock_outs_are_checked_against_the_model() {
    let (state, notices) = ViewState::from_query("ko=2.1,1.2,1.2");
    assert_eq!(
        (heads_of_mask(state.train_knockout), notices.len()),
        (vec![(0, 1), (1, 0)], 0)
    );
    // One layer: layer 2's head is refused, layer 1's kept.
    let (state, notices) = ViewState::from_query("tlayers=1&ko=1.1,2.1");
    assert_eq!(heads_of_mask(state.train_knockout), vec![(0, 0)]);
    assert!(notices[0].0.contains("ko="), "{notices:?}");
    let (state, _) = ViewState::from_query("theads=4&ko=1.4");
    assert_eq!(heads_of_mask(state.train_knockout), vec![(0, 3)]);
    // Layer or head 0 is refused with a notice (it once overflowed counting from 1).
    for query in ["ko=0.1", "ko=1.0", "ko=0.009999"] {
        let (state, notices) = ViewState::from_query(query);
        assert_eq!((state.train_knockout, notices.len()), (0, 1), "{query}");
    }
    assert!(
        state.to_query().ends_with("&theads=4&ko=1.4"),
        "{}",
        state.to_query()
    );
    // Run B's change is kept as its link text, checked.
    let (state, _) = ViewState::from_query("b=mistake%3Ano-mask");
    assert_eq!(state.train_b, "mistake:no-mask");
}

/// A bad `cmp=` value is answered in plain words: what setting B can be, each with an example
/// link value that the reader accepts (no developer shorthand such as `s:<sentence>`).
#[test]
fn a_bad_compare_value_says_what_b_can_be() {
    let long = "x".repeat(100);
    let (state, notices) = ViewState::from_query(&format!("cmp={long}"));
    assert_eq!(state.compare, None);
    assert_eq!(notices.len(), 1);
    let notice = &notices[0].0;
    assert!(notice.starts_with("Ignored cmp="), "{notice}");
    for example in [
        "tau:2",
        "seed:7",
        "pos",
        "s:the mat sat on the cat .",
        "broken:mask-zero",
    ] {
        assert!(
            notice.contains(&format!("(cmp={example})")),
            "{example}: {notice}"
        );
        assert!(CompareChange::parse(example).is_some(), "{example}");
    }
    assert!(
        notice.ends_with("(cmp=broken:mask-zero)."),
        "whole: {notice}"
    );
}
