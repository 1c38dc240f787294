//! Saving files from the page: a temporary `<a download>` for a URL or a text blob.

use super::window;
use wasm_bindgen::{JsCast, JsValue};

/// Saves `text` as a file called `filename` through a temporary object URL.
pub fn download_text(filename: &str, mime: &str, text: &str) -> Result<(), JsValue> {
    let parts = js_sys::Array::of1(&JsValue::from_str(text));
    let options = web_sys::BlobPropertyBag::new();
    options.set_type(mime);
    let blob = web_sys::Blob::new_with_str_sequence_and_options(&parts, &options)?;
    let url = web_sys::Url::create_object_url_with_blob(&blob)?;
    let result = download_url(filename, &url);
    // The click only schedules the download: the browser may read the blob in a later task
    // (Firefox does), and a URL revoked before then saves nothing. So the URL, and the blob it
    // holds, are let go a minute later instead of at once.
    leptos::prelude::set_timeout(
        move || {
            let _ = web_sys::Url::revoke_object_url(&url);
        },
        REVOKE_AFTER,
    );
    result
}

/// How long an object URL outlives its download's click.
const REVOKE_AFTER: std::time::Duration = std::time::Duration::from_secs(60);

/// Saves the picture on `canvas` (a `<canvas>` element) as a PNG file called `filename`.
pub fn download_canvas_png(filename: &str, canvas: web_sys::Element) -> Result<(), JsValue> {
    let canvas = canvas.dyn_into::<web_sys::HtmlCanvasElement>()?;
    download_url(filename, &canvas.to_data_url_with_type("image/png")?)
}

/// Clicks a temporary `<a download>` pointing at `url`.
pub fn download_url(filename: &str, url: &str) -> Result<(), JsValue> {
    let document = window()
        .document()
        .ok_or_else(|| JsValue::from_str("no document"))?;
    let anchor = document
        .create_element("a")?
        .dyn_into::<web_sys::HtmlAnchorElement>()?;
    anchor.set_href(url);
    anchor.set_download(filename);
    anchor.click();
    Ok(())
}
