//! Steps 1–2: the plain average of the past as a matrix, checked against the notebook's loop.

use crate::components::format::{percent, quote, scientific};
use crate::components::heatmap::Heatmap;
use crate::model::attention::{averaging_matrix, running_mean_loop};
use crate::state::{AppState, Shared};
use leptos::prelude::*;
use std::sync::Arc;

/// Largest absolute difference between two equally sized matrices.
fn max_abs_diff(a: &nalgebra::DMatrix<f64>, b: &nalgebra::DMatrix<f64>) -> f64 {
    (a - b).abs().max()
}

/// The averaging matrix, its check and what row t takes.
#[component]
pub(super) fn AveragingStep() -> impl IntoView {
    let state = AppState::from_context();
    let wei = Memo::new(move |_| Shared(Arc::new(averaging_matrix(state.tokens.with(Vec::len)))));
    // A closure (read by one text binding), not a memo: a memo type of its own costs wasm bytes.
    let check = move || {
        state
            .prepared
            .with(|p| max_abs_diff(&(&*wei.get().0 * &p.x), &running_mean_loop(&p.x)))
    };
    view! {
        <p>
            "The simplest way for a token to use its context is to take the plain average of itself and every "
            "earlier token. Written as a T × T table of shares, row t gives each of tokens 0…t an equal 1/(t+1) "
            "and the future nothing, and gathering the context becomes one matrix product, "
            <code>"wei · X"</code> "."
        </p>
        <Heatmap
            weights=Signal::from(wei)
            tokens=state.tokens
            selected_row=Signal::derive(move || Some(state.row.get()))
            on_select=Callback::new(move |row: usize| state.row.set(row))
            decimal_labels=true
            title="Averaging matrix (uniform causal attention)"
        />
        <p class="check" data-testid="averaging-check">
            {move || {
                let d = check();
                let ok = d < 1e-12;
                format!(
                    "{} wei · X equals the running mean computed with a loop: largest difference {}.",
                    if ok { "✓" } else { "✗" },
                    scientific(d, 1)
                )
            }}
        </p>
        <p>
            {move || {
                let i = state.row.get();
                state.tokens.with(|t| format!(
                    "Row {} ({}) takes {} from each of its {} visible tokens. Attention keeps this triangle but lets the data choose the shares.",
                    i + 1,
                    quote(t.get(i).map(String::as_str).unwrap_or("")),
                    percent(1.0 / (i + 1) as f64),
                    i + 1
                ))
            }}
        </p>
    }
}
