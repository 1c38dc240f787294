//! The address bar: reading the query string and rewriting it without a history entry.

use super::window;
use wasm_bindgen::JsValue;

/// The page's query string, including the leading `?` (empty when there is none).
pub fn location_search() -> String {
    window().location().search().unwrap_or_default()
}

/// Rewrites the address bar's query (`query` without its `?`) without adding a history entry,
/// unless it already reads so (a shared link opened again): `replaceState` is slow, its first call
/// on a page 4–7 ms in the VM's Chromium, later ones 0.1–1.2 ms (2026-12-04).
pub fn replace_query(query: &str) {
    let search = format!("?{query}");
    if window().location().search().is_ok_and(|now| now == search) {
        return;
    }
    if let Ok(history) = window().history() {
        let _ = history.replace_state_with_url(&JsValue::NULL, "", Some(&search));
    }
}

/// The page's full address (what links to this app are built from; see `model::embed`).
pub fn location_href() -> String {
    window().location().href().unwrap_or_default()
}
