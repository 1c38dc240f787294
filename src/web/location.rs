//! The address bar: reading the query string and rewriting it without a history entry.

use super::window;
use wasm_bindgen::JsValue;

/// The page's query string, including the leading `?` (empty when there is none).
pub fn location_search() -> String {
    window().location().search().unwrap_or_default()
}

/// Rewrites the address bar without adding a history entry.
pub fn replace_query(query: &str) {
    if let Ok(history) = window().history() {
        let _ = history.replace_state_with_url(&JsValue::NULL, "", Some(&format!("?{query}")));
    }
}

/// The page's full address (what links to this app are built from; see `model::embed`).
pub fn location_href() -> String {
    window().location().href().unwrap_or_default()
}
