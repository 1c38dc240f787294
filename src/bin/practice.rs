//! The practice page (`practice.html`): Predict, then reveal and Compare A and B beside the
//! explorer's heatmap. A binary of its own so that its code is a wasm file of its own: the
//! explorer page does not load it (docs/performance.md, "A code budget per page").

#[cfg(target_arch = "wasm32")]
fn main() {
    attention_explorer::app::start_practice();
}

#[cfg(not(target_arch = "wasm32"))]
fn main() {
    eprintln!("The practice page runs in the browser: build it with `bash scripts/build.sh` (see README.md).");
}
