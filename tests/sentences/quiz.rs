//! The quiz: every right answer and reveal recounted from the heatmap shown.

use crate::views::*;
use attention_explorer::format::{fixed, grouped};
use attention_explorer::model::broken::{broken_weights, Mistakes};
use attention_explorer::model::explorer::{ExplorerConfig, Prepared};
use attention_explorer::model::quiz::{
    questions, Answer, Choice, Direction, Kind, QuizOn, DROPOUT_MASKS,
};
use attention_explorer::model::temperature::SLIDER_MAX_TAU;
use attention_explorer::text;
use proptest::prelude::*;

proptest! {
    #![proptest_config(config(128))]

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
                    // The finite average's gap from 1 is called what it is: sampling noise of
                    // that many masks, the exact average being 1.
                    let masks = grouped(DROPOUT_MASKS as u64);
                    prop_assert!(number.contains(&format!("averaged over {masks} seeded masks")), "{}", number);
                    prop_assert!(number.contains("over every possible mask it is exactly 1"), "{}", number);
                    prop_assert!(number.contains(&format!("sampling noise, because {masks} masks are a finite sample")), "{}", number);
                }
                Kind::Weight => {
                    prop_assert!(q.key <= q.row);
                    prop_assert_eq!(q.value, shown[(q.row, q.key)]);
                }
            }
        }
    }
}
