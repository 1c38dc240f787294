//! Attention Explorer: causal self-attention you can poke at.
//!
//! Layers, with data flowing one way (docs/architecture.md has every module):
//! - [`model`]: tokenizer, seeded weights, attention, training, statistics, link state, exports
//!   (pure Rust, nalgebra only): every number the page shows.
//! - [`format`] and [`text`]: the page's numbers as digits, and its sentences built from them.
//! - [`charts`]: geometry shared by drawing and hit-testing, and (in the browser) the pixels.
//! - [`first_view`]: each page's first view as HTML, written into the page at build time from
//!   the same numbers, sentences and colours, so that it paints before the WebAssembly has loaded.
//! - `state` (browser only): the signals and the link.
//! - `components`, `hooks` and `app` (browser only): thin views, events and layout.
//! - `train_worker` (browser only): the training page's Web Worker, which owns one run.

pub mod charts;
pub mod first_view;
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
pub mod train_worker;
#[cfg(target_arch = "wasm32")]
pub mod web;
