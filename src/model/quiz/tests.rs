//! Every kind of question, asked over many views, graded against an answer computed here.

use super::*;
use crate::model::broken::{broken_weights_all, DROPOUT_P};
use crate::model::tokenizer::tokenize;

fn model(sentence: &str, seed: u64, heads: usize, positions: bool) -> Prepared {
    Prepared::new(ExplorerConfig {
        tokens: tokenize(sentence),
        seed,
        heads,
        positions,
    })
}

/// Views across sentences, seeds, head splits, positions and temperatures.
fn views() -> Vec<(Prepared, usize, f64)> {
    let mut out = Vec::new();
    for (k, sentence) in [
        "The cat sat on the mat .",
        "a b c",
        "one",
        "Dogs chase the dog",
    ]
    .into_iter()
    .enumerate()
    {
        for heads in [1, 2, 4] {
            for positions in [false, true] {
                for tau in [0.01, 0.3, 1.0, 7.0, 100.0] {
                    let p = model(sentence, 1337 + k as u64, heads, positions);
                    out.push((p, heads - 1, tau));
                }
            }
        }
    }
    out
}

fn ask(p: &Prepared, head: usize, tau: f64, seed: u64) -> Vec<Question> {
    questions(p, on(head, tau, Mistakes::NONE), seed)
}

/// The quiz's subject: head `head` at `tau` with `mistakes`, the default row selected.
fn on(head: usize, tau: f64, mistakes: Mistakes) -> QuizOn {
    QuizOn {
        head,
        tau,
        mistakes,
        selected_row: 5,
    }
}

/// The "Break it" settings the broken views are tried with: each mistake alone, and two sets.
fn mistake_sets() -> Vec<Mistakes> {
    let mut sets: Vec<Mistakes> = Mistake::ALL
        .iter()
        .map(|&m| Mistakes::NONE.with(m, true))
        .collect();
    sets.push(Mistake::ALL.iter().copied().collect());
    sets.push(
        [Mistake::WrongTriangle, Mistake::MaskWithZero]
            .into_iter()
            .collect(),
    );
    sets
}

/// A response that `grade` must accept, and one it must refuse.
fn right_and_wrong(q: &Question) -> (Response, Response) {
    match &q.answer {
        Answer::Choices(right) => {
            let wrong = (0..q.choices.len()).find(|k| !right.contains(k)).unwrap();
            (Response::Choice(right[0]), Response::Choice(wrong))
        }
        Answer::Number { value, tolerance } => (
            Response::Number(value + tolerance * 0.9),
            Response::Number(value + tolerance * 1.1 + 0.01),
        ),
    }
}

/// Each stated answer, recomputed here from `Prepared::weights_all` (or the broken weights
/// written out by hand) without the quiz's own helpers.
fn check_answer(p: &Prepared, head: usize, tau: f64, mistakes: Mistakes, q: &Question) {
    let correct = &p.weights_all(tau)[head];
    let t = correct.nrows();
    assert_eq!(q.mistakes, mistakes);
    if !mistakes.is_empty() {
        check_broken_answer(p, head, tau, mistakes, q);
        return;
    }
    let w = correct;
    let right = match &q.answer {
        Answer::Choices(right) => right.clone(),
        Answer::Number { .. } => Vec::new(),
    };
    let chosen: Vec<Choice> = right.iter().map(|&k| q.choices[k]).collect();
    match q.kind {
        Kind::FirstRow => assert_eq!(
            q.answer,
            Answer::Number {
                value: 1.0,
                tolerance: EXACT_TOLERANCE
            }
        ),
        Kind::MaskedCell => {
            assert!(q.key > q.row && q.key < t);
            assert_eq!(
                q.answer,
                Answer::Number {
                    value: 0.0,
                    tolerance: EXACT_TOLERANCE
                }
            );
            assert_eq!(w[(q.row, q.key)], 0.0);
        }
        Kind::TopKey => {
            let best = (0..=q.row).map(|j| w[(q.row, j)]).fold(f64::MIN, f64::max);
            assert!(!chosen.is_empty());
            for j in 0..=q.row {
                let is_top = best - w[(q.row, j)] < 1e-12;
                assert_eq!(
                    chosen.contains(&Choice::Key(j)),
                    is_top,
                    "row {} key {j}",
                    q.row
                );
            }
            assert_eq!(q.choices.len(), q.row + 1);
        }
        Kind::HalfTau => {
            let colder = &p.weights_all(tau / 2.0)[head];
            let max = |m: &DMatrix<f64>| (0..=q.row).map(|j| m[(q.row, j)]).fold(0.0, f64::max);
            let expected = if (max(colder) - max(w)).abs() < 1e-12 {
                Direction::Same
            } else if max(colder) > max(w) {
                Direction::More
            } else {
                Direction::Less
            };
            assert_eq!(chosen, vec![Choice::Direction(expected)]);
            assert_eq!((q.value, q.reference), (max(colder), max(w)));
            if expected == Direction::Same {
                // "Its scores are all equal": that why is only given for an even row.
                assert!((0..=q.row).all(|j| (w[(q.row, j)] - w[(q.row, 0)]).abs() < 1e-12));
            }
        }
        Kind::HotLimit => {
            assert_eq!(
                q.answer,
                Answer::Number {
                    value: 1.0 / (q.row + 1) as f64,
                    tolerance: EXACT_TOLERANCE
                }
            );
            // At the slider's hottest τ the row is already near even.
            let hot = &p.weights_all(SLIDER_MAX_TAU)[head];
            for j in 0..=q.row {
                assert!((hot[(q.row, j)] - 1.0 / (q.row + 1) as f64).abs() <= q.reference + 1e-15);
            }
        }
        Kind::SpreadHead => {
            let entropy = |h: usize| {
                let m = &p.weights_all(tau)[h];
                let rows: f64 = (1..t)
                    .map(|i| {
                        -(0..=i)
                            .map(|j| m[(i, j)])
                            .filter(|&x| x > 0.0)
                            .map(|x| x * x.log2())
                            .sum::<f64>()
                    })
                    .sum();
                rows / (t - 1) as f64
            };
            let [Choice::Head(a), Choice::Head(b)] = q.choices[..] else {
                panic!("{q:?}")
            };
            assert_ne!(a, b);
            let spread = if entropy(a) > entropy(b) { a } else { b };
            assert_eq!(chosen, vec![Choice::Head(spread)]);
        }
        Kind::EqualColumns => {
            let off = model(
                &p.config.tokens.join(" "),
                p.config.seed,
                p.heads.len(),
                false,
            );
            let w = &off.weights_all(tau)[head];
            for choice in &q.choices {
                let Choice::Pair(a, b) = *choice else {
                    panic!("{q:?}")
                };
                let equal = (b..t).all(|r| (w[(r, a)] - w[(r, b)]).abs() <= 1e-12);
                assert_eq!(chosen.contains(choice), equal, "{a} {b}");
            }
            let folded: Vec<String> = p.config.tokens.iter().map(|s| s.to_lowercase()).collect();
            assert_eq!(folded[q.row], folded[q.key]);
            assert!(q.row < q.key);
            assert!(chosen
                .iter()
                .any(|&c| matches!(c, Choice::Pair(a, b) if folded[a] == folded[b])));
        }
        Kind::WhichMistake => {
            let shown = q.heatmap.as_ref().unwrap();
            assert!(max_gap(shown, w) > 1e-12, "the shown heatmap is broken");
            for (k, &m) in Mistake::ALL.iter().enumerate() {
                let made = &broken_weights_all(p, Mistakes::NONE.with(m, true), tau)[head];
                assert_eq!(right.contains(&k), max_gap(made, shown) < 1e-12, "{m:?}");
            }
        }
        Kind::DropoutMean => check_dropout_mean(p, head, w, q, &chosen),
        Kind::Weight => {
            assert!(q.key <= q.row);
            assert_eq!(
                q.answer,
                Answer::Number {
                    value: w[(q.row, q.key)],
                    tolerance: GUESS_TOLERANCE
                }
            );
        }
    }
}

/// The dropout question: the page's one mask redone by hand (the documented stream
/// `dropout:<head>`, one draw per cell in row-major order, a cell dropped when its draw is below
/// p), the average over masks within a few standard errors of 1, and 1 the only right choice.
fn check_dropout_mean(
    p: &Prepared,
    head: usize,
    w: &DMatrix<f64>,
    q: &Question,
    chosen: &[Choice],
) {
    let t = w.nrows();
    let mut rng = SeededRng::stream(p.config.seed, &format!("dropout:{}", head + 1));
    let mut sum = 0.0;
    for i in 0..t {
        for j in 0..t {
            let keep = rng.next_open01() >= DROPOUT_P;
            if i == q.row && keep {
                sum += w[(i, j)] / (1.0 - DROPOUT_P);
            }
        }
    }
    assert!((sum - q.value).abs() < 1e-12);
    // A one-hot row's sum has the largest spread: 1/0.9 or 0, standard deviation 1/3 per mask.
    let standard_error = (1.0 / 3.0) / (DROPOUT_MASKS as f64).sqrt();
    assert!(
        (q.reference - 1.0).abs() < 5.0 * standard_error,
        "{}",
        q.reference
    );
    assert_eq!(chosen, [Choice::Value(1.0)]);
    let mut offered: Vec<f64> = q
        .choices
        .iter()
        .map(|c| match c {
            Choice::Value(v) => *v,
            other => panic!("{other:?}"),
        })
        .collect();
    offered.sort_by(f64::total_cmp);
    assert_eq!(offered, [1.0 - DROPOUT_P, 1.0, 1.0 / (1.0 - DROPOUT_P)]);
}

/// With mistakes on, the kinds read off the heatmap read the broken weights (by
/// `broken_weights_all`, tested in `model::broken`) with correct attention's number beside them;
/// the kinds whose premise is correct attention are not asked.
fn check_broken_answer(p: &Prepared, head: usize, tau: f64, mistakes: Mistakes, q: &Question) {
    let shown = &broken_weights_all(p, mistakes, tau)[head];
    let correct = &p.weights_all(tau)[head];
    let t = shown.nrows();
    let right = match &q.answer {
        Answer::Choices(right) => right.clone(),
        Answer::Number { .. } => Vec::new(),
    };
    let chosen: Vec<Choice> = right.iter().map(|&k| q.choices[k]).collect();
    let number = |value: f64, tolerance| Answer::Number { value, tolerance };
    match q.kind {
        Kind::FirstRow => {
            assert_eq!(q.answer, number(shown[(0, 0)], EXACT_TOLERANCE));
            assert_eq!(q.reference, 1.0);
        }
        Kind::MaskedCell => {
            assert!(q.key > q.row && q.key < t);
            assert_eq!(q.answer, number(shown[(q.row, q.key)], EXACT_TOLERANCE));
            assert_eq!(q.reference, 0.0);
        }
        Kind::Weight => {
            assert_eq!(q.answer, number(shown[(q.row, q.key)], GUESS_TOLERANCE));
            assert_eq!(q.reference, correct[(q.row, q.key)]);
        }
        Kind::TopKey => {
            // Every key of the row is offered: a broken row may weigh the future.
            assert_eq!(q.choices.len(), t);
            let best = (0..t).map(|j| shown[(q.row, j)]).fold(f64::MIN, f64::max);
            for j in 0..t {
                let is_top = best - shown[(q.row, j)] < 1e-12;
                assert_eq!(
                    chosen.contains(&Choice::Key(j)),
                    is_top,
                    "row {} key {j}",
                    q.row
                );
            }
            let correct_best = (0..=q.row).map(|j| correct[(q.row, j)]).fold(0.0, f64::max);
            assert_eq!(q.reference, correct_best);
        }
        Kind::WhichMistake => {
            let made_shown = q.heatmap.as_ref().unwrap();
            for (k, &m) in Mistake::ALL.iter().enumerate() {
                let made = &broken_weights_all(p, Mistakes::NONE.with(m, true), tau)[head];
                assert_eq!(
                    right.contains(&k),
                    max_gap(made, made_shown) < 1e-12,
                    "{m:?}"
                );
            }
        }
        Kind::DropoutMean => check_dropout_mean(p, head, correct, q, &chosen),
        Kind::HalfTau | Kind::HotLimit | Kind::SpreadHead | Kind::EqualColumns => {
            panic!("{:?} asked about a broken heatmap", q.kind)
        }
    }
}

#[test]
fn broken_views_ask_about_the_heatmap_shown() {
    for (p, head, tau) in views().into_iter().step_by(3) {
        for mistakes in mistake_sets() {
            for seed in [1, 5] {
                for q in questions(&p, on(head, tau, mistakes), seed) {
                    check_answer(&p, head, tau, mistakes, &q);
                    let (right, wrong) = right_and_wrong(&q);
                    assert!(grade(&q, right) && !grade(&q, wrong), "{q:?}");
                }
            }
        }
    }
}

#[test]
fn every_answer_matches_an_independent_computation_and_grades_both_ways() {
    for (p, head, tau) in views() {
        for seed in [1, 2, 99] {
            for q in ask(&p, head, tau, seed) {
                check_answer(&p, head, tau, Mistakes::NONE, &q);
                let (right, wrong) = right_and_wrong(&q);
                assert!(grade(&q, right), "{q:?}");
                assert!(!grade(&q, wrong), "{q:?}");
                // A response of the other form is never right.
                let other = match right {
                    Response::Choice(_) => Response::Number(q.value),
                    Response::Number(_) => Response::Choice(0),
                };
                assert!(!grade(&q, other));
            }
        }
    }
}

#[test]
fn the_default_view_asks_every_kind() {
    let p = crate::model::explorer::default_view(2, false);
    for seed in 1..20 {
        let kinds: Vec<Kind> = ask(&p, 0, 1.0, seed).iter().map(|q| q.kind).collect();
        assert_eq!(kinds, Kind::ALL, "seed {seed}");
    }
}

#[test]
fn questions_whose_premise_fails_are_skipped() {
    // One head: no pair of heads. No repeated word: no equal columns.
    let kinds: Vec<Kind> = ask(&model("a b c", 1, 1, false), 0, 1.0, 1)
        .iter()
        .map(|q| q.kind)
        .collect();
    assert!(!kinds.contains(&Kind::SpreadHead));
    assert!(!kinds.contains(&Kind::EqualColumns));
    // One token: only the questions about row 1 and its single key remain.
    let kinds: Vec<Kind> = ask(&model("one", 1, 1, false), 0, 1.0, 1)
        .iter()
        .map(|q| q.kind)
        .collect();
    assert!(!kinds.contains(&Kind::TopKey) && !kinds.contains(&Kind::MaskedCell));
    assert!(kinds.contains(&Kind::FirstRow));
    assert!(ask(&model("", 1, 1, false), 0, 1.0, 1).is_empty());
}

#[test]
fn the_same_seed_and_view_give_the_same_questions() {
    let p = crate::model::explorer::default_view(4, true);
    assert_eq!(ask(&p, 2, 0.5, 7), ask(&p, 2, 0.5, 7));
    let differs = (1..10).any(|s| ask(&p, 2, 0.5, s) != ask(&p, 2, 0.5, 7));
    assert!(differs, "the seed chooses what is asked");
}

#[test]
fn grading_by_hand() {
    let q = Question {
        kind: Kind::Weight,
        row: 1,
        key: 0,
        choices: vec![],
        answer: Answer::Number {
            value: 0.3,
            tolerance: 0.05,
        },
        value: 0.3,
        reference: 0.0,
        mistakes: Mistakes::NONE,
        heatmap: None,
    };
    assert!(grade(&q, Response::Number(0.34)));
    assert!(!grade(&q, Response::Number(0.36)));
    assert!(!grade(&q, Response::Number(f64::NAN)));
    let q = Question {
        choices: vec![Choice::Key(0), Choice::Key(1), Choice::Key(2)],
        answer: Answer::Choices(vec![0, 2]),
        ..q
    };
    assert!(grade(&q, Response::Choice(0)) && grade(&q, Response::Choice(2)));
    assert!(!grade(&q, Response::Choice(1)));
}

/// Questions about one row's weights never ask about the row the inspector shows (its every
/// number is on screen), whenever the sentence has another row that fits the question.
#[test]
fn row_questions_avoid_the_selected_row() {
    let row_kinds = [
        Kind::TopKey,
        Kind::HalfTau,
        Kind::MaskedCell,
        Kind::HotLimit,
        Kind::DropoutMean,
        Kind::Weight,
    ];
    let mut asked = 0;
    for (p, head, tau) in views() {
        let t = p.len();
        for selected_row in 0..t {
            for seed in 0..6 {
                let on = QuizOn {
                    selected_row,
                    ..on(head, tau, Mistakes::NONE)
                };
                for q in questions(&p, on, seed) {
                    if !row_kinds.contains(&q.kind) {
                        continue;
                    }
                    // The rows this kind can ask about: 1..t (0 too when it is the only one),
                    // or the rows with a future for a masked cell.
                    let candidates: Vec<usize> = match q.kind {
                        Kind::MaskedCell => (0..t - 1).collect(),
                        _ if t > 1 => (1..t).collect(),
                        _ => vec![0],
                    };
                    if candidates.iter().any(|&r| r != selected_row) {
                        asked += 1;
                        assert_ne!(q.row, selected_row, "{:?} with t = {t}", q.kind);
                    }
                }
            }
        }
    }
    assert!(asked > 1000, "only {asked} row questions were checked");
}

/// The next round's seed stays in the link's range, is the same for everyone, and asks other
/// questions of the default view.
#[test]
fn the_next_round_asks_new_questions() {
    let p = crate::model::explorer::default_view(2, false);
    for seed in [0, DEFAULT_QUIZ_SEED, 5, u64::from(u32::MAX)] {
        let next = next_round_seed(seed);
        assert!(u32::try_from(next).is_ok() && next != seed);
        assert_eq!(next, next_round_seed(seed));
        let on = QuizOn {
            head: 0,
            tau: 1.0,
            mistakes: Mistakes::NONE,
            selected_row: 5,
        };
        assert_ne!(
            questions(&p, on, seed),
            questions(&p, on, next),
            "seed {seed}"
        );
    }
}
