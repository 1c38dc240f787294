//! Thin wrappers over browser APIs the components use (downloads, the URL, the theme, timing).

use crate::model::host::{is_decimal_literal, TextHost};
use wasm_bindgen::{JsCast, JsValue};

/// The model's text services from JavaScript's `Number` and `String` (see `model::host` for why).
pub struct BrowserText;

impl TextHost for BrowserText {
    fn lowercase(s: &str) -> String {
        js_sys::JsString::from(s).to_lower_case().into()
    }

    fn parse_decimal(s: &str) -> Option<f64> {
        // `parseFloat` is correctly rounded; the syntax check keeps out what it is lenient about
        // (whitespace, trailing junk, "Infinity"), so it reads exactly what `str::parse` would.
        if is_decimal_literal(s) {
            Some(js_sys::Number::parse_float(s))
        } else {
            None
        }
    }
}

pub fn window() -> web_sys::Window {
    web_sys::window().expect("a browser window")
}

/// Saves `text` as a file called `filename` through a temporary object URL.
pub fn download_text(filename: &str, mime: &str, text: &str) -> Result<(), JsValue> {
    let parts = js_sys::Array::of1(&JsValue::from_str(text));
    let options = web_sys::BlobPropertyBag::new();
    options.set_type(mime);
    let blob = web_sys::Blob::new_with_str_sequence_and_options(&parts, &options)?;
    let url = web_sys::Url::create_object_url_with_blob(&blob)?;
    let result = download_url(filename, &url);
    web_sys::Url::revoke_object_url(&url)?;
    result
}

/// Clicks a temporary `<a download>` pointing at `url`.
pub fn download_url(filename: &str, url: &str) -> Result<(), JsValue> {
    let document = window()
        .document()
        .ok_or_else(|| JsValue::from_str("no document"))?;
    let anchor = document
        .create_element("a")?
        .dyn_into::<web_sys::HtmlAnchorElement>()?;
    anchor.set_href(url);
    anchor.set_download(filename);
    anchor.click();
    Ok(())
}

/// The page's query string, including the leading `?` (empty when there is none).
pub fn location_search() -> String {
    window().location().search().unwrap_or_default()
}

/// Rewrites the address bar without adding a history entry.
pub fn replace_query(query: &str) {
    if let Ok(history) = window().history() {
        let _ = history.replace_state_with_url(&JsValue::NULL, "", Some(&format!("?{query}")));
    }
}

pub fn prefers_dark() -> bool {
    window()
        .match_media("(prefers-color-scheme: dark)")
        .ok()
        .flatten()
        .is_some_and(|m| m.matches())
}

// Benchmark hook: `window.__aeTiming = { start, end, settled, updates }`. Input handlers call
// `mark_update_start`; every canvas effect calls `mark_drawn` when it finishes (`end`, `updates`),
// and `settled` is taken once everything the input set off has run. Leptos runs its DOM and canvas
// effects as microtasks, one batch per microtask, each batch scheduling the next; a chain of
// `SETTLE_LINKS` microtasks started with the input alternates with those batches and its last
// link runs after them (and before the browser renders). `settled - start` is the app's
// compute + draw time for that input (see BENCHMARKS.md).

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
        let now = self.performance.as_ref().map_or(0.0, |p| p.now());
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
    static SETTLE_LINK: wasm_bindgen::closure::Closure<dyn Fn()> =
        wasm_bindgen::closure::Closure::new(settle_link);
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

pub fn mark_update_start() {
    stamp(|t| &t.start);
    // A chain already running (two inputs in one task) is lengthened instead of doubled.
    if SETTLE_LINKS_LEFT.with(|l| l.replace(SETTLE_LINKS)) == 0 {
        queue_settle_link();
    }
}

pub fn mark_drawn() {
    TIMING.with(|t| {
        if let Some(t) = t {
            t.stamp(&t.end);
            t.draws.set(t.draws.get() + 1.0);
            let _ = js_sys::Reflect::set(&t.object, &t.updates, &t.draws.get().into());
        }
    });
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
