//! Writing text to the clipboard.

use super::window;
use wasm_bindgen::{JsCast, JsValue};
use wasm_bindgen_futures::JsFuture;

/// Copies `text`; `Err` when the page has no clipboard (an insecure context) or the browser
/// refuses (permission denied).
pub async fn write_text(text: &str) -> Result<(), JsValue> {
    // `navigator.clipboard` is undefined outside secure contexts; calling through it would throw
    // past the wasm, so look first.
    let clipboard = js_sys::Reflect::get(&window().navigator(), &JsValue::from_str("clipboard"))?;
    if clipboard.is_undefined() || clipboard.is_null() {
        return Err(JsValue::from_str("no clipboard here"));
    }
    let clipboard: web_sys::Clipboard = clipboard.unchecked_into();
    JsFuture::from(clipboard.write_text(text)).await.map(drop)
}
