//! The work-per-input hook, `window.__aeWork`: how many times each kind of work has run, by name
//! ("attention" for one head's softmax, "canvas:heatmap" for a drawing, "lesson:softmax" for a
//! lesson step's live readout, …). A test resets it, moves the slider one step and reads the
//! counts: unlike a timing, a count is the same on every machine, so it can guard speed in CI
//! (`e2e/work.test.mjs`).

use super::window;
use wasm_bindgen::JsValue;

thread_local! {
    /// The hook object, created once and kept for the page's lifetime.
    static WORK: Option<js_sys::Object> = install();
}

fn install() -> Option<js_sys::Object> {
    let object = js_sys::Object::new();
    js_sys::Reflect::set(&window(), &JsValue::from_str("__aeWork"), &object).ok()?;
    Some(object)
}

/// One more unit of the work `kind`.
pub fn count(kind: &str) {
    WORK.with(|work| {
        let Some(work) = work else { return };
        let key = JsValue::from_str(kind);
        let done = js_sys::Reflect::get(work, &key)
            .ok()
            .and_then(|v| v.as_f64())
            .unwrap_or(0.0);
        let _ = js_sys::Reflect::set(work, &key, &JsValue::from_f64(done + 1.0));
    });
}

/// `count` for work that comes `n` units at a time (every head's softmax at once).
pub fn count_n(kind: &str, n: usize) {
    for _ in 0..n {
        count(kind);
    }
}
