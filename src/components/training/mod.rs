//! "Train a model", the training page's panel: train a tiny attention-only transformer
//! in the browser and watch its heads form, then replay how they formed. The run lives in
//! [`crate::state::Training`]; these components show it.

mod closer_look;
mod controls;
mod detector_table;
mod head_grid;
mod head_tables;
mod loss_curve;
mod open_in_explorer;
mod replay;
mod saved;

use crate::state::{Training, ViewSignals};
use crate::text::training_status;
use closer_look::CloserLook;
use controls::TrainingControls;
use detector_table::DetectorTable;
use head_grid::HeadGrid;
use leptos::prelude::*;
use loss_curve::LossCurve;
use replay::Replay;
use saved::SavedCheckpoint;

/// The whole panel.
#[component]
pub fn TrainingPanel() -> impl IntoView {
    let training = Training::new(ViewSignals::from_context());
    provide_context(training);
    let status = move || {
        training_status(
            training.steps.get(),
            training.settings.with(|s| s.task.name()),
            training.running.get(),
        )
    };
    view! {
        <section class="panel training" aria-labelledby="training-title" data-testid="training">
            <h2 id="training-title">"Train a model"</h2>
            <p>
                "A tiny transformer made of attention alone (no MLP, no LayerNorm) learns a task here, in your browser, step by step. "
                "Repeat task: a random segment of 4–8 tokens appears twice in 16 random tokens; the first copy cannot be "
                "predicted, the repeat can, by copying. With the default settings, seeds 1–16 learned to copy between steps "
                "700 and 1,450 (measured natively, see the README): the loss on the repeated part fell below 30% of the first "
                "copy's, a layer-1 head became a previous-token head and a layer-2 head an induction head. "
                "Tiny grammar: sentences such as “the cat sat on the mat .” and “the keys to the cabinet are rusted .”."
            </p>
            <TrainingControls />
            <p class="note" data-testid="training-status" aria-live="polite">{status}</p>
            <LossCurve />
            <Replay />
            <HeadGrid />
            <CloserLook />
            <DetectorTable />
            <SavedCheckpoint />
        </section>
    }
}

/// The run the panel provides.
fn use_training() -> Training {
    use_context::<Training>().expect("Training is provided by TrainingPanel")
}
