//! Fixed-point number text for the page, with integer arithmetic.
//!
//! `format!("{x:.3}")` goes through core's float formatter, which often falls back to its slow
//! arbitrary-precision path; on every slider step the page formats dozens of numbers, and in
//! WebAssembly that showed up in profiles. Scaling, rounding and printing integers is exact enough
//! for display and far cheaper.

/// `x` with exactly `decimals` digits after the point (at most 9), rounded half away from zero.
/// It matches `format!("{x:.decimals$}")` except on exact binary ties, and the sign of a value that
/// rounds to zero, which is dropped.
pub fn fixed(x: f64, decimals: u32) -> String {
    let decimals = decimals.min(9);
    let scale = 10u64.pow(decimals);
    let scaled = x * scale as f64;
    if !scaled.is_finite() || scaled.abs() >= 9.0e15 {
        return format!("{x:.*}", decimals as usize);
    }
    let n = scaled.round() as i64;
    let sign = if n < 0 { "-" } else { "" };
    let magnitude = n.unsigned_abs();
    let (int, frac) = (magnitude / scale, magnitude % scale);
    if decimals == 0 {
        format!("{sign}{int}")
    } else {
        format!("{sign}{int}.{frac:0width$}", width = decimals as usize)
    }
}

/// A weight as a percentage with one decimal ("31.4%").
pub fn percent(weight: f64) -> String {
    let mut s = fixed(weight * 100.0, 1);
    s.push('%');
    s
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::rng::SeededRng;

    #[test]
    fn matches_core_formatting_away_from_ties() {
        let mut rng = SeededRng::stream(1, "format");
        for i in 0..200_000 {
            let x = rng.normal() * 10f64.powi(i % 7 - 3);
            for decimals in 0..=6 {
                let scaled = (x * 10f64.powi(decimals as i32)).abs();
                if (scaled.fract() - 0.5).abs() < 1e-6 || scaled < 0.5 {
                    continue;
                }
                assert_eq!(
                    fixed(x, decimals),
                    format!("{x:.*}", decimals as usize),
                    "{x} to {decimals}"
                );
            }
        }
    }

    #[test]
    fn edge_cases() {
        assert_eq!(fixed(0.0, 3), "0.000");
        assert_eq!(fixed(-0.0004, 3), "0.000");
        assert_eq!(fixed(0.9996, 3), "1.000");
        assert_eq!(fixed(-2.5, 0), "-3");
        assert_eq!(fixed(f64::NAN, 2), "NaN");
        assert_eq!(fixed(1e300, 1), format!("{:.1}", 1e300));
        assert_eq!(percent(0.314), "31.4%");
        assert_eq!(percent(1.0), "100.0%");
        assert_eq!(percent(0.0), "0.0%");
    }
}
