//! Helpers shared by the tests that run in the browser (`web_components.rs`, `web_drawing.rs`).

use wasm_bindgen::JsCast;
use web_sys::{CanvasRenderingContext2d, HtmlCanvasElement};

pub fn document() -> web_sys::Document {
    web_sys::window().unwrap().document().unwrap()
}

pub fn context_2d(canvas: &HtmlCanvasElement) -> CanvasRenderingContext2d {
    canvas
        .get_context("2d")
        .unwrap()
        .unwrap()
        .dyn_into()
        .unwrap()
}

/// Every pixel of a canvas (RGBA).
pub fn all_pixels(canvas: &HtmlCanvasElement) -> Vec<u8> {
    let ctx = context_2d(canvas);
    ctx.get_image_data(0.0, 0.0, canvas.width().into(), canvas.height().into())
        .unwrap()
        .data()
        .to_vec()
}
