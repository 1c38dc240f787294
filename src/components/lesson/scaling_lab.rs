//! Step 4: how peaky softmax gets as the head size grows, with and without dividing by √d; the
//! variance of q·k behind it, the softmax Jacobian that says why it matters, and the ×8 example.

use super::WhenLessonSeen;
use crate::charts::lab_chart::{draw_lab_chart, SCALED, UNSCALED};
use crate::components::break_it::BreakItLink;
use crate::components::data_table::{number_cells, DataTable};
use crate::components::how_we_know::HowWeKnow;
use crate::format::fixed;
use crate::hooks::use_canvas;
use crate::model::scaling_lab::{
    scaling_lab, times_eight, two_key_nudge, DRAWS, HEAD_SIZES, KEYS, LAB_SEED, TIMES_EIGHT_D,
    TWO_KEY_GAPS, TWO_KEY_NUDGE,
};
use crate::model::temperature::unscaled_tau;
use crate::state::{ExplorerModel, Shared, ViewSignals};
use crate::text::{
    gradient_readout, lab_caption, lab_cell, lab_readout, notebook_draws, row_saturation_text,
    times_eight_text, two_key_text, variance_cell, variance_readout, GRADIENT_PLAIN,
    TRAINING_IN_BRIEF,
};
use leptos::html;
use leptos::prelude::*;
use std::sync::Arc;

/// The lab's head-size picker, chart, readout and table.
#[component]
pub(super) fn ScalingLab() -> impl IntoView {
    let view = ViewSignals::from_context();
    let model = ExplorerModel::from_context();
    let points = Memo::new(move |_| Shared(Arc::new(scaling_lab(DRAWS, LAB_SEED))));
    let canvas_ref = NodeRef::<html::Canvas>::new();
    let wrap_ref = NodeRef::<html::Div>::new();
    use_canvas("lab chart", canvas_ref, Some(wrap_ref), move |pass| {
        let width = pass.width.clamp(260.0, 720.0);
        let height = (width * 0.6).clamp(220.0, 360.0);
        let d = view.lab_head_size.get();
        points.with(|p| {
            pass.paint_whole((width, height), |canvas| {
                draw_lab_chart(canvas, p, d, pass.theme, pass.dpr)
            });
            pass.mark_ready();
        });
    });
    let current = move || {
        let d = view.lab_head_size.get();
        points.with(|p| p.iter().find(|x| x.head_size == d).copied())
    };
    // The main view's selected row, at τ = 1 and τ = 1/√d.
    let row_gradient = move || {
        let prepared = model.prepared.get();
        let p = &*prepared.0;
        let h = view.head.get().min(p.heads.len() - 1);
        let t = view.row.get().min(p.len().saturating_sub(1));
        let head = &p.heads[h];
        let top = |tau: f64| {
            let w = head.weights(tau);
            (0..=t).map(|j| w[(t, j)]).fold(0.0, f64::max)
        };
        let (scaled, unscaled) = (top(1.0), top(unscaled_tau(head.head_size())));
        row_saturation_text(&p.config.tokens[t], t, h, scaled, unscaled)
    };
    let example = times_eight(LAB_SEED);
    // "key", then the keys 1, 2, …
    let mut example_columns = vec!["key".to_string()];
    example_columns.extend((1..=KEYS).map(|j| j.to_string()));
    let example_rows = [
        ("scores ÷ 8 (scaled)", example.scaled.to_vec()),
        ("softmax", example.weights.clone()),
        ("× 8 (unscaled)", example.times_eight.to_vec()),
        ("softmax", example.weights_times_eight.clone()),
    ]
    .into_iter()
    .map(|(label, values)| {
        let cells = number_cells(&values);
        view! {
            <tr>
                <th scope="row">{label}</th>
                {cells}
            </tr>
        }
    })
    .collect_view();
    view! {
        <p>
            "A dot product adds up d products, so its typical size grows like √d. Below is a separate "
            "experiment (“the lab”) with random vectors, not the sentence above: one query is scored against "
            {KEYS} " keys, all with independent entries drawn from the standard normal distribution (mean 0, variance 1), " {DRAWS}
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
                            view.lab_head_size.set(d);
                        }
                    }
                }
            >
                {HEAD_SIZES
                    .iter()
                    .map(|&d| view! { <option value=d.to_string() selected=move || view.lab_head_size.get() == d>{d}</option> })
                    .collect_view()}
            </select>
        </div>
        <p class="legend-line">
            <span class="swatch" style=format!("background:{}", UNSCALED.css())></span> "unscaled softmax(q·k) "
            <span class="swatch square" style=format!("background:{}", SCALED.css())></span> "scaled softmax(q·k/√d)"
        </p>
        <WhenLessonSeen>
            <div class="lab-wrap" node_ref=wrap_ref>
                <canvas
                    node_ref=canvas_ref
                    role="img"
                    aria-label="Line chart of the largest softmax weight against head size: unscaled rises toward 1, scaled stays near 0.36. The table below gives the values."
                ></canvas>
            </div>
        </WhenLessonSeen>
        <p data-testid="lab-readout">
            {move || current().map(|p| lab_readout(&p))}
        </p>
        <p data-testid="lab-variance">{move || current().map(|p| variance_readout(&p))}</p>
        <HowWeKnow>
            <p data-testid="notebook-draws">{move || points.with(|p| notebook_draws(p))}</p>
        </HowWeKnow>
        <h3 class="step-sub">"Why scaling matters for learning"</h3>
        <p>{TRAINING_IN_BRIEF}</p>
        <p>{GRADIENT_PLAIN}</p>
        <p data-testid="two-key-example">{
            let [close, far] = TWO_KEY_GAPS.map(|gap| two_key_nudge(gap, TWO_KEY_NUDGE));
            two_key_text(&close, &far)
        }</p>
        <details class="precise">
            <summary>"The measurement, precisely (gradients through the softmax)"</summary>
            <p data-testid="lab-gradient">{move || current().map(|p| points.with(|all| gradient_readout(&p, all)))}</p>
        </details>
        <p data-testid="lab-row-gradient">{row_gradient}</p>
        <DataTable
            test_id="lab-table"
            class="lab"
            caption=format!("{}; variance of the scores; median gradient reaching q", lab_caption())
            columns=[
                "d",
                "unscaled",
                "scaled by 1/√d",
                "var(q·k)",
                "var(q·k/√d)",
                "gradient to q, unscaled",
                "gradient to q, scaled",
            ]
        >
            <tbody>
                {move || points.with(|p| p.iter().map(|x| {
                    let selected = x.head_size == view.lab_head_size.get();
                    view! {
                        <tr class:selected=selected>
                            <th scope="row">{x.head_size}</th>
                            <td class="num">{lab_cell(&x.unscaled)}</td>
                            <td class="num">{lab_cell(&x.scaled)}</td>
                            <td class="num">{variance_cell(x.variance_unscaled, false)}</td>
                            <td class="num">{variance_cell(x.variance_scaled, true)}</td>
                            <td class="num">{fixed(x.gradient_unscaled.median, 3)}</td>
                            <td class="num">{fixed(x.gradient_scaled.median, 3)}</td>
                        </tr>
                    }
                }).collect_view())}
            </tbody>
        </DataTable>
        <h3 class="step-sub">"The ×8 example"</h3>
        <p>
            "The lab's first seeded draw at d = " {TIMES_EIGHT_D} ", where √d = 8: its " {KEYS}
            " scores divided by 8, and the same scores multiplied back by 8, each through softmax."
        </p>
        <DataTable
            test_id="times-eight"
            class="lab times-eight"
            caption="One draw's scores and weights, scaled and ×8"
            columns=example_columns
        >
            <tbody>{example_rows}</tbody>
        </DataTable>
        <HowWeKnow>
            <p class="check" data-testid="times-eight-check">{times_eight_text(&example)}</p>
        </HowWeKnow>
        <BreakItLink />
    }
}
