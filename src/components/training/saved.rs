//! "Trained weights, at once": the task's checkpoint, trained natively by the
//! project's own code (`examples/checkpoints.rs`) and fetched on demand from `checkpoints/`, with
//! its head-detector scores measured here on the run's held-out set — the numbers
//! `tests/checkpoints.rs` pins natively, so the page and native code agree.

use super::detector_table::detector_table;
use super::use_training;
use crate::model::train::lab::detectors::{agreement_on, score_heads, AgreementReport, HeadScores};
use crate::model::train::lab::run_config::{agreement_set, held_out_set};
use crate::model::train::page::checkpoint_file::{decode, CheckpointTask};
use crate::model::train::page::settings::TaskChoice;
use crate::text::{checkpoint_unreadable, saved_checkpoint_note};
use crate::web::fetch::fetch_bytes;
use leptos::prelude::*;

/// A loaded checkpoint as the panel shows it.
#[derive(Clone, Debug, PartialEq)]
struct Saved {
    task: CheckpointTask,
    seed: u64,
    steps: u32,
    bytes: usize,
    /// How many held-out sequences the scores average over.
    held_out: usize,
    /// `[layer][head]`, on the held-out set of the checkpoint's run.
    scores: Vec<Vec<HeadScores>>,
    /// Tiny grammar: subject–verb agreement on that run's agreement sentences.
    agreement: Option<AgreementReport>,
}

async fn load(task: CheckpointTask) -> Result<Saved, String> {
    let bytes = fetch_bytes(&format!("checkpoints/{}", task.file_name())).await?;
    let checkpoint = decode(&bytes).map_err(|e| checkpoint_unreadable(&e))?;
    let config = checkpoint.config();
    let held_out = held_out_set(&config);
    Ok(Saved {
        task,
        seed: checkpoint.seed,
        steps: checkpoint.steps,
        bytes: bytes.len(),
        held_out: held_out.len(),
        scores: score_heads(&checkpoint.model, &held_out),
        agreement: agreement_on(&checkpoint.model, &agreement_set(&config)),
    })
}

fn checkpoint_task(task: TaskChoice) -> CheckpointTask {
    match task {
        TaskChoice::Repeat => CheckpointTask::Repeat,
        TaskChoice::Grammar => CheckpointTask::Grammar,
    }
}

/// The button, and the checkpoint's scores once loaded.
#[component]
pub(super) fn SavedCheckpoint() -> impl IntoView {
    let training = use_training();
    let task = Memo::new(move |_| checkpoint_task(training.settings.with(|s| s.task)));
    let loaded = RwSignal::new(None::<Result<Saved, String>>);
    let busy = RwSignal::new(false);
    let show = move |_| {
        busy.set(true);
        let task = task.get_untracked();
        leptos::task::spawn_local(async move {
            let result = load(task).await;
            loaded.set(Some(result));
            busy.set(false);
        });
    };
    let body = move || {
        let current = task.get();
        loaded.with(|l| match l {
            Some(Ok(saved)) if saved.task == current => Some(view! {
                <p class="note" data-testid="saved-note">
                    {saved_checkpoint_note(
                        match saved.task { CheckpointTask::Repeat => "repeat", CheckpointTask::Grammar => "tiny grammar" },
                        saved.seed,
                        saved.steps,
                        saved.bytes,
                        saved.held_out,
                    )}
                </p>
                {detector_table(
                    "saved-table",
                    "Head detectors of the trained checkpoint".to_string(),
                    &saved.scores,
                    saved.agreement.as_ref(),
                    true,
                )}
            }.into_any()),
            Some(Err(e)) => Some(view! { <p class="error" role="alert">{e.clone()}</p> }.into_any()),
            _ => None,
        })
    };
    view! {
        <h3 class="sub">"Trained weights, at once"</h3>
        <p class="hint">
            "Instead of waiting: the scores of this task's trained checkpoint, a file of weights the project trained with the same code."
        </p>
        <button type="button" data-testid="load-saved" disabled=move || busy.get() on:click=show>
            "Show the trained checkpoint"
        </button>
        {body}
    }
}
