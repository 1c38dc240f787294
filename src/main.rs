#[cfg(target_arch = "wasm32")]
fn main() {
    attention_explorer::app::start();
}

#[cfg(not(target_arch = "wasm32"))]
fn main() {
    eprintln!("Attention Explorer runs in the browser: build it with `bash scripts/build.sh` (see README.md).");
}
