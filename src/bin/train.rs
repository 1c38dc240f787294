//! The training page (`train.html`): train a tiny attention-only transformer in the browser and
//! watch its heads form. A binary of its own so that its code is a wasm file of its own: the
//! explorer page does not load the trainer (docs/performance.md, "A code budget per page").

#[cfg(target_arch = "wasm32")]
fn main() {
    // The same wasm runs the page's training workers (`assets/train-worker.js`), where there is
    // no window: there, `train_worker` takes over instead.
    if web_sys::window().is_some() {
        attention_explorer::app::start_train();
    }
}

/// The entry of a training Web Worker (`assets/train-worker.js` calls it once the wasm is loaded).
#[cfg(target_arch = "wasm32")]
#[wasm_bindgen::prelude::wasm_bindgen]
pub fn train_worker() {
    attention_explorer::train_worker::run();
}

#[cfg(not(target_arch = "wasm32"))]
fn main() {
    eprintln!("The training page runs in the browser: build it with `bash scripts/build.sh` (see README.md).");
}
