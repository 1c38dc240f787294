//! "A new version is available": shown when a newly deployed build's service worker has
//! installed while this page still runs the old one (see [`crate::web::service_worker`]).
//! "Reload" hands the page over to the new build.

use crate::web::service_worker::{apply_update, register_after_first_heatmap};
use leptos::prelude::*;

#[component]
pub fn UpdateNotice() -> impl IntoView {
    let available = RwSignal::new(false);
    register_after_first_heatmap(move || available.set(true));
    view! {
        // The status region is always in the page (and empty, without a box, until an update
        // arrives) so that screen readers announce the notice when it appears.
        <div role="status" data-testid="update-notice">
            <Show when=move || available.get()>
                <div class="update-notice">
                    <p>"A new version of Attention Explorer is available."</p>
                    <button type="button" on:click=move |_| apply_update()>"Reload"</button>
                </div>
            </Show>
        </div>
    }
}
