//! The pure model layer: no web imports, everything tested natively with `cargo test`.

pub mod attention;
pub mod broken;
pub mod claims;
pub mod compare;
pub mod embed;
pub mod explorer;
pub mod export;
pub mod generate_page;
pub mod generation_export;
pub mod host;
pub mod masked_average;
pub mod multihead;
pub mod next_token;
pub mod positions;
pub mod quiz;
pub mod rng;
pub mod sampling;
pub mod scaling_lab;
pub mod stats;
pub mod temperature;
pub mod tokenizer;
pub mod trace;
pub mod train;
pub mod trained;
pub mod url_state;
pub mod weights;
