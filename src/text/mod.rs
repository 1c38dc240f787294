//! The page's sentences, captions and cells that are built from numbers: plain string functions,
//! so that native tests pin the exact words and the components only place them.
//!
//! The numbers themselves come from [`crate::model`] and their digits from [`crate::format`];
//! this file decides only how they read.
//!
//! One file per part of the app; every public function is re-exported here, so components write
//! `crate::text::row_summary`.

mod break_it;
mod explorer;
mod figures;
mod lesson;
mod main_view;
mod qkv;
pub mod quiz;
mod scaling;
mod training;
mod training_ab;
mod training_controls;
mod training_lab;

pub use break_it::*;
pub use explorer::*;
pub use figures::*;
pub use lesson::*;
pub use main_view::*;
pub use qkv::*;
pub use scaling::*;
pub use training::*;
pub use training_ab::*;
pub use training_controls::*;
pub use training_lab::*;

use crate::format::{fixed, percent};
use crate::model::claims::top_keys;
use crate::model::stats::ROUNDING_TOLERANCE;

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

/// `value` with `decimals` decimals, or with more where those would print it equal to `limit`
/// although it is not: a checklist must never read "0.70 (at least 0.70 needed)" beside "Not yet".
fn beside_limit(value: f64, limit: f64, decimals: u32) -> String {
    (decimals..=15)
        .map(|d| (fixed(value, d), fixed(limit, d)))
        .find(|(v, l)| value == limit || v != l)
        .map_or_else(|| fixed(value, 15), |(v, _)| v)
}

/// Items joined as running text: "a", "a and b", "a, b and c" ("" for none).
fn and_list(items: &[String]) -> String {
    match items {
        [] => String::new(),
        [only] => only.clone(),
        [rest @ .., last] => format!("{} and {last}", rest.join(", ")),
    }
}

/// Names in typographic quotes, joined as running text: “a”, “b” and “c”.
fn quoted_list<'a>(names: impl IntoIterator<Item = &'a str>) -> String {
    let quoted: Vec<String> = names.into_iter().map(quote).collect();
    and_list(&quoted)
}

/// The keys that share a row's largest weight, as running text, and that weight as shown:
/// ("“sat”", "35.5%"), or ("“The” and “the”", "30.6% each") when keys tie.
fn top_keys_text(tokens: &[String], row: &[f64]) -> (String, String) {
    let top = top_keys(row);
    let names = quoted_list(top.iter().map(|&j| tokens[j].as_str()));
    let each = if top.len() > 1 { " each" } else { "" };
    (names, format!("{}{each}", percent(row[top[0]])))
}

/// ✓ when two computations agree (their difference is rounding error), ✗ otherwise.
fn check_mark(diff: f64) -> &'static str {
    if diff < ROUNDING_TOLERANCE {
        "✓"
    } else {
        "✗"
    }
}

/// Plural helper: "1 row" / "3 rows".
fn count(n: usize, one: &str, many: &str) -> String {
    format!("{n} {}", if n == 1 { one } else { many })
}

#[cfg(test)]
mod tests {
    use super::*;

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
}
