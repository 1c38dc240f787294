//! The page's layout: which components go where. The state lives in [`crate::state`], the
//! numbers in [`crate::model`]; data flows one way, state → model → charts → components.

use crate::components::{
    break_it::{BreakIt, BrokenBanner},
    downloads::Downloads,
    explanation::Explanation,
    heatmap::Heatmap,
    inspector::RowInspector,
    lesson::Lesson,
    model_controls::ModelControls,
    notices::Notices,
    sentence::SentenceBox,
    temperature::TemperatureSlider,
    thumbnails::HeadThumbnails,
};
use crate::model::url_state::ViewState;
use crate::state::{provide_theme, sync_url, AppState};
use crate::text::{glossary, weights_note};
use crate::web::location::location_search;
use crate::web::BrowserText;
use leptos::prelude::*;
use std::time::Duration;

#[component]
pub fn App() -> impl IntoView {
    let (initial, notices) = ViewState::from_query_with::<BrowserText>(&location_search());
    let state = AppState::new(initial, notices.into_iter().map(|n| n.0).collect());
    provide_context(state);
    sync_url(state);
    provide_theme();

    if location_search().contains("debug_panic=1") {
        // Developer flag: proves the panic banner works (see README, "Reliability").
        set_timeout(
            || panic!("debug_panic=1: a deliberate panic to test the error banner"),
            Duration::ZERO,
        );
    }
    // With "Break it" mistakes on, the main view shows them (see `AppState::shown_weights`).
    let weights = state.shown_weights;
    let broken = Signal::derive(move || !state.broken.get().is_empty());
    let heads_label = move || {
        let n = state.heads.get();
        let head = if n == 1 {
            "one head".to_string()
        } else {
            format!("head {} of {n}", state.head.get() + 1)
        };
        if broken.get() {
            format!("{head} (BROKEN)")
        } else {
            head
        }
    };

    view! {
        <header class="site-header">
            <h1>"Attention Explorer"</h1>
            <p class="tagline">
                "Causal self-attention, computed exactly in your browser: "
                <code>"softmax(QKᵀ / (√d · τ)) · V"</code>
            </p>
        </header>
        <Notices />
        <main class="layout">
            <section class="panel controls" aria-label="Inputs">
                <SentenceBox />
                <TemperatureSlider />
                <ModelControls />
            </section>
            <section class="panel main-view" aria-labelledby="heatmap-title">
                <h2 id="heatmap-title">"Who attends to whom — " {heads_label}</h2>
                <BrokenBanner />
                <p class="note" data-testid="weights-note">{move || weights_note(state.seed.get())}</p>
                <details class="glossary" data-testid="glossary">
                    <summary>"Symbols used here"</summary>
                    <dl>
                        {move || state.prepared.with(|p| {
                            glossary(p.0.len(), p.0.d_model, p.0.heads.len())
                                .into_iter()
                                .map(|(symbol, text)| view! {
                                    <dt><dfn>{symbol}</dfn></dt>
                                    <dd>{text}</dd>
                                })
                                .collect_view()
                        })}
                    </dl>
                </details>
                <p class="hint" id="heatmap-keys">
                    "Rows are queries (the token doing the looking), columns are keys. "
                    "Hover for exact weights and click a row to inspect it. Keyboard: focus the map, ↑/↓ choose a row, ←/→ step through its cells, Home/End jump, Esc leaves the cell."
                </p>
                <Heatmap
                    weights=weights
                    tokens=state.tokens
                    selected_row=Signal::derive(move || Some(state.row.get()))
                    selected_col=state.col
                    on_select=Callback::new(move |row: usize| {
                        state.row.set(row);
                    })
                    on_select_col=Callback::new(move |col: Option<usize>| state.col.set(col))
                    percent_labels=true
                    ready_flag=true
                    title="Causal attention heatmap"
                    broken=broken
                />
                <HeadThumbnails
                    weights=state.shown_head_weights
                    selected=state.head
                    on_select=Callback::new(move |head: usize| state.head.set(head))
                />
                <Downloads />
            </section>
            <section class="panel inspector" aria-labelledby="inspector-title">
                <RowInspector />
            </section>
        </main>
        <Lesson />
        <BreakIt />
        <Explanation />
        <footer class="site-footer">
            <p>
                "Every number on this page is computed by the app's Rust core (compiled to WebAssembly) "
                "from seeded inputs, except the notebook's printed values that step 4 quotes (marked as quoted); "
                "download the JSON to recompute the view anywhere."
            </p>
        </footer>
    }
}

/// Installs the panic banner and the benchmark's input timing, and mounts the app.
pub fn start() {
    crate::components::panic_banner::install();
    crate::web::timing::time_inputs();
    leptos::mount::mount_to_body(App);
}
