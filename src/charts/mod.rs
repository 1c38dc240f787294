//! The drawing layer. `layout`, `colors` and `pixel_ratio` are pure (tested natively); the
//! `draw_*` functions render with plotters onto a canvas and exist only in the browser build,
//! returning this module's [`Result`] (a [`DrawError`] on failure).

pub mod colors;
pub mod curves;
pub mod dashes;
pub mod layout;
pub mod pixel_ratio;
pub mod segments;
pub mod strip;
pub mod svg;

#[cfg(target_arch = "wasm32")]
pub mod bars;
#[cfg(target_arch = "wasm32")]
pub mod canvas;
#[cfg(target_arch = "wasm32")]
pub mod diff;
#[cfg(target_arch = "wasm32")]
pub mod error;
#[cfg(target_arch = "wasm32")]
pub mod heatmap;
#[cfg(target_arch = "wasm32")]
pub mod lab_chart;
#[cfg(target_arch = "wasm32")]
pub mod loss_chart;

#[cfg(target_arch = "wasm32")]
pub use error::{DrawError, Result};
