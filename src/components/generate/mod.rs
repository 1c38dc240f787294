//! The generate page's views (`generate.html`): the controls, the text and how each token was
//! drawn, the growing heatmap and a row's prediction, the key–value cache, and the two
//! temperatures side by side. Each reads [`crate::state::GeneratePage`].

pub mod attention_grid;
pub mod controls;
pub mod curves;
pub mod download;
pub mod kv_cache;
pub mod text_so_far;
pub mod two_temperatures;
