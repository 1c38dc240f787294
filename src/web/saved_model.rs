//! The learner's own trained model, handed from the training page to the explorer through the
//! browser's `localStorage`: the checkpoint file's bytes (`model::train::page::checkpoint_file`) as
//! base64. A link cannot carry tens of kilobytes of weights, and the explorer has no trainer to
//! retrain them from the settings, so the model is kept in this browser only.

use super::window;

/// Where the model is kept (one model: the newest replaces the last).
const KEY: &str = "attention-explorer.your-model";
const DAMAGED: &str = "the saved copy is damaged";

fn storage() -> Result<web_sys::Storage, String> {
    window()
        .local_storage()
        .ok()
        .flatten()
        .ok_or_else(|| "this browser does not let the page keep data".to_string())
}

/// Keeps `bytes` (a checkpoint file) for the explorer, replacing any earlier model.
pub fn save_your_model(bytes: &[u8]) -> Result<(), String> {
    // `btoa` encodes a string of bytes: one character (U+0000–U+00FF) per byte.
    let binary: String = bytes.iter().map(|&b| char::from(b)).collect();
    let text = window()
        .btoa(&binary)
        .map_err(|_| "the model could not be encoded".to_string())?;
    storage()?
        .set_item(KEY, &text)
        .map_err(|_| "the browser refused to keep it (storage full or blocked)".to_string())
}

/// The kept checkpoint file, if a model was saved in this browser.
pub fn load_your_model() -> Result<Option<Vec<u8>>, String> {
    let Some(text) = storage()?.get_item(KEY).ok().flatten() else {
        return Ok(None);
    };
    let binary = window().atob(&text).map_err(|_| DAMAGED.to_string())?;
    binary
        .chars()
        .map(|c| u8::try_from(u32::from(c)).map_err(|_| DAMAGED.to_string()))
        .collect::<Result<Vec<u8>, String>>()
        .map(Some)
}
