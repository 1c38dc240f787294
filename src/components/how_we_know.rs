//! [`HowWeKnow`]: the checks behind a step's numbers, folded out of the lesson's flow.

use leptos::prelude::*;

/// Every check is kept (a second computation agreeing to rounding is how the page knows its
/// numbers are right), but under one closed "How we know" disclosure, so the lesson reads as a
/// lesson and not as a report. Its words stay in the page (find in page, printing).
#[component]
pub fn HowWeKnow(children: Children) -> impl IntoView {
    view! {
        <details class="how-we-know">
            <summary>"How we know"</summary>
            <p class="hint">
                "Each check computes the same thing a second way. A ✓ means the two agree; a tiny "
                "difference such as 1e-16 is rounding in the computer's arithmetic, not a mistake."
            </p>
            {children()}
        </details>
    }
}
