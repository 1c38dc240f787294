//! The UI layer: small Leptos components that read [`crate::app::AppState`] and draw with
//! [`crate::charts`].

pub mod browser;
pub mod downloads;
pub mod explanation;
pub mod format;
pub mod heatmap;
pub mod inspector;
pub mod model_controls;
pub mod notices;
pub mod panic_banner;
pub mod sentence;
pub mod size;
pub mod steps;
pub mod temperature;
pub mod thumbnails;
