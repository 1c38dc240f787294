//! The trained weights' side of the state: fetching the grammar checkpoint when the learner picks
//! it (data beside the app, `checkpoints/grammar.bin`, fetched once, never built into the wasm),
//! or reading the model the learner trained on the training page from this browser's storage,
//! and keeping the head count and the position switch equal to the checkpoint's while its
//! weights are shown, so every control, heading and link describes the model on screen.

use super::{ExplorerModel, ViewSignals};
use crate::model::train::page::checkpoint_file::{decode, Checkpoint, CheckpointTask};
use crate::model::trained::WeightsChoice;
use crate::web::fetch::fetch_bytes;
use crate::web::saved_model::load_your_model;
use leptos::prelude::*;
use std::sync::Arc;

/// The model the training page saved in this browser, or why there is none to show.
pub fn read_your_model() -> Result<Arc<Checkpoint>, String> {
    match load_your_model() {
        Ok(Some(bytes)) => decode(&bytes)
            .map(Arc::new)
            .map_err(|e| format!("Your saved model could not be read: {e}.")),
        Ok(None) => Err("No model of yours is saved in this browser: train the tiny grammar on the training page, then choose “Show this model in the explorer”.".into()),
        Err(e) => Err(format!("Your model could not be read: {e}.")),
    }
}

/// Fetches and decodes the tiny grammar's shipped checkpoint (`checkpoints/grammar.bin`), for
/// the explorer's trained weights and the generate page.
pub async fn fetch_grammar_checkpoint() -> Result<Arc<Checkpoint>, String> {
    let url = format!("checkpoints/{}", CheckpointTask::Grammar.file_name());
    let bytes = fetch_bytes(&url).await?;
    decode(&bytes)
        .map(Arc::new)
        .map_err(|e| format!("The trained weights could not be read: {e}."))
}

/// The checkpoint as loaded so far: `None` before it is asked for (or while it loads).
pub type Loaded = Option<Result<Arc<Checkpoint>, String>>;

/// Fetches the checkpoint the first time trained weights are chosen (again after a failure), and
/// keeps `heads` and `positions` in step with it while it is in use.
pub fn load_trained_weights(view: ViewSignals, model: ExplorerModel) {
    let loading = StoredValue::new(false);
    // The learner's own model: read from this browser's storage when chosen (it is quick).
    Effect::new(move |_| {
        if view.weights.get() == WeightsChoice::Yours && model.yours.with_untracked(Option::is_none)
        {
            model.yours.set(Some(read_your_model()));
        }
    });
    Effect::new(move |_| {
        let wanted = view.weights.get() == WeightsChoice::Grammar;
        let missing = model.trained.with(|t| !matches!(t, Some(Ok(_))));
        if !wanted || !missing || loading.get_value() {
            return;
        }
        loading.set_value(true);
        leptos::task::spawn_local(async move {
            let loaded = fetch_grammar_checkpoint().await;
            loading.set_value(false);
            model.trained.set(Some(loaded));
        });
    });
    Effect::new(move |_| {
        model.prepared.with(|p| {
            if let Some(c) = p.weights.checkpoint() {
                let heads = c.model.config().heads;
                if view.heads.get_untracked() != heads {
                    view.set_heads(heads);
                }
                if !view.positions.get_untracked() {
                    view.positions.set(true);
                }
            }
        });
    });
}
