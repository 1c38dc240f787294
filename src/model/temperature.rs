//! The temperature τ and every number the page derives from it.
//!
//! Attention divides its raw scores by `√d · τ`. Two temperatures are landmarks: τ = 1 is standard
//! scaled attention, `softmax(QKᵀ/√d)`, and τ = 1/√d undoes the scaling, `softmax(QKᵀ)`. This file
//! holds the ranges τ may take (the model's clamp and the slider's narrower track), the scale the
//! model multiplies the scores by, the slider's logarithmic mapping, and which of the five regimes
//! (colder than unscaled, unscaled, between, scaled, hotter) a temperature falls in, so that the
//! slider, the readout and the sentence under it all read the same numbers.

/// The smallest and largest temperatures the model accepts; anything else is clamped into this
/// range (NaN becomes 1), so no slider value or link can produce a NaN.
pub const MIN_TEMPERATURE: f64 = 1e-4;
pub const MAX_TEMPERATURE: f64 = 1e4;

/// The slider's range, and so the range of τ a page or a link may hold (four decades around the
/// standard τ = 1; the model itself accepts the wider range above).
pub const SLIDER_MIN_TAU: f64 = 0.01;
pub const SLIDER_MAX_TAU: f64 = 100.0;
// Every slider position is a temperature the model takes as it is, unclamped.
const _: () = assert!(MIN_TEMPERATURE < SLIDER_MIN_TAU && SLIDER_MAX_TAU < MAX_TEMPERATURE);

/// How close (relatively) τ must be to a landmark temperature to count as that landmark: 4 %.
/// The slider moves in steps of 0.01 in log10 τ (about 2.3 %), so the position nearest a mark and
/// one step either side of it still read as the mark.
pub const REGIME_TOLERANCE: f64 = 0.04;

/// τ as the model uses it: finite, positive and inside `[MIN_TEMPERATURE, MAX_TEMPERATURE]`.
pub fn effective_temperature(tau: f64) -> f64 {
    if tau.is_nan() {
        1.0
    } else {
        tau.clamp(MIN_TEMPERATURE, MAX_TEMPERATURE)
    }
}

/// The factor the raw scores are multiplied by: `1 / (√d · τ)`.
pub fn logit_scale(head_size: usize, tau: f64) -> f64 {
    1.0 / ((head_size.max(1) as f64).sqrt() * effective_temperature(tau))
}

/// The temperature that undoes the 1/√d scaling: `1/√d`.
pub fn unscaled_tau(head_size: usize) -> f64 {
    1.0 / (head_size as f64).sqrt()
}

/// What the raw scores are divided by, as the readout shows it: `√d · τ`.
pub fn divisor(head_size: usize, tau: f64) -> f64 {
    (head_size as f64).sqrt() * tau
}

/// The slider's position for a temperature: log10 τ (so each decade gets the same length).
pub fn slider_value(tau: f64) -> f64 {
    tau.log10()
}

/// Where on the slider's track (0–100 %) a temperature sits.
pub fn track_percent(tau: f64) -> f64 {
    let (lo, hi) = (slider_value(SLIDER_MIN_TAU), slider_value(SLIDER_MAX_TAU));
    ((slider_value(tau) - lo) / (hi - lo) * 100.0).clamp(0.0, 100.0)
}

/// Whether `a` is within [`REGIME_TOLERANCE`] of `b`, relatively.
fn near(a: f64, b: f64) -> bool {
    (a / b - 1.0).abs() < REGIME_TOLERANCE
}

/// What a temperature does to the rows, from coldest to hottest.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Regime {
    /// Below 1/√d: nearly one-hot rows.
    Colder,
    /// Near 1/√d: attention without the scaling.
    Unscaled,
    /// Between 1/√d and 1: sharper than standard.
    Between,
    /// Near 1 (both ends included): standard scaled attention.
    Scaled,
    /// Above 1: rows flatten toward the plain average of the past.
    Hotter,
}

impl Regime {
    /// The regime of `tau` for heads of size `head_size`. Near the unscaled mark wins over the
    /// others (for d = 1 the two marks coincide, and the page calls it unscaled).
    pub fn of(tau: f64, head_size: usize) -> Self {
        let unscaled = unscaled_tau(head_size);
        if near(tau, unscaled) {
            Regime::Unscaled
        } else if tau < unscaled {
            Regime::Colder
        } else if tau < 1.0 - REGIME_TOLERANCE {
            Regime::Between
        } else if tau <= 1.0 + REGIME_TOLERANCE {
            Regime::Scaled
        } else {
            Regime::Hotter
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_landmarks_and_the_readout() {
        assert_eq!(unscaled_tau(16), 0.25);
        assert_eq!(unscaled_tau(4), 0.5);
        assert_eq!(divisor(16, 1.0), 4.0);
        assert_eq!(divisor(16, 0.01), 0.04);
        // Scaling by the logit scale is dividing by the readout's divisor.
        assert_eq!(logit_scale(16, 0.5), 1.0 / divisor(16, 0.5));
        assert_eq!(logit_scale(0, 1.0), 1.0);
    }

    #[test]
    fn temperatures_are_clamped_and_never_nan() {
        assert_eq!(effective_temperature(f64::NAN), 1.0);
        assert_eq!(effective_temperature(0.0), MIN_TEMPERATURE);
        assert_eq!(effective_temperature(-3.0), MIN_TEMPERATURE);
        assert_eq!(effective_temperature(f64::INFINITY), MAX_TEMPERATURE);
        assert_eq!(effective_temperature(0.37), 0.37);
    }

    #[test]
    fn the_slider_is_logarithmic() {
        assert_eq!(slider_value(1.0), 0.0);
        assert_eq!(slider_value(SLIDER_MIN_TAU), -2.0);
        assert_eq!(slider_value(SLIDER_MAX_TAU), 2.0);
        assert_eq!(track_percent(SLIDER_MIN_TAU), 0.0);
        assert_eq!(track_percent(1.0), 50.0);
        assert_eq!(track_percent(SLIDER_MAX_TAU), 100.0);
        assert_eq!(track_percent(0.25), (0.25f64.log10() + 2.0) / 4.0 * 100.0);
        // Off the track it stays at the ends.
        assert_eq!(track_percent(1e-4), 0.0);
        assert_eq!(track_percent(1e4), 100.0);
    }

    #[test]
    fn the_tolerance_gives_the_boundaries_0_96_and_1_04() {
        // The pages print the regimes' boundaries as 0.96 and 1.04: these must be the same doubles.
        assert_eq!(1.0 - REGIME_TOLERANCE, 0.96);
        assert_eq!(1.0 + REGIME_TOLERANCE, 1.04);
    }

    #[test]
    fn regimes_from_cold_to_hot() {
        let d = 16; // unscaled mark at 0.25
        assert_eq!(Regime::of(0.01, d), Regime::Colder);
        assert_eq!(Regime::of(0.25, d), Regime::Unscaled);
        assert_eq!(Regime::of(0.5, d), Regime::Between);
        assert_eq!(Regime::of(1.0, d), Regime::Scaled);
        assert_eq!(Regime::of(2.0, d), Regime::Hotter);
        assert_eq!(Regime::of(100.0, d), Regime::Hotter);
    }

    #[test]
    fn regime_boundaries() {
        let d = 16;
        let u = unscaled_tau(d);
        // Around the unscaled mark: strictly within 4 % of it.
        assert_eq!(Regime::of(u * 1.0399, d), Regime::Unscaled);
        assert_eq!(Regime::of(u * 0.9601, d), Regime::Unscaled);
        assert_eq!(Regime::of(u * 1.0401, d), Regime::Between);
        assert_eq!(Regime::of(u * 0.9599, d), Regime::Colder);
        // Around τ = 1: both 0.96 and 1.04 count as scaled.
        assert_eq!(Regime::of(0.96, d), Regime::Scaled);
        assert_eq!(Regime::of(1.04, d), Regime::Scaled);
        assert_eq!(
            Regime::of(f64::from_bits(0.96f64.to_bits() - 1), d),
            Regime::Between
        );
        assert_eq!(
            Regime::of(f64::from_bits(1.04f64.to_bits() + 1), d),
            Regime::Hotter
        );
    }

    #[test]
    fn the_unscaled_mark_wins_where_the_marks_meet() {
        // d = 1: 1/√d = 1, so τ = 1 is the unscaled mark; d = 2 puts it at 0.707.
        assert_eq!(Regime::of(1.0, 1), Regime::Unscaled);
        assert_eq!(Regime::of(1.03, 1), Regime::Unscaled);
        assert_eq!(Regime::of(1.04, 1), Regime::Scaled);
        assert_eq!(Regime::of(0.5, 1), Regime::Colder);
        assert_eq!(Regime::of(0.7, 2), Regime::Unscaled);
        assert_eq!(Regime::of(0.8, 2), Regime::Between);
    }
}
