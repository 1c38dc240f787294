//! "Break it": one switch per classic attention mistake, the banner that marks the page as broken
//! while any is on, what the mistakes did next to correct attention, and the lesson's link here.
//! The maths is `model::broken`; the words are `text::break_it`.

use crate::components::heatmap::Heatmap;
use crate::format::{fixed, percent};
use crate::hooks::{use_visibility, use_while_seen};
use crate::model::broken::{future_cells, Damage, Mistake};
use crate::state::{ExplorerModel, ViewSignals};
use crate::text::{
    broken_banner, cheating_sentence, damage_sentences, mistake_code, mistake_label, mistake_why,
    CODE_NOTE, IMPORTANCE_NOTE,
};
use crate::web::window;
use leptos::prelude::*;
use wasm_bindgen::JsCast;

/// The banner over the heatmap while any mistake is on.
#[component]
pub fn BrokenBanner() -> impl IntoView {
    let view = ViewSignals::from_context();
    let model = ExplorerModel::from_context();
    move || {
        let mistakes = view.broken.get();
        (!mistakes.is_empty()).then(|| {
            let future = model.shown_weights.with(|w| future_cells(w));
            view! {
                <p class="broken-banner" role="status" data-testid="broken-banner">
                    <span class="broken-mark" aria-hidden="true">"⚠"</span>
                    {broken_banner(mistakes, future)}
                </p>
            }
        })
    }
}

/// For a lesson step that points at the main heatmap: while mistakes are on, it says that the
/// heatmap is broken and the step's numbers are correct attention's.
#[component]
pub fn BrokenLessonNote() -> impl IntoView {
    let view = ViewSignals::from_context();
    move || {
        view.is_broken().then(|| {
            view! {
                <p class="note" data-testid="broken-lesson-note">
                    "“Break it” mistakes are on, so the main heatmap shows broken weights; the numbers in this step are correct attention's."
                </p>
            }
        })
    }
}

/// A button in the lesson that brings the "Break it" panel into view and focuses its heading.
#[component]
pub fn BreakItLink() -> impl IntoView {
    let open = move |_| {
        if let Some(heading) = window()
            .document()
            .and_then(|d| d.get_element_by_id("break-it-title"))
            .and_then(|el| el.dyn_into::<web_sys::HtmlElement>().ok())
        {
            heading.scroll_into_view();
            let _ = heading.focus();
        }
    };
    view! {
        <p class="break-it-link">
            <button type="button" on:click=open>
                "Break it: see what the classic mistakes do to these weights"
            </button>
        </p>
    }
}

/// The switches, and what the switched-on mistakes did to the selected head.
#[component]
pub fn BreakIt() -> impl IntoView {
    let view = ViewSignals::from_context();
    let model = ExplorerModel::from_context();
    // Below the first screen: the report and the correct heatmap follow the view only while
    // the panel is on screen.
    let panel_ref = NodeRef::<leptos::html::Div>::new();
    let on_screen = use_visibility(panel_ref);
    let damage = use_while_seen(Some(on_screen), "break-it", move || {
        let broken = view.is_broken();
        broken.then(|| Damage::new(&model.main_weights.get(), &model.shown_weights.get()))
    });
    let correct = use_while_seen(Some(on_screen), "break-it", move || {
        model.main_weights.get()
    });
    // The first thing to look at when a mistake lets rows read the future.
    let cheating = use_while_seen(Some(on_screen), "break-it", move || {
        if !view.is_broken() {
            return None;
        }
        model
            .tokens
            .with(|t| model.shown_weights.with(|w| cheating_sentence(t, &w.0)))
    });
    let switches = Mistake::ALL
        .into_iter()
        .map(|m| {
            let id = format!("mistake-{}", m.key());
            let (wrong, right) = mistake_code(m);
            view! {
                <li class="mistake">
                    <input
                        type="checkbox"
                        id=id.clone()
                        prop:checked=move || view.broken.get().contains(m)
                        on:change=move |ev| {
                            let on = event_target_checked(&ev);
                            view.broken.update(|set| *set = set.with(m, on));
                        }
                    />
                    <label for=id>{mistake_label(m)}</label>
                    <p class="why">{mistake_why(m)}</p>
                    <p class="code">"Wrong: " <code>{wrong}</code></p>
                    <p class="code">"Right: " <code>{right}</code></p>
                </li>
            }
        })
        .collect_view();
    let report = move || {
        damage.with(|d| {
            d.as_ref().map(|d| {
                let mistakes = view.broken.get();
                let sentences = damage_sentences(d, mistakes, view.heads.get())
                    .into_iter()
                    .map(|s| view! { <li>{s}</li> })
                    .collect_view();
                let tokens = model.tokens.get();
                let rows = d
                    .rows
                    .iter()
                    .zip(&tokens)
                    .enumerate()
                    .map(|(i, (r, t))| {
                        view! {
                            <tr class:off=!r.sums_to_one()>
                                <th scope="row">{format!("{} {t}", i + 1)}</th>
                                <td class="num">{fixed(r.sum, 3)}</td>
                                <td class="num">{format!("{} → {}", percent(r.correct_max), percent(r.broken_max))}</td>
                                <td class="num">
                                    {format!("{} → {}", fixed(r.correct_entropy, 3), fixed(r.broken_entropy, 3))}
                                </td>
                            </tr>
                        }
                    })
                    .collect_view();
                let columns = mistakes.contains(Mistake::SoftmaxOverColumns).then(|| {
                    let sums = d
                        .column_sums
                        .iter()
                        .map(|s| view! { <td class="num">{fixed(*s, 3)}</td> })
                        .collect_view();
                    view! {
                        <table class="weights" data-testid="column-sums">
                            <caption>"Column sums (each key's weights over the queries)"</caption>
                            <tbody>
                                <tr>
                                    <th scope="row">"sum"</th>
                                    {sums}
                                </tr>
                            </tbody>
                        </table>
                    }
                });
                view! {
                    <h3>"What it did to head " {view.head.get() + 1} ", next to correct attention"</h3>
                    <ul class="damage" data-testid="damage">{sentences}</ul>
                    // A named, focusable region: wider than a phone, it scrolls by keyboard too.
                    <div class="table-scroll" role="region" tabindex="0" aria-label="What the mistakes did, row by row">
                        <table class="weights" data-testid="damage-table">
                            <caption>"Per row: the broken row's sum (correct: 1), then its largest weight and its entropy in bits, both of the row divided by its sum (correct → broken)"</caption>
                            <thead>
                                <tr>
                                    <th scope="col">"Row"</th>
                                    <th scope="col">"Sum"</th>
                                    <th scope="col">"Max weight"</th>
                                    <th scope="col">"Entropy"</th>
                                </tr>
                            </thead>
                            <tbody>{rows}</tbody>
                        </table>
                        {columns}
                    </div>
                }
            })
        })
    };
    let correct_view = move || {
        damage.with(Option::is_some).then(|| {
            view! {
                <h3>"Correct attention, for comparison"</h3>
                <Heatmap
                    weights=correct
                    tokens=model.tokens
                    selected_row=Signal::derive(move || Some(view.row.get()))
                    on_select=Callback::new(move |row: usize| view.row.set(row))
                    percent_labels=true
                    title="Correct causal attention, for comparison"
                />
            }
        })
    };
    view! {
        <section class="panel break-it" id="break-it" aria-labelledby="break-it-title">
            <h2 id="break-it-title" tabindex="-1">"Break it: the classic attention mistakes"</h2>
            <p>
                "Switch on a mistake people really make: the heatmap, the inspector and the downloads then show "
                "attention computed with it, and the summary below compares it with correct attention. Several "
                "can be on at once; they act in the order listed. With “mask after the softmax” on, nothing is "
                "masked before the softmax, so “mask with 0” then changes nothing."
            </p>
            <p class="hint" data-testid="code-note">{CODE_NOTE}</p>
            <fieldset>
                <legend>"Mistakes"</legend>
                <ul class="mistakes">{switches}</ul>
            </fieldset>
            <p class="hint">{IMPORTANCE_NOTE}</p>
            <div node_ref=panel_ref data-testid="break-it-report">
                {move || cheating.get().map(|text| view! { <p class="note" data-testid="cheating">{text}</p> })}
                {report}
                {correct_view}
            </div>
        </section>
    }
}
