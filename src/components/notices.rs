//! Messages about parts of a link that could not be used.

use crate::state;
use leptos::prelude::*;

/// The link's notices ([`state::Notices`], which every page provides), until dismissed.
#[component]
pub fn Notices() -> impl IntoView {
    let state::Notices(notices) = state::Notices::from_context();
    view! {
        <Show when=move || notices.with(|n| !n.is_empty())>
            <div class="notices" role="status" data-testid="notices">
                <p>"Some settings in this link could not be used; the defaults are shown instead:"</p>
                <ul>
                    {move || notices.get().into_iter().map(|n| view! { <li>{n}</li> }).collect_view()}
                </ul>
                <button type="button" on:click=move |_| notices.set(Vec::new())>"Dismiss"</button>
            </div>
        </Show>
    }
}
