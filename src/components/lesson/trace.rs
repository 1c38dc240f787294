//! Step 3: one row traced through q·k → ÷√d → ÷τ → mask → softmax → Σ w·v, checked against A·V.

use crate::charts::strip::{Strip, StripRows};
use crate::format::fixed;
use crate::hooks::use_visibility;
use crate::model::explorer::Prepared;
use crate::model::trace::RowTrace;
use crate::state::{AppState, Shared};
use crate::text::{
    quote, trace_caption, trace_cells, trace_check, trace_sqrt_d_heading, trace_sum, weights_note,
};
use leptos::html;
use leptos::prelude::*;

/// The strip elements, and the model, head and row their q, k and v were painted for.
type Painted = (StripRows, Option<(Shared<Prepared>, usize, usize)>);

/// What the trace's table and its last strips show for the selected row, at the current τ.
#[derive(Clone, PartialEq)]
struct TraceData {
    /// The head's index.
    head: usize,
    /// Row t of that head, stage by stage (the model computes every number).
    row: RowTrace,
    /// The model all of this comes from (its tokens label the rows): while the trace is off
    /// screen the page's tokens may already be newer.
    prepared: Shared<Prepared>,
}

/// The trace table, its checks and the q/k/v strips of the selected row.
#[component]
pub(super) fn AttentionTrace() -> impl IntoView {
    let state = AppState::from_context();
    let trace_ref = NodeRef::<html::Div>::new();
    let on_screen = use_visibility(trace_ref);
    // Off screen, the trace keeps its last value (or none, before it was first seen) instead of
    // rebuilding what nobody sees on every slider step; it catches up as soon as it scrolls into
    // view.
    let trace = Memo::new(move |previous: Option<&Option<TraceData>>| {
        if !on_screen.get() {
            return previous.cloned().flatten();
        }
        let t = state.row.get();
        let tau = state.tau.get();
        let head = state.head.get();
        let prepared = state.prepared.get();
        let p = &*prepared.0;
        state.head_weights.with(|a| {
            let h = head.min(p.heads.len() - 1);
            let t = t.min(p.len() - 1);
            Some(TraceData {
                head: h,
                row: RowTrace::new(&p.heads[h], &a[h], t, tau),
                prepared: prepared.clone(),
            })
        })
    });
    // The strips: q_t, every key's k and v (the future's hidden), Σ w·v and row t of A·V. The k
    // and v strips are painted once per model and head; a row click or τ step relabels, hides
    // and repaints only what changed.
    let strips_ref = NodeRef::<html::Div>::new();
    let strips_drawn: StoredValue<Painted, LocalStorage> =
        StoredValue::new_local(Default::default());
    Effect::new(move |_| {
        let Some(container) = strips_ref.get() else {
            return;
        };
        trace.with(|tr| {
            let Some(tr) = tr else { return };
            let p = &*tr.prepared.0;
            let proj = &p.heads[tr.head];
            let key = (tr.prepared.clone(), tr.head, tr.row.t);
            let (model_changed, row_changed) = strips_drawn.with_value(|(_, old)| match old {
                Some((prepared, head, t)) => (*prepared != key.0 || *head != key.1, *t != key.2),
                None => (true, true),
            });
            let row = |m: &nalgebra::DMatrix<f64>, i: usize, repaint: bool| {
                repaint.then(|| (0..m.ncols()).map(|c| m[(i, c)]).collect::<Vec<f64>>())
            };
            let name = |kind: &str, j: usize| format!("{kind} {}", p.config.tokens[j]);
            let q = name("q", tr.row.t);
            let mut strips = vec![Strip {
                label: q.clone(),
                name: q,
                values: row(&proj.q, tr.row.t, model_changed || row_changed),
                hidden: false,
            }];
            for j in 0..p.len() {
                let k = name("k", j);
                strips.push(Strip {
                    label: k.clone(),
                    name: k,
                    values: row(&proj.k, j, model_changed),
                    hidden: j > tr.row.t,
                });
            }
            for j in 0..p.len() {
                let v = name("v", j);
                strips.push(Strip {
                    label: format!("{v} × {}", fixed(tr.row.weights[j], 3)),
                    name: v,
                    values: row(&proj.v, j, model_changed),
                    hidden: j > tr.row.t,
                });
            }
            let out = format!("A·V row {}", tr.row.t + 1);
            strips.push(Strip {
                label: "Σ w·v".to_string(),
                name: "Σ w·v".to_string(),
                values: Some(tr.row.blended.clone()),
                hidden: false,
            });
            strips.push(Strip {
                label: out.clone(),
                name: out,
                values: Some(tr.row.out_row.clone()),
                hidden: false,
            });
            strips_drawn.update_value(|(rows, painted)| match rows.draw(&container, &strips) {
                Ok(()) => *painted = Some(key),
                Err(e) => {
                    *painted = None;
                    leptos::logging::error!("strip drawing failed: {e:?}");
                }
            });
        });
    });
    view! {
        <div node_ref=trace_ref>
            {move || trace.with(|tr| tr.as_ref().map(|tr| {
                let TraceData { head: h, row: trace, prepared } = tr;
                let (t, h) = (trace.t, *h);
                // The snapshot's tokens, not the live ones (see `TraceData::prepared`).
                let tokens = &prepared.0.config.tokens;
                let name = &tokens[t];
                let rows = tokens
                    .iter()
                    .enumerate()
                    .map(|(j, key)| {
                        let [raw, over_sqrt_d, scaled, masked, weight] = trace_cells(trace, j);
                        view! {
                            <tr class:masked=trace.is_masked(j)>
                                <th scope="row">{key.clone()}</th>
                                <td class="num">{raw}</td>
                                <td class="num">{over_sqrt_d}</td>
                                <td class="num">{scaled}</td>
                                <td class="num">{masked}</td>
                                <td class="num">{weight}</td>
                            </tr>
                        }
                    })
                    .collect_view();
                view! {
                    <p>
                        "Follow one query through the whole mechanism. Row " {t + 1} " (" {quote(name)}
                        ") of head " {h + 1} " scores its query against every key, scales, masks the future and "
                        "applies softmax; its output is the weighted sum of the value vectors. Click a row of the "
                        "heatmap to trace another token."
                    </p>
                    <p class="note" data-testid="trace-weights-note">{weights_note(prepared.0.config.seed)}</p>
                    <div class="table-scroll">
                        <table class="trace" data-testid="trace-table">
                            <caption>{trace_caption(name, trace, h)}</caption>
                            <thead>
                                <tr>
                                    <th scope="col">"key"</th>
                                    <th scope="col">"q·k"</th>
                                    <th scope="col">{trace_sqrt_d_heading(trace)}</th>
                                    <th scope="col">"÷ τ"</th>
                                    <th scope="col">"mask"</th>
                                    <th scope="col">"softmax"</th>
                                </tr>
                            </thead>
                            <tbody>{rows}</tbody>
                            <tfoot>
                                <tr>
                                    <th scope="row" colspan="5">"sum of weights"</th>
                                    <td class="num" data-testid="trace-sum">{trace_sum(trace)}</td>
                                </tr>
                            </tfoot>
                        </table>
                    </div>
                    <p class="check" data-testid="trace-check">
                        {trace_check(trace)}
                    </p>
                }
            }))}
            <div
                class="qkv"
                role="group"
                data-testid="trace-strips"
                aria-label="Query, keys and values of this row as coloured strips (orange positive, blue negative)"
                node_ref=strips_ref
            ></div>
        </div>
    }
}
