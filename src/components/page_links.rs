//! The links between the app's pages, each carrying the view on screen: the explorer
//! (`index.html`: the heatmap, the lesson, Break it), the practice page (`practice.html`:
//! Predict, then reveal and Compare A and B) and the training page (`train.html`: Train a model).
//! Separate pages because each page's code must stay within its code budget (docs/performance.md,
//! "Practice page"); the link keeps the learner's sentence, seed, heads, τ, switches and training
//! settings, so moving between them loses nothing. The words are `text::page_links`'s.

use crate::model::embed::full_link;
use crate::state::ViewSignals;
use crate::text;
use leptos::prelude::*;

/// The explorer's "Practice" panel: what the practice page offers, and the link to it.
#[component]
pub fn ToPractice() -> impl IntoView {
    let view = ViewSignals::from_context();
    view! {
        <section class="panel practice-link" aria-labelledby="practice-title" data-testid="to-practice">
            <h2 id="practice-title">{text::PRACTICE_TITLE}</h2>
            <p>
                {text::PRACTICE_OFFER} " "
                <a href=move || full_link("practice.html", &view.snapshot())>
                    {text::OPEN_PRACTICE_PAGE}
                </a>
            </p>
        </section>
    }
}

/// The explorer's "Watch attention learn" panel: the link to the training page.
#[component]
pub fn ToTrain() -> impl IntoView {
    let view = ViewSignals::from_context();
    view! {
        <section class="panel practice-link" aria-labelledby="train-link-title" data-testid="to-train">
            <h2 id="train-link-title">{text::TRAIN_LINK_TITLE}</h2>
            <p>
                {text::TRAIN_OFFER} " "
                <a href=move || full_link("train.html", &view.snapshot())>
                    {text::OPEN_TRAINING_PAGE}
                </a>
            </p>
        </section>
    }
}

/// The end of a page: where to go next (`text`, a sentence of `crate::text`), with a link to
/// `page` carrying the view.
#[component]
pub fn WhereNext(text: &'static str, page: &'static str, label: &'static str) -> impl IntoView {
    let view = ViewSignals::from_context();
    view! {
        <nav class="next" aria-label=crate::text::WHERE_NEXT_LABEL data-testid="where-next">
            <p>{text} " " <a href=move || full_link(page, &view.snapshot())>{label}</a></p>
        </nav>
    }
}

/// The practice and training pages' way back: the same view in the explorer.
#[component]
pub fn ToExplorer() -> impl IntoView {
    let view = ViewSignals::from_context();
    view! {
        <a class="to-explorer" data-testid="to-explorer" href=move || full_link("./", &view.snapshot())>
            {text::TO_EXPLORER}
        </a>
    }
}
