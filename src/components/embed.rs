//! The embed's two ends: the compact view's link back to the full app, and the full app's
//! "Copy embed code" button (the strings come from `model::embed`).

use crate::model::embed::{full_link, iframe_snippet, page_address};
use crate::state::ViewSignals;
use crate::web::clipboard::write_text;
use crate::web::location::location_href;
use leptos::html;
use leptos::prelude::*;

/// "Open in Attention Explorer": the current view in the full app, in a new tab.
#[component]
pub fn OpenFullApp() -> impl IntoView {
    let view = ViewSignals::from_context();
    // The address without its query: the app's own path, wherever it is served.
    let page = page_address(&location_href()).to_string();
    view! {
        <a
            class="open-full"
            data-testid="open-full"
            href=move || full_link(&page, &view.snapshot())
            target="_blank"
            rel="noopener"
        >
            "Open in Attention Explorer"
        </a>
    }
}

/// Copies the `<iframe>` for the current view; where the clipboard is unavailable or refused,
/// shows the code selected in a read-only box to copy by hand.
#[component]
pub fn CopyEmbedCode() -> impl IntoView {
    let view = ViewSignals::from_context();
    let status = RwSignal::new(String::new());
    let by_hand = RwSignal::new(None::<String>);
    let copy = move |_| {
        let page = location_href();
        let snippet = iframe_snippet(page_address(&page), &untrack(|| view.snapshot()));
        leptos::task::spawn_local(async move {
            if write_text(&snippet).await.is_ok() {
                by_hand.set(None);
                status.set("Embed code copied: paste it into your page's HTML.".into());
            } else {
                by_hand.set(Some(snippet));
                status.set(
                    "This browser did not allow copying: the embed code is selected below; copy it with Ctrl+C (⌘C on a Mac)."
                        .into(),
                );
            }
        });
    };
    let area = NodeRef::<html::Textarea>::new();
    Effect::new(move |_| {
        // Runs again once the box is in the page (the node ref is filled). The value is set
        // here, not by the view, so that it is in place before it is selected.
        if let (Some(el), Some(text)) = (area.get(), by_hand.get()) {
            el.set_value(&text);
            let _ = el.focus();
            el.select();
        }
    });
    view! {
        <div class="embed-code">
            <button type="button" on:click=copy>"Copy embed code"</button>
            <p class="hint" role="status" data-testid="embed-status">{move || status.get()}</p>
            <Show when=move || by_hand.with(Option::is_some)>
                <label for="embed-code">"Embed code"</label>
                <textarea
                    id="embed-code"
                    node_ref=area
                    readonly
                    rows="4"
                ></textarea>
            </Show>
        </div>
    }
}
