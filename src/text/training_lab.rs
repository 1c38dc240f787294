//! The training lab's sentences: the repeated segment's marks, Replay's Play, knocking heads out
//! and the prediction asked first, the composition test, and run B beside run A.

use crate::format::fixed;
use crate::model::train::knockout::AblationKind;
use crate::model::train::prediction::{Graded, LossChange};
use crate::model::train::tasks::Repeat;

/// Under Replay's Play button.
pub const PLAY_HINT: &str = "Play moves Replay through the kept checkpoints from the first, so you can watch the heads form; with reduced motion on, each press shows the next checkpoint.";

/// What the marks on the token strip and every heatmap of the page show, positions from 1.
pub fn segment_note(r: Repeat) -> String {
    let (a, b) = (r.first + 1, r.first + r.len);
    let (c, d) = (r.second() + 1, r.second() + r.len);
    format!(
        "First copy: tokens {a}–{b} (orange box); second copy: tokens {c}–{d}, the same {} tokens again (blue box). The dashed box is where the second copy's rows look back at the first copy: an induction head draws a stripe there, one key right of its diagonal.",
        r.len
    )
}

/// How the knock-out switches explain themselves.
pub const KNOCKOUT_INTRO: &str =
    "Knock heads out of the model shown and see what it loses (forward passes only).";

/// How heads are knocked out, as the page offers it.
pub fn ablation_kind_label(kind: AblationKind) -> &'static str {
    match kind {
        AblationKind::Zero => "Zero (writes nothing)",
        AblationKind::Mean => "Mean (writes its average)",
    }
}

/// A sign and three decimals: "+2.292", "−0.013", "0.000".
pub fn signed_cell(x: f64) -> String {
    signed(x, 3)
}

/// `x` with `decimals` decimals and its sign ("0" and its decimals for what rounds to 0).
fn signed(x: f64, decimals: u32) -> String {
    let digits = fixed(x.abs(), decimals);
    if digits.chars().all(|c| c == '0' || c == '.') {
        digits
    } else if x > 0.0 {
        format!("+{digits}")
    } else {
        format!("−{digits}")
    }
}

/// The knocked-out heads in words, layers and heads from 1, with how: "layer 1 head 2
/// (zero-ablated)", "layer 1 head 1 and layer 2 head 2 (mean-ablated)".
pub fn knocked_heads_text(heads: &[(usize, usize)], kind: AblationKind) -> String {
    let names: Vec<String> = heads
        .iter()
        .map(|&(l, h)| format!("layer {} head {}", l + 1, h + 1))
        .collect();
    let list = match names.as_slice() {
        [] => return "no head".to_string(),
        [one] => one.clone(),
        [rest @ .., last] => format!("{} and {last}", rest.join(", ")),
    };
    format!("{list} ({}-ablated)", kind.key())
}

/// The loss a prediction is about.
fn watched_name(repeat: bool) -> &'static str {
    if repeat {
        "the repeated part's loss"
    } else {
        "the held-out loss"
    }
}

/// The question asked before the knock-out's numbers show.
pub fn prediction_question(repeat: bool) -> String {
    format!(
        "Predict first: with these heads knocked out, what will {} do?",
        watched_name(repeat)
    )
}

/// A choice of the prediction.
pub fn change_label(change: LossChange) -> &'static str {
    match change {
        LossChange::Rise => "Rise (by more than 10%)",
        LossChange::Fall => "Fall (by more than 10%)",
        LossChange::Stay => "Stay within 10%",
    }
}

/// The grade of a prediction, with the numbers it was graded on.
pub fn prediction_grade(g: &Graded, repeat: bool) -> String {
    let said = match g.predicted {
        LossChange::Rise => "rise",
        LossChange::Fall => "fall",
        LossChange::Stay => "stay within 10%",
    };
    let did = match g.actual {
        LossChange::Rise => "It rose",
        LossChange::Fall => "It fell",
        LossChange::Stay => "It stayed within 10%",
    };
    let verdict = if g.correct() {
        "Right."
    } else {
        "Not this time."
    };
    format!(
        "You said it would {said}. {did}: {} went from {} to {} nats ({}%). {verdict}",
        watched_name(repeat),
        fixed(g.intact, 3),
        fixed(g.knocked, 3),
        signed(g.relative() * 100.0, 1),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_segment_note_counts_from_one() {
        assert_eq!(
            segment_note(Repeat { first: 2, len: 5 }),
            "First copy: tokens 3–7 (orange box); second copy: tokens 8–12, the same 5 tokens again (blue box). The dashed box is where the second copy's rows look back at the first copy: an induction head draws a stripe there, one key right of its diagonal."
        );
        for first in 0..4 {
            for len in 4..=8 {
                let text = segment_note(Repeat { first, len });
                assert!(text.contains(&format!("tokens {}–{}", first + 1, first + len)));
                assert!(text.contains(&format!("the same {len} tokens")));
            }
        }
    }

    #[test]
    fn knock_out_words() {
        assert_eq!(
            knocked_heads_text(&[(0, 1)], AblationKind::Zero),
            "layer 1 head 2 (zero-ablated)"
        );
        assert_eq!(
            knocked_heads_text(&[(0, 0), (0, 1), (1, 1)], AblationKind::Mean),
            "layer 1 head 1, layer 1 head 2 and layer 2 head 2 (mean-ablated)"
        );
        assert_eq!(knocked_heads_text(&[], AblationKind::Zero), "no head");
        assert_eq!(signed_cell(2.2924), "+2.292");
        assert_eq!(signed_cell(-0.0134), "−0.013");
        assert_eq!(signed_cell(-0.0001), "0.000");
        assert_eq!(
            prediction_question(true),
            "Predict first: with these heads knocked out, what will the repeated part's loss do?"
        );
    }

    #[test]
    fn predictions_are_graded_in_words() {
        let g = |predicted, intact: f64, knocked: f64| Graded {
            predicted,
            actual: LossChange::of(intact, knocked),
            intact,
            knocked,
        };
        assert_eq!(
            prediction_grade(&g(LossChange::Rise, 0.812, 3.104), true),
            "You said it would rise. It rose: the repeated part's loss went from 0.812 to 3.104 nats (+282.3%). Right."
        );
        assert_eq!(
            prediction_grade(&g(LossChange::Fall, 2.0, 2.1), false),
            "You said it would fall. It stayed within 10%: the held-out loss went from 2.000 to 2.100 nats (+5.0%). Not this time."
        );
        // Every prediction against every outcome, over many losses: the verdict follows the grade.
        for intact in [0.2, 0.8, 1.5, 3.4] {
            for factor in [0.5, 0.95, 1.0, 1.05, 2.0, 8.0] {
                for predicted in LossChange::ALL {
                    let graded = g(predicted, intact, intact * factor);
                    let text = prediction_grade(&graded, true);
                    assert_eq!(text.ends_with("Right."), graded.correct(), "{text}");
                    assert!(text.contains(&fixed(intact, 3)), "{text}");
                }
            }
        }
    }
}
