//! Two temperatures side by side: the graded question (which of τ and T changes the heatmap?),
//! asked before the answer shows, and what moving τ measurably does to this text's weights.

use crate::model::generate_page::{tau_effect, HeatmapChanger};
use crate::state::GeneratePage;
use crate::text::{changer_feedback, changer_label, tau_effect_text, TWO_T_QUESTION};
use leptos::prelude::*;

/// The other τ the measurement compares with: twice the slider's, or half of it at the top.
fn other_tau(tau: f64) -> f64 {
    if tau * 2.0 <= 10.0 {
        tau * 2.0
    } else {
        tau / 2.0
    }
}

#[component]
pub fn TwoTemperatures() -> impl IntoView {
    let page = GeneratePage::from_context();
    let choice = RwSignal::new(None::<HeatmapChanger>);
    let answered = RwSignal::new(None::<HeatmapChanger>);
    let options = HeatmapChanger::ALL
        .into_iter()
        .map(|c| {
            view! {
                <label class="choice">
                    <input type="radio" name="heatmap-changer" on:change=move |_| choice.set(Some(c)) prop:disabled=move || answered.get().is_some() />
                    {changer_label(c)}
                </label>
            }
        })
        .collect_view();
    let measured = move || {
        let checkpoint = page.model()?;
        let tau = page.settings.with(|l| l.tau);
        page.run.with(|r| {
            let run = r.as_ref()?.as_ref().ok()?;
            let other = other_tau(tau);
            let effect = tau_effect(&checkpoint.model, &run.sequence, tau, other);
            Some(tau_effect_text(effect, &run.words(), (tau, other)))
        })
    };
    view! {
        <fieldset class="question" data-testid="two-t-question">
            <legend>{TWO_T_QUESTION}</legend>
            {options}
            <button type="button" data-testid="two-t-check"
                disabled=move || choice.get().is_none() || answered.get().is_some()
                on:click=move |_| answered.set(choice.get_untracked())>"Check"</button>
        </fieldset>
        <p role="status" data-testid="two-t-feedback" class:right=move || answered.get().is_some_and(HeatmapChanger::is_right)>
            {move || answered.get().map(changer_feedback)}
        </p>
        <Show when=move || answered.get().is_some()>
            <p data-testid="tau-effect">{measured}</p>
        </Show>
    }
}
