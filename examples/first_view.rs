//! Writes the first view into index.html, practice.html and train.html (between the markers
//! `first_view::START_MARKER` and `END_MARKER`): the default view's heading, notes and
//! heatmap as HTML, computed by the model, so it paints before the WebAssembly has loaded.
//!
//! Run `cargo run --example first_view` after changing anything the default view shows (the
//! model, the default sentence, seed or τ, the palette, the words above the heatmap); `cargo test`
//! fails until then.

use attention_explorer::first_view::{DefaultView, Page, PageSource};

fn main() {
    let d = DefaultView::compute();
    for page in Page::ALL {
        let source = PageSource::read(page, &d);
        if source.text == source.expected {
            println!("{}: the first view is up to date", page.file());
        } else {
            std::fs::write(&source.path, &source.expected).expect("write the page");
            println!("{}: wrote the first view", page.file());
        }
    }
}
