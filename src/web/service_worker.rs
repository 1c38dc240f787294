//! The offline service worker's browser side: registering `sw.js` (written into the build by
//! scripts/service-worker.mjs) once the first heatmap is drawn, and the "new version" hand-over.
//!
//! Nothing here runs before the first heatmap: [`register_after_first_heatmap`] looks for the
//! heatmap canvas marked ready (`data-ready`) once per animation frame, and only then registers
//! `./sw.js`, relative to the page, so a deployment under any path registers its own worker.
//! Where `navigator.serviceWorker` is missing (an old browser, or a page served over plain http
//! from another host than localhost) nothing is registered and the app works online as before.
//! When a new build's worker has installed while this page is controlled by the old one (a
//! deployment since the page loaded, or since the last visit), `on_update` is called;
//! [`apply_update`] then tells that waiting worker to take over and reloads the page once it
//! controls it.

use super::window;
use std::cell::RefCell;
use std::rc::Rc;
use wasm_bindgen::closure::Closure;
use wasm_bindgen::{JsCast, JsValue};
use wasm_bindgen_futures::JsFuture;
use web_sys::{
    ServiceWorker, ServiceWorkerContainer, ServiceWorkerRegistration, ServiceWorkerState,
};

/// The worker's URL, relative to the page.
const SCRIPT: &str = "./sw.js";
/// The main heatmap after its first drawing (`components::heatmap`, `ready_flag`).
const HEATMAP_DRAWN: &str = "canvas[data-ready=\"true\"]";
/// The message sw.js answers with `skipWaiting()`.
const SKIP_WAITING: &str = "skip-waiting";

thread_local! {
    /// The installed worker waiting to take over, once `on_update` has been called.
    static WAITING: RefCell<Option<ServiceWorker>> = const { RefCell::new(None) };
}

/// `navigator.serviceWorker`, where the browser has it.
fn container() -> Option<ServiceWorkerContainer> {
    let value =
        js_sys::Reflect::get(&window().navigator(), &JsValue::from_str("serviceWorker")).ok()?;
    (!value.is_undefined() && !value.is_null()).then(|| value.unchecked_into())
}

/// Registers the service worker after the first heatmap is drawn; calls `on_update` when a new
/// version is installed and waiting (see the module docs).
pub fn register_after_first_heatmap(on_update: impl Fn() + 'static) {
    if container().is_none() {
        return;
    }
    when_heatmap_drawn(move || leptos::task::spawn_local(register(Rc::new(on_update))));
}

/// Runs `then` in the first animation frame in which the heatmap has been drawn.
fn when_heatmap_drawn(then: impl FnOnce() + 'static) {
    let drawn = window()
        .document()
        .and_then(|d| d.query_selector(HEATMAP_DRAWN).ok().flatten())
        .is_some();
    if drawn {
        then();
    } else {
        let next = Closure::once_into_js(move || when_heatmap_drawn(then));
        let _ = window().request_animation_frame(next.unchecked_ref());
    }
}

async fn register(on_update: Rc<dyn Fn()>) {
    let Some(container) = container() else { return };
    // Offline support is an extra: a failed registration (no network on the first visit, a host
    // that does not serve sw.js) leaves the app as it is, without a console message.
    let Ok(registration) = JsFuture::from(container.register(SCRIPT)).await else {
        return;
    };
    let registration: ServiceWorkerRegistration = registration.unchecked_into();
    // Installed on an earlier visit and still waiting for the old version's pages to close.
    if let Some(waiting) = registration.waiting() {
        offer(&container, waiting, &on_update);
    }
    let found = registration.clone();
    let on_update_found = Closure::<dyn Fn()>::new(move || {
        let Some(installing) = found.installing() else {
            return;
        };
        let (container, worker, on_update) =
            (container.clone(), installing.clone(), on_update.clone());
        let on_state_change = Closure::<dyn Fn()>::new(move || {
            if worker.state() == ServiceWorkerState::Installed {
                offer(&container, worker.clone(), &on_update);
            }
        });
        installing.set_onstatechange(Some(on_state_change.as_ref().unchecked_ref()));
        // Lives as long as that worker: one small closure per update found.
        on_state_change.forget();
    });
    registration.set_onupdatefound(Some(on_update_found.as_ref().unchecked_ref()));
    on_update_found.forget();
}

/// A new worker is installed: offer it, unless this page has no worker yet (the first visit,
/// where the new worker simply takes over; there is nothing older to replace).
fn offer(container: &ServiceWorkerContainer, worker: ServiceWorker, on_update: &Rc<dyn Fn()>) {
    if container.controller().is_some() {
        WAITING.with(|w| *w.borrow_mut() = Some(worker));
        on_update();
    }
}

/// Hands the page to the waiting worker: asks it to activate and reloads once it controls the page.
pub fn apply_update() {
    let reload = || {
        let _ = window().location().reload();
    };
    let (Some(container), Some(worker)) = (container(), WAITING.with(|w| w.borrow().clone()))
    else {
        return reload();
    };
    if worker.state() == ServiceWorkerState::Activated {
        // Another tab already let it take over.
        return reload();
    }
    let on_controller_change = Closure::once_into_js(reload);
    container.set_oncontrollerchange(Some(on_controller_change.unchecked_ref()));
    let _ = worker.post_message(&JsValue::from_str(SKIP_WAITING));
}
