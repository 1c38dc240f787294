//! "Show this model in the explorer": hands the model the head grid shows (a tiny-grammar run of
//! one layer of 2 or 4 heads with sinusoidal positions) to the explorer page, which draws it with
//! every tool it has: the heatmap, the inspector, the lesson's trace, the temperature slider and
//! the downloads. The weights go through this browser's storage (`web::saved_model`); the link
//! only says `w=yours`.

use super::use_training;
use crate::model::embed::full_link;
use crate::model::train::page::settings::TrainSettings;
use crate::model::trained::WeightsChoice;
use crate::state::ViewSignals;
use crate::text::model_handover_failed;
use crate::web::saved_model::save_your_model;
use leptos::prelude::*;

#[component]
pub(super) fn OpenInExplorer() -> impl IntoView {
    let view = ViewSignals::from_context();
    let training = use_training();
    let problem = RwSignal::new(None::<String>);
    let unavailable = move || training.settings.with(TrainSettings::explorer_problem);
    // Saved before the browser follows the link; if it cannot be saved, the link is not followed.
    let save = move |ev: leptos::ev::MouseEvent| {
        let saved = training
            .shown_checkpoint()
            .ok_or_else(|| "there is no model yet".to_string())
            .and_then(|bytes| save_your_model(&bytes));
        if let Err(e) = saved {
            ev.prevent_default();
            problem.set(Some(model_handover_failed(&e)));
        }
    };
    // The view in the link, as every page link carries it, with "trained by you" chosen.
    let explorer_link = move || {
        let mut link = view.snapshot();
        link.weights = WeightsChoice::Yours;
        full_link("./", &link)
    };
    view! {
        <div class="open-in-explorer">
            {move || match unavailable() {
                None => view! {
                    <a href=explorer_link data-testid="open-in-explorer" on:click=save>
                        "Show this model in the explorer"
                    </a>
                    <p class="hint">
                        "Opens the explorer with the weights the grid shows (saved in this browser, in f32): its heatmap, row inspector, lesson trace, temperature slider and downloads then work on your model."
                    </p>
                }
                .into_any(),
                Some(why) => view! { <p class="hint" data-testid="explorer-unavailable">{why}</p> }.into_any(),
            }}
            <p class="error" role="alert">{move || problem.get()}</p>
        </div>
    }
}
