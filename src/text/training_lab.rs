//! The training lab's sentences: the repeated segment's marks, Replay's Play, knocking heads out
//! and the prediction asked first, the composition test, and run B beside run A.

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
}
