//! "Train a model", the training page's panel: train a tiny attention-only transformer
//! in the browser and watch its heads form, then replay how they formed. The run lives in
//! [`crate::state::Training`]; these components show it.

mod closer_look;
mod controls;
mod detector_table;
mod head_grid;
mod head_tables;
mod knockout;
mod loss_curve;
mod open_in_explorer;
mod replay;
mod run_b;
mod saved;

use crate::components::after_first_paint::{painted_flag, painted_flag_when, AfterFirstPaint};
use crate::model::train::lab::mistakes::TrainingMistake;
use crate::model::train::page::settings::TrainSettings;
use crate::state::{Knockout, RunPair, Training, ViewSignals};
use crate::text::{
    model_explainer, step_explainer, training_status, CircuitChance, HOW_IT_WORKS_SUMMARY,
    POSITION_KINDS, TRAIN_TITLE, WHAT_TO_WATCH,
};
use closer_look::CloserLook;
use controls::TrainingControls;
use detector_table::DetectorTable;
use head_grid::{HeadGrid, ModelFiles};
use knockout::{KnockoutResults, KnockoutSwitches};
use leptos::prelude::*;
use loss_curve::LossCurve;
use replay::Replay;
use run_b::RunB;
use saved::SavedCheckpoint;

/// The whole panel.
#[component]
pub fn TrainingPanel() -> impl IntoView {
    let view = ViewSignals::from_context();
    let runs = RunPair::new(view);
    let training = runs.a;
    provide_context(runs);
    provide_context(training);
    provide_context(Knockout::new(view, training));
    let status = move || {
        training_status(
            training.run.steps.get(),
            training.settings.with(|s| s.task.name()),
            runs.running(),
        )
    };
    // The rest of the first view, after the loss chart's first frame, one part per frame (no task
    // long on a slow phone), in an order in which nothing on screen moves: what sits under the
    // loss chart, then the heads (beside it on a wide screen, under it on a narrow one), their
    // detector scores, then run B. The heads and every part after them wait for the run's first
    // evaluation (or its error), so the task that receives it updates only the loss chart and
    // what sits under it, and each of them is built with its numbers in a task of its own.
    let under_loss = painted_flag();
    let heads = painted_flag_when(move || {
        training.with(|record| record.is_some())
            || training.run.error.with_untracked(Option::is_some)
    });
    let detector = painted_flag();
    let run_b = painted_flag();
    view! {
        <section
            class="panel training"
            aria-labelledby="training-title"
            data-testid="training"
            data-engine=move || if training.run.in_worker.get() { "worker" } else { "page" }
        >
            <h2 id="training-title">{TRAIN_TITLE}</h2>
            <TrainingControls />
            <details class="how-it-works" data-testid="how-it-works">
                <summary>{HOW_IT_WORKS_SUMMARY}</summary>
                <p>{move || training.settings.with(|s| model_explainer(&s.config().model))}</p>
                <p>{move || training.settings.with(|s| {
                    let config = s.config();
                    step_explainer(config.batch, config.lr)
                })}</p>
                <p>{POSITION_KINDS}</p>
            </details>
            <Show when=move || training.settings.with(TrainSettings::is_repeat)>
                <p class="hint" data-testid="what-to-watch">{WHAT_TO_WATCH}</p>
            </Show>
            <p class="note" data-testid="training-status" aria-live="polite">{status}</p>
            // What to watch while it trains, side by side on a wide screen: the loss, Replay and
            // the knock-out switches; every head and its detector scores. The loss chart paints
            // first; the rest follows (above), in places whose size does not depend on it.
            <div class="watch">
                <div class="watch-loss">
                    <LossCurve />
                    <AfterFirstPaint with=under_loss>
                        <Replay />
                        <KnockoutSwitches />
                    </AfterFirstPaint>
                </div>
                <div class="watch-heads">
                    <AfterFirstPaint with=heads>
                        <HeadGrid />
                    </AfterFirstPaint>
                    <AfterFirstPaint with=detector>
                        <DetectorTable />
                    </AfterFirstPaint>
                </div>
            </div>
            <AfterFirstPaint with=run_b>
                <RunB />
            </AfterFirstPaint>
            // Below the first screen: built after that, one task per part.
            <AfterFirstPaint>
                <KnockoutResults />
                <ModelFiles />
            </AfterFirstPaint>
            <AfterFirstPaint>
                <CloserLook />
            </AfterFirstPaint>
            <AfterFirstPaint>
                <SavedCheckpoint />
            </AfterFirstPaint>
        </section>
    }
}

/// The run the views below show: run A, or run B inside [`RunB`]'s section (each provides it).
fn use_training() -> Training {
    use_context::<Training>().expect("Training is provided by TrainingPanel")
}

/// Whether `training`'s run can form the copying circuit (tracks its settings and its run).
fn circuit_chance(training: Training) -> CircuitChance {
    if training.mistake().is_some_and(TrainingMistake::sees_future) {
        CircuitChance::ReadsAhead
    } else if training.settings.with(|s| s.layers) < 2 {
        CircuitChance::OneLayer
    } else {
        CircuitChance::Possible
    }
}

/// Both runs, which the buttons drive.
fn use_runs() -> RunPair {
    use_context::<RunPair>().expect("RunPair is provided by TrainingPanel")
}
