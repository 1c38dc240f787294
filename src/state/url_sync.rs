//! Keeps the address bar in step with the view (and with the generate page's link).

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
    keep_in_address_bar(move || view.snapshot(), ViewState::to_query);
}

/// Keeps the address bar at `query(read())`, debounced as [`sync_url`] is: `read` runs (tracked)
/// on every change, `query` only when the timer writes.
pub fn keep_in_address_bar<T: 'static>(read: impl Fn() -> T + 'static, query: fn(&T) -> String) {
    let sync: StoredValue<UrlSync<T>, LocalStorage> = StoredValue::new_local(UrlSync {
        latest: None,
        armed: false,
        changed: false,
    });
    Effect::new(move |_| {
        let snapshot = read();
        let arm = sync
            .try_update_value(|s| {
                s.latest = Some(snapshot);
                s.changed = s.armed;
                !std::mem::replace(&mut s.armed, true)
            })
            .unwrap_or(false);
        if arm {
            wait_then_write_url(sync, query);
        }
    });
}

/// The state waiting to be written to the address bar.
struct UrlSync<T> {
    latest: Option<T>,
    /// A timer is pending.
    armed: bool,
    /// The view changed since that timer was set.
    changed: bool,
}

fn wait_then_write_url<T: 'static>(
    sync: StoredValue<UrlSync<T>, LocalStorage>,
    query: fn(&T) -> String,
) {
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
                Some(Some(state)) => replace_query(&query(&state)),
                Some(None) if sync.with_value(|s| s.armed) => wait_then_write_url(sync, query),
                _ => {}
            }
        },
        Duration::from_millis(200),
    );
}
