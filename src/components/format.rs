//! Number and text formats shared by the components (one place, so the table, tooltip and
//! announcements always agree).

/// A weight as a percentage with one decimal ("31.4%").
pub fn percent(weight: f64) -> String {
    format!("{:.1}%", weight * 100.0)
}

/// A token in typographic quotes for running text.
pub fn quote(token: &str) -> String {
    format!("“{token}”")
}
