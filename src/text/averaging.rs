//! Step 1's words: the averaging matrix's check and reading of a row, and the same row of
//! attention beside it.

use super::{check_mark, quote};
use crate::format::{percent, scientific};

/// Step 1's check: the averaging matrix times X against the notebook's loop, differing by `diff`.
pub fn averaging_check(diff: f64) -> String {
    format!(
        "{} wei · X equals the running mean computed with a loop: largest difference {}.",
        check_mark(diff),
        scientific(diff, 1)
    )
}

/// Step 1's reading of row `i`: the equal share it gives each visible token.
pub fn averaging_row(tokens: &[String], i: usize) -> String {
    format!(
        "In this averaging matrix (not the attention heatmap at the top of the page), row {} ({}) takes {} from each of its {} visible tokens. Attention keeps this triangle but lets the data choose the shares: compare it with the same row of attention, below.",
        i + 1,
        quote(tokens.get(i).map_or("", String::as_str)),
        percent(1.0 / (i + 1) as f64),
        i + 1
    )
}

/// Step 1's row `i` of the attention heatmap at the top (`row`: its weights over every key), so
/// the reader can compare it with the averaging row without scrolling: its visible keys in order
/// when there are at most 6, else its 3 largest and how many more. `broken`: the heatmap at the
/// top shows Break it's mistakes, which may give the future weight, so every key is listed.
pub fn attention_row_beside(tokens: &[String], i: usize, row: &[f64], broken: bool) -> String {
    let seen = if broken {
        row.len()
    } else {
        (i + 1).min(row.len())
    };
    let named = |j: usize| {
        format!(
            "{} {}",
            quote(tokens.get(j).map_or("", String::as_str)),
            percent(row[j])
        )
    };
    let listed = if seen <= 6 {
        (0..seen).map(named).collect::<Vec<_>>().join(", ")
    } else {
        let mut order: Vec<usize> = (0..seen).collect();
        order.sort_by(|&a, &b| row[b].total_cmp(&row[a]).then(a.cmp(&b)));
        let top: Vec<String> = order[..3].iter().map(|&j| named(j)).collect();
        format!("{}, and {} more keys", top.join(", "), seen - 3)
    };
    format!(
        "The same row of the attention heatmap at the top{}: {listed}.",
        if broken {
            " (with the “Break it” mistakes on)"
        } else {
            ""
        }
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_attention_row_beside_the_average_lists_its_keys() {
        let tokens: Vec<String> = ["The", "cat", "sat", "on", "the", "mat", ".", "x"]
            .iter()
            .map(ToString::to_string)
            .collect();
        let row = [0.5, 0.25, 0.25, 0.0, 0.0, 0.0, 0.0, 0.0];
        assert_eq!(
            attention_row_beside(&tokens, 2, &row, false),
            "The same row of the attention heatmap at the top: “The” 50.0%, “cat” 25.0%, “sat” 25.0%."
        );
        let row = [0.05, 0.3, 0.1, 0.2, 0.05, 0.1, 0.1, 0.1];
        let said = attention_row_beside(&tokens, 7, &row, true);
        assert_eq!(
            said,
            "The same row of the attention heatmap at the top (with the “Break it” mistakes on): “cat” 30.0%, “on” 20.0%, “sat” 10.0%, and 5 more keys."
        );
        // Broken, an early row may weigh the future: its later keys are listed too, so the
        // numbers add up to what the row holds.
        let row = [0.5, 0.2, 0.1, 0.1, 0.1, 0.0, 0.0, 0.0];
        let said = attention_row_beside(&tokens[..5], 1, &row[..5], true);
        assert_eq!(
            said,
            "The same row of the attention heatmap at the top (with the “Break it” mistakes on): “The” 50.0%, “cat” 20.0%, “sat” 10.0%, “on” 10.0%, “the” 10.0%."
        );
        assert_eq!(
            attention_row_beside(&tokens[..5], 1, &row[..5], false),
            "The same row of the attention heatmap at the top: “The” 50.0%, “cat” 20.0%."
        );
    }

    #[test]
    fn averaging_text() {
        let p = crate::model::explorer::default_view(crate::model::weights::DEFAULT_HEADS, false);
        let tokens = &p.config.tokens;
        assert_eq!(
            averaging_row(tokens, 2),
            "In this averaging matrix (not the attention heatmap at the top of the page), row 3 (“sat”) takes 33.3% from each of its 3 visible tokens. Attention keeps this triangle but lets the data choose the shares: compare it with the same row of attention, below."
        );
        assert_eq!(
            averaging_row(tokens, 9),
            "In this averaging matrix (not the attention heatmap at the top of the page), row 10 (“”) takes 10.0% from each of its 10 visible tokens. Attention keeps this triangle but lets the data choose the shares: compare it with the same row of attention, below."
        );
        let wei = crate::model::attention::averaging_matrix(p.len());
        let diff = crate::model::attention::averaging_error(&wei, &p.x);
        assert_eq!(
            averaging_check(diff),
            format!(
                "✓ wei · X equals the running mean computed with a loop: largest difference {}.",
                scientific(diff, 1)
            )
        );
        assert_eq!(
            averaging_check(0.0),
            "✓ wei · X equals the running mean computed with a loop: largest difference 0.0e0."
        );
        assert_eq!(
            averaging_check(2e-12),
            "✗ wei · X equals the running mean computed with a loop: largest difference 2.0e-12."
        );
    }
}
