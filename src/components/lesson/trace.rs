//! Step 3: what queries, keys and values are for, the selected row's x, q, k and v (checked
//! against `x·W_q`, `x·W_k`, `x·W_v`), then that row traced through q·k → ÷√d → ÷τ → mask → softmax →
//! Σ w·v, checked against A·V.

use crate::charts::strip::{Strip, StripRows};
use crate::components::break_it::{BreakItLink, BrokenLessonNote};
use crate::components::data_table::{number_cells, DataTable};
use crate::components::how_we_know::HowWeKnow;
use crate::components::trace_table::TraceTable;
use crate::format::fixed;
use crate::hooks::{use_visibility, use_while_seen_some};
use crate::model::explorer::Prepared;
use crate::model::trace::{QkvRow, RowTrace};
use crate::state::{ExplorerModel, Shared, ViewSignals};
use crate::text::{
    blend_caption, qkv_check, qkv_intro, query_keys_caption, quote, trace_tau_note, vector_cells,
    weights_note, KEYS_AND_VALUES, STRIP_LEGEND,
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
    let view = ViewSignals::from_context();
    let model = ExplorerModel::from_context();
    let trace_ref = NodeRef::<html::Div>::new();
    let on_screen = use_visibility(trace_ref);
    // Off screen, the trace keeps its last value instead of rebuilding what nobody sees on every
    // slider step; it catches up as soon as it scrolls into view. It is built once at the start
    // wherever it is, so its words are in the page (find in page, printing) before it is seen.
    let trace = use_while_seen_some(on_screen, "lesson:attention", move || {
        let t = view.row.get();
        let tau = view.tau.get();
        let head = view.head.get();
        let prepared = model.prepared.get();
        let p = &*prepared.0;
        model.main_weights.with(|a| {
            let h = head.min(p.heads.len() - 1);
            let t = t.min(p.len() - 1);
            Some(TraceData {
                head: h,
                row: RowTrace::new(&p.heads[h], a, t, tau),
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
    let tau_note = move || {
        trace_tau_note(view.tau.get()).map(|note| {
            view! {
                <p class="note" data-testid="trace-tau-note">
                    {note} " "
                    <button type="button" on:click=move |_| {
                        view.tau.set(1.0);
                        // The button goes with its note: keep the keyboard's place on the
                        // slider it reset (the docked one where the main one is hidden),
                        // without scrolling the page away from this step.
                        super::focus_in_place("temperature");
                        super::focus_in_place_if_nothing_is("temperature-dock");
                    }>"Reset τ to 1"</button>
                </p>
            }
        })
    };
    view! {
        <BrokenLessonNote />
        {tau_note}
        <div node_ref=trace_ref>
            {move || trace.with(|tr| tr.as_ref().map(|tr| {
                let TraceData { head: h, row: trace, prepared } = tr;
                let (t, h) = (trace.t, *h);
                let qkv = QkvRow::new(&prepared.0, h, t);
                // The snapshot's tokens, not the live ones (see `TraceData::prepared`).
                let tokens = &prepared.0.config.tokens;
                let name = &tokens[t];
                view! {
                    <QkvVectors qkv=qkv token=name.clone() head=h d_model=prepared.0.d_model />
                    <p>
                        "Follow one query through the whole mechanism. Row " {t + 1} " (" {quote(name)}
                        ") of head " {h + 1} " scores its query against every key, scales, masks the future and "
                        "applies softmax; its output is the weighted sum of the value vectors. Click a row of the "
                        "heatmap to trace another token."
                    </p>
                    <p class="note" data-testid="trace-weights-note">{weights_note(&prepared.0.weights, prepared.0.config.seed, false)}</p>
                    <TraceTable trace=trace.clone() keys=tokens.clone() token=name.clone() head=h />
                    {query_keys_table(&prepared.0, h, trace)}
                    {blend_table(&prepared.0, h, trace)}
                    <p data-testid="keys-and-values">{KEYS_AND_VALUES}</p>
                }
            }))}
            <p class="note legend-line" data-testid="strip-legend">{STRIP_LEGEND}</p>
            <div
                class="qkv"
                role="group"
                data-testid="trace-strips"
                aria-label="Query, keys and values of this row as coloured strips (orange positive, blue negative)"
                node_ref=strips_ref
            ></div>
        </div>
        <BreakItLink />
    }
}

/// Row t's query beside every key it sees, all d entries, with q·k: what the trace's first column
/// adds up, to check by hand.
fn query_keys_table(p: &Prepared, h: usize, trace: &RowTrace) -> impl IntoView {
    let head = &p.heads[h];
    let (t, d) = (trace.t, head.head_size());
    let tokens = &p.config.tokens;
    let mut columns = vec!["vector".to_string()];
    columns.extend((1..=d).map(|c| c.to_string()));
    columns.push("q·k".to_string());
    let line = move |label: String, m: &nalgebra::DMatrix<f64>, i: usize, dot: Option<f64>| {
        let cells = number_cells(&(0..d).map(|c| m[(i, c)]).collect::<Vec<f64>>());
        view! {
            <tr>
                <th scope="row">{label}</th>
                {cells}
                <td class="num">{dot.map_or_else(String::new, |x| fixed(x, 3))}</td>
            </tr>
        }
    };
    let query = line(
        format!("q {} {}", t + 1, quote(&tokens[t])),
        &head.q,
        t,
        None,
    );
    let keys = (0..=t)
        .map(|j| {
            line(
                format!("k {} {}", j + 1, quote(&tokens[j])),
                &head.k,
                j,
                Some(trace.raw[j]),
            )
        })
        .collect_view();
    view! {
        <DataTable
            test_id="query-keys"
            class="vectors"
            caption=query_keys_caption(&tokens[t], t, d)
            columns=columns
        >
            <tbody>
                {query}
                {keys}
            </tbody>
        </DataTable>
    }
}

/// The weights × values table of the traced row (`RowTrace::blend_table`, first dimensions).
fn blend_table(p: &Prepared, h: usize, trace: &RowTrace) -> impl IntoView {
    /// Enough dimensions to check the sum by hand.
    const DIMS: usize = 4;
    let table = trace.blend_table(&p.heads[h], DIMS);
    let tokens = &p.config.tokens;
    let dims = table.dims;
    let mut columns = vec!["key".to_string(), "weight w".to_string()];
    columns.extend((1..=dims).map(|c| format!("v[{c}]")));
    columns.extend((1..=dims).map(|c| format!("w·v[{c}]")));
    let rows = table
        .rows
        .iter()
        .map(|r| {
            view! {
                <tr>
                    <th scope="row">{format!("{} {}", r.key + 1, quote(&tokens[r.key]))}</th>
                    <td class="num">{fixed(r.weight, 4)}</td>
                    {number_cells(&r.value)}
                    {number_cells(&r.weighted)}
                </tr>
            }
        })
        .collect_view();
    let blank = move || (0..dims).map(|_| view! { <td></td> }).collect_view();
    let (sum, out) = (number_cells(&table.sum), number_cells(&table.out));
    let out_label = format!("A·V row {}", trace.t + 1);
    view! {
        <DataTable
            test_id="blend-table"
            class="vectors"
            caption=blend_caption(&tokens[trace.t], trace.t, dims, trace.head_size)
            columns=columns
        >
            <tbody>{rows}</tbody>
            <tfoot>
                <tr>
                    <th scope="row">"Σ w·v"</th>
                    <td></td>
                    {blank()}
                    {sum}
                </tr>
                <tr>
                    <th scope="row">{out_label}</th>
                    <td></td>
                    {blank()}
                    {out}
                </tr>
            </tfoot>
        </DataTable>
    }
}

/// One vector as a wrapping list of numbers (3 decimals), labelled by `label`.
fn vector_view(label: String, values: &[f64], testid: &'static str) -> impl IntoView {
    let cells = vector_cells(values)
        .into_iter()
        .map(|c| view! { <span class="num">{c}</span> })
        .collect_view();
    view! {
        <div>
            <dt>{label}</dt>
            <dd class="vec" data-testid=testid>{cells}</dd>
        </div>
    }
}

/// What q, k and v are for, and the selected row's x, q, k and v with their check.
#[component]
fn QkvVectors(qkv: QkvRow, token: String, head: usize, d_model: usize) -> impl IntoView {
    let d = qkv.q.len();
    let t = qkv.t;
    view! {
        <h3 class="step-sub">"What queries, keys and values are for"</h3>
        <p data-testid="qkv-intro">{qkv_intro(d_model, d)}</p>
        <ul class="qkv-roles">
            <li>
                "the " <dfn>"query"</dfn> " q = x·W_q: what this token is looking for;"
            </li>
            <li>
                "the " <dfn>"key"</dfn> " k = x·W_k: what it offers to be found by (the queries of its own "
                "and of later rows are compared with it);"
            </li>
            <li>
                "the " <dfn>"value"</dfn> " v = x·W_v: what it hands over to every row that attends to it, "
                "in proportion to that row's weight."
            </li>
        </ul>
        <p>
            "Stacked for all T tokens these rows are the T × d matrices Q = X·W_q, K = X·W_k and V = X·W_v. "
            "A row's weights come from its query against the keys; its output is made of the values. Row "
            {t + 1} " (" {quote(&token)} ") of head " {head + 1} ":"
        </p>
        <dl class="vectors" data-testid="qkv-vectors">
            {vector_view(format!("x, row {} of X ({} numbers)", t + 1, qkv.x.len()), &qkv.x, "qkv-x")}
            {vector_view(format!("q = x·W_q ({d} numbers)"), &qkv.q, "qkv-q")}
            {vector_view(format!("k = x·W_k ({d} numbers)"), &qkv.k, "qkv-k")}
            {vector_view(format!("v = x·W_v ({d} numbers)"), &qkv.v, "qkv-v")}
        </dl>
        <HowWeKnow>
            <p class="check" data-testid="qkv-check">{qkv_check(&qkv)}</p>
        </HowWeKnow>
    }
}
