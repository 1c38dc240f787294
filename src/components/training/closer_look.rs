//! "Look closer": one head of the model the grid shows, at full size, with the tools the explorer
//! has for its own model: the heatmap (exact weight on hover; pick a row by click or keyboard),
//! the chosen row's weights as a table and traced stage by stage (the lesson's step-3 table: q·k,
//! ÷ √d, ÷ τ, the mask, softmax, and Σ w·v against A·V), a temperature τ that divides every layer's scores (as
//! the explorer's slider does; layer 2 then sees layer 1's changed output), and the head's weights
//! as CSV or PNG. It works for every model the page trains, whatever its shape or positions.

use super::head_tables::key_label;
use super::use_training;
use crate::components::heatmap::Heatmap;
use crate::components::trace_table::TraceTable;
use crate::format::{fixed, grouped, percent};
use crate::hooks::{seen_once, use_visibility, use_while_seen_some};
use crate::model::export::weights_csv;
use crate::model::trace::RowTrace;
use crate::model::train::shape::PositionKind;
use crate::state::Shared;
use crate::text::{
    closer_row_caption, closer_row_summary, closer_tau_note, closer_trace_hint, head_name,
    induction_walkthrough, of_run, save_failed,
};
use crate::web::download::{download_canvas_png, download_text};
use leptos::html;
use leptos::prelude::*;
use nalgebra::DMatrix;
use std::sync::Arc;

/// The temperature slider moves log₂ τ in these steps, from −3 to 3 (τ from 1/8 to 8).
const LOG_TAU_STEP: f64 = 0.25;

#[component]
pub(super) fn CloserLook() -> impl IntoView {
    let training = use_training();
    // The head and the row the learner chose; until then, where there is something to see: for the
    // repeat task layer 2, head 1 (or the only layer's first head) and the first row of the
    // second copy, an induction row; for the grammar the last row, which sees every token.
    let chosen_which = RwSignal::new(None::<usize>); // layer × heads + head
    let log_tau = RwSignal::new(0.0f64);
    let chosen_row_index = RwSignal::new(None::<usize>);
    let repeat = Memo::new(move |_| training.shown_repeat());
    let which = Signal::derive(move || {
        chosen_which.get().unwrap_or_else(|| {
            let (layers, heads) = training.settings.with(|s| (s.layers, s.heads));
            if layers > 1 {
                heads
            } else {
                0
            }
        })
    });
    let problem = RwSignal::new(None::<String>);
    let tau = move || log_tau.get().exp2();
    let shape = move || training.settings.with(|s| (s.layers, s.heads));
    // Below the first screen: every head's trace follows the evaluations only while this part is
    // on screen (it catches up when scrolled to), so a run training in a worker costs the page's
    // main thread nothing here.
    let seen = NodeRef::<html::Div>::new();
    let on_screen = use_visibility(seen);
    let shown = use_while_seen_some(on_screen, "closer-look", move || {
        training.shown_heads_at(tau())
    });
    let tokens = Memo::new(move |_| training.shown_tokens());
    // The chosen head, kept in range when a new run has fewer heads.
    let chosen = move || {
        let (layers, heads) = shape();
        let k = which.get().min(layers * heads - 1);
        (k / heads, k % heads)
    };
    let weights = Signal::derive(move || {
        let (l, h) = chosen();
        let w = shown.with(|a| {
            a.as_ref()
                .and_then(|(_, a)| Some(a.get(l)?.get(h)?.weights.clone()))
        });
        Shared(Arc::new(w.unwrap_or_else(|| DMatrix::zeros(1, 1))))
    });
    let chosen_row = move || {
        let last = weights.with(|w| w.nrows()) - 1;
        chosen_row_index
            .get()
            .or_else(|| repeat.get().map(|r| r.second()))
            .unwrap_or(last)
            .min(last)
    };
    // Nothing is drawn until the model has been evaluated: no placeholder heatmap.
    let ready = Memo::new(move |_| shown.with(Option::is_some));
    // The heatmap is built the first time this part comes near the screen, and kept: at load it is
    // far below the first screen, and building it then cost the load a layout of the whole page
    // (its width read) and a drawing nobody could see yet — 16–19 ms and 10 ms of one 35–47 ms
    // task in profiles of the VM's Chromium (2026-12-04), a long task on a phone. Its numbers are
    // in the page from the start all the same: the chosen row's table and trace below it.
    let heatmap_built = seen_once(on_screen);
    let wrap = NodeRef::<html::Div>::new();
    let name = move || {
        let (l, h) = chosen();
        format!("layer{}-head{}", l + 1, h + 1)
    };
    let csv = move |_| {
        let text = weights.with_untracked(|w| tokens.with_untracked(|t| weights_csv(t, w)));
        problem.set(
            download_text(&format!("trained-{}.csv", name()), "text/csv", &text)
                .err()
                .map(|e| save_failed("CSV", &format!("{e:?}"))),
        );
    };
    let png = move |_| {
        let saved = (|| {
            let canvas = wrap
                .get_untracked()
                .and_then(|w| w.query_selector("canvas").ok().flatten())
                .ok_or_else(|| wasm_bindgen::JsValue::from_str("no heatmap"))?;
            download_canvas_png(&format!("trained-{}.png", name()), canvas)
        })();
        problem.set(saved.err().map(|e| save_failed("image", &format!("{e:?}"))));
    };
    let row_table = move || {
        if !ready.get() {
            return None;
        }
        let i = chosen_row();
        tokens.with(|t| {
            weights.with(|w| {
                let cells: Vec<f64> = (0..=i).map(|j| w[(i, j)]).collect();
                let (l, h) = chosen();
                // The walk through an induction row, for a row in the second copy.
                let walkthrough = repeat.get().filter(|r| (r.second()..r.second() + r.len).contains(&i)).map(|r| {
                    induction_walkthrough(t, i, r, l, h, &cells)
                });
                Some(view! {
                    {walkthrough.map(|text| view! { <p data-testid="induction-walkthrough">{text}</p> })}
                    <p class="hint" data-testid="closer-summary">{closer_row_summary(t, &cells)}</p>
                    <table class="weights" data-testid="closer-row">
                        <caption>{closer_row_caption(i, t.get(i).map_or("", String::as_str))}</caption>
                        <thead><tr><th scope="col">"key"</th><th scope="col">"weight"</th></tr></thead>
                        <tbody>
                            {cells.iter().enumerate().map(|(j, &x)| view! {
                                <tr><th scope="row">{key_label(t, j)}</th><td class="num" data-value=x.to_string()>{percent(x)}</td></tr>
                            }).collect_view()}
                        </tbody>
                    </table>
                })
            })
        })
    };
    let trace = move || {
        let (l, h) = chosen();
        let i = chosen_row();
        let row = shown.with(|a| {
            let head = a.as_ref()?.1.get(l)?.get(h)?;
            Some(RowTrace::new(&head.projections, &head.weights, i, tau()))
        })?;
        let rotary = training
            .settings
            .with(|s| s.positions == PositionKind::Rotary);
        let (keys, token) = tokens.with(|t| {
            let keys: Vec<String> = (0..t.len()).map(|j| key_label(t, j)).collect();
            (keys, t.get(i).cloned().unwrap_or_default())
        });
        Some(view! {
            <p class="hint">
                {closer_trace_hint(i, l, h, rotary)}
            </p>
            <div data-testid="closer-trace">
                <TraceTable trace=row keys=keys token=token head=h layer=l />
            </div>
        })
    };
    view! {
        <div class="closer-look" node_ref=seen>
        // The step it shows: below the first screen it catches up only when scrolled to, so its
        // words (find in page, printing) say which model they describe.
        <h3 class="sub">
            {move || format!("Look closer at one head{}", of_run(training.letter.get()))}
            <span data-testid="closer-step">
                {move || shown.with(|a| a.as_ref().map(|(step, _)| format!(", the model at step {}", grouped(*step as u64))))}
            </span>
        </h3>
        <div class="row">
            <label for="closer-head">"Head"</label>
            <select
                id="closer-head"
                on:change:target=move |ev| {
                    if let Ok(k) = ev.target().value().parse::<usize>() {
                        chosen_which.set(Some(k));
                    }
                }
            >
                {move || {
                    let (layers, heads) = shape();
                    (0..layers * heads)
                        .map(|k| view! {
                            <option value=k.to_string() selected=move || which.get() == k>
                                {head_name(k / heads, k % heads)}
                            </option>
                        })
                        .collect_view()
                }}
            </select>
        </div>
        <div class="row">
            <label for="closer-tau">"Temperature"</label>
            <input
                id="closer-tau"
                type="range"
                min="-3"
                max="3"
                step=LOG_TAU_STEP
                prop:value=move || log_tau.get().to_string()
                aria-valuetext=move || format!("τ = {}", fixed(tau(), 2))
                on:input:target=move |ev| {
                    if let Ok(x) = ev.target().value().parse::<f64>() {
                        log_tau.set(x.clamp(-3.0, 3.0));
                    }
                }
            />
            <output for="closer-tau" data-testid="closer-tau">{move || format!("τ = {}", fixed(tau(), 2))}</output>
        </div>
        <p class="hint" data-testid="closer-tau-note">{move || closer_tau_note(shape().0)}</p>
        <div node_ref=wrap data-testid="closer-heatmap">
            <Show when=move || ready.get() && heatmap_built.get()>
                <Heatmap
                    weights=weights
                    tokens=tokens
                    selected_row=Signal::derive(move || Some(chosen_row()))
                    on_select=Callback::new(move |i: usize| chosen_row_index.set(Some(i)))
                    percent_labels=true
                    title="Attention heatmap of the chosen trained head"
                />
            </Show>
        </div>
        {row_table}
        {trace}
        <div class="downloads" role="group" aria-label="Downloads of the chosen head">
            <button type="button" on:click=csv>"Download this head (CSV)"</button>
            <button type="button" on:click=png>"Download this head (PNG)"</button>
        </div>
        <p class="error" role="alert">{move || problem.get()}</p>
        </div>
    }
}
