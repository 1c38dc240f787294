//! The measured curves: many seeded generations of the model at each sampling temperature T and
//! at each attention temperature τ, judged against the grammar. Computed in the page when the
//! learner asks, one temperature per task so the page stays responsive, then drawn as two small
//! line charts (inline SVG) with their table.

use crate::charts::curves::PlotBox;
use crate::components::data_table::DataTable;
use crate::format::{fixed, percent};
use crate::model::sampling::Sampler;
use crate::model::train::lab::generation::{
    grammar_point, GrammarPoint, ATTENTION_TEMPERATURES, SAMPLING_TEMPERATURES,
};
use crate::state::GeneratePage;
use crate::text::{curves_label, curves_spread, share_spread, CURVES_CAPTION};
use crate::web::next_task::next_task;
use leptos::prelude::*;

/// Generations per temperature (seeds 0 to 199), as the native tests measure them.
const GENERATIONS: usize = 200;
/// The prompt every generation starts from: "the" (id 0).
const PROMPT: [usize; 1] = [0];

/// One temperature of one curve: `(is τ, temperature)`, in the order they are measured.
fn plan() -> Vec<(bool, f64)> {
    let t = SAMPLING_TEMPERATURES.iter().map(|&t| (false, t));
    t.chain(ATTENTION_TEMPERATURES.iter().map(|&tau| (true, tau)))
        .collect()
}

/// One curve as a small SVG chart: grammatical share (0–100 %) against its temperature.
fn chart(
    name: &'static str,
    points: &[GrammarPoint],
    log_x: bool,
    x_range: (f64, f64),
) -> impl IntoView {
    let plot = PlotBox {
        left: 44.0,
        top: 8.0,
        width: 240.0,
        height: 120.0,
        x_range,
        y_range: (0.0, 1.0),
        log_x,
    };
    let line: Vec<(f64, f64)> = points
        .iter()
        .map(|p| (p.temperature, p.grammatical_share()))
        .collect();
    let dots = line
        .iter()
        .map(|&(x, y)| {
            let (cx, cy) = plot.place(x, y);
            view! { <circle cx=cx cy=cy r="3" /> }
        })
        .collect_view();
    let (x0, y_bottom) = plot.place(x_range.0, 0.0);
    let (x1, y_top) = plot.place(x_range.1, 1.0);
    let ticks = if log_x {
        vec![0.1, 1.0, 10.0]
    } else {
        vec![0.0, 1.0, 2.0]
    };
    let tick_labels = ticks
        .into_iter()
        .map(|x| {
            let (px, _) = plot.place(x, 0.0);
            view! { <text x=px y=y_bottom + 14.0 text-anchor="middle">{x.to_string()}</text> }
        })
        .collect_view();
    view! {
        <figure class="curve">
            <svg viewBox="0 0 300 160" role="img" aria-label=curves_label(name, points)>
                <line class="axis" x1=x0 y1=y_bottom x2=x1 y2=y_bottom />
                <line class="axis" x1=x0 y1=y_bottom x2=x0 y2=y_top />
                <text x=x0 - 4.0 y=y_bottom text-anchor="end">"0%"</text>
                <text x=x0 - 4.0 y=y_top + 8.0 text-anchor="end">"100%"</text>
                {tick_labels}
                <polyline class="series" points=plot.polyline(&line) />
                {dots}
                <text x=f64::midpoint(x0, x1) y="158" text-anchor="middle">{name}</text>
            </svg>
            <figcaption>{format!("Grammatical share against {name}")}</figcaption>
        </figure>
    }
}

/// Measures point `i` of the plan, then schedules the next one in its own task.
fn measure(
    page: GeneratePage,
    i: usize,
    points: RwSignal<Vec<(bool, GrammarPoint)>>,
    running: RwSignal<bool>,
    failed: RwSignal<Option<String>>,
) {
    let Some(&(is_tau, x)) = plan().get(i) else {
        running.set(false);
        return;
    };
    let Some(checkpoint) = page.model() else {
        return;
    };
    let (sampler, tau) = if is_tau {
        (
            Sampler {
                temperature: 1.0,
                top_k: usize::MAX,
            },
            x,
        )
    } else {
        (
            Sampler {
                temperature: x,
                top_k: usize::MAX,
            },
            1.0,
        )
    };
    match grammar_point(&checkpoint.model, &PROMPT, GENERATIONS, sampler, tau, x) {
        Ok(p) => {
            points.update(|v| v.push((is_tau, p)));
            next_task(move || measure(page, i + 1, points, running, failed));
        }
        Err(e) => {
            failed.set(Some(e));
            running.set(false);
        }
    }
}

/// The curves, measured on request, with their table.
#[component]
pub fn MeasuredCurves() -> impl IntoView {
    let page = GeneratePage::from_context();
    let points = RwSignal::new(Vec::<(bool, GrammarPoint)>::new());
    let running = RwSignal::new(false);
    let failed = RwSignal::new(None::<String>);
    let total = plan().len();
    let start = move |_| {
        points.set(Vec::new());
        failed.set(None);
        running.set(true);
        next_task(move || measure(page, 0, points, running, failed));
    };
    let shown = move || {
        points.with(|all| {
            let t: Vec<GrammarPoint> = all.iter().filter(|(is_tau, _)| !is_tau).map(|(_, p)| *p).collect();
            let tau: Vec<GrammarPoint> = all.iter().filter(|(is_tau, _)| *is_tau).map(|(_, p)| *p).collect();
            let rows = all
                .iter()
                .map(|(is_tau, p)| {
                    let varied = if *is_tau { format!("τ = {}, T = 1", fixed(p.temperature, 2)) } else { format!("T = {}, τ = 1", fixed(p.temperature, 2)) };
                    view! {
                        <tr>
                            <th scope="row">{varied}</th>
                            <td class="num">{p.sentences}</td>
                            <td class="num">{p.distinct_texts}</td>
                            <td class="num">{p.grammatical}</td>
                            <td class="num">{format!("{} ± {}", percent(p.grammatical_share()), share_spread(p))}</td>
                            <td class="num">{p.agreement_errors}</td>
                            <td class="num">{fixed(p.mean_loss, 3)}</td>
                        </tr>
                    }
                })
                .collect_view();
            (!all.is_empty()).then(|| view! {
                <div class="curves">
                    {(!t.is_empty()).then(|| chart("T", &t, false, (0.0, 2.0)))}
                    {(!tau.is_empty()).then(|| chart("τ", &tau, true, (0.1, 10.0)))}
                </div>
                <DataTable test_id="curves-table" class="weights" caption=CURVES_CAPTION columns=["Temperatures", "Sentences", "Distinct texts", "Grammatical", "Share ± standard error", "Agreement errors", "Mean loss per token (nats, at τ = 1)"]>
                    <tbody>{rows}</tbody>
                </DataTable>
                <p class="note">{curves_spread(GENERATIONS)}</p>
            })
        })
    };
    view! {
        <p class="hint">{format!(
            "Each temperature: {GENERATIONS} generations from “the” to the end of the context, generation g with seed g, every token kept (at T = 0 every seed writes the same text, so that point is one text judged {GENERATIONS} times). Every complete sentence is judged against the tiny grammar's two patterns, determiner noun verb preposition determiner noun . (“the cat sat on the mat .”) and determiner noun preposition determiner noun is/are adjective . (“the key to the cabinets is rusted .”), with “is” or “are” agreeing with the first noun; an unfinished last sentence is not judged. The loss is the one the model as trained (τ = 1, T = 1) gives the tokens it wrote."
        )}</p>
        <button type="button" data-testid="measure-curves" disabled=move || running.get() || page.model().is_none() on:click=start>
            "Measure both curves"
        </button>
        <p role="status" class="note" data-testid="curves-progress">
            {move || {
                let done = points.with(Vec::len);
                if let Some(e) = failed.get() { e } else if running.get() { format!("Measuring: {done} of {total} temperatures done…") } else if done == total { format!("Measured in this browser: all {total} temperatures.") } else { String::new() }
            }}
        </p>
        {shown}
    }
}
