//! The model's text services (decimal parsing, lower case) from the browser's own JavaScript
//! functions, so the wasm carries none of core's float-parsing or Unicode case tables
//! (see `model::host` for the trait and the native implementation).

use crate::model::host::{is_decimal_literal, TextHost};

/// The model's text services from JavaScript's `Number` and `String` (see `model::host` for why).
pub struct BrowserText;

impl TextHost for BrowserText {
    fn lowercase(s: &str) -> String {
        js_sys::JsString::from(s).to_lower_case().into()
    }

    fn parse_decimal(s: &str) -> Option<f64> {
        // `parseFloat` is correctly rounded; the syntax check keeps out what it is lenient about
        // (whitespace, trailing junk, "Infinity"), so it reads exactly what `str::parse` would.
        if is_decimal_literal(s) {
            Some(js_sys::Number::parse_float(s))
        } else {
            None
        }
    }
}
