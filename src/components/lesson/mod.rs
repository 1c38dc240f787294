//! The lesson: one path of six steps, from the plain average of the past to positions, one
//! component per step in this folder. Step 1 averages the past ([`averaging`]), step 2 gets the
//! same average from a masked softmax ([`softmax`]), step 3 traces one row through queries, keys
//! and values ([`trace`]), step 4 measures why scores are divided by √d ([`scaling_lab`]), step 5
//! combines several heads ([`heads`]), step 6 shows what positions change ([`positions`]).
//!
//! The steps are tabs (arrow keys move between them) and a path: each panel opens with where the
//! learner is ("Step n of 6") and the one sentence it adds, and ends with Back and Next.

mod averaging;
mod heads;
mod positions;
mod scaling_lab;
mod softmax;
mod trace;

use crate::hooks::{seen_once, use_visibility, use_while_seen};
use crate::model::embed::full_link;
use crate::model::url_state::Step;
use crate::state::ViewSignals;
use crate::text::{
    lesson_heads_note, step_adds, step_position, step_tab, step_title, LESSON_SOURCES,
};
use crate::web::window;
use averaging::AveragingStep;
use heads::HeadsStep;
use leptos::prelude::*;
use positions::PositionsStep;
use scaling_lab::ScalingLab;
use softmax::SoftmaxStep;
use trace::AttentionTrace;
use wasm_bindgen::JsCast;

/// Whether the lesson's panel is on screen (near it, within `use_visibility`'s margin): the steps'
/// live readouts follow the view only then.
#[derive(Clone, Copy)]
struct LessonOnScreen(ReadSignal<bool>);

/// Whether the lesson's panel has come near the screen at least once since the page loaded.
#[derive(Clone, Copy)]
struct LessonSeen(Memo<bool>);

/// A step's chart, built the first time the lesson comes near the screen, and kept. At load the
/// lesson is below the first screen; building step 1's heatmap then made the lesson's task read
/// the heatmap's width, which laid out the whole lesson (7 ms), and draw a chart nobody could see
/// yet (5 ms): at a phone's size in the VM's Chromium that task's median was 23.5 ms, 8.4 ms
/// without the chart (9 traced loads each, 2026-12-04); on a phone four times slower, a long task.
/// The step's words and numbers are in the page from the start all the same (find in page,
/// printing).
#[component]
fn WhenLessonSeen(children: ChildrenFn) -> impl IntoView {
    let seen = use_context::<LessonSeen>().map(|s| s.0);
    view! { <Show when=move || seen.is_none_or(|s| s.get())>{children()}</Show> }
}

/// A step's live readout: `compute` follows the view while the lesson is on screen (see
/// [`use_while_seen`]); `what` names it for the work-per-input hook.
fn follow_when_seen<T: Clone + PartialEq + Send + Sync + 'static>(
    what: &'static str,
    compute: impl Fn() -> T + Send + Sync + 'static,
) -> Memo<T> {
    use_while_seen(use_context::<LessonOnScreen>().map(|s| s.0), what, compute)
}

/// The element with `id`, if it can take the focus.
fn focusable(id: &str) -> Option<web_sys::HtmlElement> {
    window()
        .document()
        .and_then(|d| d.get_element_by_id(id))
        .and_then(|el| el.dyn_into::<web_sys::HtmlElement>().ok())
}

/// Focuses the element with `id` (a tab, or the step's heading after Back/Next), scrolling it
/// into view.
fn focus(id: &str) {
    if let Some(el) = focusable(id) {
        let _ = el.focus();
    }
}

/// Focuses the element with `id` where it is, without scrolling to it: the learner stays at the
/// step they were reading, whose readouts follow the view only while they are on screen.
fn focus_in_place(id: &str) {
    if let Some(el) = focusable(id) {
        let options = web_sys::FocusOptions::new();
        options.set_prevent_scroll(true);
        let _ = el.focus_with_options(&options);
    }
}

/// Focuses the element with `id` in place if the focus is on nothing (the page's body), as after
/// [`focus_in_place`] found its element hidden.
fn focus_in_place_if_nothing_is(id: &str) {
    let document = window().document();
    let on_body = document
        .as_ref()
        .and_then(web_sys::Document::active_element)
        .is_none_or(|el| el.tag_name() == "BODY");
    if on_body {
        focus_in_place(id);
    }
}

/// The tab list, where the learner is, the chosen step's panel and Back/Next.
#[component]
pub fn Lesson() -> impl IntoView {
    let view = ViewSignals::from_context();
    let on_key = move |ev: leptos::ev::KeyboardEvent| {
        let i = view.step.get_untracked().number() - 1;
        let n = Step::ALL.len();
        let next = match ev.key().as_str() {
            "ArrowRight" => (i + 1) % n,
            "ArrowLeft" => (i + n - 1) % n,
            "Home" => 0,
            "End" => n - 1,
            _ => return,
        };
        ev.prevent_default();
        view.step.set(Step::ALL[next]);
        focus(&format!("tab-{}", Step::ALL[next].key()));
    };
    // Back and Next move along the path, then bring the new step's heading into view and focus,
    // so keyboard and screen-reader users start reading the new step from its top.
    let go = move |step: Step| {
        view.step.set(step);
        if let Some(el) = window()
            .document()
            .and_then(|d| d.get_element_by_id("lesson-step-heading"))
        {
            el.scroll_into_view();
        }
        focus("lesson-step-heading");
    };
    let step = move || view.step.get();
    let panel_ref = NodeRef::<leptos::html::Div>::new();
    let on_screen = use_visibility(panel_ref);
    provide_context(LessonOnScreen(on_screen));
    provide_context(LessonSeen(seen_once(on_screen)));
    view! {
        <section class="panel lesson" aria-labelledby="lesson-title">
            <h2 id="lesson-title">"From averaging to attention, step by step"</h2>
            <p class="hint">{LESSON_SOURCES}</p>
            {move || lesson_heads_note(view.head.get(), view.heads.get()).map(|text| view! {
                <p class="hint" data-testid="lesson-heads-note">{text}</p>
            })}
            <div class="tabs" role="tablist" aria-label="Lesson steps" on:keydown=on_key>
                {Step::ALL
                    .into_iter()
                    .map(|s| {
                        let selected = move || view.step.get() == s;
                        view! {
                            <button
                                type="button"
                                role="tab"
                                id=format!("tab-{}", s.key())
                                aria-controls="lesson-panel"
                                aria-selected=move || if selected() { "true" } else { "false" }
                                tabindex=move || if selected() { "0" } else { "-1" }
                                on:click=move |_| view.step.set(s)
                            >
                                {step_tab(s)}
                            </button>
                        }
                    })
                    .collect_view()}
            </div>
            <div
                id="lesson-panel"
                node_ref=panel_ref
                role="tabpanel"
                aria-labelledby=move || format!("tab-{}", step().key())
                data-step=move || step().key()
            >
                <h3 id="lesson-step-heading" class="step-heading" tabindex="-1">
                    <span class="step-count" data-testid="step-count">
                        {move || step_position(step())}
                    </span>
                    " · "
                    {move || step_title(step())}
                </h3>
                <p class="step-adds" data-testid="step-adds">
                    {move || step_adds(step())}
                </p>
                {move || match step() {
                    Step::Average => view! { <AveragingStep /> }.into_any(),
                    Step::Softmax => view! { <SoftmaxStep /> }.into_any(),
                    Step::Attention => view! { <AttentionTrace /> }.into_any(),
                    Step::Scaling => view! { <ScalingLab /> }.into_any(),
                    Step::Heads => view! { <HeadsStep /> }.into_any(),
                    Step::Positions => view! { <PositionsStep /> }.into_any(),
                }}
                <nav class="step-nav" aria-label="Lesson path">
                    {move || {
                        step()
                            .previous()
                            .map(|back| {
                                view! {
                                    <button
                                        type="button"
                                        class="step-back"
                                        on:click=move |_| go(back)
                                    >
                                        {format!("← Back: {}", step_tab(back))}
                                    </button>
                                }
                            })
                    }}
                    {move || match step().next() {
                        Some(next) => view! {
                            <button type="button" class="step-next" on:click=move |_| go(next)>
                                {format!("Next: {} →", step_tab(next))}
                            </button>
                        }
                        .into_any(),
                        // The last step leads on to practice, with the view on screen.
                        None => view! {
                            <a
                                class="step-to-practice"
                                data-testid="lesson-to-practice"
                                href=move || full_link("practice.html", &view.snapshot())
                            >
                                "Next: practise on this view →"
                            </a>
                        }
                        .into_any(),
                    }}
                </nav>
            </div>
        </section>
    }
}
