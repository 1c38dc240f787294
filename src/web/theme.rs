//! The system colour scheme: whether it is dark now, and a listener for when it flips.

use super::window;
use wasm_bindgen::JsCast;

pub fn prefers_dark() -> bool {
    window()
        .match_media("(prefers-color-scheme: dark)")
        .ok()
        .flatten()
        .is_some_and(|m| m.matches())
}

/// Calls `on_change(dark)` whenever the system colour scheme flips. The listener lives as long as
/// the page (the app is mounted once).
pub fn on_color_scheme_change(on_change: impl Fn(bool) + 'static) {
    let Ok(Some(query)) = window().match_media("(prefers-color-scheme: dark)") else {
        return;
    };
    let callback = wasm_bindgen::closure::Closure::<dyn Fn(web_sys::MediaQueryListEvent)>::new(
        move |ev: web_sys::MediaQueryListEvent| on_change(ev.matches()),
    );
    if query
        .add_event_listener_with_callback("change", callback.as_ref().unchecked_ref())
        .is_ok()
    {
        callback.forget();
    }
}
