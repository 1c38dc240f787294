//! `use_device_pixel_ratio`: the ratio charts draw at, as a signal that follows the screen.
//!
//! A canvas' backing store is its CSS size × the device pixel ratio, so a chart drawn at one
//! ratio looks blurred (or wastes memory) at another. The ratio changes without a reload when
//! the window moves to a screen of another density or the page is zoomed. There is no event for
//! that, but a media query for the exact current ratio, `(resolution: <ratio>dppx)`, stops
//! matching then: its `change` updates the signal, and the hook then watches a query for the new
//! ratio instead.

use super::keep_until_cleanup;
use crate::charts::canvas::raw_device_pixel_ratio;
use crate::charts::pixel_ratio::{clamp_pixel_ratio, resolution_query};
use crate::web::window;
use leptos::prelude::*;
use wasm_bindgen::closure::Closure;
use wasm_bindgen::JsCast;
use web_sys::MediaQueryList;

/// The device pixel ratio, at least 1 and at most 4
/// ([`clamp_pixel_ratio`]), updated whenever the screen's ratio changes.
pub fn use_device_pixel_ratio() -> Memo<f64> {
    // The unclamped ratio: the query must name it exactly (a zoomed-out page may be at 0.9).
    let raw = RwSignal::new(raw_device_pixel_ratio());
    let on_change = Closure::<dyn Fn()>::new(move || raw.set(raw_device_pixel_ratio()));
    let listener: js_sys::Function = on_change.as_ref().clone().unchecked_into();
    // The query being watched; replaced by one for the new ratio after every change.
    let watched = StoredValue::new_local(None::<MediaQueryList>);
    let stop_watching = {
        let listener = listener.clone();
        move || {
            if let Some(Some(query)) = watched.try_update_value(Option::take) {
                let _ = query.remove_event_listener_with_callback("change", &listener);
            }
        }
    };
    Effect::new({
        let stop_watching = stop_watching.clone();
        move |_| {
            let ratio = raw.get();
            stop_watching();
            if let Ok(Some(query)) = window().match_media(&resolution_query(ratio)) {
                if query
                    .add_event_listener_with_callback("change", &listener)
                    .is_ok()
                {
                    watched.set_value(Some(query));
                }
            }
        }
    });
    keep_until_cleanup(on_change, move |_| stop_watching());
    Memo::new(move |_| clamp_pixel_ratio(raw.get()))
}
