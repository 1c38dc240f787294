//! `use_element_width`: an element's content width as a signal, fed by a `ResizeObserver`.
//!
//! Reading `clientWidth` while drawing forces a synchronous layout of the whole page after every
//! update; the observer reports the width only when it changes, so drawing never waits on layout.
//! (The charts take their height from their width, so the width is the one size they observe.)

use super::keep_until_cleanup;
use leptos::html::Div;
use leptos::prelude::*;
use wasm_bindgen::closure::Closure;
use wasm_bindgen::JsCast;
use web_sys::{ResizeObserver, ResizeObserverEntry};

/// The content width (CSS pixels) of the element behind `target`; 0 until it is mounted.
pub fn use_element_width(target: NodeRef<Div>) -> ReadSignal<f64> {
    let (width, set_width) = signal(0.0);
    Effect::new(move |_| {
        let Some(element) = target.get() else { return };
        set_width.set(f64::from(element.client_width()));
        let callback = Closure::<dyn FnMut(js_sys::Array)>::new(move |entries: js_sys::Array| {
            if let Ok(entry) = entries.get(0).dyn_into::<ResizeObserverEntry>() {
                let w = entry.content_rect().width();
                // Sub-pixel jitter would redraw every chart for nothing.
                if (w - width.get_untracked()).abs() >= 0.5 {
                    set_width.set(w);
                }
            }
        });
        if let Ok(observer) = ResizeObserver::new(callback.as_ref().unchecked_ref()) {
            observer.observe(&element);
            keep_until_cleanup((observer, callback), |(observer, _)| observer.disconnect());
        }
    });
    width
}
