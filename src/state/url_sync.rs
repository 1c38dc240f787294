//! Keeps the address bar in step with the view.

use super::ViewSignals;
use crate::model::url_state::ViewState;
use crate::web::location::replace_query;
use leptos::prelude::*;
use std::time::Duration;

/// Writes are debounced (200–400 ms after the last
/// change): dragging the slider fires many inputs, and `replaceState` is slow and throttled by
/// browsers. A change only records the view; one timer at a time checks, when it fires, whether
/// more changes came in and waits again if so. (Re-arming a timer on every input cost more than
/// the rest of the sync.)
pub fn sync_url(view: ViewSignals) {
    let sync: StoredValue<UrlSync, LocalStorage> = StoredValue::new_local(UrlSync::default());
    Effect::new(move |_| {
        let snapshot = view.snapshot();
        let arm = sync
            .try_update_value(|s| {
                s.latest = Some(snapshot);
                s.changed = s.armed;
                !std::mem::replace(&mut s.armed, true)
            })
            .unwrap_or(false);
        if arm {
            wait_then_write_url(sync);
        }
    });
}

/// The view waiting to be written to the address bar.
#[derive(Default)]
struct UrlSync {
    latest: Option<ViewState>,
    /// A timer is pending.
    armed: bool,
    /// The view changed since that timer was set.
    changed: bool,
}

fn wait_then_write_url(sync: StoredValue<UrlSync, LocalStorage>) {
    set_timeout(
        move || {
            // `None` once the app is gone.
            let due = sync.try_update_value(|s| {
                if std::mem::take(&mut s.changed) {
                    return None;
                }
                s.armed = false;
                s.latest.take()
            });
            match due {
                Some(Some(view)) => replace_query(&view.to_query()),
                Some(None) if sync.with_value(|s| s.armed) => wait_then_write_url(sync),
                _ => {}
            }
        },
        Duration::from_millis(200),
    );
}
