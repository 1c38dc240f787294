//! The page's sentences, captions and cells that are built from numbers: plain string functions,
//! so that native tests pin the exact words and the components only place them.
//!
//! The numbers themselves come from [`crate::model`] and their digits from [`crate::format`];
//! this file decides only how they read.

use crate::format::{fixed, percent, scientific};
use crate::model::scaling_lab::{LabPoint, Spread, DRAWS, KEYS, NOTEBOOK_DRAWS};
use crate::model::stats::{row_stats, ROUNDING_TOLERANCE};
use crate::model::temperature::Regime;
use crate::model::trace::RowTrace;
use nalgebra::DMatrix;

/// A token in typographic quotes for running text.
pub fn quote(token: &str) -> String {
    format!("“{token}”")
}

/// A readable τ: three significant digits.
pub fn format_tau(tau: f64) -> String {
    if tau >= 10.0 {
        fixed(tau, 1)
    } else if tau >= 1.0 {
        fixed(tau, 2)
    } else {
        fixed(tau, 3)
    }
}

/// What the temperature `tau` (in `regime`, for heads of size `head_size`) means, in plain words.
pub fn regime_sentence(regime: Regime, tau: f64, head_size: usize) -> String {
    match regime {
        Regime::Unscaled => format!("τ = 1/√{head_size}: exactly attention without the 1/√d scaling. Scores are {}× larger than standard, so rows turn peaky.", format_tau(1.0 / tau)),
        Regime::Colder => "Colder than unscaled attention: almost every row puts nearly all its weight on one token (one-hot).".to_string(),
        Regime::Between => "Between unscaled and standard: rows are sharper than in a freshly initialised transformer.".to_string(),
        Regime::Scaled => "τ = 1: standard scaled attention, softmax(QKᵀ/√d). Rows are soft: weight is spread over several tokens.".to_string(),
        Regime::Hotter => "Hotter than standard: rows flatten toward the plain average of the past, 1/(t+1) for each token.".to_string(),
    }
}

/// ✓ when two computations agree (their difference is rounding error), ✗ otherwise.
fn check_mark(diff: f64) -> &'static str {
    if diff < ROUNDING_TOLERANCE {
        "✓"
    } else {
        "✗"
    }
}

/// The heatmap's accessible name before any row is selected: what the `n` × `n` chart shows.
pub fn heatmap_label(title: &str, n: usize) -> String {
    format!(
        "{title}: {n} query tokens by {n} key tokens; colour shows attention weight, grey cells are the masked future."
    )
}

/// The tooltip's text for cell (`i`, `j`).
pub fn cell_description(tokens: &[String], weights: &DMatrix<f64>, i: usize, j: usize) -> String {
    let (q, k) = (&tokens[i], &tokens[j]);
    if j > i {
        format!("{q} → {k}: masked (future)")
    } else {
        format!("{q} → {k}: {}", percent(weights[(i, j)]))
    }
}

/// A sentence describing row `i`: its token and where it looks most.
pub fn row_summary(tokens: &[String], weights: &DMatrix<f64>, i: usize) -> String {
    let row: Vec<f64> = (0..=i).map(|j| weights[(i, j)]).collect();
    let stats = row_stats(&row);
    if i > 0 && stats.is_even() {
        return format!(
            "Row {} {} spreads its attention evenly: {} on each of its {} tokens.",
            i + 1,
            quote(&tokens[i]),
            percent(stats.max_weight),
            i + 1
        );
    }
    format!(
        "Row {} {} attends most to {} ({}).",
        i + 1,
        quote(&tokens[i]),
        quote(&tokens[stats.argmax]),
        percent(stats.max_weight)
    )
}

/// The inspector's bar chart, for screen readers: row `i` (`token`), whose largest weight
/// `max_weight` goes to `top`.
pub fn bar_chart_label(token: &str, i: usize, top: &str, max_weight: f64) -> String {
    format!(
        "Bar chart of the attention of {} (row {}) over every key token; the largest bar is {} at {}. The table below lists every value.",
        quote(token),
        i + 1,
        quote(top),
        percent(max_weight)
    )
}

/// A row's entropy, as the inspector shows it.
pub fn entropy_text(bits: f64) -> String {
    format!("{} bits", fixed(bits, 3))
}

/// A row's effective token count out of the `visible` tokens it may attend to.
pub fn effective_tokens_text(effective: f64, visible: usize) -> String {
    format!("{} of {}", fixed(effective, 2), visible)
}

/// Step 2's check: the averaging matrix times X against the notebook's loop, differing by `diff`.
pub fn averaging_check(diff: f64) -> String {
    format!(
        "{} wei · X equals the running mean computed with a loop: largest difference {}.",
        check_mark(diff),
        scientific(diff, 1)
    )
}

/// Step 2's reading of row `i`: the equal share it gives each visible token.
pub fn averaging_row(tokens: &[String], i: usize) -> String {
    format!(
        "Row {} ({}) takes {} from each of its {} visible tokens. Attention keeps this triangle but lets the data choose the shares.",
        i + 1,
        quote(tokens.get(i).map_or("", String::as_str)),
        percent(1.0 / (i + 1) as f64),
        i + 1
    )
}

/// The trace table's caption: row `trace.t` (`token`) of head `head` (0-based).
pub fn trace_caption(token: &str, trace: &RowTrace, head: usize) -> String {
    format!(
        "Trace of {} (row {}), head {}, d = {}, τ = {}",
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

/// A lab table cell: mean to 3 decimals, then the 10th–90th percentile band.
pub fn lab_cell(spread: &Spread) -> String {
    format!(
        "{} ({}–{})",
        fixed(spread.mean, 3),
        fixed(spread.p10, 2),
        fixed(spread.p90, 2)
    )
}

/// The lab table's caption.
pub fn lab_caption() -> String {
    format!("Largest softmax weight over {KEYS} keys (mean, 10th–90th percentile)")
}

/// The lab's readout for the selected head size.
pub fn lab_readout(point: &LabPoint) -> String {
    format!(
        "At d = {}: unscaled {} (10–90 %: {}–{}), scaled {} (10–90 %: {}–{}) over {DRAWS} draws.",
        point.head_size,
        fixed(point.unscaled.mean, 2),
        fixed(point.unscaled.p10, 2),
        fixed(point.unscaled.p90, 2),
        fixed(point.scaled.mean, 2),
        fixed(point.scaled.p10, 2),
        fixed(point.scaled.p90, 2)
    )
}

/// The notebook's single draws, one sentence each.
pub fn notebook_draws() -> String {
    NOTEBOOK_DRAWS
        .iter()
        .map(|(d, u, s)| {
            format!(
                "The notebook's single draw at d = {d}: {} unscaled, {} scaled. ",
                fixed(*u, 2),
                fixed(*s, 2)
            )
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::explorer::{ModelConfig, Prepared};
    use crate::model::scaling_lab::{lab_point, LAB_SEED};
    use crate::model::temperature::unscaled_tau;
    use crate::model::tokenizer::tokenize;
    use crate::model::weights::{DEFAULT_HEADS, DEFAULT_SEED};

    /// The page as it opens: "The cat sat on the mat .", seed 1337, two heads of 16.
    fn default_model() -> Prepared {
        Prepared::new(ModelConfig {
            tokens: tokenize("The cat sat on the mat ."),
            seed: DEFAULT_SEED,
            heads: DEFAULT_HEADS,
            positions: false,
        })
    }

    #[test]
    fn quotes_and_temperatures() {
        assert_eq!(quote("cat"), "“cat”");
        assert_eq!(format_tau(0.01), "0.010");
        assert_eq!(format_tau(0.25), "0.250");
        assert_eq!(format_tau(1.0), "1.00");
        assert_eq!(format_tau(9.999), "10.00");
        assert_eq!(format_tau(10.0), "10.0");
        assert_eq!(format_tau(100.0), "100.0");
    }

    #[test]
    fn regime_sentences() {
        let d = 16;
        let said = |tau: f64| regime_sentence(Regime::of(tau, d), tau, d);
        assert_eq!(
            said(unscaled_tau(d)),
            "τ = 1/√16: exactly attention without the 1/√d scaling. Scores are 4.00× larger than standard, so rows turn peaky."
        );
        assert_eq!(
            said(0.01),
            "Colder than unscaled attention: almost every row puts nearly all its weight on one token (one-hot)."
        );
        assert_eq!(
            said(0.5),
            "Between unscaled and standard: rows are sharper than in a freshly initialised transformer."
        );
        assert_eq!(
            said(1.0),
            "τ = 1: standard scaled attention, softmax(QKᵀ/√d). Rows are soft: weight is spread over several tokens."
        );
        assert_eq!(
            said(2.0),
            "Hotter than standard: rows flatten toward the plain average of the past, 1/(t+1) for each token."
        );
        assert_eq!(
            regime_sentence(Regime::Unscaled, 0.125, 64),
            "τ = 1/√64: exactly attention without the 1/√d scaling. Scores are 8.00× larger than standard, so rows turn peaky."
        );
    }

    #[test]
    fn heatmap_text_for_the_default_view() {
        let p = default_model();
        let w = p.weights_all(1.0).swap_remove(0);
        let tokens = &p.config.tokens;
        assert_eq!(
            heatmap_label("Head 1 attention weights", 7),
            "Head 1 attention weights: 7 query tokens by 7 key tokens; colour shows attention weight, grey cells are the masked future."
        );
        assert_eq!(
            cell_description(tokens, &w, 1, 2),
            "cat → sat: masked (future)"
        );
        assert_eq!(cell_description(tokens, &w, 5, 1), "mat → cat: 5.7%");
        assert_eq!(cell_description(tokens, &w, 0, 0), "The → The: 100.0%");
        assert_eq!(
            row_summary(tokens, &w, 0),
            "Row 1 “The” attends most to “The” (100.0%)."
        );
        assert_eq!(
            row_summary(tokens, &w, 5),
            "Row 6 “mat” attends most to “sat” (35.5%)."
        );
        assert_eq!(
            row_summary(tokens, &w, 6),
            "Row 7 “.” attends most to “on” (59.1%)."
        );
        let hot = p.weights_all(1e4).swap_remove(0);
        assert_eq!(
            row_summary(tokens, &crate::model::attention::averaging_matrix(7), 3),
            "Row 4 “on” spreads its attention evenly: 25.0% on each of its 4 tokens."
        );
        // A hot row is not exactly even, so it names its (barely) largest weight.
        assert_eq!(
            row_summary(tokens, &hot, 3),
            "Row 4 “on” attends most to “sat” (25.0%)."
        );
    }

    #[test]
    fn inspector_text_for_the_default_view() {
        let p = default_model();
        let w = p.weights_all(1.0).swap_remove(0);
        let row: Vec<f64> = (0..=5).map(|j| w[(5, j)]).collect();
        let s = row_stats(&row);
        let tokens = &p.config.tokens;
        assert_eq!(
            bar_chart_label(&tokens[5], 5, &tokens[s.argmax], s.max_weight),
            "Bar chart of the attention of “mat” (row 6) over every key token; the largest bar is “sat” at 35.5%. The table below lists every value."
        );
        assert_eq!(entropy_text(s.entropy_bits), "2.249 bits");
        assert_eq!(effective_tokens_text(s.effective_tokens, 6), "4.75 of 6");
    }

    #[test]
    fn averaging_text() {
        let p = default_model();
        let tokens = &p.config.tokens;
        assert_eq!(
            averaging_row(tokens, 2),
            "Row 3 (“sat”) takes 33.3% from each of its 3 visible tokens. Attention keeps this triangle but lets the data choose the shares."
        );
        assert_eq!(
            averaging_row(tokens, 9),
            "Row 10 (“”) takes 10.0% from each of its 10 visible tokens. Attention keeps this triangle but lets the data choose the shares."
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

    #[test]
    fn trace_text_for_the_default_view() {
        let p = default_model();
        let head = &p.heads[0];
        let trace = RowTrace::new(head, &head.weights(0.5), 5, 0.5);
        assert_eq!(
            trace_caption("mat", &trace, 0),
            "Trace of “mat” (row 6), head 1, d = 16, τ = 0.500"
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
    fn lab_text() {
        assert_eq!(
            lab_caption(),
            "Largest softmax weight over 8 keys (mean, 10th–90th percentile)"
        );
        assert_eq!(
            notebook_draws(),
            "The notebook's single draw at d = 16: 0.87 unscaled, 0.32 scaled. The notebook's single draw at d = 256: 0.94 unscaled, 0.24 scaled. "
        );
        let p = lab_point(16, DRAWS, LAB_SEED);
        assert_eq!(
            lab_readout(&p),
            "At d = 16: unscaled 0.75 (10–90 %: 0.46–0.99), scaled 0.35 (10–90 %: 0.23–0.52) over 1000 draws."
        );
        assert_eq!(lab_cell(&p.unscaled), "0.746 (0.46–0.99)");
        assert_eq!(lab_cell(&p.scaled), "0.355 (0.23–0.52)");
        let spread = Spread {
            mean: 0.3456,
            p10: 0.2,
            p90: 0.555,
        };
        assert_eq!(lab_cell(&spread), "0.346 (0.20–0.56)");
    }
}
