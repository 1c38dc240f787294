//! Run B's section, when the link has a run B: what it changes, when each run formed its circuit
//! (or came near its floor), a mistaken run's loss with correct attention, run B's loss table,
//! head grid, detector table and download. Inside the section the views' run is run B (this
//! component provides it); its curves are on run A's loss chart, dashed.

use super::detector_table::DetectorTable;
use super::head_grid::{DownloadModel, HeadGrid};
use super::{circuit_chance, use_runs, use_training};
use crate::components::data_table::DataTable;
use crate::format::grouped;
use crate::model::train::lab::evaluation::EvalPoint;
use crate::model::train::page::settings::TrainSettings;
use crate::state::Training;
use crate::text::{as_used_note, loss_cell, run_b_title, run_gap_note, run_milestone, steps_word};
use leptos::prelude::*;

/// Run B's section, if the link has a run B.
#[component]
pub(super) fn RunB() -> impl IntoView {
    let runs = use_runs();
    view! {
        <Show when=move || runs.change.with(Option::is_some)>
            <RunBSection />
        </Show>
    }
}

/// A run's milestone in words: the repeat task's circuit, or the grammar's floor.
fn milestone(name: &str, t: Training) -> String {
    t.run.evals.track();
    let repeat = t.settings.with(TrainSettings::is_repeat);
    let chance = circuit_chance(t);
    let at = if repeat {
        t.circuit_formed_at.get()
    } else {
        t.with(|r| r?.near_floor_at())
    };
    let latest = t.with(|r| r?.latest().map(|e| e.step));
    run_milestone(name, repeat, chance, at, latest)
}

/// A row of run B's loss table: the columns that apply (see [`RunBSection`]).
fn loss_row(e: &EvalPoint, used: bool, repeat: bool) -> impl IntoView {
    let cell = |x: Option<f64>| {
        view! { <td class="num" data-value=x.map(|l| l.to_string())>{loss_cell(x)}</td> }
    };
    view! {
        <tr>
            <td class="num">{e.step}</td>
            {cell(Some(e.loss))}
            {used.then(|| cell(Some(e.as_used().loss)))}
            {repeat.then(|| view! { {cell(e.first_copy_loss)} {cell(e.repeated_loss)} })}
        </tr>
    }
}

#[component]
fn RunBSection() -> impl IntoView {
    let runs = use_runs();
    let a = use_training();
    let b = runs.b;
    provide_context(b);
    let title = move || runs.change.get().map(run_b_title);
    let used = move || {
        b.run.evals.track();
        let mistake = runs.b_mistake()?;
        b.with(|r| {
            let r = r?;
            let e = r.latest()?;
            let vocab = r.config().model.vocab;
            Some(as_used_note(
                mistake,
                e.step,
                e.loss,
                e.as_used().loss,
                vocab,
            ))
        })
    };
    let has_used = move || runs.b_mistake().is_some();
    let rows = Memo::new(move |_| {
        b.run.evals.track();
        b.with(|r| r.map(|r| r.table_evals().cloned().collect::<Vec<EvalPoint>>()))
            .unwrap_or_default()
    });
    view! {
        <section class="run-b" data-testid="run-b" aria-labelledby="run-b-title">
            <h3 id="run-b-title" class="sub">{title}</h3>
            <p data-testid="run-b-steps">
                "Run B has trained for " <output aria-live="off">{move || grouped(b.run.steps.get() as u64)}</output>
                {move || format!(" {}.", steps_word(b.run.steps.get()))}
            </p>
            // While the two runs' step counts differ: run A's, and why.
            {move || {
                run_gap_note(a.run.steps.get(), b.run.steps.get(), (a.run.target.get(), b.run.target.get()))
                    .map(|note| view! { <p class="hint" data-testid="run-gap">{note}</p> })
            }}
            <p class="error" role="alert">{move || b.run.error.get()}</p>
            <ul class="ab-summary" data-testid="ab-summary">
                <li>{move || milestone("Run A", a)}</li>
                <li>{move || milestone("Run B", b)}</li>
            </ul>
            {move || used().map(|text| view! { <p data-testid="as-used">{text}</p> })}
            <details>
                <summary>"Run B's loss table (the kept checkpoints and the latest evaluation, newest first)"</summary>
                {move || {
                    // Only the columns that apply: the second measure after a mistake, the two
                    // halves for the repeat task.
                    let (used, repeat) = (has_used(), b.settings.with(TrainSettings::is_repeat));
                    let mut columns = vec!["step".to_string(), "all, as it trains".to_string()];
                    if used {
                        columns.push("all, with correct attention".to_string());
                    }
                    if repeat {
                        columns.push("first copy, as it trains".to_string());
                        columns.push("repeated part, as it trains".to_string());
                    }
                    view! {
                        <DataTable
                            test_id="run-b-loss-table"
                            class="loss"
                            caption="Run B's mean next-token loss in nats on the held-out sequences"
                            columns=columns
                        >
                            <tbody>
                                {move || rows.with(|rows| rows.iter().map(|e| loss_row(e, used, repeat)).collect_view())}
                            </tbody>
                        </DataTable>
                    }
                }}
            </details>
            <div class="run-b-heads">
                <HeadGrid knockouts=false />
                <DetectorTable only_possible_checks=true />
            </div>
            <DownloadModel knockouts=false />
        </section>
    }
}
