//! Step 5: several heads, combined with `W_o`.

use leptos::prelude::*;

// Placeholder: replaced by the lesson-heads branch.
#[component]
pub(super) fn HeadsStep() -> impl IntoView {
    view! { <p>"Step 5"</p> }
}
