//! Reactive hooks in the spirit of leptos-use, one per file: each turns a browser API (an
//! observer, a media query) or a shared chore into signals and effects a component calls once.
//! They live as long as the component that calls them and clean up after it.

pub mod use_after_mount;
pub mod use_canvas;
pub mod use_device_pixel_ratio;
pub mod use_element_size;
pub mod use_visibility;
pub mod use_while_seen;

pub use use_after_mount::{after_mount, use_after_mount};
pub use use_canvas::{use_canvas, DrawPass};
pub use use_device_pixel_ratio::use_device_pixel_ratio;
pub use use_element_size::use_element_width;
pub use use_visibility::{seen_once, use_visibility};
pub use use_while_seen::{use_while_seen, use_while_seen_some};

use leptos::prelude::*;

/// Runs `stop` when the calling component is cleaned up, and keeps `held` (a callback the
/// browser calls) alive until then.
pub(crate) fn keep_until_cleanup<T: 'static>(held: T, stop: impl FnOnce(&T) + 'static) {
    let held = StoredValue::new_local(Some((held, Box::new(stop) as Box<dyn FnOnce(&T)>)));
    on_cleanup(move || {
        if let Some((held, stop)) = held.try_update_value(Option::take).flatten() {
            stop(&held);
        }
    });
}
