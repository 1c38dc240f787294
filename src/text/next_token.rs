//! The sentences of the next-token readout (row inspector) and of the generation panel: what a
//! row predicts, the token that follows it, and where a draw fell.

use super::{count, quote};
use crate::format::{fixed, percent};

/// Said with random weights instead of a prediction, which they cannot make.
pub const NO_PREDICTION: &str = "The random model has no unembedding at all (the matrix that turns a token's final vector into a score for every word), so it cannot predict a next token. To see a prediction, choose Weights: “trained on a tiny grammar” in the Model panel.";

/// What the sampling temperature T does, beside its slider.
pub const SAMPLING_TEMPERATURE_HINT: &str = "T divides the logits (the scores for each next word) before their softmax; it is not the τ that divides the attention scores. T = 0 is greedy: always the most likely word, no draw.";

/// Where the next-token readout comes from: row `row` (0-based) of `token`, read by a model of
/// `heads` heads at attention temperature `tau`.
pub fn next_token_intro(token: &str, row: usize, tau: &str, heads: usize) -> String {
    format!(
        "What the trained model predicts after {} (row {}) at τ = {tau}: its most likely next tokens. It predicts from the token's final vector: its input plus what all {} wrote through W_o, not a single head's output A·V.",
        quote(token),
        row + 1,
        count(heads, "head", "heads")
    )
}

/// How a row's output becomes the readout's probabilities, for a one-layer model of `heads`
/// heads (the explorer's trained weights).
pub fn next_token_how(heads: usize) -> String {
    format!(
        "The final vector is the token's input (its embedding plus its position code) plus what the {} added through W_o. Times the unembedding, a matrix with one column per word, it gives every word a score, a logit; the softmax of those scores is the chance of each word coming next. No sampling temperature divides these logits: that is T, on the generate page, which writes text with it; τ acts only earlier, inside attention.",
        count(heads, "head", "heads")
    )
}

/// Said under the readout while Break it's mistakes are on: they change the heatmap, not this.
pub const PREDICTION_READS_CORRECT_ATTENTION: &str = "Break it's mistakes change the heatmap and the row inspector above, not this prediction: it is the trained model's own forward pass, with correct causal attention.";

/// The table's caption.
pub fn next_token_caption(token: &str, row: usize) -> String {
    format!(
        "Next-token probabilities after {} (row {})",
        quote(token),
        row + 1
    )
}

/// The table line for the tokens outside the top ones: "the other 24 tokens".
pub fn other_tokens(n: usize) -> String {
    format!("(the other {})", count(n, "token", "tokens"))
}

/// The token that actually follows the row (`Some((token, p, loss))`) or, at the last row, that
/// none does.
pub fn following_token_text(following: Option<(&str, f64, f64)>) -> String {
    match following {
        Some((token, p, loss)) => format!(
            "The token that actually follows is {}: the model gave it {}, a loss of {} nats (−ln p: the natural log, so nats, not bits).",
            quote(token),
            percent(p),
            fixed(loss, 3)
        ),
        None => "This is the last row: no token follows it in the text yet, so there is no loss to show.".to_string(),
    }
}

/// The bar chart's text alternative: each shown token and its probability.
pub fn next_token_bars_label(lines: &[(String, f64)]) -> String {
    let items: Vec<String> = lines
        .iter()
        .map(|(t, p)| format!("{} {}", t, percent(*p)))
        .collect();
    format!(
        "Bar chart of next-token probabilities: {}.",
        items.join(", ")
    )
}

/// How the newest generated `token` was chosen: with the draw `u` that fell in its share
/// `start..end` of the running total, or with no draw (greedy).
pub fn draw_text(u: Option<f64>, token: &str, (start, end): (f64, f64)) -> String {
    let Some(u) = u else {
        return format!(
            "Greedy (T = 0 or top-k = 1): no draw; the most likely token, {}, is taken.",
            quote(token)
        );
    };
    // Enough decimals that u never prints equal to an end of the share it is not equal to.
    let decimals = (2..=15)
        .find(|&d| {
            let shown = fixed(u, d);
            (u == start || shown != fixed(start, d)) && (u == end || shown != fixed(end, d))
        })
        .unwrap_or(15);
    format!(
        "u = {} fell in {}'s share {}–{} of the running total (every token's probability laid end to end in vocabulary order, not in the bars' order, as the running total below lists them), so {} was drawn.",
        fixed(u, decimals),
        quote(token),
        fixed(start, decimals),
        fixed(end, decimals),
        quote(token)
    )
}

/// The running generated text, or that nothing is generated yet.
pub fn generated_text(generated: &[String]) -> String {
    if generated.is_empty() {
        return "Nothing generated yet: the sentence is the prompt.".to_string();
    }
    format!(
        "Generated {}: {}",
        count(generated.len(), "token", "tokens"),
        quote(&generated.join(" "))
    )
}
