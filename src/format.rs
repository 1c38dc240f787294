//! Fixed-point number text for the page, with integer arithmetic.
//!
//! `format!("{x:.3}")` goes through core's float formatter, which often falls back to its slow
//! arbitrary-precision path; on every slider step the page formats dozens of numbers, and in
//! WebAssembly that showed up in profiles. Scaling, rounding and printing integers is exact enough
//! for display and far cheaper.

/// `x` with exactly `decimals` digits after the point (at most 15), rounded half away from zero.
/// It matches `format!("{x:.decimals$}")` except on exact binary ties, and the sign of a value that
/// rounds to zero, which is dropped.
pub fn fixed(x: f64, decimals: u32) -> String {
    let decimals = decimals.min(15);
    let scale = 10u64.pow(decimals);
    let scaled = x * scale as f64;
    if x.is_nan() {
        return "NaN".to_string();
    }
    if !scaled.is_finite() || scaled.abs() >= 9.0e15 {
        // Too large for the integer path: never a weight or a score the page shows, so a short
        // scientific form will do (and the wasm carries no second float formatter).
        return scientific(x, decimals.min(3));
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

/// The number [`fixed`]`(x, decimals)` prints, as an `f64` (the nearest one to the printed
/// decimal), for `x` in `fixed`'s integer range: `x · 10^decimals` rounded half away from zero,
/// then scaled back. A sentence that does arithmetic with a printed number uses this, so that it
/// agrees with the digits on the page.
pub fn printed_value(x: f64, decimals: u32) -> f64 {
    let scale = 10u64.pow(decimals.min(15)) as f64;
    (x * scale).round() / scale
}

/// `x` as `d.ddde±n` with `decimals` digits after the point (at most 9), like
/// `format!("{x:.decimals$e}")` away from exact binary ties; "NaN", "inf" and "-inf" as core prints them.
pub fn scientific(x: f64, decimals: u32) -> String {
    let decimals = decimals.min(9);
    if x.is_nan() {
        return "NaN".to_string();
    }
    let sign = if x < 0.0 { "-" } else { "" };
    let a = x.abs();
    if a.is_infinite() {
        return format!("{sign}inf");
    }
    let scale = 10u64.pow(decimals);
    let (mut digits, mut exponent) = (0u64, 0i32);
    if a > 0.0 {
        exponent = a.log10().floor() as i32;
        // Two steps keep 10^-exponent finite for the smallest (subnormal) inputs.
        let mantissa = |e: i32| {
            let first = e.clamp(-300, 300);
            a / 10f64.powi(first) / 10f64.powi(e - first)
        };
        let mut m = mantissa(exponent);
        if m < 1.0 {
            exponent -= 1;
            m = mantissa(exponent);
        } else if m >= 10.0 {
            exponent += 1;
            m = mantissa(exponent);
        }
        digits = (m * scale as f64).round() as u64;
        if digits >= 10 * scale {
            digits /= 10;
            exponent += 1;
        }
    }
    let (int, frac) = (digits / scale, digits % scale);
    if decimals == 0 {
        format!("{sign}{int}e{exponent}")
    } else {
        format!(
            "{sign}{int}.{frac:0width$}e{exponent}",
            width = decimals as usize
        )
    }
}

/// A whole number with its thousands grouped by commas ("44,885"), as the page writes counts.
pub fn grouped(n: u64) -> String {
    let digits = n.to_string();
    let mut out = String::with_capacity(digits.len() + digits.len() / 3);
    for (i, digit) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i) % 3 == 0 {
            out.push(',');
        }
        out.push(digit);
    }
    out
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

    /// `printed_value` is the number `fixed` prints, for the slider's temperatures at the
    /// decimals the page prints them with and for seeded values at every precision up to 6.
    #[test]
    fn printed_value_is_what_fixed_prints() {
        let mut rng = SeededRng::stream(7, "printed-value");
        let mut values: Vec<f64> = (-200..=200)
            .map(|k| 10f64.powf(f64::from(k) / 100.0))
            .collect();
        values.extend((0..2_000).map(|_| (rng.next_open01() - 0.5) * 2_000.0));
        values.extend([0.0, 0.5, 1.0005, 2.675, -0.125]);
        for x in values {
            for decimals in 0..=6 {
                let printed: f64 = fixed(x, decimals).parse().unwrap();
                assert_eq!(printed_value(x, decimals), printed, "{x} to {decimals}");
            }
        }
    }

    #[test]
    fn grouped_puts_a_comma_every_three_digits() {
        for (n, text) in [
            (0, "0"),
            (999, "999"),
            (1_000, "1,000"),
            (44_885, "44,885"),
            (123_456, "123,456"),
            (1_234_567, "1,234,567"),
        ] {
            assert_eq!(grouped(n), text);
        }
    }

    #[test]
    fn matches_core_formatting_away_from_ties() {
        let mut rng = SeededRng::stream(1, "format");
        for i in 0..200_000 {
            let x = rng.normal() * 10f64.powi(i % 7 - 3);
            for decimals in [0, 1, 2, 3, 4, 5, 6, 9, 12] {
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
    fn scientific_matches_core_away_from_ties() {
        let mut rng = SeededRng::stream(2, "scientific");
        for i in 0..200_000 {
            let x = rng.normal() * 10f64.powi(i % 640 - 320);
            if x == 0.0 || !x.is_finite() {
                continue;
            }
            for decimals in 0..=4 {
                let expected = format!("{x:.*e}", decimals as usize);
                // Skip inputs within a hair of a rounding tie, where the two may round apart.
                let mantissa: f64 = expected.split('e').next().unwrap().parse().unwrap();
                let back: f64 = format!("{x:.12e}")
                    .split('e')
                    .next()
                    .unwrap()
                    .parse()
                    .unwrap();
                let step = 10f64.powi(-(decimals as i32));
                if ((back.abs() - mantissa.abs()).abs() / step - 0.5).abs() < 1e-6 {
                    continue;
                }
                assert_eq!(scientific(x, decimals), expected, "{x:e} to {decimals}");
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
        assert_eq!(fixed(1e300, 1), "1.0e300");
        assert_eq!(fixed(-2e16, 3), "-2.000e16");
        assert_eq!(fixed(f64::INFINITY, 2), "inf");
        assert_eq!(scientific(0.0, 1), "0.0e0");
        assert_eq!(scientific(f64::NEG_INFINITY, 1), "-inf");
        assert_eq!(scientific(f64::NAN, 1), "NaN");
        assert_eq!(scientific(9.96, 1), "1.0e1");
        assert_eq!(scientific(2.220_446_049_250_313e-16, 1), "2.2e-16");
        assert_eq!(scientific(5e-324, 1), "4.9e-324");
        assert_eq!(scientific(f64::MAX, 2), "1.80e308");
        assert_eq!(percent(0.314), "31.4%");
        assert_eq!(percent(1.0), "100.0%");
        assert_eq!(percent(0.0), "0.0%");
    }
}
