//! Writes the first view into index.html and practice.html (between the markers
//! `charts::first_view::START_MARKER` and `END_MARKER`): the default view's heading, notes and
//! heatmap as HTML, computed by the model, so it paints before the WebAssembly has loaded.
//!
//! Run `cargo run --example first_view` after changing anything the default view shows (the
//! model, the default sentence, seed or τ, the palette, the words above the heatmap); `cargo test`
//! fails until then.

use attention_explorer::charts::first_view::{first_view_html, with_first_view, DefaultView, Page};

fn main() {
    let d = DefaultView::compute();
    for page in [Page::Explorer, Page::Practice] {
        let path = format!("{}/{}", env!("CARGO_MANIFEST_DIR"), page.file());
        let text = std::fs::read_to_string(&path).expect("read the page");
        let view = first_view_html(&d, page);
        let new = with_first_view(&text, &view).expect("the page has the first view's markers");
        if new == text {
            println!("{}: the first view is up to date", page.file());
        } else {
            std::fs::write(&path, new).expect("write the page");
            println!(
                "{}: wrote the first view ({} bytes)",
                page.file(),
                view.len()
            );
        }
    }
}
