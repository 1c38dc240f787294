//! The generate page (`generate.html`): a trained model writes text one token at a time. A
//! binary of its own so that its code is a wasm file of its own: the other pages do not load it
//! (docs/performance.md, "A code budget per page").

#[cfg(target_arch = "wasm32")]
fn main() {
    attention_explorer::app::start_generate();
}

#[cfg(not(target_arch = "wasm32"))]
fn main() {
    eprintln!("The generate page runs in the browser: build it with `bash scripts/build.sh` (see README.md).");
}
