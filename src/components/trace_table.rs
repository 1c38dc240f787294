//! The step-3 trace as a table: one row of one head through q·k → ÷ √d → ÷ τ → the causal mask →
//! softmax, the sum of its weights, and the check of the explicit Σ w·v against row t of A·V.
//! The lesson's step 3 shows it for the explorer's model, the training page's "Look closer" for
//! the trained one. Every number comes from [`RowTrace`]; this only lays them out.

use crate::components::data_table::DataTable;
use crate::components::how_we_know::HowWeKnow;
use crate::model::trace::RowTrace;
use crate::text::{trace_caption, trace_cells, trace_check, trace_sqrt_d_heading, trace_sum};
use leptos::prelude::*;

/// `keys` labels the table's rows, one per key (the masked future included); `token` is the traced
/// row's token for the caption; `head` counts from 0. The q·k and softmax cells carry their exact
/// value in `data-value` (the text shows 3 decimals).
// Leptos hands a component its props by value; this one only reads them.
#[allow(clippy::needless_pass_by_value)]
#[component]
pub fn TraceTable(
    trace: RowTrace,
    keys: Vec<String>,
    token: String,
    head: usize,
    /// The head's layer (from 0), named in the caption, for a model with several.
    #[prop(optional)]
    layer: Option<usize>,
) -> impl IntoView {
    let rows = keys
        .into_iter()
        .enumerate()
        .map(|(j, key)| {
            let [raw, over_sqrt_d, scaled, masked, weight] = trace_cells(&trace, j);
            view! {
                <tr class:masked=trace.is_masked(j)>
                    <th scope="row">{key}</th>
                    <td class="num" data-value=trace.raw[j].to_string()>{raw}</td>
                    <td class="num">{over_sqrt_d}</td>
                    <td class="num">{scaled}</td>
                    <td class="num">{masked}</td>
                    <td class="num" data-value=trace.weights[j].to_string()>{weight}</td>
                </tr>
            }
        })
        .collect_view();
    let columns = vec![
        "key".to_string(),
        "q·k".to_string(),
        trace_sqrt_d_heading(&trace),
        "÷ τ".to_string(),
        "mask".to_string(),
        "softmax".to_string(),
    ];
    let sum = trace_sum(&trace);
    view! {
        <DataTable
            test_id="trace-table"
            class="trace"
            caption=trace_caption(&token, &trace, head, layer)
            columns=columns
        >
            <tbody>{rows}</tbody>
            <tfoot>
                <tr>
                    <th scope="row" colspan="5">"sum of weights"</th>
                    <td class="num" data-testid="trace-sum">{sum}</td>
                </tr>
            </tfoot>
        </DataTable>
        <HowWeKnow>
            <p class="check" data-testid="trace-check">{trace_check(&trace)}</p>
        </HowWeKnow>
    }
}
