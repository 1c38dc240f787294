//! The hand-over from the first view written into index.html (`charts::first_view`) to the app.
//!
//! index.html paints the default view's heading and heatmap before the WebAssembly has loaded.
//! The task that mounts the app builds the same elements (`app::full_layout`), so [`take_over`]
//! removes the written ones in that task and no frame shows both. Only the heatmap differs: the
//! app's canvas is sized in that task but painted in the next, so the written picture is laid
//! over the canvas until then, and [`give_way`] removes it in the task that paints the canvas.

use leptos::prelude::document;
use web_sys::Element;

/// The written view's `main` (index.html).
const WRITTEN_VIEW: &str = "first-view";
/// Its heatmap picture, laid over the app's canvas until the canvas is drawn.
const PICTURE: &str = ".static-heatmap";

/// Removes the written first view, keeping its heatmap picture over the app's heatmap when it
/// shows the same view (`default_view`: the link has no query). Call right after mounting the app.
pub fn take_over(default_view: bool) {
    let page = document();
    let Some(written) = page.get_element_by_id(WRITTEN_VIEW) else {
        return;
    };
    if default_view {
        // The app's main view is mounted after the written one; its box holds the canvas.
        let canvas_box = page.query_selector("main:not(#first-view) .heatmap-box");
        let picture = written.query_selector(PICTURE);
        if let (Ok(Some(canvas_box)), Ok(Some(picture))) = (canvas_box, picture) {
            let _ = canvas_box.append_child(&picture);
        }
    }
    written.remove();
}

/// Removes the written picture laid over `canvas`, if any: called when the canvas is first drawn.
pub fn give_way(canvas: &Element) {
    if let Some(Ok(Some(picture))) = canvas.parent_element().map(|b| b.query_selector(PICTURE)) {
        picture.remove();
    }
}
