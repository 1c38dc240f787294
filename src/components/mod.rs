//! The UI layer: small Leptos components that read [`crate::state`] and draw with
//! [`crate::charts`]. The lesson's steps live in [`lesson`], one component per file.

pub mod after_first_paint;
pub mod break_it;
pub mod compare;
pub mod data_table;
pub mod downloads;
pub mod embed;
pub mod explanation;
pub mod generate;
pub mod heatmap;
pub mod how_we_know;
pub mod inspector;
pub mod lesson;
pub mod model_controls;
pub mod next_token;
pub mod notices;
pub mod page_links;
pub mod panic_banner;
pub mod phone_dock;
pub mod probability_bars;
pub mod quiz;
pub mod sentence;
pub mod temperature;
pub mod thumbnails;
pub mod trace_table;
pub mod training;
pub mod update_notice;
