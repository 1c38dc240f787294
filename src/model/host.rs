//! The two text services the model borrows from whoever runs it: lower-casing a word and
//! reading a decimal number.
//!
//! Natively they are core's. In the browser they are JavaScript's `String.prototype.toLowerCase`
//! and `parseFloat`: the browser already ships full Unicode case mapping and correctly rounded
//! float parsing, while core's versions bring their own tables and code into every page's wasm
//! (their size is in BENCHMARKS.md). The results are the same: lower case is Unicode's default mapping, and
//! parsing is correctly rounded for the syntax [`is_decimal_literal`] accepts.
//! `tests/web_text_host.rs` compares the two in Chromium. This file is the one place where the
//! model calls into the JavaScript engine. (Printing floats stays with core: the canvas backend
//! formats colours with it anyway.)

/// `s` in lower case (Unicode's default case mapping, as `str::to_lowercase`).
pub fn lowercase(s: &str) -> String {
    #[cfg(target_arch = "wasm32")]
    {
        js_sys::JsString::from(s).to_lower_case().into()
    }
    #[cfg(not(target_arch = "wasm32"))]
    {
        s.to_lowercase()
    }
}

/// `s` as a number when it is a plain decimal literal ([`is_decimal_literal`]), else `None`.
pub fn parse_decimal(s: &str) -> Option<f64> {
    if !is_decimal_literal(s) {
        return None;
    }
    // `parseFloat` is correctly rounded; the syntax check keeps out what it is lenient about
    // (whitespace, trailing junk, "Infinity"), so it reads exactly what `str::parse` would.
    #[cfg(target_arch = "wasm32")]
    {
        Some(js_sys::Number::parse_float(s))
    }
    #[cfg(not(target_arch = "wasm32"))]
    {
        s.parse().ok()
    }
}

/// `[+-]digits[.digits][(e|E)[+-]digits]`, with digits on at least one side of the point: the
/// syntax both Rust's `str::parse::<f64>` and JavaScript's `Number()` read the same way (no
/// whitespace, no `inf`/`Infinity`/`NaN` words, no hex).
pub fn is_decimal_literal(s: &str) -> bool {
    let b = s.as_bytes();
    let mut i = 0;
    let digits = |i: &mut usize| {
        let start = *i;
        while *i < b.len() && b[*i].is_ascii_digit() {
            *i += 1;
        }
        *i - start
    };
    if i < b.len() && (b[i] == b'+' || b[i] == b'-') {
        i += 1;
    }
    let mut mantissa_digits = digits(&mut i);
    if i < b.len() && b[i] == b'.' {
        i += 1;
        mantissa_digits += digits(&mut i);
    }
    if mantissa_digits == 0 {
        return false;
    }
    if i < b.len() && (b[i] == b'e' || b[i] == b'E') {
        i += 1;
        if i < b.len() && (b[i] == b'+' || b[i] == b'-') {
            i += 1;
        }
        if digits(&mut i) == 0 {
            return false;
        }
    }
    i == b.len()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn literals_are_what_both_parsers_accept() {
        for ok in [
            "0", "1", "-1", "+2.5", "1.", ".5", "1e5", "1E-5", "2.5e+3", "007", "1e400",
        ] {
            assert!(is_decimal_literal(ok), "{ok}");
            assert!(ok.parse::<f64>().is_ok(), "{ok}");
        }
        for bad in [
            "", "+", "-", ".", "e5", ".e5", "1e", "1e+", "1.2.3", " 1", "1 ", "0x10", "inf",
            "Infinity", "NaN", "1_000", "١", "1e5.5", "--1",
        ] {
            assert!(!is_decimal_literal(bad), "{bad:?}");
            assert_eq!(parse_decimal(bad), None, "{bad:?}");
        }
    }

    #[test]
    fn text_services_round_trip() {
        for x in [
            0.1 + 0.2,
            1e-300,
            -123.456e7,
            std::f64::consts::PI,
            1e21,
            5e-324,
        ] {
            assert_eq!(parse_decimal(&x.to_string()), Some(x), "{x}");
        }
        assert_eq!(lowercase("ΟΔΟΣ The"), "οδος the");
    }
}
