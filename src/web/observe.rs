//! Element sizes and visibility as signals, fed by browser observers.
//!
//! Reading `clientWidth` while drawing forces a synchronous layout of the whole page after every
//! update; a `ResizeObserver` reports the width only when it changes, so drawing never waits on
//! layout. An `IntersectionObserver` tells views whether they are on screen, so expensive views
//! (the step-3 trace) can skip work while scrolled away.

use leptos::html::Div;
use leptos::prelude::*;
use wasm_bindgen::closure::Closure;
use wasm_bindgen::JsCast;
use web_sys::{
    IntersectionObserver, IntersectionObserverEntry, IntersectionObserverInit, ResizeObserver,
    ResizeObserverEntry,
};

type Callback = Closure<dyn FnMut(js_sys::Array)>;

/// Keeps an observer and its callback alive for as long as the component that created it.
fn keep_until_cleanup(observer: impl FnOnce() + 'static, callback: Callback) {
    let held = StoredValue::new_local(Some((Box::new(observer) as Box<dyn FnOnce()>, callback)));
    on_cleanup(move || {
        if let Some((disconnect, _callback)) = held.try_update_value(Option::take).flatten() {
            disconnect();
        }
    });
}

/// The content width (CSS pixels) of the element behind `target`; 0 until it is mounted.
pub fn observed_width(target: NodeRef<Div>) -> ReadSignal<f64> {
    let (width, set_width) = signal(0.0);
    Effect::new(move |_| {
        let Some(element) = target.get() else { return };
        set_width.set(f64::from(element.client_width()));
        let callback: Callback = Closure::new(move |entries: js_sys::Array| {
            if let Ok(entry) = entries.get(0).dyn_into::<ResizeObserverEntry>() {
                let w = entry.content_rect().width();
                if (w - width.get_untracked()).abs() >= 0.5 {
                    set_width.set(w);
                }
            }
        });
        if let Ok(observer) = ResizeObserver::new(callback.as_ref().unchecked_ref()) {
            observer.observe(&element);
            keep_until_cleanup(move || observer.disconnect(), callback);
        }
    });
    width
}

/// Whether any part of the element behind `target` is within 200 px of the viewport. False until
/// the observer's first report (which it sends as soon as it starts), so a view below the fold is
/// not built during page load; always true where IntersectionObserver is unavailable.
pub fn observed_visibility(target: NodeRef<Div>) -> ReadSignal<bool> {
    let (visible, set_visible) = signal(false);
    Effect::new(move |_| {
        let Some(element) = target.get() else { return };
        let callback: Callback = Closure::new(move |entries: js_sys::Array| {
            if let Ok(entry) = entries
                .get(entries.length().saturating_sub(1))
                .dyn_into::<IntersectionObserverEntry>()
            {
                let now = entry.is_intersecting();
                if now != visible.get_untracked() {
                    set_visible.set(now);
                }
            }
        });
        // A margin, so a view starts updating just before it scrolls into sight.
        let options = IntersectionObserverInit::new();
        options.set_root_margin("200px");
        match IntersectionObserver::new_with_options(callback.as_ref().unchecked_ref(), &options) {
            Ok(observer) => {
                observer.observe(&element);
                keep_until_cleanup(move || observer.disconnect(), callback);
            }
            Err(_) => set_visible.set(true),
        }
    });
    visible
}
