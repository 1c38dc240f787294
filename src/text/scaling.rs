//! Step 4's words: the scaling lab's table and readouts (largest weight, variance of q·k, the
//! softmax's gradient), the notebook's quoted draws and the ×8 example.

use super::{check_mark, quote};
use crate::format::{fixed, scientific};
use crate::model::claims::NEARLY_ONE_HOT;
use crate::model::scaling_lab::{LabPoint, Spread, DRAWS, KEYS, NOTEBOOK_DRAWS};

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

/// Whether `x` lies inside a spread's 10–90 % band.
fn in_band(x: f64, spread: &Spread) -> bool {
    (spread.p10..=spread.p90).contains(&x)
}

/// The notebook's single draws, marked as quoted, and how to read them against the lab's
/// `points` (every comparison in it is computed from those points).
pub fn notebook_draws(points: &[LabPoint]) -> String {
    let quoted: Vec<String> = NOTEBOOK_DRAWS
        .iter()
        .map(|(d, u, s)| {
            format!(
                "at d = {d}, {} unscaled and {} scaled",
                fixed(*u, 2),
                fixed(*s, 2)
            )
        })
        .collect();
    let bands: Vec<bool> = NOTEBOOK_DRAWS
        .iter()
        .filter_map(|&(d, u, s)| {
            let p = points.iter().find(|p| p.head_size == d)?;
            Some(in_band(u, &p.unscaled) && in_band(s, &p.scaled))
        })
        .collect();
    let inside = bands.iter().filter(|&&b| b).count();
    let mut sentences = vec![
        format!(
            "Quoted from the notebook, not computed here (one random draw each): {}.",
            quoted.join("; ")
        ),
        format!(
            "{inside} of these {} pairs lie inside this page's 10–90 % bands at their d.",
            bands.len()
        ),
    ];
    if let (Some(first), Some(last)) = (points.first(), points.last()) {
        let (lo, hi) = points
            .iter()
            .fold((f64::INFINITY, f64::NEG_INFINITY), |(lo, hi), p| {
                (lo.min(p.scaled.mean), hi.max(p.scaled.mean))
            });
        let range = format!(
            "The scaled mean stays between {} and {} at every head size from {} to {}",
            fixed(lo, 2),
            fixed(hi, 2),
            first.head_size,
            last.head_size
        );
        let scaled_draws: Vec<String> = NOTEBOOK_DRAWS
            .iter()
            .map(|(d, _, s)| format!("{} at d = {d}", fixed(*s, 2)))
            .collect();
        sentences.push(if inside == bands.len() {
            format!(
                "{range}, so the notebook's scaled {} differ by the luck of single draws, not by a trend.",
                scaled_draws.join(" and ")
            )
        } else {
            format!("{range}.")
        });
    }
    sentences.join(" ")
}

/// A lab table cell for a variance: 2 decimals unscaled (it grows to about d), 3 scaled.
pub fn variance_cell(variance: f64, scaled: bool) -> String {
    fixed(variance, if scaled { 3 } else { 2 })
}

/// Step 4's variance readout for the selected head size (numbers as in the table).
pub fn variance_readout(point: &LabPoint) -> String {
    let d = point.head_size;
    format!(
        "Variance of q·k over the {} scores at d = {d}: {} unscaled (expected: d = {d}), {} scaled (expected: 1). Dividing every score by √d = {} divides the variance by d.",
        point.scores,
        variance_cell(point.variance_unscaled, false),
        variance_cell(point.variance_scaled, true),
        fixed((d as f64).sqrt(), 2)
    )
}

/// How `small` compares with `large`, in words ("3.2× less than"), for the gradient sentences.
fn times_less(large: f64, small: f64) -> String {
    let ratio = large / small;
    if !ratio.is_finite() || ratio > 1e6 {
        "vastly less than".to_string()
    } else if ratio >= 1.05 {
        format!("{}× less than", fixed(ratio, 1))
    } else if ratio > 1.0 / 1.05 {
        "about as much as".to_string()
    } else {
        format!("{}× more than", fixed(1.0 / ratio, 1))
    }
}

/// Step 4's reason: the softmax's Jacobian size, unscaled against scaled, at the selected d.
pub fn gradient_readout(point: &LabPoint) -> String {
    let d = point.head_size;
    let (u, s) = (point.jacobian_unscaled, point.jacobian_scaled);
    let reading = if d == 1 {
        "At d = 1, √d = 1, so scaling changes nothing.".to_string()
    } else {
        format!(
            "Without the scaling, a nudge to the scores moves the weights {} with it, and the gradient sent back to the scores is at most ‖J‖ times the one arriving at the weights: a nearly one-hot row passes almost none.",
            times_less(s, u)
        )
    };
    format!(
        "Every gradient that trains W_q and W_k reaches the scores through the softmax's Jacobian J = diag(p) − p pᵀ, the table of ∂ weight ÷ ∂ score. Its mean size ‖J‖ (root of the sum of its squared entries; 0 for a one-hot row, at most 0.5) at d = {d} is {} unscaled and {} scaled. {reading}",
        fixed(u, 3),
        fixed(s, 3)
    )
}

/// The same for the main view's selected row: ‖J‖ of row `t` of `head` at τ = 1 (`scaled`) and at
/// τ = 1/√d (`unscaled`).
pub fn row_gradient_text(token: &str, t: usize, head: usize, scaled: f64, unscaled: f64) -> String {
    format!(
        "The main view's row {} ({}) of head {}: ‖J‖ = {} scaled (τ = 1) and {} unscaled (τ = 1/√d), {}.",
        t + 1,
        quote(token),
        head + 1,
        fixed(scaled, 3),
        fixed(unscaled, 3),
        if unscaled == 0.0 && scaled == 0.0 {
            "both zero: a row that sees only itself has nothing to move".to_string()
        } else {
            format!(
                "so without the scaling its weights move {} with it",
                times_less(scaled, unscaled)
            )
        }
    )
}

/// The ×8 example's sentence: what multiplying the scores by 8 did to the top weight, and the check
/// that it is the unscaled softmax at d = 64.
pub fn times_eight_text(x: &crate::model::scaling_lab::TimesEight) -> String {
    let top = |w: &[f64]| w.iter().copied().fold(0.0, f64::max);
    let (before, after) = (top(&x.weights), top(&x.weights_times_eight));
    let shape = if after > NEARLY_ONE_HOT {
        format!("nearly one-hot (above {})", fixed(NEARLY_ONE_HOT, 2))
    } else {
        "much peakier".to_string()
    };
    format!(
        "Multiplying the same {KEYS} scores by 8 raises the largest weight from {} to {}: {shape}. {} At d = {}, leaving out ÷√d is exactly this ×8: softmax(8 × scaled scores) equals softmax(q·k), largest difference {}.",
        fixed(before, 3),
        fixed(after, 3),
        check_mark(x.diff_from_raw),
        crate::model::scaling_lab::TIMES_EIGHT_D,
        scientific(x.diff_from_raw, 1)
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::scaling_lab::{lab_point, LAB_SEED};

    #[test]
    fn lab_text() {
        assert_eq!(
            lab_caption(),
            "Largest softmax weight over 8 keys (mean, 10th–90th percentile)"
        );
        let points = crate::model::scaling_lab::scaling_lab(DRAWS, LAB_SEED);
        let said = notebook_draws(&points);
        assert!(said.starts_with(
            "Quoted from the notebook, not computed here (one random draw each): at d = 16, 0.87 unscaled and 0.32 scaled; at d = 256, 0.94 unscaled and 0.24 scaled. 2 of these 2 pairs lie inside this page's 10–90 % bands at their d."
        ), "{said}");
        // The stated range of scaled means is the lab's, and it is narrow enough to call flat.
        let means: Vec<f64> = points.iter().map(|p| p.scaled.mean).collect();
        let lo = means.iter().copied().fold(f64::INFINITY, f64::min);
        let hi = means.iter().copied().fold(f64::NEG_INFINITY, f64::max);
        assert!(said.contains(&format!(
            "between {} and {} at every head size from 1 to 512",
            fixed(lo, 2),
            fixed(hi, 2)
        )));
        assert!(hi - lo < 0.1, "{lo}–{hi}");
        assert!(said.ends_with("differ by the luck of single draws, not by a trend."));
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
            median: 0.3,
            p90: 0.555,
        };
        assert_eq!(lab_cell(&spread), "0.346 (0.20–0.56)");
    }

    #[test]
    fn step_four_variance_gradient_and_times_eight() {
        use crate::model::scaling_lab::{times_eight, TIMES_EIGHT_D};
        let p = lab_point(16, DRAWS, LAB_SEED);
        let said = variance_readout(&p);
        assert!(said.starts_with(&format!(
            "Variance of q·k over the 8000 scores at d = 16: {} unscaled (expected: d = 16), {} scaled (expected: 1).",
            fixed(p.variance_unscaled, 2),
            fixed(p.variance_scaled, 3)
        )), "{said}");
        assert!(said.ends_with("√d = 4.00 divides the variance by d."));
        // The readout's two numbers stand in the relation it states, at their precision.
        assert!((p.variance_unscaled / 16.0 - p.variance_scaled).abs() < 1e-12);

        let p256 = lab_point(256, DRAWS, LAB_SEED);
        let said = gradient_readout(&p256);
        let ratio = p256.jacobian_scaled / p256.jacobian_unscaled;
        assert!(ratio > 1.05, "{ratio}");
        assert!(
            said.contains(&format!(
                "at d = 256 is {} unscaled and {} scaled.",
                fixed(p256.jacobian_unscaled, 3),
                fixed(p256.jacobian_scaled, 3)
            )),
            "{said}"
        );
        assert!(said.contains(&format!(
            "moves the weights {}× less than with it",
            fixed(ratio, 1)
        )));
        assert!(
            gradient_readout(&lab_point(1, 100, LAB_SEED)).ends_with("scaling changes nothing.")
        );
        assert_eq!(times_less(1.0, 1.0), "about as much as");
        assert_eq!(times_less(1.0, 2.0), "2.0× more than");
        assert_eq!(times_less(1.0, 0.0), "vastly less than");
        assert_eq!(
            row_gradient_text("The", 0, 1, 0.0, 0.0),
            "The main view's row 1 (“The”) of head 2: ‖J‖ = 0.000 scaled (τ = 1) and 0.000 unscaled (τ = 1/√d), both zero: a row that sees only itself has nothing to move."
        );
        assert!(row_gradient_text("on", 3, 0, 0.3, 0.1)
            .ends_with("so without the scaling its weights move 3.0× less than with it."));

        let x = times_eight(LAB_SEED);
        let said = times_eight_text(&x);
        let top = |w: &[f64]| w.iter().copied().fold(0.0, f64::max);
        assert!(
            said.starts_with(&format!(
                "Multiplying the same 8 scores by 8 raises the largest weight from {} to {}: ",
                fixed(top(&x.weights), 3),
                fixed(top(&x.weights_times_eight), 3)
            )),
            "{said}"
        );
        assert_eq!(
            said.contains("nearly one-hot"),
            top(&x.weights_times_eight) > NEARLY_ONE_HOT
        );
        assert!(said.contains(&format!("✓ At d = {TIMES_EIGHT_D}, leaving out")));
    }
}
