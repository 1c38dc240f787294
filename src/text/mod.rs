//! The page's sentences, captions and cells that are built from numbers: plain string functions,
//! so that native tests pin the exact words and the components only place them.
//!
//! The rule: every sentence a user reads is built here, from the model's numbers (a count, a
//! step, a head's place, a range's ends), and every fixed sentence or paragraph is a constant
//! here; a component (and the first view written into the pages, [`crate::first_view`]) only
//! places them. What stays in a component is a single-word label or a control's short name.
//!
//! The numbers themselves come from [`crate::model`] and their digits from [`crate::format`];
//! this file decides only how they read.
//!
//! One file per part of the app; every public function is re-exported here, so components write
//! `crate::text::row_summary`.

mod averaging;
mod break_it;
mod explorer;
mod figures;
mod generate_page;
mod lesson;
mod main_view;
mod next_token;
mod page_links;
mod qkv;
pub mod quiz;
mod scaling;
mod temperature;
mod training;
mod training_ab;
mod training_controls;
mod training_lab;
mod training_views;

pub use averaging::*;
pub use break_it::*;
pub use explorer::*;
pub use figures::*;
pub use generate_page::*;
pub use lesson::*;
pub use main_view::*;
pub use next_token::*;
pub use page_links::*;
pub use qkv::*;
pub use scaling::*;
pub use temperature::*;
pub use training::*;
pub use training_ab::*;
pub use training_controls::*;
pub use training_lab::*;
pub use training_views::*;

use crate::format::{fixed, percent};
use crate::model::claims::top_keys;
use crate::model::stats::ROUNDING_TOLERANCE;

/// A token in typographic quotes for running text.
pub fn quote(token: &str) -> String {
    format!("“{token}”")
}

/// A readable τ: three significant digits.
pub fn format_tau(tau: f64) -> String {
    fixed(tau, tau_decimals(tau))
}

/// Two values of τ compared in one sentence, printed with the same decimals (the more of the two
/// [`format_tau`] would use), so "10.00 to 5.00" reads as one scale.
pub fn format_tau_pair(a: f64, b: f64) -> (String, String) {
    let decimals = tau_decimals(a).max(tau_decimals(b));
    (fixed(a, decimals), fixed(b, decimals))
}

/// How many decimals [`format_tau`] prints `tau` with.
fn tau_decimals(tau: f64) -> u32 {
    if tau >= 10.0 {
        1
    } else if tau >= 1.0 {
        2
    } else {
        3
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

/// The keys that share a row's largest weight, as running text, and that weight as shown:
/// ("“sat”", "35.5%"), or ("“The” and “the”", "30.6% each") when keys tie. A key whose token
/// the row sees more than once is named with its place, ("key 1 “te”", "82.0%"): in the
/// training page's repeat task "row 7 “te” attends most to “te”" read as the row's own token.
fn top_keys_text(tokens: &[String], row: &[f64]) -> (String, String) {
    let top = top_keys(row);
    let seen = &tokens[..row.len().min(tokens.len())];
    let name = |j: usize| {
        let token = &tokens[j];
        if seen.iter().filter(|&t| t == token).count() > 1 {
            format!("key {} {}", j + 1, quote(token))
        } else {
            quote(token)
        }
    };
    let names = and_list(&top.iter().map(|&j| name(j)).collect::<Vec<_>>());
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

/// A download that failed: the `what` ("CSV", "image") could not be saved, for `why` (the
/// browser's error as it reports it).
pub fn save_failed(what: &str, why: &str) -> String {
    format!("Could not save the {what}: {why}")
}

/// Plural helper: "1 row" / "3 rows".
fn count(n: usize, one: &str, many: &str) -> String {
    format!("{n} {}", if n == 1 { one } else { many })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn two_taus_in_one_sentence_share_their_decimals() {
        assert_eq!(format_tau_pair(10.0, 5.0), ("10.00".into(), "5.00".into()));
        assert_eq!(format_tau_pair(0.5, 1.0), ("0.500".into(), "1.000".into()));
        assert_eq!(format_tau_pair(2.0, 4.0), ("2.00".into(), "4.00".into()));
    }

    #[test]
    fn a_top_key_whose_token_repeats_is_named_with_its_place() {
        let tokens: Vec<String> = ["te", "ka", "te", "mo"].map(String::from).to_vec();
        // Row 3 sees "te" twice: the top key is named by its place.
        assert_eq!(
            top_keys_text(&tokens, &[0.8, 0.1, 0.1]),
            ("key 1 “te”".to_string(), "80.0%".to_string())
        );
        // Row 2 sees "te" once: the token alone, as before.
        assert_eq!(top_keys_text(&tokens, &[0.7, 0.3]).0, "“te”");
        // A unique token among repeats is named alone, and ties keep their order.
        assert_eq!(top_keys_text(&tokens, &[0.1, 0.8, 0.1]).0, "“ka”");
        assert_eq!(
            top_keys_text(&tokens, &[0.4, 0.2, 0.4]),
            (
                "key 1 “te” and key 3 “te”".to_string(),
                "40.0% each".to_string()
            )
        );
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
}
