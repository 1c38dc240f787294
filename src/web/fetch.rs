//! Fetching a data file that sits beside the app (the trained checkpoints), relative to the page
//! so it works under any path. Data is fetched on demand, not built into the wasm.

use wasm_bindgen::JsCast;
use wasm_bindgen_futures::JsFuture;

/// The bytes of `url` (relative to the page), or a sentence saying why not.
pub async fn fetch_bytes(url: &str) -> Result<Vec<u8>, String> {
    let failed = |what: &str| format!("Could not load {url}: {what}.");
    let response = JsFuture::from(super::window().fetch_with_str(url))
        .await
        .map_err(|_| failed("the network request failed"))?;
    let response: web_sys::Response = response.dyn_into().map_err(|_| failed("no response"))?;
    if !response.ok() {
        return Err(failed(&format!(
            "the server answered {}",
            response.status()
        )));
    }
    let buffer = response
        .array_buffer()
        .map_err(|_| failed("the body could not be read"))?;
    let buffer = JsFuture::from(buffer)
        .await
        .map_err(|_| failed("the body could not be read"))?;
    Ok(js_sys::Uint8Array::new(&buffer).to_vec())
}
