//! Property tests of the page's sentences over random views: every sentence whose words depend on
//! numbers (counts, "all"/"none", "exactly", "every row", comparisons, the names of the largest
//! weights, floors) is built for many views — random seeds, random sentences of 1–12 words (with
//! repeated words, capitals, punctuation and hostile Unicode), 1, 2, 4 or 8 heads, every head,
//! positions on and off, the grammar checkpoint's trained weights, τ over the whole slider and at
//! its marks, every row and any set of "Break it" mistakes — and its claim is recounted here from
//! the raw weights, another way than the model function that built it.
//!
//! No sentence may panic or print `NaN` or `inf`.
//!
//! Each run draws new views (a failure is saved in `tests/sentences.proptest-regressions` and
//! replayed first). For a longer hunt, multiply every case count:
//! `SENTENCES_SCALE=60 cargo test --release --test sentences` (about 90 s).
//!
//! `views` draws the views and holds what every property shares (the case counts, the recounts,
//! `prop_assert_clean!`); each other module holds one page or section's properties.
#![cfg(not(target_arch = "wasm32"))]

#[macro_use]
mod views;

mod break_it;
mod compare;
mod explorer;
mod generate_page;
mod lesson;
mod next_token;
mod quiz;
mod training;
