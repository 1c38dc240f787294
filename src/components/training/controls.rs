//! The training settings (they are in the link) and Train / Pause / Step once / Reset.

use super::{use_runs, use_training};
use crate::format::grouped;
use crate::model::train::page::run_b::RunChange;
use crate::model::train::page::settings::{
    TaskChoice, TrainSettings, LAYER_CHOICES, LEARNING_RATES, TRAIN_HEAD_CHOICES,
};
use crate::model::train::shape::PositionKind;
use crate::model::url_state::MAX_SEED;
use crate::state::ViewSignals;
use crate::text::{
    count_option, lr_option, positions_option, retrain_progress, run_change_label, task_option,
    training_rate, HEADS_LABEL, LAYERS_LABEL, LR_LABEL, NO_RUN_B, PAUSE_BUTTON, POSITIONS_LABEL,
    RESET_BUTTON, RUN_B_HINT, RUN_B_LABEL, RUN_B_MISTAKES, RUN_B_SETTINGS, SEED_LABEL,
    SETTINGS_HINT, SETTINGS_LEGEND, STEPS_LEAD, STEP_BUTTON, TASK_LABEL, TRAIN_BUTTON,
};
use leptos::prelude::*;

/// A `<select>` over `choices`, shown by `label`, reading and writing `signal`.
fn choice<T: Copy + PartialEq + Send + Sync + 'static>(
    id: &'static str,
    text: &'static str,
    choices: &'static [T],
    label: fn(T) -> String,
    signal: RwSignal<T>,
) -> impl IntoView {
    view! {
        <div class="row">
            <label for=id>{text}</label>
            <select
                id=id
                on:change:target=move |ev| {
                    if let Ok(i) = ev.target().value().parse::<usize>() {
                        if let Some(&c) = choices.get(i) {
                            signal.set(c);
                        }
                    }
                }
            >
                {choices
                    .iter()
                    .enumerate()
                    .map(|(i, &c)| view! {
                        <option value=i.to_string() selected=move || signal.get() == c>{label(c)}</option>
                    })
                    .collect_view()}
            </select>
        </div>
    }
}

#[component]
pub(super) fn TrainingControls() -> impl IntoView {
    let view = ViewSignals::from_context();
    let training = use_training();
    let runs = use_runs();
    let task = RwSignal::new(view.train_task.get_untracked());
    // A new task starts from its own defaults for layers and positions.
    Effect::new(move |first: Option<()>| {
        let t = task.get();
        if first.is_some() && t != view.train_task.get_untracked() {
            view.train_task.set(t);
            view.train_layers.set(t.default_layers());
            view.train_positions.set(t.default_positions());
        }
    });
    let progress = move || {
        let target = training.run.target.get()?;
        Some(retrain_progress(training.run.steps.get(), target))
    };
    let rate = move || {
        let per_step = training.settings.with(TrainSettings::tokens_per_step);
        training.run.rate.get().map(|r| training_rate(r, per_step))
    };
    view! {
        <fieldset class="field model">
            <legend>{SETTINGS_LEGEND}</legend>
            {choice("train-task", TASK_LABEL, &TaskChoice::ALL, task_option, task)}
            <div class="row">
                <label for="train-seed">{SEED_LABEL}</label>
                <input
                    id="train-seed"
                    type="number"
                    min="0"
                    max=MAX_SEED
                    step="1"
                    inputmode="numeric"
                    prop:value=move || view.train_seed.get().to_string()
                    on:change:target=move |ev| {
                        match ev.target().value().trim().parse::<u64>() {
                            Ok(s) if s <= MAX_SEED => view.train_seed.set(s),
                            _ => ev.target().set_value(&view.train_seed.get_untracked().to_string()),
                        }
                    }
                />
            </div>
            {choice("train-layers", LAYERS_LABEL, &LAYER_CHOICES, count_option, view.train_layers)}
            {choice("train-heads", HEADS_LABEL, &TRAIN_HEAD_CHOICES, count_option, view.train_heads)}
            {choice("train-positions", POSITIONS_LABEL, &PositionKind::ALL, positions_option, view.train_positions)}
            {choice("train-lr", LR_LABEL, &LEARNING_RATES, lr_option, view.train_lr)}
            <p class="hint">{SETTINGS_HINT}</p>
            <RunBChoice />
            <div class="row buttons">
                <button
                    type="button"
                    data-testid="train-toggle"
                    aria-pressed=move || if runs.running() { "true" } else { "false" }
                    on:click=move |_| {
                        if untrack(|| runs.running()) {
                            runs.pause();
                        } else {
                            runs.start();
                        }
                    }
                >
                    {move || if runs.running() { PAUSE_BUTTON } else { TRAIN_BUTTON }}
                </button>
                <button type="button" data-testid="train-step" on:click=move |_| runs.step_once()>
                    {STEP_BUTTON}
                </button>
                <button type="button" data-testid="train-reset" on:click=move |_| runs.reset()>
                    {RESET_BUTTON}
                </button>
            </div>
            <p class="error" role="alert">{move || training.run.error.get()}</p>
            <p data-testid="train-steps">
                // Not a live region (an `<output>` is one by default): it changes ten times a
                // second while training; the status line announces Train and Pause.
                {STEPS_LEAD} <output aria-live="off">{move || grouped(training.run.steps.get() as u64)}</output>
                {move || rate().map(|r| format!(" · {r}"))}
            </p>
            <p data-testid="train-progress">{progress}</p>
        </fieldset>
    }
}

/// Run B: none, or run A with one change (a training mistake or another setting), in the link
/// as `b`.
#[component]
fn RunBChoice() -> impl IntoView {
    let view = ViewSignals::from_context();
    let training = use_training();
    let runs = use_runs();
    // The menu's changes for run A's settings, and the link's if it is not among them.
    let offered = move || {
        let mut changes = RunChange::offered(training.settings.get());
        if let Some(c) = runs.change.get() {
            if !changes.contains(&c) {
                changes.insert(0, c);
            }
        }
        changes
    };
    let option = move |c: RunChange| {
        let key = c.key();
        let selected = {
            let key = key.clone();
            move || view.train_b.with(|b| *b == key)
        };
        view! { <option value=key selected=selected>{run_change_label(c)}</option> }
    };
    let group = move |label: &'static str, mistakes: bool| {
        view! {
            <optgroup label=label>
                {move || offered()
                    .into_iter()
                    .filter(|c| c.mistake().is_some() == mistakes)
                    .map(option)
                    .collect_view()}
            </optgroup>
        }
    };
    view! {
        <div class="row">
            <label for="train-b">{RUN_B_LABEL}</label>
            <select
                id="train-b"
                data-testid="train-b"
                on:change:target=move |ev| view.train_b.set(ev.target().value())
            >
                <option value="" selected=move || view.train_b.with(String::is_empty)>{NO_RUN_B}</option>
                {group(RUN_B_MISTAKES, true)}
                {group(RUN_B_SETTINGS, false)}
            </select>
        </div>
        <p class="hint">{RUN_B_HINT}</p>
    }
}
