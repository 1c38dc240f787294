//! The notebook's steps as tabs: averaging the past (1–2), query/key/value attention traced for one
//! row (3), and why scores are divided by √d (4).

use crate::app::{AppState, Shared};
use crate::charts::canvas::{device_pixel_ratio, size_canvas};
use crate::charts::lab_chart::{draw_lab_chart, SCALED, UNSCALED};
use crate::charts::strip::{Strip, StripRows};
use crate::components::format::{fixed, percent, quote, scientific};
use crate::components::heatmap::Heatmap;
use crate::components::size::{observed_visibility, observed_width};
use crate::model::attention::{averaging_matrix, logit_scale, running_mean_loop};
use crate::model::explorer::Prepared;
use crate::model::scaling_lab::{scaling_lab, Spread, DRAWS, HEAD_SIZES, KEYS, NOTEBOOK_DRAWS};
use crate::model::url_state::Step;
use leptos::html;
use leptos::prelude::*;
use std::sync::Arc;

fn step_title(step: Step) -> &'static str {
    match step {
        Step::Averaging => "Steps 1–2 · Average the past",
        Step::Attention => "Step 3 · Queries, keys, values",
        Step::Scaling => "Step 4 · Why divide by √d",
    }
}

#[component]
pub fn Lesson() -> impl IntoView {
    let state = AppState::from_context();
    let on_key = move |ev: leptos::ev::KeyboardEvent| {
        let i = Step::ALL
            .iter()
            .position(|s| *s == state.step.get_untracked())
            .unwrap_or(0);
        let next = match ev.key().as_str() {
            "ArrowRight" => (i + 1) % Step::ALL.len(),
            "ArrowLeft" => (i + Step::ALL.len() - 1) % Step::ALL.len(),
            "Home" => 0,
            "End" => Step::ALL.len() - 1,
            _ => return,
        };
        ev.prevent_default();
        state.step.set(Step::ALL[next]);
        if let Some(el) = crate::components::browser::window()
            .document()
            .and_then(|d| d.get_element_by_id(&format!("tab-{}", Step::ALL[next].key())))
        {
            use wasm_bindgen::JsCast;
            if let Ok(el) = el.dyn_into::<web_sys::HtmlElement>() {
                let _ = el.focus();
            }
        }
    };
    view! {
        <section class="panel lesson" aria-labelledby="lesson-title">
            <h2 id="lesson-title">"From averaging to attention, step by step"</h2>
            <div class="tabs" role="tablist" aria-label="Lesson steps" on:keydown=on_key>
                {Step::ALL
                    .into_iter()
                    .map(|s| {
                        let selected = move || state.step.get() == s;
                        view! {
                            <button
                                type="button"
                                role="tab"
                                id=format!("tab-{}", s.key())
                                aria-controls="lesson-panel"
                                aria-selected=move || if selected() { "true" } else { "false" }
                                tabindex=move || if selected() { "0" } else { "-1" }
                                on:click=move |_| state.step.set(s)
                            >
                                {step_title(s)}
                            </button>
                        }
                    })
                    .collect_view()}
            </div>
            <div
                id="lesson-panel"
                role="tabpanel"
                aria-labelledby=move || format!("tab-{}", state.step.get().key())
                data-step=move || state.step.get().key()
            >
                {move || match state.step.get() {
                    Step::Averaging => view! { <AveragingStep /> }.into_any(),
                    Step::Attention => view! { <AttentionTrace /> }.into_any(),
                    Step::Scaling => view! { <ScalingLab /> }.into_any(),
                }}
            </div>
        </section>
    }
}

/// Largest absolute difference between two equally sized matrices.
fn max_abs_diff(a: &nalgebra::DMatrix<f64>, b: &nalgebra::DMatrix<f64>) -> f64 {
    (a - b).abs().max()
}

#[component]
fn AveragingStep() -> impl IntoView {
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

/// What the trace's table and its last strips show for the selected row, at the current τ.
#[derive(Clone, PartialEq)]
struct TraceData {
    /// Selected row t, head size d, τ and head index.
    t: usize,
    d: usize,
    tau: f64,
    head: usize,
    /// Raw scores q_t · k_j and weights of row t, over every key.
    raw: Vec<f64>,
    weights: Vec<f64>,
    /// Σ_j w_j v_j, row t of A·V and their largest difference.
    blended: Vec<f64>,
    out_row: Vec<f64>,
    diff: f64,
    /// The model all of this comes from (its tokens label the rows): while the trace is off
    /// screen the page's tokens may already be newer.
    prepared: Shared<Prepared>,
}

#[component]
fn AttentionTrace() -> impl IntoView {
    let state = AppState::from_context();
    let trace_ref = NodeRef::<html::Div>::new();
    let on_screen = observed_visibility(trace_ref);
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
            let proj = &p.heads[h];
            let w = &a[h];
            let t = t.min(p.len() - 1);
            let d = proj.head_size();
            let raw: Vec<f64> = (0..p.len()).map(|j| proj.scores[(t, j)]).collect();
            let weights: Vec<f64> = (0..p.len()).map(|j| w[(t, j)]).collect();
            let blended: Vec<f64> = (0..d)
                .map(|c| (0..=t).map(|j| weights[j] * proj.v[(j, c)]).sum())
                .collect();
            // Row t of A·V from nalgebra's matrix product (the same code the model's outputs
            // use), to check the explicit blend against.
            let output = &**w * &proj.v;
            let out_row: Vec<f64> = (0..d).map(|c| output[(t, c)]).collect();
            let diff = blended
                .iter()
                .zip(&out_row)
                .map(|(a, b)| (a - b).abs())
                .fold(0.0, f64::max);
            Some(TraceData {
                t,
                d,
                tau,
                head: h,
                raw,
                weights,
                blended,
                out_row,
                diff,
                prepared: prepared.clone(),
            })
        })
    });
    // The strips: q_t, every key's k and v (the future's hidden), Σ w·v and row t of A·V. The k
    // and v strips are painted once per model and head; a row click or τ step relabels, hides
    // and repaints only what changed.
    let strips_ref = NodeRef::<html::Div>::new();
    // The strip elements, and the model, head and row their q, k and v were painted for.
    type Painted = (StripRows, Option<(Shared<Prepared>, usize, usize)>);
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
            let key = (tr.prepared.clone(), tr.head, tr.t);
            let (model_changed, row_changed) = strips_drawn.with_value(|(_, old)| match old {
                Some((prepared, head, t)) => (*prepared != key.0 || *head != key.1, *t != key.2),
                None => (true, true),
            });
            let row = |m: &nalgebra::DMatrix<f64>, i: usize, repaint: bool| {
                repaint.then(|| (0..m.ncols()).map(|c| m[(i, c)]).collect::<Vec<f64>>())
            };
            let name = |kind: &str, j: usize| format!("{kind} {}", p.config.tokens[j]);
            let q = name("q", tr.t);
            let mut strips = vec![Strip {
                label: q.clone(),
                name: q,
                values: row(&proj.q, tr.t, model_changed || row_changed),
                hidden: false,
            }];
            for j in 0..p.len() {
                let k = name("k", j);
                strips.push(Strip {
                    label: k.clone(),
                    name: k,
                    values: row(&proj.k, j, model_changed),
                    hidden: j > tr.t,
                });
            }
            for j in 0..p.len() {
                let v = name("v", j);
                strips.push(Strip {
                    label: format!("{v} × {}", fixed(tr.weights[j], 3)),
                    name: v,
                    values: row(&proj.v, j, model_changed),
                    hidden: j > tr.t,
                });
            }
            let out = format!("A·V row {}", tr.t + 1);
            strips.push(Strip {
                label: "Σ w·v".to_string(),
                name: "Σ w·v".to_string(),
                values: Some(tr.blended.clone()),
                hidden: false,
            });
            strips.push(Strip {
                label: out.clone(),
                name: out,
                values: Some(tr.out_row.clone()),
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
                let TraceData { t, d, tau, head: h, raw, weights, diff, prepared, .. } = tr;
                let (t, d, tau, h, diff) = (*t, *d, *tau, *h, *diff);
                let sqrt_d = (d as f64).sqrt();
                let sum: f64 = weights.iter().sum();
                let scale = logit_scale(d, tau);
                // The snapshot's tokens, not the live ones (see `TraceData::prepared`).
                let tokens = &prepared.0.config.tokens;
                let name = &tokens[t];
                let rows = tokens
                    .iter()
                    .enumerate()
                    .map(|(j, key)| {
                        let masked = j > t;
                        let scaled = raw[j] * scale;
                        view! {
                            <tr class:masked=masked>
                                <th scope="row">{key.clone()}</th>
                                <td class="num">{fixed(raw[j], 3)}</td>
                                <td class="num">{fixed(raw[j] / sqrt_d, 3)}</td>
                                <td class="num">{fixed(scaled, 3)}</td>
                                <td class="num">{if masked { "−∞".to_string() } else { fixed(scaled, 3) }}</td>
                                <td class="num">{if masked { "0 (masked)".to_string() } else { fixed(weights[j], 4) }}</td>
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
                    <div class="table-scroll">
                        <table class="trace" data-testid="trace-table">
                            <caption>{format!("Trace of {} (row {}), head {}, d = {d}, τ = {}", quote(name), t + 1, h + 1, fixed(tau, 3))}</caption>
                            <thead>
                                <tr>
                                    <th scope="col">"key"</th>
                                    <th scope="col">"q·k"</th>
                                    <th scope="col">{format!("÷ √d (= {})", fixed(sqrt_d, 2))}</th>
                                    <th scope="col">"÷ τ"</th>
                                    <th scope="col">"mask"</th>
                                    <th scope="col">"softmax"</th>
                                </tr>
                            </thead>
                            <tbody>{rows}</tbody>
                            <tfoot>
                                <tr>
                                    <th scope="row" colspan="5">"sum of weights"</th>
                                    <td class="num" data-testid="trace-sum">{fixed(sum, 12)}</td>
                                </tr>
                            </tfoot>
                        </table>
                    </div>
                    <p class="check" data-testid="trace-check">
                        {format!(
                            "{} Σ w·v equals row {} of A·V: largest difference {}.",
                            if diff < 1e-12 { "✓" } else { "✗" },
                            t + 1,
                            scientific(diff, 1)
                        )}
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

/// A lab table cell: mean to 3 decimals, then the 10th–90th percentile band.
fn lab_cell(spread: &Spread) -> String {
    format!(
        "{} ({}–{})",
        fixed(spread.mean, 3),
        fixed(spread.p10, 2),
        fixed(spread.p90, 2)
    )
}

#[component]
fn ScalingLab() -> impl IntoView {
    let state = AppState::from_context();
    let points = Memo::new(move |_| Shared(Arc::new(scaling_lab(DRAWS, 1337))));
    let canvas_ref = NodeRef::<html::Canvas>::new();
    let wrap_ref = NodeRef::<html::Div>::new();
    let wrap_width = observed_width(wrap_ref);
    Effect::new(move |_| {
        let Some(canvas) = canvas_ref.get() else {
            return;
        };
        let theme = state.theme.get();
        let width = wrap_width.get().clamp(260.0, 720.0);
        let height = (width * 0.6).clamp(220.0, 360.0);
        let dpr = device_pixel_ratio();
        size_canvas(&canvas, width, height, dpr);
        let d = state.lab_head_size.get();
        points.with(|p| {
            if let Err(e) = draw_lab_chart(&canvas, p, d, theme, dpr) {
                leptos::logging::error!("lab chart drawing failed: {e:?}");
            }
        });
    });
    let current = move || {
        let d = state.lab_head_size.get();
        points.with(|p| p.iter().find(|x| x.head_size == d).copied())
    };
    view! {
        <p>
            "A dot product adds up d products, so its typical size grows like √d. Below, one query is scored "
            "against " {KEYS} " keys, all with independent unit-normal entries, " {DRAWS}
            " seeded times per head size; the chart shows the largest softmax weight on average (line) and "
            "between its 10th and 90th percentiles (band). Hollow rings are the notebook's single draws."
        </p>
        <div class="field">
            <label for="lab-d">"Head size d"</label>
            <select
                id="lab-d"
                on:change:target=move |ev| {
                    if let Ok(d) = ev.target().value().parse::<usize>() {
                        if HEAD_SIZES.contains(&d) {
                            state.lab_head_size.set(d);
                        }
                    }
                }
            >
                {HEAD_SIZES
                    .iter()
                    .map(|&d| view! { <option value=d.to_string() selected=move || state.lab_head_size.get() == d>{d}</option> })
                    .collect_view()}
            </select>
        </div>
        <p class="legend-line">
            <span class="swatch" style=format!("background:{}", UNSCALED.css())></span> "unscaled softmax(q·k) "
            <span class="swatch square" style=format!("background:{}", SCALED.css())></span> "scaled softmax(q·k/√d)"
        </p>
        <div class="lab-wrap" node_ref=wrap_ref>
            <canvas
                node_ref=canvas_ref
                role="img"
                aria-label="Line chart of the largest softmax weight against head size: unscaled rises toward 1, scaled stays near 0.36. The table below gives the values."
            ></canvas>
        </div>
        <p data-testid="lab-readout">
            {move || current().map(|p| format!(
                "At d = {}: unscaled {} (10–90 %: {}–{}), scaled {} (10–90 %: {}–{}) over {DRAWS} draws.",
                p.head_size,
                fixed(p.unscaled.mean, 2),
                fixed(p.unscaled.p10, 2),
                fixed(p.unscaled.p90, 2),
                fixed(p.scaled.mean, 2),
                fixed(p.scaled.p10, 2),
                fixed(p.scaled.p90, 2)
            ))}
        </p>
        <p>
            {NOTEBOOK_DRAWS
                .iter()
                .map(|(d, u, s)| format!(
                    "The notebook's single draw at d = {d}: {} unscaled, {} scaled. ",
                    fixed(*u, 2),
                    fixed(*s, 2)
                ))
                .collect::<String>()}
        </p>
        <div class="table-scroll">
            <table class="lab" data-testid="lab-table">
                <caption>"Largest softmax weight over 8 keys (mean, 10th–90th percentile)"</caption>
                <thead>
                    <tr>
                        <th scope="col">"d"</th>
                        <th scope="col">"unscaled"</th>
                        <th scope="col">"scaled by 1/√d"</th>
                    </tr>
                </thead>
                <tbody>
                    {move || points.with(|p| p.iter().map(|x| {
                        let selected = x.head_size == state.lab_head_size.get();
                        view! {
                            <tr class:selected=selected>
                                <th scope="row">{x.head_size}</th>
                                <td class="num">{lab_cell(&x.unscaled)}</td>
                                <td class="num">{lab_cell(&x.scaled)}</td>
                            </tr>
                        }
                    }).collect_view())}
                </tbody>
            </table>
        </div>
    }
}
