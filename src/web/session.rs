//! The tab's `sessionStorage`: kept while the tab is open. Where it is unavailable (blocked,
//! private mode), reads give nothing and writes do nothing, and callers keep their value in memory.

use super::window;

fn storage() -> Option<web_sys::Storage> {
    window().session_storage().ok().flatten()
}

/// The value stored under `key`, if any.
pub fn session_get(key: &str) -> Option<String> {
    storage()?.get_item(key).ok().flatten()
}

/// Stores `value` under `key` (silently nothing where storage is unavailable).
pub fn session_set(key: &str, value: &str) {
    if let Some(s) = storage() {
        let _ = s.set_item(key, value);
    }
}
