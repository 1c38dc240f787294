//! Step 1: the plain average of the past, first as the notebook's loop, then as one matrix
//! product `wei · X`, checked against the loop.

use super::WhenLessonSeen;
use crate::components::heatmap::Heatmap;
use crate::components::how_we_know::HowWeKnow;
use crate::model::attention::{averaging_error, averaging_matrix};
use crate::model::weights::D_MODEL;
use crate::state::{ExplorerModel, Shared, ViewSignals};
use crate::text::{attention_row_beside, averaging_check, averaging_row};
use leptos::prelude::*;
use std::sync::Arc;

/// The loop, the averaging matrix, its check and what row t takes.
#[component]
pub(super) fn AveragingStep() -> impl IntoView {
    let view = ViewSignals::from_context();
    let model = ExplorerModel::from_context();
    let wei = Memo::new(move |_| Shared(Arc::new(averaging_matrix(model.tokens.with(Vec::len)))));
    // A closure (read by one text binding), not a memo: a memo type of its own costs wasm bytes.
    let check = move || model.prepared.with(|p| averaging_error(&wei.get().0, &p.x));
    view! {
        <p>
            {format!(
                "Each token has a word vector of d_model = {D_MODEL} numbers; stacked one per row \
                 they make X, a T × d_model matrix (T is the number of tokens). A token may look at \
                 itself and the tokens before it, never after. The plainest way to use that context \
                 is a loop: for each row t, add up rows 1 to t of X and divide by t."
            )}
        </p>
        // Focusable: on a phone the code is wider than the screen and scrolls by keyboard too.
        <pre class="loop" role="region" tabindex="0" aria-label="The averaging loop">
            <code>
                "for t in 1 … T:\n    out[t] = (X[1] + X[2] + … + X[t]) / t"
            </code>
        </pre>
        <p>
            "The same numbers come from one matrix product. Write the shares as a T × T table "
            <code>"wei"</code> " (rows and columns counted from 1, as on screen): row t gives each "
            "of its t visible tokens an equal 1/t and the future nothing. (The notebook counts rows "
            "from 0, so its row t averages t + 1 tokens.) Then the loop is " <code>"wei · X"</code> "."
        </p>
        <WhenLessonSeen>
            <Heatmap
                weights=Signal::from(wei)
                tokens=model.tokens
                selected_row=Signal::derive(move || Some(view.row.get()))
                on_select=Callback::new(move |row: usize| view.row.set(row))
                decimal_labels=true
                title="Averaging matrix (uniform causal attention)"
            />
        </WhenLessonSeen>
        <HowWeKnow>
            <p class="check" data-testid="averaging-check">
                {move || averaging_check(check())}
            </p>
        </HowWeKnow>
        <p>
            {move || {
                let i = view.row.get();
                model.tokens.with(|t| averaging_row(t, i))
            }}
        </p>
        <p data-testid="attention-row-beside">
            {move || {
                let i = view.row.get();
                let broken = view.is_broken();
                model.shown_weights.with(|w| {
                    let i = i.min(w.nrows().saturating_sub(1));
                    let row: Vec<f64> = (0..w.ncols()).map(|j| w[(i, j)]).collect();
                    model.tokens.with(|t| attention_row_beside(t, i, &row, broken))
                })
            }}
        </p>
    }
}
