//! The benchmark's timing hook, `window.__aeTiming`.

use super::window;
use wasm_bindgen::closure::Closure;
use wasm_bindgen::{JsCast, JsValue};

// Benchmark hook: `window.__aeTiming = { start, end, settled, updates }`. Every input event
// (`time_inputs`) stamps `start` before the app's handlers see it; every canvas drawing calls
// `mark_drawn` when it finishes (`end`, `updates`), and `settled` is taken once everything the
// input set off has run. Leptos runs its DOM and canvas effects as microtasks, one batch per
// microtask, each batch scheduling the next; a chain of `SETTLE_LINKS` microtasks started after
// the input's handlers alternates with those batches and its last link runs after them (and
// before the browser renders). `settled - start` is the app's compute + draw time for that input
// (see BENCHMARKS.md). An event that sets nothing off (a click on plain text) stamps `start` and
// `settled` anew but draws nothing, so a benchmark checks `end >= start` to see that its input
// drew.

/// The hook object and its keys, looked up once: the hook runs on every update, and its own cost
/// is part of what it measures.
struct TimingHook {
    object: js_sys::Object,
    performance: Option<web_sys::Performance>,
    start: JsValue,
    end: JsValue,
    settled: JsValue,
    updates: JsValue,
    draws: std::cell::Cell<f64>,
}

impl TimingHook {
    fn install() -> Option<Self> {
        let w = window();
        let key = JsValue::from_str("__aeTiming");
        let object = match js_sys::Reflect::get(&w, &key) {
            Ok(v) if v.is_object() => v.dyn_into().ok()?,
            _ => {
                let o = js_sys::Object::new();
                js_sys::Reflect::set(&w, &key, &o).ok()?;
                o
            }
        };
        Some(Self {
            object,
            performance: w.performance(),
            start: JsValue::from_str("start"),
            end: JsValue::from_str("end"),
            settled: JsValue::from_str("settled"),
            updates: JsValue::from_str("updates"),
            draws: std::cell::Cell::new(0.0),
        })
    }

    fn stamp(&self, key: &JsValue) {
        let now = self
            .performance
            .as_ref()
            .map_or(0.0, web_sys::Performance::now);
        let _ = js_sys::Reflect::set(&self.object, key, &JsValue::from_f64(now));
    }
}

/// Microtasks in the settle chain: well above the few effect batches an update takes (a chain of
/// 8 gave the same timings).
const SETTLE_LINKS: u32 = 32;

thread_local! {
    static TIMING: Option<TimingHook> = TimingHook::install();
    static SETTLE_LINKS_LEFT: std::cell::Cell<u32> = const { std::cell::Cell::new(0) };
    /// One link of the chain, created once and kept for the page's lifetime.
    static SETTLE_LINK: Closure<dyn Fn()> = Closure::new(settle_link);
    /// The input listeners (see [`time_inputs`]), kept for the page's lifetime.
    static ON_INPUT: Closure<dyn Fn(web_sys::Event)> = Closure::new(|event: web_sys::Event| on_input(&event));
    static AFTER_HANDLERS: Closure<dyn Fn(web_sys::Event)> = Closure::new(|event: web_sys::Event| after_handlers(&event));
}

fn queue_settle_link() {
    SETTLE_LINK.with(|link| window().queue_microtask(link.as_ref().unchecked_ref()));
}

fn stamp(key: impl Fn(&TimingHook) -> &JsValue) {
    TIMING.with(|t| {
        if let Some(t) = t {
            t.stamp(key(t));
        }
    });
}

fn settle_link() {
    let left = SETTLE_LINKS_LEFT.with(|l| l.replace(l.get().saturating_sub(1)));
    if left == 0 {
        stamp(|t| &t.settled);
    } else {
        queue_settle_link();
    }
}

/// The events a learner starts an update with. `change` is one too, but it always follows an
/// `input` from the same action (HTML fires both, `input` first), which has stamped `start`
/// already; stamping again would put `start` after the work when that was done on `input` (a
/// slider's keyboard step fires both in one task). It only starts the settle chain.
const INPUT_EVENTS: [&str; 5] = ["input", "change", "click", "keydown", "submit"];

/// Times every update the learner starts, whichever control it comes from: called once at
/// start-up. Each input event stamps `start` in the capture phase on the window, the first point
/// of its dispatch, before any of the app's handlers run; the settle chain starts once the event
/// has been through them all (see [`on_input`]).
pub fn time_inputs() {
    let w = window();
    ON_INPUT.with(|listener| {
        for name in INPUT_EVENTS {
            let _ = w.add_event_listener_with_callback_and_bool(
                name,
                listener.as_ref().unchecked_ref(),
                true,
            );
        }
    });
}

/// Capture phase: stamps `start` (but for `change`, see [`INPUT_EVENTS`]), and adds
/// [`after_handlers`] to the window's bubble phase for this event. Added now, it runs after every listener already there (Leptos handles delegated
/// events on the window) and after the handlers on the way. Starting the chain here instead
/// would not do: during a user's event the browser runs the microtask queue after each listener,
/// so the whole chain would run before the handlers. (All the input events bubble.)
fn on_input(event: &web_sys::Event) {
    let name = event.type_();
    if name != "change" {
        stamp(|t| &t.start);
    }
    AFTER_HANDLERS.with(|listener| {
        // Adding a listener that is still there (an earlier event stopped bubbling) adds nothing.
        let _ = window().add_event_listener_with_callback(&name, listener.as_ref().unchecked_ref());
    });
}

/// Bubble phase, once per event: starts the settle chain.
fn after_handlers(event: &web_sys::Event) {
    AFTER_HANDLERS.with(|listener| {
        let _ = window()
            .remove_event_listener_with_callback(&event.type_(), listener.as_ref().unchecked_ref());
    });
    // A chain already running (two inputs in one task) is lengthened instead of doubled.
    if SETTLE_LINKS_LEFT.with(|l| l.replace(SETTLE_LINKS)) == 0 {
        queue_settle_link();
    }
}

/// A canvas drawing finished: stamps `end` and counts an update.
pub fn mark_drawn() {
    TIMING.with(|t| {
        if let Some(t) = t {
            t.stamp(&t.end);
            t.draws.set(t.draws.get() + 1.0);
            let _ = js_sys::Reflect::set(&t.object, &t.updates, &t.draws.get().into());
        }
    });
}
