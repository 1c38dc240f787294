//! [`DrawError`], why a chart could not be drawn, and the charts' [`Result`].
//!
//! Drawing goes through two APIs with their own error types: the browser's (`JsValue`) and
//! plotters' (`DrawingAreaErrorKind`). Both convert into `DrawError` with `?`, so every `draw_*`
//! function reads as a plain sequence of steps, and the canvas hook logs one type.

use plotters::drawing::DrawingAreaErrorKind;
use wasm_bindgen::JsValue;

/// Why a chart could not be drawn. Its `Debug` text is what the console log shows.
#[derive(Debug)]
pub enum DrawError {
    /// A browser API refused (e.g. `putImageData`); the value it threw.
    Browser(JsValue),
    /// plotters could not draw an element: its error, as its `Debug` text (the error itself
    /// holds the backend's type, which differs per backend).
    Plotters(String),
    /// Something the chart needs is missing, e.g. "canvas has no 2D context".
    Missing(&'static str),
}

/// What every drawing function returns.
pub type Result<T> = std::result::Result<T, DrawError>;

impl From<JsValue> for DrawError {
    fn from(value: JsValue) -> Self {
        Self::Browser(value)
    }
}

impl<E: std::error::Error + Send + Sync> From<DrawingAreaErrorKind<E>> for DrawError {
    fn from(error: DrawingAreaErrorKind<E>) -> Self {
        Self::Plotters(format!("{error:?}"))
    }
}
