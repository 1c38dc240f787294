//! The head grid as numbers (its table alternative): every head's weights on held-out sequence 1,
//! one table per head, at the step the grid shows. Built only while the disclosure is open, so a
//! closed one costs nothing while the model trains.

use super::use_training;
use crate::format::percent;
use crate::text::{head_table_caption, of_run};
use leptos::html;
use leptos::prelude::*;
use nalgebra::DMatrix;

/// Position `i` (from 1) and its token, as the training page's tables label a query or a key.
pub(super) fn key_label(tokens: &[String], i: usize) -> String {
    format!("{} {}", i + 1, tokens.get(i).map_or("", String::as_str))
}

/// One head's weights: rows are queries, columns keys, both by position (from 1) and token.
fn head_table(
    layer: usize,
    head: usize,
    weights: &DMatrix<f64>,
    tokens: &[String],
) -> impl IntoView {
    let label = |i: usize| key_label(tokens, i);
    let t = weights.nrows();
    let caption = head_table_caption(layer, head);
    let name = caption.clone();
    view! {
        // A named, focusable region: wider than a phone, it scrolls by keyboard too.
        <div class="table-scroll" role="region" tabindex="0" aria-label=name>
            <table class="weights head-table" data-testid="head-table" data-layer=layer + 1 data-head=head + 1>
                <caption>{caption}</caption>
                <thead>
                    <tr>
                        <th scope="col">"query \\ key"</th>
                        {(0..t).map(|j| view! { <th scope="col">{label(j)}</th> }).collect_view()}
                    </tr>
                </thead>
                <tbody>
                    {(0..t)
                        .map(|i| view! {
                            <tr>
                                <th scope="row">{label(i)}</th>
                                {(0..t)
                                    .map(|j| {
                                        let w = weights[(i, j)];
                                        // The future is masked: exactly 0, shown faint.
                                        let class = if j > i { "num future" } else { "num" };
                                        view! {
                                            <td class=class data-value=w.to_string()>{percent(w)}</td>
                                        }
                                    })
                                    .collect_view()}
                            </tr>
                        })
                        .collect_view()}
                </tbody>
            </table>
        </div>
    }
}

#[component]
pub(super) fn HeadTables() -> impl IntoView {
    let training = use_training();
    let details = NodeRef::<html::Details>::new();
    let open = RwSignal::new(false);
    let tables = move || {
        if !open.get() {
            return None;
        }
        let tokens = training.shown_tokens();
        training.shown.with(|shown| {
            let shown = shown.as_ref()?;
            Some(
                shown
                    .attention
                    .iter()
                    .enumerate()
                    .flat_map(|(l, layer)| {
                        let tokens = &tokens;
                        layer
                            .iter()
                            .enumerate()
                            .map(move |(h, a)| head_table(l, h, a, tokens))
                    })
                    .collect_view(),
            )
        })
    };
    view! {
        <details
            class="head-tables"
            node_ref=details
            on:toggle=move |_| open.set(details.get().is_some_and(|d| d.open()))
        >
            <summary>{move || format!("Every head's weights{} as a table", of_run(training.letter.get()))}</summary>
            {tables}
        </details>
    }
}
