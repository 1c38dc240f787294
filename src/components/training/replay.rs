//! "Replay": a range slider over the kept checkpoints (and the latest evaluation), choosing the
//! step the head grid and the detector table show, and Play, which moves it through them from
//! the first (one checkpoint per press instead, with `prefers-reduced-motion`).

use super::use_training;
use crate::model::train::page::checkpoints::MAX_CHECKPOINTS;
use crate::text::{checkpoints_note, replay_readout, PLAY_HINT};
use leptos::prelude::*;
use std::time::Duration;

/// How long Play shows each checkpoint.
const FRAME: Duration = Duration::from_millis(350);

/// Whether the learner asked the system for reduced motion.
fn reduced_motion() -> bool {
    window()
        .match_media("(prefers-reduced-motion: reduce)")
        .ok()
        .flatten()
        .is_some_and(|m| m.matches())
}

/// One frame of Play: the next checkpoint, then the next frame, until the latest is shown (or
/// Play is paused, or started again: `token` moved on).
fn play_on(
    playing: RwSignal<bool>,
    advance: impl Fn() -> bool + Copy + 'static,
    id: u64,
    token: StoredValue<u64>,
) {
    if playing.try_get_untracked() != Some(true) || token.try_get_value() != Some(id) {
        return;
    }
    if advance() {
        set_timeout(move || play_on(playing, advance, id, token), FRAME);
    } else {
        playing.set(false);
    }
}
#[component]
pub(super) fn Replay() -> impl IntoView {
    let training = use_training();
    // The slider's positions: the kept checkpoints' steps, then the latest evaluation's if later.
    let positions = Memo::new(move |_| {
        training.run.evals.track();
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
    // Play: the next position after the shown one (from the first when the latest is shown);
    // the last position is the latest evaluation (`None`).
    let playing = RwSignal::new(false);
    let advance = move || {
        let next = match training.replay.get_untracked() {
            None => 0,
            Some(step) => positions.with_untracked(|p| p.partition_point(|&s| s <= step)),
        };
        let last = positions.with_untracked(|p| p.len().saturating_sub(1));
        let chosen = positions.with_untracked(|p| p.get(next).copied());
        training
            .replay
            .set(if next >= last { None } else { chosen });
        next < last
    };
    let token = StoredValue::new(0_u64);
    let on_play = move |_| {
        if reduced_motion() {
            advance();
            return;
        }
        if playing.get_untracked() {
            playing.set(false);
            return;
        }
        playing.set(true);
        token.update_value(|t| *t += 1);
        let id = token.get_value();
        // From the first checkpoint when the latest is shown.
        if training.replay.get_untracked().is_none() {
            training
                .replay
                .set(positions.with_untracked(|p| p.first().copied()));
        }
        set_timeout(move || play_on(playing, advance, id, token), FRAME);
    };
    let note = move || {
        training.run.evals.track();
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
            <button
                type="button"
                data-testid="replay-play"
                aria-pressed=move || if playing.get() { "true" } else { "false" }
                on:click=on_play
            >
                {move || if playing.get() { "Pause" } else { "Play" }}
            </button>
        </div>

        <details class="explain">
            <summary>"About Replay"</summary>
            <p class="hint" data-testid="checkpoints-note">
                {note}
                " The rightmost position follows the latest evaluation while it trains."
            </p>
            <p class="hint">{PLAY_HINT}</p>
        </details>
    }
}
