//! The training page's names and captions for its heads and tables: a head by its place, the head
//! thumbnails' and head tables' names, the closer look's row, the detector and knock-out tables'
//! captions, the saved checkpoint's note, and what went wrong with a file.

use super::{of_run, quote};
use crate::format::grouped;

/// A head of the trained model by its place, from 0-based `layer` and `head`: "Layer 1, head 2"
/// (the head switches, the closer look's menu, every table's row and the thumbnails).
pub fn head_name(layer: usize, head: usize) -> String {
    format!("Layer {}, head {}", layer + 1, head + 1)
}

/// A head thumbnail's accessible name, with `note` (e.g. "knocked out") after the head's name.
pub fn head_thumb_label(layer: usize, head: usize, note: Option<&str>) -> String {
    let name = head_name(layer, head);
    match note {
        Some(n) => format!("{name} ({n}): attention on the held-out sequence"),
        None => format!("{name}: attention on the held-out sequence"),
    }
}

/// A head's weights table: its caption, also the name of its scrolling region.
pub fn head_table_caption(layer: usize, head: usize) -> String {
    format!(
        "{}: the weight each query (row) puts on each key (column)",
        head_name(layer, head)
    )
}

/// The closer look's row table: its caption, for 0-based `row` and its `token`.
pub fn closer_row_caption(row: usize, token: &str) -> String {
    format!(
        "Row {} {}: its weight on each key it can see",
        row + 1,
        quote(token)
    )
}

/// What the closer look's stage-by-stage table shows, for 0-based `row`, `layer` and `head`;
/// with `rotary` positions, that q and k are the rotated vectors.
pub fn closer_trace_hint(row: usize, layer: usize, head: usize, rotary: bool) -> String {
    format!(
        "Row {} of layer {}, head {}, stage by stage: its query against every key (q·k), divided by √d and by τ, the future masked, then softmax. The check adds up the value vectors weighted by that row and compares the sum with row {} of A·V.{}",
        row + 1,
        layer + 1,
        head + 1,
        row + 1,
        if rotary {
            " With rotary positions, q and k are the rotated vectors the scores compare."
        } else {
            ""
        },
    )
}

/// The live detector table's caption: run `letter`'s heads (none: the page's one run) at `step`.
pub fn detector_caption(letter: Option<&str>, step: usize) -> String {
    format!(
        "What each head{} attends to at step {}, averaged over the held-out sequences",
        of_run(letter),
        grouped(step as u64)
    )
}

/// The knock-out's loss table: its caption, at `step`.
pub fn knockout_losses_caption(step: usize) -> String {
    format!(
        "Held-out loss in nats at step {}, intact and with the heads knocked out (each difference is of the unrounded losses)",
        grouped(step as u64)
    )
}

/// What the saved checkpoint is, above its scores: its `task`'s name, seed, steps, file size in
/// bytes and the number of held-out sequences it is scored on.
pub fn saved_checkpoint_note(
    task: &str,
    seed: u64,
    steps: u32,
    bytes: usize,
    held_out: usize,
) -> String {
    format!(
        "Trained weights from a file, not from this page: the {task} task's default run, seed {seed}, trained for {steps} steps by the project's own code (examples/checkpoints.rs) and saved in f32 ({bytes} bytes, fetched on demand). Scores on that run's {held_out} held-out sequences, computed here:"
    )
}

/// The saved checkpoint could not be read: `why`.
pub fn checkpoint_unreadable(why: &str) -> String {
    format!("The checkpoint could not be read: {why}.")
}

/// The trained model could not be handed to the explorer: `why`.
pub fn model_handover_failed(why: &str) -> String {
    format!("The model could not be handed to the explorer: {why}.")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn heads_are_named_by_their_place_from_one() {
        assert_eq!(head_name(0, 1), "Layer 1, head 2");
        assert_eq!(
            head_thumb_label(1, 0, Some("knocked out")),
            "Layer 2, head 1 (knocked out): attention on the held-out sequence"
        );
        assert_eq!(
            head_thumb_label(0, 0, None),
            "Layer 1, head 1: attention on the held-out sequence"
        );
        assert!(head_table_caption(1, 2).starts_with("Layer 2, head 3: "));
        assert!(closer_trace_hint(4, 1, 0, false)
            .starts_with("Row 5 of layer 2, head 1, stage by stage"));
        assert!(closer_trace_hint(4, 1, 0, false).ends_with("with row 5 of A·V."));
        assert!(
            closer_trace_hint(0, 0, 0, true).ends_with("the rotated vectors the scores compare.")
        );
        assert_eq!(
            closer_row_caption(2, "ka"),
            "Row 3 “ka”: its weight on each key it can see"
        );
    }

    #[test]
    fn captions_group_the_step_and_name_the_run() {
        assert_eq!(
            detector_caption(Some("B"), 12000),
            "What each head of run B attends to at step 12,000, averaged over the held-out sequences"
        );
        assert!(detector_caption(None, 5).starts_with("What each head attends to at step 5,"));
        assert!(knockout_losses_caption(1500).starts_with("Held-out loss in nats at step 1,500, "));
        assert_eq!(
            checkpoint_unreadable("bad magic"),
            "The checkpoint could not be read: bad magic."
        );
    }
}
