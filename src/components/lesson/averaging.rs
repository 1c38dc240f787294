//! Steps 1–2: the plain average of the past as a matrix, checked against the notebook's loop.

use crate::components::heatmap::Heatmap;
use crate::model::attention::{averaging_error, averaging_matrix};
use crate::state::{AppState, Shared};
use crate::text::{averaging_check, averaging_row};
use leptos::prelude::*;
use std::sync::Arc;

/// The averaging matrix, its check and what row t takes.
#[component]
pub(super) fn AveragingStep() -> impl IntoView {
    let state = AppState::from_context();
    let wei = Memo::new(move |_| Shared(Arc::new(averaging_matrix(state.tokens.with(Vec::len)))));
    // A closure (read by one text binding), not a memo: a memo type of its own costs wasm bytes.
    let check = move || state.prepared.with(|p| averaging_error(&wei.get().0, &p.x));
    view! {
        <p>
            "The simplest way for a token to use its context is to take the plain average of itself and every "
            "earlier token. Write the shares as a T × T table " <code>"wei"</code> " (T is the number of tokens; rows "
            "and columns are counted from 1, as on screen): row t gives each of its t visible tokens an equal 1/t and "
            "the future nothing. (The notebook counts from 0, so it writes 1/(t+1).) Gathering the context then "
            "becomes one matrix product, " <code>"wei · X"</code> ", where X holds one word vector per row."
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
            {move || averaging_check(check())}
        </p>
        <p>
            {move || {
                let i = state.row.get();
                state.tokens.with(|t| averaging_row(t, i))
            }}
        </p>
    }
}
