//! The words under the temperature slider: the readout's product, what the scores are divided
//! by (`√d × τ`), and the sentence on what the temperature does to the live head.

use super::{beside_limit, format_tau, tau_decimals};
use crate::format::{fixed, percent, printed_value};
use crate::model::claims::{HeadShape, NEARLY_ONE_HOT};
use crate::model::temperature::{divisor, unscaled_tau, Regime};

/// The readout's `√d × τ = divisor`, in the printed form: τ as the rest of the page prints it
/// ([`format_tau`]), the divisor to 3 decimals, and between them "=" only where the printed
/// numbers make a true equation. τ is rarely a round number (the slider moves in steps of 0.01
/// in log10 τ): at τ = 10^0.1 = 1.2589… "√16 × 1.26 = 5.036" would be false, since a reader
/// checks it as 4 × 1.26 = 5.04; there the readout says "≈".
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DivisorReadout {
    /// τ as printed in the product.
    pub tau: String,
    /// "=" or "≈".
    pub relation: &'static str,
    /// `√d · τ` to 3 decimals.
    pub divisor: String,
}

impl DivisorReadout {
    /// The product for heads of size `head_size` at temperature `tau`.
    pub fn new(head_size: usize, tau: f64) -> Self {
        let divisor_text = fixed(divisor(head_size, tau), 3);
        let root = (head_size as f64).sqrt();
        // τ as printed, as a number. A whole √d times it has at most 3 decimals, so printing that
        // product to 3 decimals is the product itself; the equation holds when that is the
        // printed divisor. (Numbers are compared, not parsed from the strings: a float parser
        // would add its tables to the explorer's wasm.)
        let printed_tau = printed_value(tau, tau_decimals(tau));
        let exact = root.fract() == 0.0 && fixed(root * printed_tau, 3) == divisor_text;
        Self {
            tau: format_tau(tau),
            relation: if exact { "=" } else { "≈" },
            divisor: divisor_text,
        }
    }
}

/// What the temperature `tau` (in `regime`, for heads of size `head_size`) means, in plain words,
/// with the live head's `shape` at that temperature: every count in it is computed, and the
/// claims without a number (colder is never flatter, hotter tends to the average, the limit at
/// τ → 0) are properties tested in `model::claims`.
pub fn regime_sentence(regime: Regime, tau: f64, head_size: usize, shape: &HeadShape) -> String {
    format!(
        "{} {}",
        regime_opening(regime, tau, head_size),
        shape_sentence(shape)
    )
}

/// [`regime_sentence`] while a practice question is open: what τ does, without the live head's
/// numbers, which would give the answer away.
pub fn regime_sentence_hidden(regime: Regime, tau: f64, head_size: usize) -> String {
    format!(
        "{} The heatmap's own numbers stay hidden until you check your answer.",
        regime_opening(regime, tau, head_size)
    )
}

/// What τ does in `regime`: the claims without a number about the live head.
fn regime_opening(regime: Regime, tau: f64, head_size: usize) -> String {
    let sqrt_d = (head_size as f64).sqrt();
    // What the scores are divided by now, printed with enough digits never to read as the mark's
    // own value when τ is only near the mark.
    let divided_by = |mark: f64| beside_limit(divisor(head_size, tau), divisor(head_size, mark), 3);
    match regime {
        Regime::Unscaled if tau == unscaled_tau(head_size) => format!(
            "τ = 1/√{head_size}: the scores are divided by √d · τ = 1, so this is exactly attention without the 1/√d scaling, softmax(QKᵀ). The scores are {}× larger than at τ = 1, so every row is at least as peaked as there.",
            format_tau(1.0 / tau)
        ),
        Regime::Unscaled => format!(
            "τ = {}, close to 1/√{head_size} = {} (attention without the 1/√d scaling): the scores are divided by √d · τ = {} instead of {} at τ = 1, so they are {}× larger than there and every row is at least as peaked.",
            format_tau(tau),
            format_tau(unscaled_tau(head_size)),
            divided_by(unscaled_tau(head_size)),
            fixed(sqrt_d, 3),
            format_tau(1.0 / tau)
        ),
        Regime::Colder => "Colder than unscaled attention. As τ → 0 each row puts all its weight on its top-scoring key, or splits it evenly between keys whose scores tie.".to_string(),
        Regime::Between => "Between unscaled and standard: every row is at least as peaked as at τ = 1 and at most as peaked as without the scaling.".to_string(),
        Regime::Scaled if tau == 1.0 => "τ = 1: standard scaled attention, softmax(QKᵀ/√d), the setting trained models use.".to_string(),
        Regime::Scaled => format!(
            "τ = {}, close to 1 (standard scaled attention, softmax(QKᵀ/√d), the setting trained models use): the scores are divided by √d · τ = {} instead of {}.",
            format_tau(tau),
            divided_by(1.0),
            fixed(sqrt_d, 3)
        ),
        Regime::Hotter => "Hotter than standard: rows flatten toward the plain average of the past, where row t gives each of its t tokens 1/t.".to_string(),
    }
}

/// The help under the slider's two marks, for queries and keys of `head_size` numbers. It comes
/// before the lesson's step on heads, so it names the vectors' length, not a head's size.
pub fn marks_help(head_size: usize) -> String {
    format!(
        "Attention divides each score q·k (a query's dot product with a key) by √d, where d is the length of the query and key vectors (here {head_size}). “unscaled” sets τ = 1/√d, which cancels that division: attention without the scaling. “τ = 1” is standard scaled attention."
    )
}

/// "none of the 6 rows", "2 of the 6 rows", "all 6 rows": `n` of `m`, said the way a person would.
pub fn rows_counted(n: usize, m: usize) -> String {
    match n {
        0 => format!("none of the {m} rows"),
        n if n == m => format!("all {m} rows"),
        n => format!("{n} of the {m} rows"),
    }
}

/// The live counts behind [`regime_sentence`]: how many rows are nearly one-hot or tied.
pub fn shape_sentence(shape: &HeadShape) -> String {
    let m = shape.rows_with_choice;
    if m == 0 {
        return "The only row sees only its own token, so it is always 100 % on it.".to_string();
    }
    let counts = format!(
        "In this head {} that see more than one key put over {} of their weight on one key; averaged over those {m} rows, the largest weight is {}.",
        rows_counted(shape.nearly_one_hot, m),
        percent(NEARLY_ONE_HOT),
        percent(shape.mean_max_weight)
    );
    match shape.tied {
        0 => counts,
        1 => format!("{counts} 1 of them splits its top weight equally between tied keys."),
        tied => {
            format!("{counts} {tied} of them split their top weight equally between tied keys.")
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::explorer::Prepared;
    use crate::model::temperature::{slider_value, SLIDER_MAX_TAU, SLIDER_MIN_TAU};
    use crate::model::weights::DEFAULT_HEADS;
    use nalgebra::DMatrix;

    /// The marks' help comes before heads are taught, so it names d as the query and key vectors'
    /// length and never a head's size.
    #[test]
    fn the_marks_help_needs_no_heads() {
        for d in [1, 8, 16, 64] {
            let help = marks_help(d);
            assert!(!help.contains("head"), "{help}");
            assert!(
                help.contains(&format!(
                    "d is the length of the query and key vectors (here {d})"
                )),
                "{help}"
            );
        }
    }

    /// The page as it opens: "The cat sat on the mat .", seed 1337, two heads of 16.
    fn default_model() -> Prepared {
        crate::model::explorer::default_view(DEFAULT_HEADS, false)
    }

    /// Every temperature the slider and its marks can set, for heads of size 1 to 64.
    fn views() -> impl Iterator<Item = (usize, f64)> {
        let (lo, hi) = (
            (slider_value(SLIDER_MIN_TAU) * 100.0).round() as i32,
            (slider_value(SLIDER_MAX_TAU) * 100.0).round() as i32,
        );
        (1..=64).flat_map(move |d| {
            (lo..=hi)
                .map(|k| 10f64.powf(f64::from(k) / 100.0))
                .chain([1.0, unscaled_tau(d), SLIDER_MIN_TAU, SLIDER_MAX_TAU])
                .map(move |tau| (d, tau))
        })
    }

    /// Decimal places of a printed number.
    fn places(text: &str) -> i32 {
        text.split_once('.')
            .map_or(0, |(_, frac)| frac.len() as i32)
    }

    /// A printed decimal (at most 3 places) as a whole number of thousandths.
    fn thousandths(text: &str) -> u64 {
        let digits: String = text.chars().filter(char::is_ascii_digit).collect();
        digits.parse::<u64>().unwrap() * 10u64.pow(3 - places(text) as u32)
    }

    /// "=" is a true equation of the printed numbers, checked in whole thousandths; "≈" is used
    /// only where "=" would be false, and is within the rounding of what is printed (τ's last
    /// place times √d, plus half the divisor's last place).
    #[test]
    fn the_printed_product_is_true_for_every_slider_position() {
        let mut seen = (0, 0);
        for (d, tau) in views() {
            let r = DivisorReadout::new(d, tau);
            let root = (d as f64).sqrt();
            let equation_holds =
                root.fract() == 0.0 && root as u64 * thousandths(&r.tau) == thousandths(&r.divisor);
            assert_eq!(r.relation == "=", equation_holds, "√{d} × {r:?}");
            if r.relation == "=" {
                seen.0 += 1;
            } else {
                seen.1 += 1;
                assert_eq!(r.relation, "≈");
                let (t, q): (f64, f64) = (r.tau.parse().unwrap(), r.divisor.parse().unwrap());
                let slack = root * 0.5 * 10f64.powi(-places(&r.tau)) + 0.0005 + 1e-12;
                assert!(
                    (root * t - q).abs() <= slack,
                    "√{d} × {} ≈ {}",
                    r.tau,
                    r.divisor
                );
            }
        }
        // Both forms occur.
        assert!(seen.0 > 0 && seen.1 > 0, "{seen:?}");
    }

    #[test]
    fn the_landmarks_read_as_equations() {
        let r = DivisorReadout::new(16, 1.0);
        assert_eq!(
            (r.tau.as_str(), r.relation, r.divisor.as_str()),
            ("1.00", "=", "4.000")
        );
        let r = DivisorReadout::new(16, 0.25);
        assert_eq!(
            (r.tau.as_str(), r.relation, r.divisor.as_str()),
            ("0.250", "=", "1.000")
        );
        // √16 × 1.2589… = 5.0357…: printed as 1.26 and 5.036, which do not multiply exactly.
        let r = DivisorReadout::new(16, 10f64.powf(0.1));
        assert_eq!(
            (r.tau.as_str(), r.relation, r.divisor.as_str()),
            ("1.26", "≈", "5.036")
        );
        // √32 is not a whole number: ≈ even at τ = 1.
        assert_eq!(DivisorReadout::new(32, 1.0).relation, "≈");
    }

    /// The rows (after the first) of `w` whose largest weight is above 95 %, counted here
    /// without `HeadShape`, to check the sentences against.
    fn nearly_one_hot_by_hand(w: &DMatrix<f64>) -> usize {
        (1..w.nrows())
            .filter(|&i| (0..=i).any(|j| w[(i, j)] > 0.95))
            .count()
    }

    #[test]
    fn regime_sentences() {
        let p = default_model();
        let d = p.head_size();
        let said = |tau: f64, head: usize| {
            let w = p.heads[head].weights(tau);
            regime_sentence(Regime::of(tau, d), tau, d, &HeadShape::of(&w))
        };
        // The count at τ = 1/√d the page's review found: 3 of 6 rows of head 1 and 1 of 6 of head 2 pass 0.95.
        assert!(said(unscaled_tau(d), 0).starts_with(
            "τ = 1/√16: the scores are divided by √d · τ = 1, so this is exactly attention without the 1/√d scaling, softmax(QKᵀ). The scores are 4.00× larger than at τ = 1, so every row is at least as peaked as there. In this head 3 of the 6 rows that see more than one key put over 95.0% of their weight on one key"
        ));
        // The slider's position nearest the mark is not the mark.
        assert!(said(10f64.powf(-0.6), 0).starts_with(
            "τ = 0.251, close to 1/√16 = 0.250 (attention without the 1/√d scaling): the scores are divided by √d · τ = 1.005 instead of 4.000 at τ = 1, so they are 3.98× larger than there"
        ));
        assert!(said(unscaled_tau(d), 1).contains(" 1 of the 6 rows "));
        assert!(said(0.01, 0).starts_with("Colder than unscaled attention. As τ → 0"));
        assert!(said(0.5, 0).starts_with(
            "Between unscaled and standard: every row is at least as peaked as at τ = 1"
        ));
        assert!(said(1.0, 0).starts_with(
            "τ = 1: standard scaled attention, softmax(QKᵀ/√d), the setting trained models use. In this head"
        ));
        assert!(said(1.02, 0).starts_with(
            "τ = 1.02, close to 1 (standard scaled attention, softmax(QKᵀ/√d), the setting trained models use): the scores are divided by √d · τ = 4.080 instead of 4.000."
        ));
        assert!(said(2.0, 0).starts_with(
            "Hotter than standard: rows flatten toward the plain average of the past, where row t gives each of its t tokens 1/t."
        ));
        let one = HeadShape::of(&DMatrix::from_element(1, 1, 1.0));
        assert!(regime_sentence(Regime::Scaled, 1.0, 16, &one)
            .ends_with("The only row sees only its own token, so it is always 100 % on it."));
    }

    /// "Exactly" only at a mark: over every slider position (log10 τ in steps of 0.01), each mark
    /// itself and τ a hair away from it, for every head size, the sentence names a mark as τ
    /// ("τ = 1/√d:", "τ = 1:") if and only if τ is bit for bit 1/√d or 1, says "exactly" only
    /// there, and near a mark prints the divisor with enough digits never to show the mark's own.
    #[test]
    fn exactly_only_at_a_mark() {
        use crate::model::weights::{D_MODEL, HEAD_CHOICES};
        let shape = HeadShape::of(&DMatrix::from_element(1, 1, 1.0));
        for heads in HEAD_CHOICES {
            let d = D_MODEL / heads;
            let marks = [unscaled_tau(d), 1.0];
            let mut taus: Vec<f64> = (-200..=200)
                .map(|k| 10f64.powf(f64::from(k) / 100.0))
                .collect();
            for m in marks {
                taus.extend([
                    m,
                    m * (1.0 + 1e-9),
                    m * (1.0 - 1e-9),
                    m * 1.0399,
                    m * 0.9601,
                ]);
            }
            for tau in taus {
                let text = regime_sentence(Regime::of(tau, d), tau, d, &shape);
                let at_mark = marks.contains(&tau);
                let names_the_mark = text.starts_with("τ = 1/√") || text.starts_with("τ = 1:");
                assert_eq!(names_the_mark, at_mark, "d {d}, τ {tau}: {text}");
                assert!(
                    !text.contains("exactly") || at_mark,
                    "d {d}, τ {tau}: {text}"
                );
                if !at_mark && text.contains("close to") {
                    let mark_divisor = if Regime::of(tau, d) == Regime::Unscaled {
                        "= 1 "
                    } else {
                        ""
                    };
                    assert!(
                        mark_divisor.is_empty() || !text.contains(mark_divisor),
                        "{text}"
                    );
                    assert!(
                        !text.contains(&format!("τ = {} instead", fixed((d as f64).sqrt(), 3))),
                        "{text}"
                    );
                }
            }
        }
    }

    /// Every count a regime sentence states equals the live model's, for 1, 2, 4 and 8 heads,
    /// positions on and off, across the slider (the counts are recomputed here by hand).
    #[test]
    fn regime_counts_match_the_model_everywhere() {
        use crate::model::temperature::{SLIDER_MAX_TAU, SLIDER_MIN_TAU};
        use crate::model::weights::HEAD_CHOICES;
        for heads in HEAD_CHOICES {
            for positions in [false, true] {
                let p = crate::model::explorer::default_view(heads, positions);
                let d = p.head_size();
                for step in 0..=40 {
                    let tau = SLIDER_MIN_TAU * 10f64.powf(f64::from(step) * 0.1);
                    assert!(tau <= SLIDER_MAX_TAU * 1.000_001);
                    for head in &p.heads {
                        let w = head.weights(tau);
                        let text = regime_sentence(Regime::of(tau, d), tau, d, &HeadShape::of(&w));
                        let expected = format!(" {} ", rows_counted(nearly_one_hot_by_hand(&w), 6));
                        assert!(text.contains(&expected), "{heads} heads, τ {tau}: {text}");
                        let tied = (1..w.nrows())
                            .filter(|&i| {
                                let max = (0..=i).map(|j| w[(i, j)]).fold(0.0, f64::max);
                                (0..=i).filter(|&j| max - w[(i, j)] < 1e-12).count() > 1
                            })
                            .count();
                        if tied == 0 {
                            assert!(!text.contains("tied"), "{text}");
                        } else {
                            assert!(
                                text.contains(&format!(" {tied} of them split"))
                                    || text.contains(" 1 of them splits"),
                                "{text}"
                            );
                        }
                        if positions {
                            assert_eq!(tied, 0, "positions break the The/the tie");
                        }
                    }
                }
            }
        }
    }

    /// While a practice question is open the readout gives no number of the live head: over the
    /// slider's range and every head size, the hidden sentence is the regime's opening alone (no
    /// percentage, no "largest weight"), and the shown one is that opening and the head's shape.
    #[test]
    fn the_hidden_readout_gives_no_number_of_the_head() {
        use crate::model::weights::{D_MODEL, HEAD_CHOICES};
        let w = DMatrix::from_row_slice(2, 2, &[1.0, 0.0, 0.175, 0.825]);
        let shape = HeadShape::of(&w);
        for heads in HEAD_CHOICES {
            let d = D_MODEL / heads;
            for k in (-200..=200).step_by(7) {
                let tau = 10f64.powf(f64::from(k) / 100.0);
                let regime = Regime::of(tau, d);
                let hidden = regime_sentence_hidden(regime, tau, d);
                let shown = regime_sentence(regime, tau, d, &shape);
                assert!(
                    !hidden.contains("82.5") && !hidden.contains("largest weight"),
                    "{hidden}"
                );
                assert!(!hidden.contains('%'), "{hidden}");
                assert!(shown.contains("82.5"), "{shown}");
                let opening = hidden.trim_end_matches(
                    " The heatmap's own numbers stay hidden until you check your answer.",
                );
                assert!(shown.starts_with(opening), "{shown}");
            }
        }
    }
}
