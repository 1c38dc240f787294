//! Step 3's words: what q, k and v are for, their check, and one row traced through
//! q·k → ÷√d → ÷τ → mask → softmax → Σ w·v.

use super::{check_mark, quote};
use crate::format::{fixed, scientific};
use crate::model::trace::RowTrace;

/// Why a token has both a key and a value.
pub const KEYS_AND_VALUES: &str = "Why a key and a value for every token? The key decides how much a token is attended to; the value is what it hands over once it is. Keeping them apart lets a token be found for one reason (say, being a noun) while passing on something else (say, which noun it is): with one vector for both, what makes a token easy to find would be all it could say.";

/// The caption of the table of row `t`'s query beside every key it sees (all `d` entries).
pub fn query_keys_caption(token: &str, t: usize, d: usize) -> String {
    format!(
        "The query of {} (row {}) beside every key it sees, all {d} entries: q·k multiplies them entry by entry and adds the {d} products (the last column, as in the trace above).",
        quote(token),
        t + 1
    )
}

/// The caption of the weights × values table of row `t` over the first `dims` of `d` dimensions.
pub fn blend_caption(token: &str, t: usize, dims: usize, d: usize) -> String {
    format!(
        "The output of {} (row {}), dimensions 1–{dims} of {d}: each key's weight times its value vector, added up, beside row {} of A·V.",
        quote(token),
        t + 1,
        t + 1
    )
}

/// The trace table's caption: row `trace.t` (`token`) of head `head` (0-based), and its `layer`
/// (0-based) when given: the training page's models have layers, the explorer's has one.
pub fn trace_caption(token: &str, trace: &RowTrace, head: usize, layer: Option<usize>) -> String {
    let layer = layer.map_or(String::new(), |l| format!("layer {}, ", l + 1));
    format!(
        "Trace of {} (row {}), {layer}head {}, d = {}, τ = {}",
        quote(token),
        trace.t + 1,
        head + 1,
        trace.head_size,
        fixed(trace.tau, 3)
    )
}

/// The trace table's "÷ √d" column heading, with √d's value.
pub fn trace_sqrt_d_heading(trace: &RowTrace) -> String {
    format!("÷ √d (= {})", fixed(trace.sqrt_d, 2))
}

/// The trace table's numeric cells for key `j`: q·k, ÷ √d, ÷ τ, after the mask, softmax weight.
pub fn trace_cells(trace: &RowTrace, j: usize) -> [String; 5] {
    let masked = trace.is_masked(j);
    [
        fixed(trace.raw[j], 3),
        fixed(trace.over_sqrt_d[j], 3),
        fixed(trace.scaled[j], 3),
        if masked {
            "−∞".to_string()
        } else {
            fixed(trace.masked[j], 3)
        },
        if masked {
            "0 (masked)".to_string()
        } else {
            fixed(trace.weights[j], 4)
        },
    ]
}

/// The trace's sum of weights, to twelve decimals (so rounding shows, if any).
pub fn trace_sum(trace: &RowTrace) -> String {
    fixed(trace.weight_sum, 12)
}

/// The trace's check: the explicit blend against row t of A·V.
pub fn trace_check(trace: &RowTrace) -> String {
    format!(
        "{} Σ w·v equals row {} of A·V: largest difference {}.",
        check_mark(trace.diff),
        trace.t + 1,
        scientific(trace.diff, 1)
    )
}

/// Step 3's opening: what q, k and v are for, with this model's sizes.
pub fn qkv_intro(d_model: usize, head_size: usize) -> String {
    format!(
        "Each token's input x (its row of X, d_model = {d_model} numbers) is multiplied by three matrices of this head, each d_model × d = {d_model} × {head_size}, giving three vectors of d = {head_size} numbers with three jobs:"
    )
}

/// A vector's entries as the page shows them (3 decimals).
pub fn vector_cells(values: &[f64]) -> Vec<String> {
    values.iter().map(|v| fixed(*v, 3)).collect()
}

/// Step 3's check that q, k and v are x times the head's columns of `W_q`, `W_k`, `W_v`.
pub fn qkv_check(row: &crate::model::trace::QkvRow) -> String {
    format!(
        "{} x·W_q, x·W_k and x·W_v recomputed here with an explicit loop (one dot product of x with each of the head's {} columns) equal row {} of the Q, K and V the attention used: largest difference {}.",
        check_mark(row.diff),
        row.q.len(),
        row.t + 1,
        scientific(row.diff, 1)
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::explorer::{ExplorerConfig, Prepared};

    use crate::model::weights::DEFAULT_HEADS;

    /// The page as it opens: "The cat sat on the mat .", seed 1337, two heads of 16.
    fn default_model() -> Prepared {
        crate::model::explorer::default_view(DEFAULT_HEADS, false)
    }

    #[test]
    fn trace_text_for_the_default_view() {
        let p = default_model();
        let head = &p.heads[0];
        let trace = RowTrace::new(head, &head.weights(0.5), 5, 0.5);
        assert_eq!(
            trace_caption("mat", &trace, 0, None),
            "Trace of “mat” (row 6), head 1, d = 16, τ = 0.500"
        );
        assert_eq!(
            trace_caption("mat", &trace, 0, Some(1)),
            "Trace of “mat” (row 6), layer 2, head 1, d = 16, τ = 0.500"
        );
        assert_eq!(trace_sqrt_d_heading(&trace), "÷ √d (= 4.00)");
        assert_eq!(
            trace_cells(&trace, 1),
            ["-2.380", "-0.595", "-1.190", "-1.190", "0.0130"].map(String::from)
        );
        assert_eq!(
            trace_cells(&trace, 6),
            ["-2.400", "-0.600", "-1.200", "−∞", "0 (masked)"].map(String::from)
        );
        assert_eq!(trace_sum(&trace), "1.000000000000");
        assert_eq!(
            trace_check(&trace),
            format!(
                "✓ Σ w·v equals row 6 of A·V: largest difference {}.",
                scientific(trace.diff, 1)
            )
        );
        let off = RowTrace {
            diff: 3e-9,
            ..trace
        };
        assert_eq!(
            trace_check(&off),
            "✗ Σ w·v equals row 6 of A·V: largest difference 3.0e-9."
        );
    }

    #[test]
    fn step_three_shows_q_k_v_and_their_check() {
        use crate::model::trace::QkvRow;
        let p = Prepared::new(ExplorerConfig {
            tokens: crate::model::tokenizer::tokenize("The cat sat on the mat ."),
            seed: crate::model::weights::DEFAULT_SEED,
            heads: 2,
            positions: false,
        });
        let row = QkvRow::new(&p, 0, 4);
        let said = qkv_check(&row);
        assert!(
            said.starts_with("✓ x·W_q, x·W_k and x·W_v recomputed"),
            "{said}"
        );
        assert!(said.contains("each of the head's 16 columns") && said.contains("row 5 "));
        assert!(qkv_intro(32, 16).contains("d_model × d = 32 × 16"));
        assert_eq!(
            vector_cells(&[0.12345, -1.0, 2.0005]),
            ["0.123", "-1.000", "2.001"]
        );
        let mut wrong = row.clone();
        wrong.diff = 1e-6;
        assert!(qkv_check(&wrong).starts_with("✗"));
    }
}

/// Above the trace's colour strips: how to read them.
pub const STRIP_LEGEND: &str = "The strips below: each square is one number of the vector, orange for positive, blue for negative, the stronger the colour the larger the number's size (each strip on its own scale). The tables above give the numbers themselves.";

/// Step 3's note when the slider is not at τ = 1 (a step before, "Set τ = 100", may have moved
/// it): the trace uses the slider's τ, so its weights are not those of τ = 1. `None` at τ = 1.
pub fn trace_tau_note(tau: f64) -> Option<String> {
    (tau != 1.0).then(|| {
        format!(
            "τ = {} on the slider, not 1: this trace divides every score by it too, so its weights differ from the model's at τ = 1.",
            super::format_tau(tau)
        )
    })
}

#[cfg(test)]
mod trace_note_tests {
    use super::*;

    #[test]
    fn the_trace_names_a_tau_other_than_1() {
        assert_eq!(trace_tau_note(1.0), None);
        for tau in [0.05, 0.999, 1.001, 2.0, 100.0] {
            let note = trace_tau_note(tau).unwrap();
            assert!(
                note.starts_with(&format!(
                    "τ = {} on the slider, not 1",
                    crate::text::format_tau(tau)
                )),
                "{note}"
            );
        }
    }
}
