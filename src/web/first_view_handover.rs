//! The first view's hand-over to the app: the first view written into the page (`first_view`)
//! gives way to the app's own elements.
//!
//! index.html and practice.html paint the default view's heading and heatmap before the
//! WebAssembly has loaded, train.html its controls. The task that mounts the app builds the same
//! elements (`app::full_layout`, `app::PracticeApp`, `app::TrainApp`), so [`take_over`] removes
//! the first view in that task and no frame shows both. Only the heatmap differs: the app's
//! canvas is sized in that task but painted in the next, so the first view's picture is laid over
//! the canvas until then, and [`give_way`] removes it in the task that paints the canvas.

use leptos::prelude::document;
use web_sys::Element;

/// The first view: a `div` around what the app's first task builds (every page).
const FIRST_VIEW_ID: &str = "first-view";
/// Its heatmap picture, laid over the app's canvas until the canvas is drawn.
const PICTURE: &str = ".static-heatmap";

/// Removes the first view, keeping its heatmap picture over the app's heatmap when it shows the
/// same view (`default_view`: the link has no query). Call right after mounting the app.
pub fn take_over(default_view: bool) {
    let page = document();
    let Some(first_view) = page.get_element_by_id(FIRST_VIEW_ID) else {
        return;
    };
    let picture = first_view.query_selector(PICTURE).ok().flatten();
    first_view.remove();
    // With the first view gone, the only heatmap box is the app's, around its canvas.
    if let (true, Some(picture), Ok(Some(canvas_box))) =
        (default_view, picture, page.query_selector(".heatmap-box"))
    {
        let _ = canvas_box.append_child(&picture);
    }
}

/// Removes the first view's picture laid over `canvas`, if any: called when the canvas is first
/// drawn.
pub fn give_way(canvas: &Element) {
    if let Some(Ok(Some(picture))) = canvas.parent_element().map(|b| b.query_selector(PICTURE)) {
        picture.remove();
    }
}
