//! [`TrainWorker`]: a training run's Web Worker, seen from the page: started as a module worker
//! running `train-worker.js` (beside the page, so the URL stays relative) on the page's own
//! wasm-bindgen glue (named by its `modulepreload` link) and compiled wasm module (posted to it
//! first; the wasm beside the glue where it cannot be); commands go out and
//! reports come back as transferred `Float64Array`s (`model::train::page::messages`). Dropping it
//! ends the worker.

use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;
use web_sys::{MessageEvent, Worker, WorkerOptions, WorkerType};

/// The worker script, beside the page.
const SCRIPT: &str = "train-worker.js";

/// A running worker and its message handlers.
pub struct TrainWorker {
    worker: Worker,
    _on_message: Closure<dyn Fn(MessageEvent)>,
    _on_error: Closure<dyn Fn(web_sys::Event)>,
}

/// The `href` of the page's first `<link>` matching `selector`, as written (relative).
fn link_href(selector: &str) -> Option<String> {
    crate::web::window()
        .document()?
        .query_selector(selector)
        .ok()??
        .get_attribute("href")
}

/// The wasm Trunk writes beside a page's glue: `./train-<hash>.js` → `./train-<hash>_bg.wasm`.
fn wasm_beside_glue(glue: &str) -> Option<String> {
    glue.strip_suffix(".js")
        .map(|stem| format!("{stem}_bg.wasm"))
}

impl TrainWorker {
    /// Starts a worker; `on_report` gets each buffer it posts, `on_error` is called if it fails
    /// to load or run. `None` where the browser has no module workers or the page does not name
    /// its glue (e.g. a development server without Trunk's preload link).
    pub fn spawn(
        on_report: impl Fn(Vec<f64>) + 'static,
        on_error: impl Fn() + 'static,
    ) -> Option<Self> {
        let glue = link_href("link[rel=modulepreload][href$='.js']:not([href$='-worker.js'])")?;
        // The page does not preload its wasm (the start-up script fetches it after the first
        // paint), so no link names it; it is beside its glue.
        let wasm = wasm_beside_glue(&glue)?;
        let query: String = form_urlencoded::Serializer::new(String::new())
            .append_pair("glue", &glue)
            .append_pair("wasm", &wasm)
            .finish();
        let options = WorkerOptions::new();
        options.set_type(WorkerType::Module);
        let worker = Worker::new_with_options(&format!("{SCRIPT}?{query}"), &options).ok()?;
        let on_message = Closure::<dyn Fn(MessageEvent)>::new(move |event: MessageEvent| {
            on_report(js_sys::Float64Array::new(&event.data()).to_vec());
        });
        let on_error = Closure::<dyn Fn(web_sys::Event)>::new(move |_| on_error());
        worker.set_onmessage(Some(on_message.as_ref().unchecked_ref()));
        worker.set_onerror(Some(on_error.as_ref().unchecked_ref()));
        // The page's compiled module, so the worker neither downloads nor compiles the wasm
        // again; null (the worker then loads `wasm`) where a module cannot be posted.
        if worker.post_message(&wasm_bindgen::module()).is_err() {
            worker.post_message(&JsValue::NULL).ok()?;
        }
        Some(Self {
            worker,
            _on_message: on_message,
            _on_error: on_error,
        })
    }

    /// Sends `buffer` (a command), transferred.
    pub fn post(&self, buffer: &[f64]) {
        let array = js_sys::Float64Array::from(buffer);
        let transfer = js_sys::Array::of1(&array.buffer());
        let _ = self.worker.post_message_with_transfer(&array, &transfer);
    }
}

impl Drop for TrainWorker {
    fn drop(&mut self) {
        self.worker.set_onmessage(None);
        self.worker.set_onerror(None);
        self.worker.terminate();
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn the_wasm_is_named_after_the_glue() {
        assert_eq!(
            super::wasm_beside_glue("./train-a10d0723842cdfa.js").as_deref(),
            Some("./train-a10d0723842cdfa_bg.wasm")
        );
        assert_eq!(super::wasm_beside_glue("./train.css"), None);
    }
}
