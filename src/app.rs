//! The page's layout: which components go where. The state lives in [`crate::state`], the
//! numbers in [`crate::model`]; data flows one way, state → model → charts → components.

use crate::components::{
    after_first_paint::{painted_flag, AfterFirstPaint},
    break_it::{BreakIt, BrokenBanner},
    compare::Compare,
    downloads::Downloads,
    embed::{CopyEmbedCode, OpenFullApp},
    explanation::Explanation,
    heatmap::Heatmap,
    inspector::RowInspector,
    lesson::Lesson,
    model_controls::ModelControls,
    next_token::NextTokenReadout,
    notices::Notices,
    page_links::{ToExplorer, ToPractice, ToTrain, WhereNext},
    phone_dock::PhoneDock,
    quiz::Quiz,
    sentence::SentenceBox,
    temperature::TemperatureSlider,
    thumbnails::HeadThumbnails,
    training::TrainingPanel,
    update_notice::UpdateNotice,
};
use crate::model::trained::WeightsChoice;
use crate::model::url_state::ViewState;
use crate::state::{
    load_trained_weights, provide_theme, sync_url, ExplorerModel, GeneratePage, NumbersHidden,
    ViewSignals,
};
use crate::text::{
    self, glossary, weights_note, weights_note_short, NUMBERS_HIDDEN, PRACTICE_NEXT, TRAINING_NEXT,
};
use crate::web::location::location_search;
use leptos::either::Either;
use leptos::prelude::*;
use std::time::Duration;

/// Reads the view from the link and keeps the link in sync: the start of every page. Provides
/// the view's signals ([`ViewSignals`]) and the link's notices ([`crate::state::Notices`]).
// Not inlined: returned from here, the view's signals are one struct in memory that the page
// copies whole (into the context, the URL sync, the model). Inlined into `main`, each copy stored
// its 22 signals one by one, which is more code on the explorer.
#[inline(never)]
fn provide_view() -> ViewSignals {
    let (initial, notices) = ViewState::from_query(&location_search());
    let view = ViewSignals::new(initial);
    provide_context(view);
    let notices = notices.into_iter().map(|n| n.0).collect();
    provide_context(crate::state::Notices(RwSignal::new(notices)));
    sync_url(view);
    provide_theme();

    if location_search().contains("debug_panic=1") {
        // Developer flag: proves the panic banner works (see docs/reliability.md, "Panics").
        set_timeout(
            || panic!("debug_panic=1: a deliberate panic to test the error banner"),
            Duration::ZERO,
        );
    }
    view
}

/// Provides the explorer's model computed from the view (`offers_trained`: whether the page can
/// show the trained weights).
fn provide_model(view: ViewSignals, offers_trained: bool) -> ExplorerModel {
    let model = ExplorerModel::new(view, offers_trained);
    if offers_trained {
        load_trained_weights(view, model);
    }
    provide_context(model);
    model
}

/// The explorer (`index.html`): the full page, or the compact view with `?embed=1`.
#[component]
pub fn App() -> impl IntoView {
    let view = provide_view();
    let model = provide_model(view, true);
    if view.embed.get_untracked() {
        Either::Left(embed_layout(view, model))
    } else {
        Either::Right(full_layout(view, model))
    }
}

/// The practice page (`practice.html`, its own wasm): the explorer's heatmap and controls, then
/// Predict, then reveal and Compare A and B.
#[component]
pub fn PracticeApp() -> impl IntoView {
    let view = provide_view();
    let model = provide_model(view, false);
    // Hidden from the start: the quiz (built after the first paint) opens with a question, so the
    // numbers must not show and then vanish (nor the inspector change size under the reader).
    let hidden = NumbersHidden(RwSignal::new(true));
    provide_context(hidden);
    // As on the explorer: the heatmap first, then the rest of the first view, one part per frame.
    let tasks = FirstViewTasks::new();
    view! {
        // The header is static HTML in practice.html; the way back carries the view.
        <nav class="page-nav" aria-label="Pages">
            <ToExplorer />
        </nav>
        <Notices />
        <UpdateNotice />
        <main class="layout">
            {inputs_panel(tasks)}
            <section class="panel main-view" aria-labelledby="heatmap-title">
                {main_view_heading(view)}
                {main_heatmap(view, model)}
                {main_view_notes(view, model)}
                <AfterFirstPaint with=tasks.thumbnails>
                    <HeadThumbnails />
                </AfterFirstPaint>
                <AfterFirstPaint with=tasks.downloads>
                    <Downloads />
                </AfterFirstPaint>
            </section>
            <section class="panel inspector" aria-labelledby="inspector-title">
                <AfterFirstPaint with=tasks.inspector>
                    <Show
                        when=move || !hidden.0.get()
                        fallback=|| view! {
                            <h2 id="inspector-title">"Row inspector"</h2>
                            <p class="note" data-testid="inspector-hidden">{NUMBERS_HIDDEN}</p>
                        }
                    >
                        <RowInspector />
                    </Show>
                </AfterFirstPaint>
            </section>
        </main>
        // One task per part, so no single task builds the whole rest of the page.
        <AfterFirstPaint>
            <Quiz />
        </AfterFirstPaint>
        <AfterFirstPaint>
            <Compare />
            <WhereNext text=PRACTICE_NEXT page="train.html" label=text::OPEN_TRAINING_PAGE />
            {footer(None)}
        </AfterFirstPaint>
    }
}

/// The training page (`train.html`, its own wasm): train a tiny transformer and watch its heads
/// form. The training settings are in the link (`train`, `tseed`, … `tsteps`).
#[component]
pub fn TrainApp() -> impl IntoView {
    // The training page trains its own model: it has the view, not the explorer's model.
    provide_view();
    view! {
        // The header (title, what the page teaches) is static HTML in train.html.
        <nav class="page-nav" aria-label="Pages">
            <ToExplorer />
        </nav>
        <Notices />
        <UpdateNotice />
        <main>
            <TrainingPanel />
            <AfterFirstPaint>
                <WhereNext text=TRAINING_NEXT page="./" label=text::OPEN_EXPLORER />
            </AfterFirstPaint>
        </main>
        <AfterFirstPaint>
            <footer class="site-footer">
                <p>
                    "Every number on this page is computed in your browser by the app's own code (written in Rust, compiled to WebAssembly), from seeded random inputs that anyone can reproduce."
                </p>
            </footer>
        </AfterFirstPaint>
    }
}

/// The generate page (`generate.html`, its own wasm): a trained model writes text one token at
/// a time. Its state is its own ([`GeneratePage`]): the page has no explorer view.
#[component]
pub fn GenerateApp() -> impl IntoView {
    use crate::components::generate::{
        attention_grid::AttentionGrid, controls::GenerateControls, curves::MeasuredCurves,
        download::GenerationDownload, kv_cache::KvCacheSteps, text_so_far::TextSoFar,
        two_temperatures::TwoTemperatures,
    };
    provide_theme();
    let page = GeneratePage::provide();
    view! {
        <nav class="page-nav" aria-label="Pages">
            <a class="to-explorer" href="./">{text::OPEN_EXPLORER}</a>
            " · "
            <a href="practice.html">"Open the practice page"</a>
            " · "
            <a href="train.html">{text::OPEN_TRAINING_PAGE}</a>
        </nav>
        <Notices />
        <UpdateNotice />
        <main class="generate-layout">
            <section class="panel" aria-labelledby="generate-title">
                <h2 id="generate-title">"Generate, one token at a time"</h2>
                // The model's own sentence waits for its weights, under the controls, so nothing
                // above them moves when it arrives.
                <p class="hint">{text::GENERATE_INTRO}</p>
                <GenerateControls />
                <TextSoFar />
                <p class="hint" data-testid="generate-model">{move || page.model().map(|c| text::generate_model_text(c.model.config(), page.settings.with(|l| l.writer)))}</p>
            </section>
            <section class="panel" aria-labelledby="grid-title">
                <h2 id="grid-title">"The text's attention, and what each row predicts"</h2>
                <AttentionGrid />
            </section>
            <AfterFirstPaint>
                <section class="panel" aria-labelledby="cache-title">
                    <h2 id="cache-title">"The key–value cache"</h2>
                    <KvCacheSteps />
                </section>
                <section class="panel" aria-labelledby="two-t-title">
                    <h2 id="two-t-title">"Two temperatures: τ and T"</h2>
                    <TwoTemperatures />
                    <h3>"Measured: the grammar of what the model writes"</h3>
                    <MeasuredCurves />
                </section>
                <section class="panel" aria-labelledby="generate-download-title">
                    <h2 id="generate-download-title">"Download"</h2>
                    <GenerationDownload />
                </section>
            </AfterFirstPaint>
        </main>
        <AfterFirstPaint>
            <footer class="site-footer">
                <p>{text::GENERATE_FOOTER}</p>
            </footer>
        </AfterFirstPaint>
    }
}

/// "one head" or "head 2 of 4": which head the main heatmap shows (`text::heads_label`).
fn heads_label(view: ViewSignals) -> impl Fn() -> String + Copy {
    // With "Break it" mistakes on, the heading says so (see `ExplorerModel::shown_weights`).
    move || {
        let broken = view.is_broken();
        text::heads_label(view.heads.get(), view.head.get(), broken)
    }
}

/// The selected head's heatmap: click or keyboard chooses the inspector's row. With "Break it"
/// mistakes on it shows the broken weights and hatches the cells that see the future.
fn main_heatmap(view: ViewSignals, model: ExplorerModel) -> impl IntoView {
    let broken = Signal::derive(move || view.is_broken());
    // On the practice page, while a question is open, the numbers it may ask about are hidden.
    let hidden = NumbersHidden::from_context();
    let hide_numbers = Signal::derive(move || NumbersHidden::now(hidden));
    view! {
        <Heatmap
            weights=model.shown_weights
            tokens=model.tokens
            selected_row=Signal::derive(move || Some(view.row.get()))
            selected_col=model.col
            on_select=Callback::new(move |row: usize| {
                view.row.set(row);
            })
            on_select_col=Callback::new(move |col: Option<usize>| model.col.set(col))
            percent_labels=true
            ready_flag=true
            title=text::HEATMAP_TITLE
            broken=broken
            hide_numbers=hide_numbers
        />
    }
}

/// The parts of the first view built after the heatmap's first frame, on both pages that show the
/// explorer's heatmap, in this order, one per frame (shorter tasks on a slow phone): what
/// sits under the heatmap (the head thumbnails, then the downloads), then the inputs (sentence and
/// temperature, then the model), then the row inspector. In this order nothing on screen moves
/// when a part arrives: beside the heatmap (1024 px wide or more) each part grows its own column
/// downwards; under it (narrower), each part comes after what lies between it and the heatmap,
/// and the inputs' and the inspector's panels take no room until their parts do
/// (`style/main.css`, `.layout > .panel:empty`).
///
/// Each of the two pairs was one part until the task building it measured 18–27 ms at a phone's
/// size in the VM's Chromium (2026-12-04): on a phone four times slower, past the 50 ms that makes
/// a task long.
#[derive(Clone, Copy)]
struct FirstViewTasks {
    thumbnails: Signal<bool>,
    downloads: Signal<bool>,
    inputs: Signal<bool>,
    model_inputs: Signal<bool>,
    inspector: Signal<bool>,
}

impl FirstViewTasks {
    /// The flags, in the order their parts are built (the order they are asked for).
    fn new() -> Self {
        Self {
            thumbnails: painted_flag(),
            downloads: painted_flag(),
            inputs: painted_flag(),
            model_inputs: painted_flag(),
            inspector: painted_flag(),
        }
    }
}

/// The inputs of both pages that show the explorer's heatmap: sentence, temperature, model.
// The section is there from the start, so the grid's columns and the heatmap's place are final
// before its contents arrive (`FirstViewTasks::inputs`).
fn inputs_panel(tasks: FirstViewTasks) -> impl IntoView {
    view! {
        <section class="panel controls" aria-label="Inputs">
            <AfterFirstPaint with=tasks.inputs>
                <SentenceBox />
                <TemperatureSlider />
            </AfterFirstPaint>
            <AfterFirstPaint with=tasks.model_inputs>
                <ModelControls />
            </AfterFirstPaint>
        </section>
    }
}

/// The top of the main view on both pages: the heading, the "Break it" banner, which weights
/// are shown, and the symbols.
fn main_view_heading(view: ViewSignals) -> impl IntoView {
    view! {
        <h2 id="heatmap-title">{text::HEATMAP_HEADING} {heads_label(view)}</h2>
        <BrokenBanner />
    }
}

/// Under the main heatmap (both pages): what the weights are and the symbols. Below the grid, not
/// above it, so that on a laptop's first screen the whole heatmap fits under its heading.
fn main_view_notes(view: ViewSignals, model: ExplorerModel) -> impl IntoView {
    view! {
        <p class="note" data-testid="weights-note">
            {move || {
                let broken = view.is_broken();
                model.prepared.with(|p| weights_note(&p.weights, p.config.seed, broken))
            }}
        </p>
        {move || (view.weights.get() == WeightsChoice::Yours && model.trained_in_use()).then(|| view! {
            <p class="note" data-testid="yours-note">
                "You trained this model on the training page. It is kept in this browser only: a link to this view shows it here, and elsewhere says that no model of yours is saved there."
            </p>
        })}
        {symbols_used_here(model)}
    }
}

/// "Symbols used here": every symbol the page uses, with the live sizes (both pages).
fn symbols_used_here(model: ExplorerModel) -> impl IntoView {
    view! {
        <details class="glossary" data-testid="glossary">
            <summary>{text::SYMBOLS_SUMMARY}</summary>
            <dl>
                {move || model.prepared.with(|p| {
                    glossary(p.0.len(), p.0.d_model, p.0.heads.len(), p.0.weights.checkpoint().is_some())
                        .into_iter()
                        .map(|(symbol, text)| view! {
                            <dt><dfn>{symbol}</dfn></dt>
                            <dd>{text}</dd>
                        })
                        .collect_view()
                })}
            </dl>
        </details>
    }
}

/// `?embed=1`: the compact view for an iframe: heatmap, temperature, inspector, the truth note
/// and a link to the full app; no lesson. The CSS class `embed` lays it out for 640 × 400.
fn embed_layout(view: ViewSignals, model: ExplorerModel) -> impl IntoView {
    view! {
        <Notices />
        <main class="embed">
            <div class="embed-bar">
                <p class="note" data-testid="weights-note">{move || {
                    let broken = view.is_broken();
                    model.prepared.with(|p| weights_note_short(&p.weights, p.config.seed, broken))
                }}</p>
                <OpenFullApp />
            </div>
            <section class="panel main-view" aria-labelledby="heatmap-title">
                <h2 id="heatmap-title">{text::HEATMAP_HEADING} {heads_label(view)}</h2>
                <BrokenBanner />
                {main_heatmap(view, model)}
            </section>
            <section class="panel controls" aria-label="Temperature and row">
                <TemperatureSlider />
                <div class="inspector">
                    <RowInspector />
                </div>
            </section>
            <Downloads />
        </main>
    }
}

/// The explorer's page. Its first task builds the notices, the main view's heading and the
/// heatmap, and draws it; what sits under the heatmap, the inputs and the inspector follow, a task
/// each ([`FirstViewTasks`]); then each part below the first view in a task of its own.
fn full_layout(view: ViewSignals, model: ExplorerModel) -> impl IntoView {
    let tasks = FirstViewTasks::new();
    view! {
        // The header (title, formula, what the page teaches) is static HTML in index.html.
        <Notices />
        <UpdateNotice />
        <main class="layout">
            {inputs_panel(tasks)}
            <section class="panel main-view" aria-labelledby="heatmap-title">
                {main_view_heading(view)}
                {main_heatmap(view, model)}
                <p class="hint" id="heatmap-keys">
                    {text::HEATMAP_HINT}
                    // Pointer and keyboard help, or on touch screens the tap (style/main.css).
                    <span class="for-pointer">{text::HEATMAP_HINT_POINTER}</span>
                    <span class="for-touch" data-testid="touch-help">{text::HEATMAP_HINT_TOUCH}</span>
                </p>
                {main_view_notes(view, model)}
                <AfterFirstPaint with=tasks.thumbnails>
                    <PhoneDock />
                    <HeadThumbnails />
                </AfterFirstPaint>
                <AfterFirstPaint with=tasks.downloads>
                    <Downloads />
                    <CopyEmbedCode />
                </AfterFirstPaint>
            </section>
            <section class="panel inspector" aria-labelledby="inspector-title">
                <AfterFirstPaint with=tasks.inspector>
                    <RowInspector />
                    <NextTokenReadout />
                </AfterFirstPaint>
            </section>
        </main>
        // One task per part, so no single task builds the whole rest of the page.
        <AfterFirstPaint>
            <Explanation />
        </AfterFirstPaint>
        <AfterFirstPaint>
            <Lesson />
        </AfterFirstPaint>
        <AfterFirstPaint>
            <BreakIt />
            <ToPractice />
            <ToTrain />
            {footer(Some(", except the notebook's printed values that step 4 quotes (marked as quoted)"))}
        </AfterFirstPaint>
    }
}

/// Where the numbers come from, at the bottom of the explorer and the practice page. Only the explorer's lesson quotes
/// numbers (step 4), so only its footer names the exception.
fn footer(quoted: Option<&'static str>) -> impl IntoView {
    view! {
        <footer class="site-footer">
            <p>
                "Every number on this page is computed in your browser by the app's own code (written in Rust, compiled to WebAssembly), from seeded random inputs that anyone can reproduce"
                {quoted}
                "; download the JSON to recompute the view anywhere."
            </p>
        </footer>
    }
}

/// Installs the panic banner and the benchmark's input timing, mounts `page` and hands the
/// first view written into the page over to it (`web::first_view_handover`: the first view's
/// heatmap stays over the canvas only for a link without a query, the one view it shows).
fn start_page<N: IntoView + 'static>(page: fn() -> N) {
    crate::components::panic_banner::install();
    crate::web::timing::time_inputs();
    leptos::mount::mount_to_body(page);
    crate::web::first_view_handover::take_over(location_search().is_empty());
}

/// Starts the explorer.
pub fn start() {
    start_page(App);
}

/// Starts the practice page.
pub fn start_practice() {
    start_page(PracticeApp);
}

/// Starts the generate page.
pub fn start_generate() {
    start_page(GenerateApp);
}

/// Starts the training page.
pub fn start_train() {
    start_page(TrainApp);
}
