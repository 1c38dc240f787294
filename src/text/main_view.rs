//! The words above the main heatmap on the explorer and the practice page: its heading, the
//! hint under it, the glossary's summary and the way back to the explorer. The app's view and
//! the first view written into the pages at build time (`first_view`) both print these,
//! so the two read the same.

/// The heading's lead; [`heads_label`] follows it.
pub const HEATMAP_HEADING: &str = "Who attends to whom — ";

/// The heatmap's title in its accessible name ([`super::heatmap_label`]).
pub const HEATMAP_TITLE: &str = "Causal attention heatmap";

/// The practice and training pages' way back to the explorer.
pub const TO_EXPLORER: &str = "← Back to the explorer (lesson and Break it)";

/// The glossary's summary line.
pub const SYMBOLS_SUMMARY: &str = "Symbols used here";

/// The hint's first sentence, for every pointer.
pub const HEATMAP_HINT: &str = "Rows are queries (the token doing the looking), columns are keys. ";

/// The hint's help for a mouse and keyboard (style/main.css shows it where the pointer is fine).
pub const HEATMAP_HINT_POINTER: &str = "Hover for exact weights and click a row to inspect it. Keyboard: focus the map, ↑/↓ choose a row, ←/→ step through its cells, Home/End jump, Esc leaves the cell.";

/// The hint's help on a touch screen.
pub const HEATMAP_HINT_TOUCH: &str =
    "Tap a row to inspect it; the tapped cell's exact weight pops up beside your finger.";

/// "one head" or "head 2 of 4" (`head` 0-based): which head the main heatmap shows, marked
/// "(BROKEN)" while "Break it" mistakes are on.
pub fn heads_label(heads: usize, head: usize, broken: bool) -> String {
    let shown = if heads == 1 {
        "one head".to_string()
    } else {
        format!("head {} of {heads}", head + 1)
    };
    if broken {
        format!("{shown} (BROKEN)")
    } else {
        shown
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_label_names_the_head_and_says_when_it_is_broken() {
        assert_eq!(heads_label(1, 0, false), "one head");
        assert_eq!(heads_label(4, 1, false), "head 2 of 4");
        assert_eq!(heads_label(2, 0, true), "head 1 of 2 (BROKEN)");
    }
}
