//! The drawing layer. `layout` and `colors` are pure (tested natively); the `draw_*` functions
//! render with plotters onto a canvas and exist only in the browser build.

pub mod colors;
pub mod layout;
pub mod strip;

#[cfg(target_arch = "wasm32")]
pub mod bars;
#[cfg(target_arch = "wasm32")]
pub mod canvas;
#[cfg(target_arch = "wasm32")]
pub mod heatmap;
#[cfg(target_arch = "wasm32")]
pub mod lab_chart;
