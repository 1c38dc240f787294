//! The words of "Predict, then reveal": each question's prompt, its choices, and after the check
//! the model's exact number and the one-line why, all built from a `model::quiz::Question`.
//! Rows and keys are counted from 1, as on screen.

use super::{format_tau, mistake_label, mistake_why, quote};
use crate::format::{fixed, grouped, percent, scientific};
use crate::model::broken::DROPOUT_P;
use crate::model::quiz::{
    Answer, Choice, Direction, Kind, Question, DROPOUT_MASKS, EXACT_TOLERANCE, GUESS_TOLERANCE,
};

/// "row 3 “sat”": a row or key by its number from 1 and its token.
fn token_at(what: &str, tokens: &[String], i: usize) -> String {
    let token = tokens.get(i).map_or(String::new(), |t| quote(t));
    format!("{what} {} {token}", i + 1)
}

/// A number as the reveal prints it: 4 decimals, or scientific when tiny but not 0.
fn number(x: f64) -> String {
    if x != 0.0 && x.abs() < 5e-5 {
        scientific(x, 1)
    } else {
        fixed(x, 4)
    }
}

/// A bound `x ≥ 0` as [`number`] prints it, rounded up where rounding to nearest would print a
/// smaller number: "within 0.0018" must not be said of a gap of 0.00180316.
fn bound(x: f64) -> String {
    let mut y = x;
    loop {
        let printed = number(y);
        if printed.parse::<f64>().is_ok_and(|p| p >= x) || !y.is_finite() {
            return printed;
        }
        // One unit of the last printed digit up: 1e-4 for 4 decimals, 0.1 of the mantissa in
        // scientific notation.
        let unit = if y >= 5e-5 {
            1e-4
        } else {
            10f64.powf(y.log10().floor() - 1.0)
        };
        y = printed.parse::<f64>().unwrap_or(y) + unit;
    }
}

/// "the heatmap above" or "the broken heatmap above": what a question reads its number off.
fn heatmap_named(q: &Question) -> &'static str {
    if q.mistakes.is_empty() {
        "the heatmap above"
    } else {
        "the broken heatmap above"
    }
}

/// The question, with what kind of answer it wants. `tau` is the view's temperature.
pub fn quiz_prompt(q: &Question, tokens: &[String], tau: f64) -> String {
    let row = token_at("row", tokens, q.row);
    let typed = format!(
        " Type a decimal; within {} counts.",
        fixed(EXACT_TOLERANCE, 4)
    );
    let heatmap = heatmap_named(q);
    match q.kind {
        Kind::FirstRow => format!("In {heatmap}, what weight does {row} put on itself?{typed}"),
        Kind::TopKey => format!(
            "In {heatmap} (this head, τ = {}), which key does {row} give the most weight?",
            format_tau(tau)
        ),
        Kind::MaskedCell => format!(
            "In {heatmap}, what weight does {row} put on {}?{typed}",
            token_at("key", tokens, q.key)
        ),
        Kind::HalfTau => format!(
            "If τ halves, from {} to {}, what happens to {row}?",
            format_tau(tau),
            format_tau(tau / 2.0)
        ),
        Kind::HotLimit => format!(
            "As τ grows without bound, what weight does {row} put on each of the {} keys it sees?{typed}",
            q.row + 1
        ),
        Kind::SpreadHead => format!(
            "Row 1 sees only itself, so its entropy is 0 in every head. At τ = {}, which of these two heads spreads its weight more on average: a higher mean entropy over rows 2 to {}?",
            format_tau(tau),
            tokens.len()
        ),
        Kind::EqualColumns => "Without position codes, which two key columns are equal in every row that sees both?".to_string(),
        Kind::WhichMistake => "The explorer's “Break it” panel has one switch per classic coding mistake in attention, each named below by what it does wrong. One switch alone turned this head's weights into the heatmap below. Clues to look for: weight above the diagonal (the future), rows that no longer add up to 1, rows flatter or more peaked than correct attention's (the main heatmap's colours while no switch is on). Which switch was it?".to_string(),
        Kind::DropoutMean => format!(
            "Dropout with p = {p} zeroes each weight of {row} with probability {p} and divides every weight it keeps by {keep}. Averaged over many dropout masks, what does the row sum to?",
            p = fixed(DROPOUT_P, 1),
            keep = fixed(1.0 - DROPOUT_P, 1)
        ),
        Kind::Weight => format!(
            "Guess from the colours in {heatmap}: what weight does {row} put on {}? Type a decimal; within {} counts.",
            token_at("key", tokens, q.key),
            fixed(GUESS_TOLERANCE, 2)
        ),
    }
}

/// One choice's label.
pub fn quiz_choice(choice: Choice, tokens: &[String]) -> String {
    match choice {
        Choice::Key(j) => token_at("key", tokens, j),
        Choice::Head(h) => format!("head {}", h + 1),
        Choice::Value(v) => fixed(v, 3),
        Choice::Direction(Direction::More) => "it gets peakier".to_string(),
        Choice::Direction(Direction::Less) => "it gets flatter".to_string(),
        Choice::Direction(Direction::Same) => "it stays the same".to_string(),
        Choice::Pair(a, b) => format!(
            "{} and {}",
            token_at("column", tokens, a),
            token_at("column", tokens, b)
        ),
        Choice::Mistake(m) => mistake_label(m).to_string(),
    }
}

/// "Right." or "Not quite.", then the right answer for a multiple-choice question.
pub fn quiz_verdict(q: &Question, tokens: &[String], right: bool) -> String {
    let verdict = if right { "Right." } else { "Not quite." };
    match &q.answer {
        Answer::Choices(ks) => {
            let names: Vec<String> = ks
                .iter()
                .map(|&k| quiz_choice(q.choices[k], tokens))
                .collect();
            let lead = if names.len() > 1 {
                "Any of these counts: "
            } else {
                "The answer: "
            };
            format!("{verdict} {lead}{}.", names.join("; "))
        }
        Answer::Number { .. } => verdict.to_string(),
    }
}

/// The model's exact number behind the answer.
pub fn quiz_number(q: &Question, tokens: &[String]) -> String {
    let v = number(q.value);
    let broken = !q.mistakes.is_empty();
    match q.kind {
        Kind::FirstRow | Kind::MaskedCell | Kind::Weight if broken => format!(
            "The broken heatmap's weight: {v} ({}); correct attention's: {}.",
            percent(q.value),
            number(q.reference)
        ),
        Kind::FirstRow | Kind::MaskedCell | Kind::Weight => {
            format!("The model's weight: {v} ({}).", percent(q.value))
        }
        Kind::TopKey if broken => format!(
            "The broken heatmap's largest weight in {}: {v}; correct attention's: {}.",
            token_at("row", tokens, q.row),
            number(q.reference)
        ),
        Kind::TopKey => format!("The model's largest weight in {}: {v}.", token_at("row", tokens, q.row)),
        Kind::HalfTau => format!(
            "The model: the row's largest weight goes from {} to {v}.",
            number(q.reference)
        ),
        Kind::HotLimit => format!(
            "The limit is 1/{} = {v}; at τ = 100, the slider's top, every weight of the model's row is already within {} of it.",
            q.row + 1,
            bound(q.reference)
        ),
        Kind::SpreadHead => {
            let (Some(Choice::Head(a)), Some(Choice::Head(b))) = (q.choices.first(), q.choices.get(1)) else {
                return String::new();
            };
            format!(
                "The model's mean entropy: head {} {} bits, head {} {} bits.",
                a + 1,
                fixed(q.value, 3),
                b + 1,
                fixed(q.reference, 3)
            )
        }
        Kind::EqualColumns => format!(
            "The model, positions off: {} and {} differ by at most {} in every row that sees both.",
            token_at("column", tokens, q.row),
            token_at("column", tokens, q.key),
            bound(q.value)
        ),
        Kind::WhichMistake => format!("The largest change it makes to a weight of this head: {v}."),
        Kind::DropoutMean => format!(
            "The page's one dropout mask gives this row a sum of {v}; averaged over {masks} seeded masks, its sum is {}. Averaged over every possible mask it is exactly 1: any gap from 1 here is sampling noise, because {masks} masks are a finite sample.",
            number(q.reference),
            masks = grouped(DROPOUT_MASKS as u64),
        ),
    }
}

/// Why the answer is what it is, in one line.
pub fn quiz_why(q: &Question, tokens: &[String]) -> String {
    let right = |k: usize| match &q.answer {
        Answer::Choices(ks) => ks.get(k).map(|&c| q.choices[c]),
        Answer::Number { .. } => None,
    };
    let why = match q.kind {
        Kind::FirstRow => "Row 1 sees only itself, and a softmax over one score gives it everything: e^s / e^s = 1.".to_string(),
        Kind::TopKey => "Softmax keeps the order of the scores: the key whose q·k is largest gets the largest weight.".to_string(),
        Kind::MaskedCell => "The mask sets a future key's score to −∞ before the softmax, and e^(−∞) = 0, exactly.".to_string(),
        Kind::HalfTau => match right(0) {
            Some(Choice::Direction(Direction::Same)) => "This row's scores are all equal, so at any τ its weights are too.".to_string(),
            _ => "Halving τ doubles every scaled score, which widens the gaps between them, so the top key takes a larger share.".to_string(),
        },
        Kind::HotLimit => "As τ grows every scaled score tends to 0, and a softmax of equal scores shares the weight evenly over the keys the row sees.".to_string(),
        Kind::SpreadHead => "Entropy measures spread: the head with the higher mean entropy shares its rows' weight over more keys on average; a single row can still go the other way.".to_string(),
        Kind::EqualColumns => {
            let word = tokens.get(q.key).map_or(String::new(), |t| quote(t));
            format!("Without position codes the same word {word} has the same embedding, hence the same key, so every query scores both alike.")
        }
        Kind::WhichMistake => match right(0) {
            Some(Choice::Mistake(m)) => mistake_why(m).to_string(),
            _ => String::new(),
        },
        Kind::DropoutMean => format!(
            "Each weight w is kept with probability {keep} and then divided by {keep}, so on average it is {keep} × w / {keep} = w: the row's sum averages Σ w = 1. Any one mask gives its own sum; that is why dropout is switched off when a model is used.",
            keep = fixed(1.0 - DROPOUT_P, 1)
        ),
        Kind::Weight => "A weight is its key's share of e^(scaled score) among the keys the row sees.".to_string(),
    };
    let read_off_the_heatmap = matches!(
        q.kind,
        Kind::FirstRow | Kind::TopKey | Kind::MaskedCell | Kind::Weight
    );
    if q.mistakes.is_empty() || !read_off_the_heatmap {
        return why;
    }
    let names: Vec<&str> = q.mistakes.iter().map(mistake_label).collect();
    format!(
        "This number is read off the broken heatmap ({}). Correct attention: {why}",
        names.join(", ")
    )
}

/// What the questions are about: the main heatmap's head at the current τ.
pub fn quiz_scope(head: usize, heads: usize, tau: f64) -> String {
    format!(
        "The questions are about the heatmap above: head {} of {heads} at τ = {}. Answer, then Check to see the model's exact number.",
        head + 1,
        format_tau(tau)
    )
}

/// "3 of 5 answers correct": every answer checked in this tab, over all rounds.
pub fn quiz_progress(correct: u32, answered: u32) -> String {
    let answers = if answered == 1 { "answer" } else { "answers" };
    format!("{correct} of {answered} {answers} correct, every round so far")
}

/// After the verdict, when the question had been checked before on this page (the view changed
/// and came back): its answer was shown, so it does not count again.
pub const ASKED_AGAIN: &str =
    "This question was checked before on this page, so the score does not count it again.";

/// The question's legend: "Question 3 of 10: …", with the round once the set comes round again
/// (question `k` from 0 counted over every round, `n` per round).
pub fn quiz_legend(k: usize, n: usize, prompt: &str) -> String {
    let n = n.max(1);
    let round = k / n + 1;
    if round == 1 {
        format!("Question {} of {n}: {prompt}", k % n + 1)
    } else {
        format!("Question {} of {n} (round {round}): {prompt}", k % n + 1)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::broken::{Mistake, Mistakes};
    use crate::model::explorer::default_view;
    use crate::model::quiz::questions;

    #[test]
    fn every_question_of_the_default_view_reads_with_its_numbers() {
        let p = default_view(2, false);
        let tokens = &p.config.tokens;
        let broken = Mistakes::NONE.with(Mistake::WrongTriangle, true);
        for (seed, mistakes) in (1..6).flat_map(|s| [(s, Mistakes::NONE), (s, broken)]) {
            let on = crate::model::quiz::QuizOn {
                head: 0,
                tau: 1.0,
                mistakes,
                selected_row: 5,
            };
            for q in questions(&p, on, seed) {
                let read_off = matches!(
                    q.kind,
                    Kind::FirstRow | Kind::TopKey | Kind::MaskedCell | Kind::Weight
                );
                // A question about a broken heatmap says so, and so do its number and its why.
                if !mistakes.is_empty() && read_off {
                    assert!(quiz_prompt(&q, tokens, 1.0).contains("the broken heatmap"));
                    assert!(quiz_number(&q, tokens).contains("correct attention's"));
                    assert!(
                        quiz_why(&q, tokens).starts_with(
                            "This number is read off the broken heatmap (The wrong triangle"
                        ),
                        "{}",
                        quiz_why(&q, tokens)
                    );
                }
                let prompt = quiz_prompt(&q, tokens, 1.0);
                assert!(
                    prompt.ends_with('?') || prompt.ends_with("counts."),
                    "{prompt}"
                );
                assert!(!quiz_why(&q, tokens).is_empty(), "{q:?}");
                let shown = quiz_number(&q, tokens);
                let value = if q.kind == Kind::SpreadHead {
                    fixed(q.value, 3)
                } else {
                    number(q.value)
                };
                assert!(shown.contains(&value), "{shown}");
                // The answer is named only after the check, and names the right choice(s).
                if let Answer::Choices(ks) = &q.answer {
                    let verdict = quiz_verdict(&q, tokens, false);
                    for &k in ks {
                        assert!(verdict.contains(&quiz_choice(q.choices[k], tokens)));
                    }
                }
            }
        }
    }

    #[test]
    fn words_by_hand() {
        let tokens: Vec<String> = ["The", "cat", "the"]
            .iter()
            .map(|s| (*s).to_string())
            .collect();
        assert_eq!(quiz_choice(Choice::Key(1), &tokens), "key 2 “cat”");
        assert_eq!(
            quiz_choice(Choice::Pair(0, 2), &tokens),
            "column 1 “The” and column 3 “the”"
        );
        assert_eq!(quiz_choice(Choice::Value(1.0 / 0.9), &tokens), "1.111");
        assert_eq!(
            quiz_choice(Choice::Direction(Direction::More), &tokens),
            "it gets peakier"
        );
        assert_eq!(
            quiz_progress(3, 5),
            "3 of 5 answers correct, every round so far"
        );
        assert_eq!(
            quiz_progress(1, 1),
            "1 of 1 answer correct, every round so far"
        );
        assert_eq!(quiz_legend(2, 10, "Why?"), "Question 3 of 10: Why?");
        assert_eq!(
            quiz_legend(10, 10, "Why?"),
            "Question 1 of 10 (round 2): Why?"
        );
        assert_eq!(
            quiz_legend(29, 10, "Why?"),
            "Question 10 of 10 (round 3): Why?"
        );
        assert_eq!(number(0.0), "0.0000");
        assert_eq!(number(1.0 / 7.0), "0.1429");
        assert_eq!(number(2e-6), "2.0e-6");
    }

    /// The spread question asks about the two heads offered, on average over rows (a single
    /// row can go the other way), and its reveal says so.
    #[test]
    fn the_spread_question_is_about_these_two_heads_on_average() {
        let p = default_view(4, false);
        let on = crate::model::quiz::QuizOn {
            head: 0,
            tau: 1.0,
            mistakes: Mistakes::NONE,
            selected_row: 5,
        };
        let q = (0..50)
            .flat_map(|seed| questions(&p, on, seed))
            .find(|q| q.kind == Kind::SpreadHead)
            .expect("a spread question");
        let prompt = quiz_prompt(&q, &p.config.tokens, 1.0);
        assert!(prompt.contains("which of these two heads"), "{prompt}");
        assert!(prompt.contains("on average"), "{prompt}");
        assert!(quiz_why(&q, &p.config.tokens).contains("a single row can still go the other way"));
    }
}
