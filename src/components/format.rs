//! Number and text formats shared by the components (one place, so the table, tooltip and
//! announcements always agree).

pub use crate::format::{fixed, percent, scientific};

/// A token in typographic quotes for running text.
pub fn quote(token: &str) -> String {
    format!("“{token}”")
}
