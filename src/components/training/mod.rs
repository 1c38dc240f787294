//! "Train a model" (issue 13): train a tiny attention-only transformer in the browser and watch
//! its heads form. The run lives in [`crate::state::Training`]; these components show it.

mod controls;
mod detector_table;
mod head_grid;
mod loss_curve;

use crate::state::{AppState, Training};
use crate::text::training_status;
use controls::TrainingControls;
use detector_table::DetectorTable;
use head_grid::HeadGrid;
use leptos::prelude::*;
use loss_curve::LossCurve;

/// The whole panel.
#[component]
pub fn TrainingPanel() -> impl IntoView {
    let training = Training::new(AppState::from_context());
    provide_context(training);
    let status = move || {
        training_status(
            training.steps.get(),
            training.settings.with(|s| s.task.name()),
        )
    };
    view! {
        <section class="panel training" aria-labelledby="training-title" data-testid="training">
            <h2 id="training-title">"Train a model"</h2>
            <p>
                "A tiny transformer made of attention alone (no MLP, no LayerNorm) learns a task here, step by step. "
                "Repeat task: a random segment appears twice in 16 random tokens; once the model learns to copy, "
                "the loss on the repeated part drops far below the first copy's, and a previous-token head and an "
                "induction head appear."
            </p>
            <TrainingControls />
            <p class="note" data-testid="training-status" aria-live="polite">{status}</p>
            <LossCurve />
            <HeadGrid />
            <DetectorTable />
        </section>
    }
}

/// The run the panel provides.
fn use_training() -> Training {
    use_context::<Training>().expect("Training is provided by TrainingPanel")
}
