//! The lesson: the notebook's steps as tabs, one component per step in this folder. Steps 1–2
//! average the past ([`averaging`]), step 3 traces one row through queries, keys and values
//! ([`trace`]), step 4 measures why scores are divided by √d ([`scaling_lab`]).

mod averaging;
mod scaling_lab;
mod trace;

use crate::model::url_state::Step;
use crate::state::AppState;
use crate::web::window;
use averaging::AveragingStep;
use leptos::prelude::*;
use scaling_lab::ScalingLab;
use trace::AttentionTrace;

fn step_title(step: Step) -> &'static str {
    match step {
        Step::Averaging => "Steps 1–2 · Average the past",
        Step::Attention => "Step 3 · Queries, keys, values",
        Step::Scaling => "Step 4 · Why divide by √d",
    }
}

/// The tab list and the panel of the chosen step.
#[component]
pub fn Lesson() -> impl IntoView {
    let state = AppState::from_context();
    let on_key = move |ev: leptos::ev::KeyboardEvent| {
        let i = Step::ALL
            .iter()
            .position(|s| *s == state.step.get_untracked())
            .unwrap_or(0);
        let next = match ev.key().as_str() {
            "ArrowRight" => (i + 1) % Step::ALL.len(),
            "ArrowLeft" => (i + Step::ALL.len() - 1) % Step::ALL.len(),
            "Home" => 0,
            "End" => Step::ALL.len() - 1,
            _ => return,
        };
        ev.prevent_default();
        state.step.set(Step::ALL[next]);
        if let Some(el) = window()
            .document()
            .and_then(|d| d.get_element_by_id(&format!("tab-{}", Step::ALL[next].key())))
        {
            use wasm_bindgen::JsCast;
            if let Ok(el) = el.dyn_into::<web_sys::HtmlElement>() {
                let _ = el.focus();
            }
        }
    };
    view! {
        <section class="panel lesson" aria-labelledby="lesson-title">
            <h2 id="lesson-title">"From averaging to attention, step by step"</h2>
            <div class="tabs" role="tablist" aria-label="Lesson steps" on:keydown=on_key>
                {Step::ALL
                    .into_iter()
                    .map(|s| {
                        let selected = move || state.step.get() == s;
                        view! {
                            <button
                                type="button"
                                role="tab"
                                id=format!("tab-{}", s.key())
                                aria-controls="lesson-panel"
                                aria-selected=move || if selected() { "true" } else { "false" }
                                tabindex=move || if selected() { "0" } else { "-1" }
                                on:click=move |_| state.step.set(s)
                            >
                                {step_title(s)}
                            </button>
                        }
                    })
                    .collect_view()}
            </div>
            <div
                id="lesson-panel"
                role="tabpanel"
                aria-labelledby=move || format!("tab-{}", state.step.get().key())
                data-step=move || state.step.get().key()
            >
                {move || match state.step.get() {
                    Step::Averaging => view! { <AveragingStep /> }.into_any(),
                    Step::Attention => view! { <AttentionTrace /> }.into_any(),
                    Step::Scaling => view! { <ScalingLab /> }.into_any(),
                }}
            </div>
        </section>
    }
}
