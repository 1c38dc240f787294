//! The training lab's sentences: the repeated segment's marks, Replay's Play, knocking heads out
//! and the prediction asked first, the composition test, and run B beside run A.

use super::{and_list, CircuitItem};
use crate::format::{fixed, grouped};
use crate::model::train::lab::composition::{Composition, CopyingNumbers, COPYING_RATIO_MAX};
use crate::model::train::lab::evaluation::{INDUCTION_MIN, REPEAT_RATIO_MAX};
use crate::model::train::lab::knockout::AblationKind;
use crate::model::train::lab::prediction::{Graded, LossChange, STAY_WITHIN};
use crate::model::train::tasks::Repeat;
use std::fmt::Write as _;

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

/// Heads in words, layers and heads from 1: "layer 1 head 2", "layer 1 head 1 and layer 2 head 2".
fn heads_text(heads: &[(usize, usize)]) -> String {
    let names: Vec<String> = heads
        .iter()
        .map(|&(l, h)| format!("layer {} head {}", l + 1, h + 1))
        .collect();
    and_list(&names)
}

/// The knocked-out heads in words, with how: "layer 1 head 2 (zero-ablated)", "layer 1 head 1
/// and layer 2 head 2 (mean-ablated)".
pub fn knocked_heads_text(heads: &[(usize, usize)], kind: AblationKind) -> String {
    if heads.is_empty() {
        return "no head".to_string();
    }
    format!("{} ({}-ablated)", heads_text(heads), kind.key())
}

/// What a knock-out of `kind` does to a head's output, to open the notes below.
fn knockout_does(kind: AblationKind) -> &'static str {
    match kind {
        AblationKind::Zero => "Knocking a head out removes what it writes",
        AblationKind::Mean => {
            "Knocking a head out by its mean replaces what it writes (with its average output row on the held-out set, the same at every position)"
        }
    }
}

/// The layers after the first one with a knocked-out head, in words ("layer 2", "layers 2 to
/// 3"), or `None` when that layer is the last.
fn later_layers(knocked: &[(usize, usize)], layers: usize) -> Option<String> {
    let first = knocked.iter().map(|&(l, _)| l).min()?;
    match layers.checked_sub(first + 2)? {
        0 => Some(format!("layer {layers}")),
        _ => Some(format!("layers {} to {layers}", first + 2)),
    }
}

/// Under the knock-out's scores table: why some scores did not move. `knocked`: the heads knocked
/// out, all of `kind`; `unchanged`: the heads whose two scores are the same bits as intact
/// ([`crate::model::train::lab::ablation::unchanged_scores`]); `(layers, heads)`: the model's shape.
/// The reason given holds for the heads up to the first layer with a knocked-out head, which that
/// function's test shows are always on the list.
pub fn unchanged_scores_note(
    knocked: &[(usize, usize)],
    kind: AblationKind,
    unchanged: &[(usize, usize)],
    (layers, heads): (usize, usize),
) -> String {
    let Some(first) = knocked.iter().map(|&(l, _)| l).min() else {
        return String::new();
    };
    let reach = if first == 0 {
        "in layer 1".to_string()
    } else {
        format!("in layers 1 to {}", first + 1)
    };
    let after = if later_layers(knocked, layers).is_some() {
        " Heads in later layers read what the knocked-out heads write, which is now different, so their scores can change."
    } else {
        ""
    };
    format!(
        "{}, not where it looks, and the scores measure where heads look. A head reads only what the layers before it wrote, so no head {reach} reads anything a knocked-out head wrote: those heads score exactly as before, any knocked-out one among them included.{after} Unchanged here, bit for bit: {} ({} of {} heads).",
        knockout_does(kind),
        heads_text(unchanged),
        unchanged.len(),
        layers * heads
    )
}

/// Above the knocked-out model's head grid: which of its patterns can differ from the intact
/// model's (the same reason as [`unchanged_scores_note`]: a head reads only earlier layers).
pub fn knockout_grid_hint(knocked: &[(usize, usize)], layers: usize) -> String {
    match later_layers(knocked, layers) {
        Some(later) => format!(
            "Every head with them knocked out: the heads in {later} read what the knocked-out heads write, so their patterns can change; the others attend as before."
        ),
        None => "Every head with them knocked out: no layer comes after them, so every head attends as before (a knock-out changes what a head writes, not where it looks).".to_string(),
    }
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

/// The prediction's band, [`STAY_WITHIN`] as a percentage ("10%").
fn band() -> String {
    format!("{}%", fixed(STAY_WITHIN * 100.0, 0))
}

/// A choice of the prediction.
pub fn change_label(change: LossChange) -> String {
    match change {
        LossChange::Rise => format!("Rise (by more than {})", band()),
        LossChange::Fall => format!("Fall (by more than {})", band()),
        LossChange::Stay => format!("Stay within {}", band()),
    }
}

/// The grade of a prediction, with the numbers it was graded on.
pub fn prediction_grade(g: &Graded, repeat: bool) -> String {
    let said = match g.predicted {
        LossChange::Stay => format!("stay within {}", band()),
        LossChange::Rise => "rise".to_string(),
        LossChange::Fall => "fall".to_string(),
    };
    let did = match g.actual {
        LossChange::Rise => "It rose".to_string(),
        LossChange::Fall => "It fell".to_string(),
        LossChange::Stay => format!("It stayed within {}", band()),
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

/// What the composition test does, beside its button (its thresholds from
/// [`INDUCTION_MIN`] and [`COPYING_RATIO_MAX`]).
pub fn composition_intro() -> String {
    format!(
        "The checklist above only says that such heads exist. The composition test knocks out each layer-1 head in turn (zero-ablation) and checks that only the previous-token head breaks copying: layer 2's induction head then falls below {} and the repeated part's loss rises above {}% of the first copy's. It tests this one route on the held-out sequences of the step shown; a run may copy another way.",
        fixed(INDUCTION_MIN, 2),
        fixed(COPYING_RATIO_MAX * 100.0, 0)
    )
}

/// One line of the composition test: what knocking out one layer-1 head (or none) leaves.
fn copying_line(n: &CopyingNumbers, induction_head: usize) -> String {
    format!(
        "layer 2 head {}'s induction score {}, repeated part {}% of the first copy's",
        induction_head + 1,
        fixed(n.induction, 2),
        fixed(n.repeat_ratio() * 100.0, 1)
    )
}

/// The checklist's fourth, causal condition at `step` ([`Composition`], zero-ablation), with its
/// numbers.
pub fn composition_item(step: usize, c: &Composition) -> CircuitItem {
    let prev = c.previous_token_head.head;
    let ind = c.induction_head.head;
    let mut text = format!(
        "layer 2 reads layer 1 (tested at step {}): intact, {}. Knocking out layer 1 head {} (the previous-token head, {}): {}{}",
        grouped(step as u64),
        copying_line(&c.intact, ind),
        prev + 1,
        fixed(c.previous_token_head.score, 2),
        copying_line(&c.zero[prev], ind),
        if c.zero[prev].broken() { ", broken" } else { ", not broken" },
    );
    for (h, n) in c.zero.iter().enumerate().filter(|&(h, _)| h != prev) {
        let state = if n.copies() {
            ", still copying"
        } else {
            ", not copying"
        };
        let line = copying_line(n, ind);
        let _ = write!(text, "; knocking out layer 1 head {}: {line}{state}", h + 1);
    }
    let verdict = if c.holds() {
        "Composition holds."
    } else if !c.intact.copies() {
        "Composition cannot hold: the intact model does not copy by these measures."
    } else {
        "Composition does not hold."
    };
    let mean = if c.holds_with_mean() {
        "With mean-ablation it holds too."
    } else {
        "With mean-ablation it does not."
    };
    CircuitItem {
        met: c.holds(),
        status: if c.holds() { "Met" } else { "Not met" },
        text: format!(
            "{text}. {verdict} {mean} (Still copying: induction at least {ind}, repeated part at most {copy}% of the first copy's, a looser bar than the {formed}% at which the circuit counts as formed. Broken: induction below {ind}, repeated part above {copy}%.)",
            ind = fixed(INDUCTION_MIN, 2),
            copy = fixed(COPYING_RATIO_MAX * 100.0, 0),
            formed = fixed(REPEAT_RATIO_MAX * 100.0, 0),
        ),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::train::lab::evaluation::BestHead;

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

    fn numbers(induction: f64, ratio: f64) -> CopyingNumbers {
        CopyingNumbers {
            induction,
            first_copy_loss: 4.0,
            repeated_loss: 4.0 * ratio,
        }
    }

    #[test]
    fn the_composition_intro_quotes_the_thresholds() {
        let intro = composition_intro();
        assert!(intro.contains("falls below 0.50 and"), "{intro}");
        assert!(
            intro.contains("rises above 60% of the first copy's"),
            "{intro}"
        );
    }

    #[test]
    fn the_composition_item_gives_the_verdict_with_its_numbers() {
        // Seed 1 at step 1,200 (docs/training.md): holds.
        let c = Composition {
            previous_token_head: BestHead {
                head: 0,
                score: 0.834,
            },
            induction_head: BestHead {
                head: 1,
                score: 0.783,
            },
            intact: numbers(0.783, 0.248),
            zero: vec![numbers(0.146, 0.796), numbers(0.769, 0.251)],
            mean: vec![numbers(0.147, 0.796), numbers(0.773, 0.247)],
        };
        let item = composition_item(1200, &c);
        assert!(item.met);
        assert_eq!(
            item.text,
            "layer 2 reads layer 1 (tested at step 1,200): intact, layer 2 head 2's induction score 0.78, repeated part 24.8% of the first copy's. Knocking out layer 1 head 1 (the previous-token head, 0.83): layer 2 head 2's induction score 0.15, repeated part 79.6% of the first copy's, broken; knocking out layer 1 head 2: layer 2 head 2's induction score 0.77, repeated part 25.1% of the first copy's, still copying. Composition holds. With mean-ablation it holds too. (Still copying: induction at least 0.50, repeated part at most 60% of the first copy's, a looser bar than the 30% at which the circuit counts as formed. Broken: induction below 0.50, repeated part above 60%.)"
        );
        // Every way it can fail is said, and the status follows the verdict.
        let other_breaks = Composition {
            zero: vec![numbers(0.146, 0.796), numbers(0.2, 0.9)],
            ..c.clone()
        };
        let item = composition_item(1200, &other_breaks);
        assert!(!item.met);
        assert!(item.text.contains("head 2: layer 2 head 2's induction score 0.20, repeated part 90.0% of the first copy's, not copying. Composition does not hold."));
        let no_copy = Composition {
            intact: numbers(0.3, 0.9),
            ..c.clone()
        };
        assert!(composition_item(5, &no_copy)
            .text
            .contains("Composition cannot hold: the intact model does not copy"));
        let mean_differs = Composition {
            mean: vec![numbers(0.6, 0.3), numbers(0.773, 0.247)],
            ..c
        };
        assert!(composition_item(5, &mean_differs)
            .text
            .contains("Composition holds. With mean-ablation it does not."));
    }

    #[test]
    fn the_unchanged_scores_note_names_the_heads_that_kept_theirs() {
        let note = unchanged_scores_note(&[(0, 0)], AblationKind::Zero, &[(0, 0), (0, 1)], (2, 2));
        assert_eq!(
            note,
            "Knocking a head out removes what it writes, not where it looks, and the scores measure where heads look. A head reads only what the layers before it wrote, so no head in layer 1 reads anything a knocked-out head wrote: those heads score exactly as before, any knocked-out one among them included. Heads in later layers read what the knocked-out heads write, which is now different, so their scores can change. Unchanged here, bit for bit: layer 1 head 1 and layer 1 head 2 (2 of 4 heads)."
        );
        let mean = unchanged_scores_note(&[(0, 0)], AblationKind::Mean, &[(0, 0), (0, 1)], (2, 2));
        assert!(mean.starts_with("Knocking a head out by its mean replaces what it writes (with its average output row on the held-out set, the same at every position), not where it looks"), "{mean}");
        assert!(!mean.contains("removes"), "{mean}");
        let late = unchanged_scores_note(
            &[(1, 1), (2, 0)],
            AblationKind::Zero,
            &[(0, 0), (0, 1), (1, 0), (1, 1), (2, 1)],
            (3, 2),
        );
        assert!(
            late.contains("so no head in layers 1 to 2 reads anything"),
            "{late}"
        );
        assert!(late.ends_with("layer 1 head 1, layer 1 head 2, layer 2 head 1, layer 2 head 2 and layer 3 head 2 (5 of 6 heads)."), "{late}");
        let last = unchanged_scores_note(&[(1, 0)], AblationKind::Zero, &[(0, 0), (1, 0)], (2, 1));
        assert!(!last.contains("later layers"), "{last}");
        assert!(
            last.ends_with("layer 1 head 1 and layer 2 head 1 (2 of 2 heads)."),
            "{last}"
        );
        assert_eq!(
            unchanged_scores_note(&[], AblationKind::Zero, &[], (2, 2)),
            ""
        );
    }

    #[test]
    fn the_grid_hint_names_only_layers_that_come_after() {
        assert_eq!(
            knockout_grid_hint(&[(0, 1)], 2),
            "Every head with them knocked out: the heads in layer 2 read what the knocked-out heads write, so their patterns can change; the others attend as before."
        );
        assert!(
            knockout_grid_hint(&[(1, 0), (0, 0)], 3).contains("the heads in layers 2 to 3 read")
        );
        for (knocked, layers) in [
            (vec![(1, 0)], 2),
            (vec![(0, 0), (0, 1)], 1),
            (vec![(2, 1)], 3),
        ] {
            let hint = knockout_grid_hint(&knocked, layers);
            assert!(hint.contains("no layer comes after them"), "{hint}");
        }
    }
}
