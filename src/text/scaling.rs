//! Step 4's words: the scaling lab's table and readouts (largest weight, variance of q·k, the
//! softmax's gradient), the notebook's quoted draws and the ×8 example.

use super::{check_mark, quote};
use crate::format::{fixed, grouped, percent, scientific};
use crate::model::claims::NEARLY_ONE_HOT;
use crate::model::scaling_lab::{
    LabPoint, Spread, TwoKeyNudge, DRAWS, KEYS, NOTEBOOK_DRAWS, SATURATED,
};

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
        fixed(point.unscaled.mean, 3),
        fixed(point.unscaled.p10, 2),
        fixed(point.unscaled.p90, 2),
        fixed(point.scaled.mean, 3),
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
            fixed(lo, 3),
            fixed(hi, 3),
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

/// What step 4 needs before it speaks of gradients: a loss, a gradient and training, in brief
/// (the training page has the full story).
pub const TRAINING_IN_BRIEF: &str = "Why does a peaky softmax matter? Because of how a model learns. A model is scored by a loss, a number that is large when it predicts the next token badly (the training page plots it). Training nudges every weight, W_q and W_k included, a little in the direction that lowers the loss; that direction is the gradient, ∂loss/∂weight. A weight learns only from the gradient that reaches it, and to reach W_q it must pass back through the softmax and through the scores.";

/// How the lab carries a gradient back to q, for readers who want the route.
pub const GRADIENT_ROUTE: &str = "(The route back: through the softmax's Jacobian, its table of how each weight changes with each score, then through ∂score/∂q = k, or k/√d when scaled.)";

/// Step 4's gradient readout at the selected head size: how much gradient reaches the query
/// through the softmax and the scores, unscaled against scaled (`LabPoint::gradient_*`), and
/// what that does to learning. Every comparison in it is computed from `point`.
pub fn gradient_readout(point: &LabPoint, all: &[LabPoint]) -> String {
    let d = point.head_size;
    let (u, s) = (&point.gradient_unscaled, &point.gradient_scaled);
    let measured = format!(
        "How much learning signal still reaches q? In the same {DRAWS} draws, a random gradient ({KEYS} numbers drawn from the standard normal distribution, one per weight) was sent back from the {KEYS} weights to q, and the length of what arrived, ‖∂loss/∂q‖, was measured: that is “the gradient reaching q” below. At d = {d} the gradient reaching q has median {} and mean {} unscaled, median {} and mean {} scaled.",
        fixed(u.median, 3),
        fixed(u.mean, 3),
        fixed(s.median, 3),
        fixed(s.mean, 3)
    );
    let band = |x: &Spread| format!("{}–{}", fixed(x.p10, 3), fixed(x.p90, 3));
    let bands = format!(
        "the middle 80 % of draws get {} unscaled against {} scaled",
        band(u),
        band(s)
    );
    let (at_saturation, elsewhere) = point.gradient_unscaled_by_saturation;
    let saturated = if point.saturated_unscaled > 0.0 {
        format!(
            "{} of the draws are saturated (over {} on one key); they pass on average {}, below the scaled draws' 10th percentile ({}), so 9 in 10 scaled draws pass more",
            percent(point.saturated_unscaled),
            percent(SATURATED),
            fixed(at_saturation, 3),
            fixed(s.p10, 3)
        )
    } else {
        format!(
            "no draw is saturated (over {} on one key) yet",
            percent(SATURATED)
        )
    };
    let reading = if d == 1 {
        "At d = 1, √d = 1, so scaling changes nothing.".to_string()
    } else if u.median < s.median {
        format!(
            "Unscaled, the mean is {}× the scaled one, yet the median is {}× smaller. The draws split: {saturated}; the other {} pass on average {} ({}× the scaled mean), because without the division ∂score/∂q is √d = {} times larger. So unscaled, training would move {} of the queries in large jolts and the other {} far less: {bands}.",
            ratio(u.mean, s.mean),
            ratio(s.median, u.median),
            percent(1.0 - point.saturated_unscaled),
            fixed(elsewhere, 3),
            ratio(elsewhere, s.mean),
            fixed((d as f64).sqrt(), 1),
            percent(1.0 - point.saturated_unscaled),
            percent(point.saturated_unscaled),
        )
    } else {
        format!(
            "At this small d, unscaled passes more gradient (mean {}× and median {}× the scaled ones) but more unevenly: {bands}. Much of that is only the missing 1/√d: unscaled, ∂score/∂q is k, √d = {} times the scaled k/√d, and optimisers such as Adam divide each weight's step by its gradient's typical size, so a constant factor like this one is largely normalised away. What scaling prevents is saturation, which grows with d: even at this d, {saturated}.{} At larger d the unscaled median falls below the scaled one (pick d = 256).",
            ratio(u.mean, s.mean),
            ratio(u.median, s.median),
            fixed((d as f64).sqrt(), 1),
            saturation_growth(all)
        )
    };
    format!("{measured} {reading} {GRADIENT_ROUTE}")
}

/// `a / b` to one decimal, computed from the two numbers as the readout prints them (3
/// decimals), so the ratio agrees with the digits beside it.
fn ratio(a: f64, b: f64) -> String {
    use crate::format::printed_value;
    fixed(printed_value(a, 3) / printed_value(b, 3), 1)
}

/// The saturated share of the unscaled draws at d = 64 and 512, where the lab has them.
fn saturation_growth(all: &[LabPoint]) -> String {
    let at = |d: usize| all.iter().find(|p| p.head_size == d);
    match (at(64), at(512)) {
        (Some(a), Some(b)) => format!(
            " Unscaled, {} of the draws are saturated at d = 64 and {} at d = 512.",
            percent(a.saturated_unscaled),
            percent(b.saturated_unscaled)
        ),
        _ => String::new(),
    }
}

/// Step 4's plain version of the gradient story, before the measurement.
pub const GRADIENT_PLAIN: &str = "In plain words: when one weight is nearly 1, nudging the scores barely moves the weights, so almost no learning signal gets back through the softmax to q and k.";

/// A weight with two decimals, for the two-key example's small weights.
fn percent2(weight: f64) -> String {
    format!("{}%", fixed(100.0 * weight, 2))
}

/// Step 4's worked example: two keys, the first score nudged, close scores against far ones.
pub fn two_key_text(close: &TwoKeyNudge, far: &TwoKeyNudge) -> String {
    let moved = |n: &TwoKeyNudge| n.after - n.before;
    format!(
        "Two keys, the first key's score raised by {}: with scores 0 and {}, its weight goes from {} to {} (+{} points); with scores 0 and {}, where the second key already has {}, it goes from {} to {} (+{} points). The same nudge moves the nearly one-hot row's weight about {} times less.",
        fixed(close.nudge, 1),
        fixed(close.gap, 0),
        percent2(close.before),
        percent2(close.after),
        fixed(100.0 * moved(close), 2),
        fixed(far.gap, 0),
        percent2(1.0 - far.before),
        percent2(far.before),
        percent2(far.after),
        fixed(100.0 * moved(far), 2),
        grouped((moved(close) / moved(far)).round() as u64)
    )
}

/// The main view's selected row `t` of `head`, at τ = 1 and unscaled (τ = 1/√d): its largest
/// weight each way, and whether unscaled it is saturated.
pub fn row_saturation_text(
    token: &str,
    t: usize,
    head: usize,
    scaled: f64,
    unscaled: f64,
) -> String {
    let row = format!(
        "The main view's row {} ({}) of head {}",
        t + 1,
        quote(token),
        head + 1
    );
    if t == 0 {
        return format!("{row} sees only itself: its weight is 1 at any τ, and it passes no gradient to its scores.");
    }
    let verdict = if unscaled > SATURATED {
        format!(
            " Unscaled it is saturated (over {}): it would pass almost no gradient.",
            percent(SATURATED)
        )
    } else {
        String::new()
    };
    format!(
        "{row} puts {} on its top key at τ = 1 and {} unscaled (τ = 1/√d).{verdict}",
        percent(scaled),
        percent(unscaled)
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
            fixed(lo, 3),
            fixed(hi, 3)
        )));
        assert!(hi - lo < 0.1, "{lo}–{hi}");
        assert!(said.ends_with("differ by the luck of single draws, not by a trend."));
        let p = lab_point(16, DRAWS, LAB_SEED);
        assert_eq!(
            lab_readout(&p),
            "At d = 16: unscaled 0.746 (10–90 %: 0.46–0.99), scaled 0.355 (10–90 %: 0.23–0.52) over 1000 draws."
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

        // The gradient readout at every head size: the branch it takes and every number in it
        // are the lab's.
        let all = crate::model::scaling_lab::scaling_lab(DRAWS, LAB_SEED);
        for d in crate::model::scaling_lab::HEAD_SIZES {
            let p = lab_point(d, DRAWS, LAB_SEED);
            let said = gradient_readout(&p, &all);
            let (u, s) = (p.gradient_unscaled, p.gradient_scaled);
            assert!(said.contains(&format!(
                "At d = {d} the gradient reaching q has median {} and mean {} unscaled, median {} and mean {} scaled.",
                fixed(u.median, 3), fixed(u.mean, 3), fixed(s.median, 3), fixed(s.mean, 3)
            )), "{said}");
            if d == 1 {
                assert!(said.contains("scaling changes nothing."));
            } else if u.median < s.median {
                assert!(
                    said.contains(&format!(
                        "yet the median is {}× smaller",
                        ratio(s.median, u.median)
                    )),
                    "{said}"
                );
                // "A few … in large jolts and most others far less": a minority is unsaturated
                // and passes more than the scaled mean, and the median draw passes less than the
                // scaled median.
                let (at, elsewhere) = p.gradient_unscaled_by_saturation;
                assert!(
                    said.contains(&format!(
                        "the other {} pass on average {} ({}× the scaled mean)",
                        percent(1.0 - p.saturated_unscaled),
                        fixed(elsewhere, 3),
                        ratio(elsewhere, s.mean)
                    )),
                    "{said}"
                );
                assert!(elsewhere > s.mean && u.median < s.median, "{p:?}");
                assert!(
                    at < s.p10,
                    "saturated draws pass less than 9 in 10 scaled ones: {p:?}"
                );
            } else {
                assert!(
                    said.contains(&format!(
                        "unscaled passes more gradient (mean {}× and median {}× the scaled ones) but more unevenly",
                        ratio(u.mean, s.mean),
                        ratio(u.median, s.median)
                    )),
                    "{said}"
                );
                assert!(u.mean > s.mean && u.median >= s.median, "{p:?}");
                // "More unevenly": a wider middle 80 %.
                assert!(u.p90 - u.p10 > s.p90 - s.p10, "{p:?}");
            }
            if d > 1 {
                let (at, _) = p.gradient_unscaled_by_saturation;
                if p.saturated_unscaled > 0.0 {
                    assert!(said.contains(&format!(
                        "{} of the draws are saturated (over 99.0% on one key); they pass on average {}, below the scaled draws' 10th percentile ({}), so 9 in 10 scaled draws pass more",
                        percent(p.saturated_unscaled),
                        fixed(at, 3),
                        fixed(s.p10, 3)
                    )), "{said}");
                    assert!(at < s.p10, "{p:?}");
                } else {
                    assert!(said.contains("no draw is saturated"), "{said}");
                }
                assert!(
                    said.contains(&format!(
                        "the middle 80 % of draws get {}–{} unscaled against {}–{} scaled",
                        fixed(u.p10, 3),
                        fixed(u.p90, 3),
                        fixed(s.p10, 3),
                        fixed(s.p90, 3)
                    )),
                    "{said}"
                );
            }
        }
        // "The larger d, the more draws saturate": true of the lab at every step of the picker.
        let saturated: Vec<f64> = crate::model::scaling_lab::HEAD_SIZES
            .iter()
            .map(|&d| lab_point(d, DRAWS, LAB_SEED).saturated_unscaled)
            .collect();
        assert!(saturated.windows(2).all(|w| w[0] <= w[1]), "{saturated:?}");
        let p256 = lab_point(256, DRAWS, LAB_SEED);
        assert!(
            gradient_readout(&p256, &all).contains("yet the median is"),
            "the picture at d = 256"
        );
        assert_eq!(
            row_saturation_text("The", 0, 1, 1.0, 1.0),
            "The main view's row 1 (“The”) of head 2 sees only itself: its weight is 1 at any τ, and it passes no gradient to its scores."
        );
        assert_eq!(
            row_saturation_text("on", 3, 0, 0.4, 0.995),
            "The main view's row 4 (“on”) of head 1 puts 40.0% on its top key at τ = 1 and 99.5% unscaled (τ = 1/√d). Unscaled it is saturated (over 99.0%): it would pass almost no gradient."
        );
        assert!(!row_saturation_text("on", 3, 0, 0.4, 0.9).contains("saturated"));

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

    /// At d = 16 the readout says that the missing 1/√d is a constant factor Adam largely
    /// normalises, and quotes the lab's own saturated shares at d = 64 and 512, which grow.
    #[test]
    fn the_small_d_readout_names_the_factor_and_the_saturation_it_prevents() {
        let all = crate::model::scaling_lab::scaling_lab(DRAWS, LAB_SEED);
        let p16 = lab_point(16, DRAWS, LAB_SEED);
        let said = gradient_readout(&p16, &all);
        assert!(said.contains("√d = 4.0 times the scaled k/√d"), "{said}");
        assert!(said.contains("largely normalised away"), "{said}");
        let at = |d: usize| {
            all.iter()
                .find(|p| p.head_size == d)
                .unwrap()
                .saturated_unscaled
        };
        assert!(
            said.contains(&format!(
                "{} of the draws are saturated at d = 64 and {} at d = 512",
                percent(at(64)),
                percent(at(512))
            )),
            "{said}"
        );
        assert!(at(16) < at(64) && at(64) < at(512));
        assert!(!gradient_readout(&p16, &[]).contains("at d = 512"));
    }

    /// The two-key example: every number is the model's, and the saturated row moves far less.
    #[test]
    fn the_two_key_example_is_the_softmax() {
        use crate::model::scaling_lab::{two_key_nudge, TWO_KEY_GAPS, TWO_KEY_NUDGE};
        let [close, far] = TWO_KEY_GAPS.map(|g| two_key_nudge(g, TWO_KEY_NUDGE));
        let said = two_key_text(&close, &far);
        let first = |a: f64, b: f64| a.exp() / (a.exp() + b.exp());
        assert!((close.before - first(0.0, 1.0)).abs() < 1e-15);
        assert!((far.after - first(0.5, 8.0)).abs() < 1e-15);
        assert!(
            said.contains("from 26.89% to 37.75% (+10.86 points)"),
            "{said}"
        );
        assert!(
            said.contains("where the second key already has 99.97%"),
            "{said}"
        );
        let ratio = (close.after - close.before) / (far.after - far.before);
        assert!(ratio > 100.0);
        assert!(
            said.contains(&format!(
                "about {} times less",
                grouped(ratio.round() as u64)
            )),
            "{said}"
        );
    }
}
