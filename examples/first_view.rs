//! Writes the explorer's first view into index.html (between the markers
//! `charts::first_view::START_MARKER` and `END_MARKER`): the default view's heading, notes and
//! heatmap as HTML, computed by the model, so it paints before the WebAssembly has loaded.
//!
//! Run `cargo run --example first_view` after changing anything the default view shows (the
//! model, the default sentence, seed or τ, the palette, the words above the heatmap); `cargo test`
//! fails until then.

use attention_explorer::charts::first_view::{first_view_html, with_first_view, DefaultView};

fn main() {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/index.html");
    let page = std::fs::read_to_string(path).expect("read index.html");
    let view = first_view_html(&DefaultView::compute());
    let new = with_first_view(&page, &view).expect("index.html has the first view's markers");
    if new == page {
        println!("index.html's first view is up to date");
    } else {
        std::fs::write(path, new).expect("write index.html");
        println!(
            "wrote the first view into index.html ({} bytes)",
            view.len()
        );
    }
}
