//! The loss curve (held-out loss, and for the repeat task the first copy and the repeated part;
//! for the tiny grammar the exact expected floor of its held-out loss; a line at the step where the copying
//! circuit first formed, or where the grammar's loss first came near its floor), its table, the
//! grammar's distance from that floor, and the repeat task's verdict with "try another seed" when
//! the run is stuck.

use super::{use_runs, use_training};
use crate::charts::loss_chart::{draw_loss_chart, AS_USED, FIRST_COPY, HELD_OUT, REPEATED};
use crate::components::data_table::DataTable;
use crate::hooks::use_canvas;
use crate::model::train::page::run_record::RunRecord;
use crate::model::train::page::settings::TrainSettings;
use crate::state::ViewSignals;
use crate::text::{
    first_copy_note, floor_legend, grammar_verdict, loss_cell, loss_chart_label, loss_explainer,
    loss_table_caption, repeat_verdict, Milestone, LOSS_CHART_RUN_B, LOSS_CHART_RUN_B_USED,
    NO_COPIES,
};
use leptos::html;
use leptos::prelude::*;

#[component]
pub(super) fn LossCurve() -> impl IntoView {
    let view = ViewSignals::from_context();
    let training = use_training();
    let runs = use_runs();
    let run_b = runs.b;
    let has_b = move || runs.change.with(Option::is_some);
    // Run B trained with a mistake: its loss with correct attention is drawn too.
    let b_used = move || runs.b_mistake().is_some();
    let canvas_ref = NodeRef::<html::Canvas>::new();
    let wrap_ref = NodeRef::<html::Div>::new();
    let floors = Memo::new(move |_| training.settings.with(TrainSettings::grammar_floors));
    // The floor the chart draws: the held-out one (the chart plots held-out loss).
    let floor = Memo::new(move |_| floors.get().map(|f| f.held_out));
    // The tiny grammar: the first evaluation near its floor.
    let near_floor_at = Memo::new(move |_| {
        training.run.evals.track();
        floor.get()?;
        training.with(|t| t?.near_floor_at())
    });
    // The step the chart marks: one of the two (each task has one of them).
    let milestone = Memo::new(move |_| match training.circuit_formed_at.get() {
        Some(step) => Some(Milestone::CircuitFormed(step)),
        None => near_floor_at.get().map(Milestone::NearFloor),
    });
    use_canvas("loss chart", canvas_ref, Some(wrap_ref), move |pass| {
        training.run.evals.track();
        run_b.run.evals.track();
        let floor = floor.get();
        let marked = milestone.get().map(Milestone::step);
        let width = pass.width.clamp(260.0, 720.0);
        let height = (width * 0.5).clamp(200.0, 300.0);
        let evaluated = training.with(|t| {
            let evals = t.map_or(&[][..], RunRecord::evals);
            run_b.with(|b| {
                let b = b.map_or(&[][..], RunRecord::evals);
                pass.paint_whole((width, height), |canvas| {
                    draw_loss_chart(canvas, evals, b, floor, marked, pass.theme, pass.dpr)
                });
            });
            t.is_some()
        });
        // The training page's first drawing of a run's first evaluation (which a worker may take
        // a moment to send): tests wait for it, and the offline service worker registers after
        // it (`web::service_worker`).
        if evaluated {
            pass.mark_ready();
        }
    });
    let repeat = move || training.settings.with(TrainSettings::is_repeat);
    let verdict = move || {
        training.run.evals.track();
        training.with(|t| {
            let e = t?.latest()?;
            Some((
                repeat_verdict(e.step, e.repeat_ratio()?, e.stuck()),
                e.stuck(),
            ))
        })
    };
    let grammar_line = move || {
        training.run.evals.track();
        let floors = floors.get()?;
        let first_within = near_floor_at.get();
        let sequences = training.settings.with(|s| s.config().eval_sequences);
        training.with(|t| {
            let latest = t?.latest()?;
            Some(grammar_verdict(
                latest.step,
                latest.loss,
                floors,
                sequences,
                first_within,
            ))
        })
    };
    // Repeat task: which tokens the copy losses count, and why the first copy's loss cannot fall
    // below an even guess on average.
    let first_copy = move || {
        training.run.evals.track();
        let config = training.settings.with(TrainSettings::config);
        training.with(|t| {
            let latest = t?.latest()?;
            Some(first_copy_note(
                config.model.vocab,
                latest.first_copy_loss?,
                config.eval_sequences,
                latest.step,
            ))
        })
    };
    // What the numbers mean, with the run's own starting loss (its step-0 evaluation).
    let explainer = move || {
        training.run.evals.track();
        let config = training.settings.with(TrainSettings::config);
        let start = training.with(|t| t?.evals().first().filter(|e| e.step == 0).map(|e| e.loss));
        loss_explainer(config.model.vocab, config.eval_sequences, start)
    };
    // The kept checkpoints' evaluations and the latest one, newest first: (step, loss, first
    // copy, repeated part). At most `MAX_CHECKPOINTS` + 1 rows however long the run goes on.
    let rows = Memo::new(move |_| {
        training.run.evals.track();
        training.with(|t| t.map(RunRecord::table_rows).unwrap_or_default())
    });
    view! {
        <h3 class="sub">"Loss on held-out sequences"</h3>
        <p class="legend-line">
            <span class="legend-item">
                <span class="swatch" style=format!("background:{}", HELD_OUT.css())></span>
                "all predicted tokens"
            </span>
            <Show when=repeat>
                <span class="legend-item">
                    <span class="swatch" style=format!("background:{}", FIRST_COPY.css())></span>
                    "first copy"
                </span>
                <span class="legend-item">
                    <span class="swatch" style=format!("background:{}", REPEATED.css())></span>
                    "repeated part"
                </span>
            </Show>
            <Show when=move || floor.get().is_some()>
                <span class="legend-item">
                    <span class="swatch dashed"></span>
                    {move || floor_legend(training.settings.with(|s| s.config().eval_sequences))}
                </span>
            </Show>
            <Show when=has_b>
                <span class="legend-item" data-testid="legend-runs">
                    <span class="swatch solid-line"></span>
                    "run A"
                    <span class="swatch dashed-line"></span>
                    "run B"
                </span>
            </Show>
            <Show when=b_used>
                <span class="legend-item">
                    <span class="swatch dotted-line" style=format!("border-color:{}", AS_USED.css())></span>
                    "run B, all tokens, with correct attention"
                </span>
            </Show>
            {move || milestone.get().map(|m| view! {
                <span class="legend-item" data-testid="milestone">
                    <span class="swatch vline"></span>
                    {if has_b() { "run A: " } else { "" }}
                    {m.legend()}
                </span>
            })}
        </p>
        <div class="train-chart" node_ref=wrap_ref>
            <canvas
                node_ref=canvas_ref
                role="img"
                data-testid="loss-chart"
                aria-label=move || {
                    let mut label = loss_chart_label(floor.get(), milestone.get());
                    if has_b() {
                        label.push(' ');
                        label.push_str(if b_used() { LOSS_CHART_RUN_B_USED } else { LOSS_CHART_RUN_B });
                    }
                    label
                }
            ></canvas>
        </div>
        {move || grammar_line().map(|text| view! {
            <p data-testid="grammar-verdict" data-floor=floor.get().map(|m| m.to_string())>{text}</p>
        })}
        <details class="explain">
            <summary>"What the loss means"</summary>
            <p class="hint" data-testid="loss-explainer">{explainer}</p>
            {move || first_copy().map(|text| view! { <p class="hint" data-testid="first-copy-note">{text}</p> })}
        </details>
        {move || verdict().map(|(text, stuck)| view! {
            <p data-testid="repeat-verdict" class:error=stuck>{text}</p>
            <Show when=move || stuck>
                <button
                    type="button"
                    data-testid="another-seed"
                    on:click=move |_| view.train_seed.update(|s| *s = (*s + 1) % (crate::model::url_state::MAX_SEED + 1))
                >
                    "Try another seed"
                </button>
            </Show>
        })}
        <details>
            <summary>"Loss table (the kept checkpoints and the latest evaluation, newest first)"</summary>
            <DataTable
                test_id="loss-table"
                class="loss"
                caption=move || loss_table_caption(repeat())
                columns=["step", "all", "first copy", "repeated part"]
            >
                <tbody>
                    // Keyed rows: an evaluation adds one row (and thinning drops some) instead
                    // of redrawing them all. The key holds the loss's bits, so a new run's step 0
                    // is a new row.
                    <For
                        each=move || rows.get()
                        key=|&(step, loss, _, _)| (step, loss.to_bits())
                        children=move |(step, loss, first, repeated)| {
                            view! {
                                <tr>
                                    <td class="num">{step}</td>
                                    <td class="num" data-value=loss.to_string()>{loss_cell(Some(loss))}</td>
                                    <td class="num" data-value=first.map(|l| l.to_string()) title=first.is_none().then_some(NO_COPIES)>{loss_cell(first)}</td>
                                    <td class="num" data-value=repeated.map(|l| l.to_string()) title=repeated.is_none().then_some(NO_COPIES)>{loss_cell(repeated)}</td>
                                </tr>
                            }
                        }
                    />
                </tbody>
            </DataTable>
        </details>
    }
}
