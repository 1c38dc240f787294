//! Step 4: how peaky softmax gets as the head size grows, with and without dividing by √d.

use crate::charts::lab_chart::{draw_lab_chart, SCALED, UNSCALED};
use crate::hooks::use_canvas;
use crate::model::scaling_lab::{scaling_lab, DRAWS, HEAD_SIZES, KEYS, LAB_SEED};
use crate::state::{AppState, Shared};
use crate::text::{lab_caption, lab_cell, lab_readout, notebook_draws};
use leptos::html;
use leptos::prelude::*;
use std::sync::Arc;

/// The lab's head-size picker, chart, readout and table.
#[component]
pub(super) fn ScalingLab() -> impl IntoView {
    let state = AppState::from_context();
    let points = Memo::new(move |_| Shared(Arc::new(scaling_lab(DRAWS, LAB_SEED))));
    let canvas_ref = NodeRef::<html::Canvas>::new();
    let wrap_ref = NodeRef::<html::Div>::new();
    use_canvas("lab chart", canvas_ref, Some(wrap_ref), move |pass| {
        let width = pass.width.clamp(260.0, 720.0);
        let height = (width * 0.6).clamp(220.0, 360.0);
        let d = state.lab_head_size.get();
        points.with(|p| {
            pass.paint_whole((width, height), |canvas| {
                draw_lab_chart(canvas, p, d, pass.theme, pass.dpr)
            });
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
            {move || current().map(|p| lab_readout(&p))}
        </p>
        <p data-testid="notebook-draws">{move || points.with(|p| notebook_draws(p))}</p>
        <div class="table-scroll">
            <table class="lab" data-testid="lab-table">
                <caption>{lab_caption()}</caption>
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
