//! "Replay": a range slider over the kept checkpoints (and the latest evaluation), choosing the
//! step the head grid and the detector table show.

use super::use_training;
use crate::model::train::checkpoints::MAX_CHECKPOINTS;
use crate::text::{checkpoints_note, replay_readout};
use leptos::prelude::*;

#[component]
pub(super) fn Replay() -> impl IntoView {
    let training = use_training();
    // The slider's positions: the kept checkpoints' steps, then the latest evaluation's if later.
    let positions = Memo::new(move |_| {
        training.evals.track();
        training.with(|t| {
            let Some(t) = t else { return Vec::new() };
            let mut steps: Vec<usize> = t.checkpoints.kept().iter().map(|&(s, _)| s).collect();
            let latest = t.latest().map_or(0, |e| e.step);
            if steps.last().is_none_or(|&last| latest > last) {
                steps.push(latest);
            }
            steps
        })
    });
    let last = move || positions.with(|p| p.len().saturating_sub(1));
    // The position of the shown step: the latest (rightmost) unless a checkpoint is chosen.
    let value = move || match training.replay.get() {
        None => last(),
        Some(step) => positions.with(|p| p.partition_point(|&s| s <= step).saturating_sub(1)),
    };
    let readout = move || {
        training.shown.with(|s| {
            s.as_ref()
                .map(|s| replay_readout(s.eval.step, s.latest))
                .unwrap_or_default()
        })
    };
    let note = move || {
        training.evals.track();
        training.with(|t| {
            t.map(|t| {
                checkpoints_note(
                    t.checkpoints.kept().len(),
                    t.checkpoints.interval(),
                    MAX_CHECKPOINTS,
                )
            })
        })
    };
    view! {
        <div class="row replay">
            <label for="train-replay">"Replay"</label>
            <input
                id="train-replay"
                type="range"
                min="0"
                max=move || last().to_string()
                step="1"
                prop:value=move || value().to_string()
                aria-valuetext=readout
                on:input:target=move |ev| {
                    let Ok(i) = ev.target().value().parse::<usize>() else { return };
                    let chosen = positions.with(|p| p.get(i).copied());
                    training.replay.set(if i >= last() { None } else { chosen });
                }
            />
            <output for="train-replay" data-testid="replay-step">{readout}</output>
        </div>
        <p class="hint" data-testid="checkpoints-note">
            {note}
            " The rightmost position follows the latest evaluation while it trains."
        </p>
    }
}
