//! Messages about parts of a link that could not be used.

use crate::state::PageState;
use leptos::prelude::*;

/// The link's notices, until dismissed.
#[component]
pub fn Notices(page: PageState) -> impl IntoView {
    view! {
        <Show when=move || page.notices.with(|n| !n.is_empty())>
            <div class="notices" role="status" data-testid="notices">
                <p>"Some settings in this link could not be used; the defaults are shown instead:"</p>
                <ul>
                    {move || page.notices.get().into_iter().map(|n| view! { <li>{n}</li> }).collect_view()}
                </ul>
                <button type="button" on:click=move |_| page.notices.set(Vec::new())>"Dismiss"</button>
            </div>
        </Show>
    }
}
