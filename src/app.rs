//! The page: state signals, derived model results and the layout. Data flows one way:
//! signals (what the learner chose) → memos (the model's answers) → components (drawing).

use crate::charts::colors::Theme;
use crate::components::browser::{self, BrowserText};
use crate::components::{
    downloads::Downloads, explanation::Explanation, heatmap::Heatmap, inspector::RowInspector,
    model_controls::ModelControls, notices::Notices, sentence::SentenceBox, steps::Lesson,
    temperature::TemperatureSlider, thumbnails::HeadThumbnails,
};
use crate::model::explorer::{ModelConfig, Prepared};
use crate::model::tokenizer::{checked_tokens, tokenize};
use crate::model::url_state::{Step, ViewState, DEFAULT_SENTENCE};
use leptos::prelude::*;
use nalgebra::DMatrix;
use std::sync::Arc;
use std::time::Duration;

/// A cheaply cloned, pointer-compared handle, so memos of big matrices compare in O(1).
#[derive(Debug)]
pub struct Shared<T>(pub Arc<T>);

impl<T> Clone for Shared<T> {
    fn clone(&self) -> Self {
        Self(Arc::clone(&self.0))
    }
}

impl<T> PartialEq for Shared<T> {
    fn eq(&self, other: &Self) -> bool {
        Arc::ptr_eq(&self.0, &other.0)
    }
}

impl<T> std::ops::Deref for Shared<T> {
    type Target = T;
    fn deref(&self) -> &T {
        &self.0
    }
}

/// Everything the learner controls, plus the model results derived from it.
#[derive(Clone, Copy)]
pub struct AppState {
    pub sentence: RwSignal<String>,
    pub tau: RwSignal<f64>,
    pub seed: RwSignal<u64>,
    pub heads: RwSignal<usize>,
    pub head: RwSignal<usize>,
    pub row: RwSignal<usize>,
    /// The keyboard-selected key column, when the heatmap is in cell mode.
    pub col: RwSignal<Option<usize>>,
    pub step: RwSignal<Step>,
    pub lab_head_size: RwSignal<usize>,
    pub positions: RwSignal<bool>,
    pub max_tokens: RwSignal<usize>,
    pub notices: RwSignal<Vec<String>>,
    pub theme: RwSignal<Theme>,
    pub tokens: Memo<Vec<String>>,
    pub prepared: Memo<Shared<Prepared>>,
    /// Every head's attention weights at the current τ (outputs are computed where shown).
    pub head_weights: Memo<Shared<Vec<Shared<DMatrix<f64>>>>>,
    /// The selected head's weights: what the main heatmap and the inspector show.
    pub main_weights: Memo<Shared<DMatrix<f64>>>,
}

impl AppState {
    /// The state [`App`] provides to every component below it.
    pub fn from_context() -> Self {
        // Not `expect_context`: its panic message debug-prints the type name, and that one use
        // of `str`'s Debug brings core's Unicode escaping tables into the wasm.
        use_context::<AppState>().expect("AppState is provided by App")
    }

    pub fn new(initial: ViewState, notices: Vec<String>) -> Self {
        let sentence = RwSignal::new(initial.sentence);
        let max_tokens = RwSignal::new(initial.max_tokens);
        let seed = RwSignal::new(initial.seed);
        let heads = RwSignal::new(initial.heads);
        let positions = RwSignal::new(initial.positions);
        let tau = RwSignal::new(initial.tau);
        // Only sentences that passed the gate are ever stored, so this cannot fail; the fallback
        // (never empty, whatever the limit) keeps the page alive even if that promise were broken.
        let tokens = Memo::new(move |_| {
            checked_tokens(&sentence.get(), max_tokens.get())
                .unwrap_or_else(|_| tokenize(DEFAULT_SENTENCE))
        });
        let prepared = Memo::new(move |_| {
            Shared(Arc::new(Prepared::new_with::<BrowserText>(ModelConfig {
                tokens: tokens.get(),
                seed: seed.get(),
                heads: heads.get(),
                positions: positions.get(),
            })))
        });
        let head_weights = Memo::new(move |_| {
            let tau = tau.get();
            let weights = prepared.with(|p| p.weights_all(tau));
            Shared(Arc::new(
                weights
                    .into_iter()
                    .map(|w| Shared(Arc::new(w)))
                    .collect::<Vec<_>>(),
            ))
        });
        let head = RwSignal::new(initial.head);
        let main_weights = Memo::new(move |_| {
            head_weights.with(|w| w[head.get().min(w.len().saturating_sub(1))].clone())
        });
        Self {
            sentence,
            tau,
            seed,
            heads,
            head,
            row: RwSignal::new(initial.row),
            col: RwSignal::new(None),
            step: RwSignal::new(initial.step),
            lab_head_size: RwSignal::new(initial.lab_head_size),
            positions,
            max_tokens,
            notices: RwSignal::new(notices),
            theme: RwSignal::new(Theme::for_dark_mode(browser::prefers_dark())),
            tokens,
            prepared,
            head_weights,
            main_weights,
        }
    }

    /// The link for the current view.
    pub fn view_state(&self) -> ViewState {
        ViewState {
            sentence: self.sentence.get(),
            tau: self.tau.get(),
            seed: self.seed.get(),
            heads: self.heads.get(),
            head: self.head.get(),
            row: self.row.get(),
            step: self.step.get(),
            lab_head_size: self.lab_head_size.get(),
            positions: self.positions.get(),
            max_tokens: self.max_tokens.get(),
        }
    }

    /// Head size d of the current split.
    pub fn head_size(&self) -> Memo<usize> {
        let prepared = self.prepared;
        Memo::new(move |_| prepared.with(|p| p.head_size()))
    }

    /// Applies a new sentence (already checked), keeping the selected row in range.
    pub fn apply_sentence(&self, sentence: String, token_count: usize) {
        self.sentence.set(sentence);
        self.col.set(None);
        self.row
            .update(|r| *r = (*r).min(token_count.saturating_sub(1)));
    }

    pub fn set_heads(&self, heads: usize) {
        self.heads.set(heads);
        self.head.update(|h| *h = (*h).min(heads - 1));
    }
}

/// Keeps the address bar in step with the view. Writes are debounced (200–400 ms after the last
/// change): dragging the slider fires many inputs, and `replaceState` is slow and throttled by
/// browsers. A change only records the view; one timer at a time checks, when it fires, whether
/// more changes came in and waits again if so. (Re-arming a timer on every input cost more than
/// the rest of the sync.)
fn sync_url(state: AppState) {
    let sync: StoredValue<UrlSync, LocalStorage> = StoredValue::new_local(UrlSync::default());
    Effect::new(move |_| {
        let view = state.view_state();
        let arm = sync
            .try_update_value(|s| {
                s.latest = Some(view);
                s.changed = s.armed;
                !std::mem::replace(&mut s.armed, true)
            })
            .unwrap_or(false);
        if arm {
            wait_then_write_url(sync);
        }
    });
}

/// The view waiting to be written to the address bar.
#[derive(Default)]
struct UrlSync {
    latest: Option<ViewState>,
    /// A timer is pending.
    armed: bool,
    /// The view changed since that timer was set.
    changed: bool,
}

fn wait_then_write_url(sync: StoredValue<UrlSync, LocalStorage>) {
    set_timeout(
        move || {
            // `None` once the app is gone.
            let due = sync.try_update_value(|s| {
                if std::mem::take(&mut s.changed) {
                    return None;
                }
                s.armed = false;
                s.latest.take()
            });
            match due {
                Some(Some(view)) => browser::replace_query(&view.to_query()),
                Some(None) if sync.with_value(|s| s.armed) => wait_then_write_url(sync),
                _ => {}
            }
        },
        Duration::from_millis(200),
    );
}

#[component]
pub fn App() -> impl IntoView {
    let (initial, notices) = ViewState::from_query_with::<BrowserText>(&browser::location_search());
    let state = AppState::new(initial, notices.into_iter().map(|n| n.0).collect());
    provide_context(state);
    sync_url(state);
    browser::on_color_scheme_change(move |dark| state.theme.set(Theme::for_dark_mode(dark)));

    if browser::location_search().contains("debug_panic=1") {
        // Developer flag: proves the panic banner works (see README, "Reliability").
        set_timeout(
            || panic!("debug_panic=1: a deliberate panic to test the error banner"),
            Duration::ZERO,
        );
    }
    let weights = state.main_weights;
    let heads_label = move || {
        let n = state.heads.get();
        if n == 1 {
            "one head".to_string()
        } else {
            format!("head {} of {n}", state.head.get() + 1)
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
                />
                <HeadThumbnails />
                <Downloads />
            </section>
            <section class="panel inspector" aria-labelledby="inspector-title">
                <RowInspector />
            </section>
        </main>
        <Lesson />
        <Explanation />
        <footer class="site-footer">
            <p>
                "Every number on this page is computed by the app's Rust core (compiled to WebAssembly) "
                "from seeded inputs; download the JSON to recompute it anywhere."
            </p>
        </footer>
    }
}

/// Installs the panic banner and mounts the app.
pub fn start() {
    crate::components::panic_banner::install();
    leptos::mount::mount_to_body(App);
}
