//! `use_visibility`: whether an element is (nearly) on screen, fed by an `IntersectionObserver`.
//!
//! Expensive views (the step-3 trace) skip their work while scrolled away and catch up as soon as
//! they come near the viewport.

use super::keep_until_cleanup;
use leptos::html::ElementType;
use leptos::prelude::*;
use wasm_bindgen::closure::Closure;
use wasm_bindgen::JsCast;
use web_sys::{IntersectionObserver, IntersectionObserverEntry, IntersectionObserverInit};

/// Whether any part of the element behind `target` is within 200 px of the viewport. False until
/// the observer's first report (which it sends as soon as it starts), so a view below the fold is
/// not built during page load; always true where `IntersectionObserver` is unavailable.
pub fn use_visibility<E>(target: NodeRef<E>) -> ReadSignal<bool>
where
    E: ElementType,
    E::Output: JsCast + Clone + 'static,
{
    let (visible, set_visible) = signal(false);
    Effect::new(move |_| {
        let Some(element) = target.get() else { return };
        let element: &web_sys::Element = element.unchecked_ref();
        let callback = Closure::<dyn FnMut(js_sys::Array)>::new(move |entries: js_sys::Array| {
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
                observer.observe(element);
                keep_until_cleanup((observer, callback), |(observer, _)| observer.disconnect());
            }
            Err(_) => set_visible.set(true),
        }
    });
    visible
}

/// Whether `visible` (from [`use_visibility`]) has been true at least once: for a drawing built
/// the first time its part comes near the screen and kept from then on, however the page scrolls.
pub fn seen_once(visible: ReadSignal<bool>) -> Memo<bool> {
    Memo::new(move |seen: Option<&bool>| seen.copied().unwrap_or(false) || visible.get())
}
