//! The training page (`train.html`): train a tiny attention-only transformer in the browser and
//! watch its heads form. A binary of its own so that its code is a wasm file of its own: the
//! explorer page does not load the trainer (docs/performance.md, "A code budget per page").

#[cfg(target_arch = "wasm32")]
fn main() {
    attention_explorer::app::start_train();
}

#[cfg(not(target_arch = "wasm32"))]
fn main() {
    eprintln!("The training page runs in the browser: build it with `bash scripts/build.sh` (see README.md).");
}
