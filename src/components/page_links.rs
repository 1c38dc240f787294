//! The links between the app's two pages, each carrying the view on screen: the explorer
//! (`index.html`: the heatmap, the lesson, Break it) and the practice page (`practice.html`:
//! Predict, then reveal and Compare A and B). Two pages, not one, because each page's code must
//! stay within the 300 kB gzip budget (README, "Practice page"); the link keeps the learner's
//! sentence, seed, heads, τ and switches, so moving between them loses nothing.

use crate::model::embed::full_link;
use crate::state::AppState;
use leptos::prelude::*;

/// The explorer's "Practice" panel: what the practice page offers, and the link to it.
#[component]
pub fn ToPractice() -> impl IntoView {
    let state = AppState::from_context();
    view! {
        <section class="panel practice-link" aria-labelledby="practice-title" data-testid="to-practice">
            <h2 id="practice-title">"Practice"</h2>
            <p>
                "Test yourself on this view: questions about this heatmap, generated from the live model and graded only after you answer, and an A/B comparison of two settings with their difference. "
                <a href=move || full_link("practice.html", &state.view_state())>
                    "Open the practice page with this view"
                </a>
            </p>
        </section>
    }
}

/// The practice page's way back: the same view in the explorer.
#[component]
pub fn ToExplorer() -> impl IntoView {
    let state = AppState::from_context();
    view! {
        <a class="to-explorer" data-testid="to-explorer" href=move || full_link("./", &state.view_state())>
            "← Back to the explorer (lesson and Break it)"
        </a>
    }
}
