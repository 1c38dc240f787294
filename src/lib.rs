//! Attention Explorer: causal self-attention you can poke at.
//!
//! Layers, with data flowing one way (state → model → charts):
//! - [`model`]: tokenizer, seeded weights, attention, statistics, link state, exports (pure Rust).
//! - [`charts`]: geometry shared by drawing and hit-testing, and (in the browser) the drawing itself.
//! - [`format`] and [`text`]: the page's numbers as digits, and its sentences built from them.
//! - `components` / `app` (browser only): signals, layout and events.

pub mod charts;
pub mod format;
pub mod model;
pub mod text;

#[cfg(target_arch = "wasm32")]
pub mod app;
#[cfg(target_arch = "wasm32")]
pub mod components;
#[cfg(target_arch = "wasm32")]
pub mod hooks;
#[cfg(target_arch = "wasm32")]
pub mod state;
#[cfg(target_arch = "wasm32")]
pub mod web;
