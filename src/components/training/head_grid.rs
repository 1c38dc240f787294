//! Every head's attention (layer × head) on one fixed held-out sequence, redrawn at every
//! evaluation as the model trains, or at the checkpoint the replay slider chose.

use super::head_tables::HeadTables;
use super::open_in_explorer::OpenInExplorer;
use super::use_training;
use crate::charts::canvas::Redraw;
use crate::charts::heatmap::{draw_heatmap, CellText, HeatmapSpec};
use crate::charts::layout::HeatmapLayout;
use crate::charts::segments::{draw_segments, Segments};
use crate::format::grouped;
use crate::hooks::{use_canvas, use_element_width};
use crate::model::train::lab::mistakes::TrainingMistake;
use crate::model::train::tasks::Repeat;
use crate::state::Knockout;
use crate::text::{head_name, head_thumb_label, of_run, save_failed, segment_note};
use crate::web::download::download_text;
use leptos::html;
use leptos::prelude::*;
use nalgebra::DMatrix;

/// Side of a thumbnail in CSS pixels: its grid is 160 px (a 16-token sequence: 10 px cells).
pub(super) const THUMB: f64 = 172.0;

/// The side of a thumbnail in a grid `width` CSS pixels wide: [`THUMB`], or less where two
/// would not fit side by side (a phone).
fn thumb_side(width: f64) -> f64 {
    if width <= 0.0 {
        THUMB
    } else {
        ((width - 24.0) / 2.0).floor().clamp(120.0, THUMB)
    }
}

/// One head's pattern as a bare grid, `side` CSS pixels square, the repeated segment marked:
/// head `head` of layer `layer` (from 0) of `attention` (`[layer][head]`), named `name` with
/// `note` after it (e.g. "knocked out").
#[component]
pub(super) fn TrainedThumbnail(
    layer: usize,
    head: usize,
    side: Signal<f64>,
    #[prop(into)] attention: Signal<Option<Vec<Vec<DMatrix<f64>>>>>,
    #[prop(optional, into)] note: Option<Signal<Option<&'static str>>>,
) -> impl IntoView {
    let training = use_training();
    let canvas_ref = NodeRef::<html::Canvas>::new();
    use_canvas("training thumbnail", canvas_ref, None, move |pass| {
        let weights: Option<DMatrix<f64>> =
            attention.with(|a| a.as_ref()?.get(layer)?.get(head).cloned());
        let Some(weights) = weights else { return };
        let segments = training.shown_repeat().map(segments_of);
        // A run trained without the causal mask (or with it filled with 0) puts weight on later
        // tokens: its grid shows them.
        let future = training.mistake().is_some_and(TrainingMistake::sees_future);
        let layout = HeatmapLayout::new(side.get(), weights.nrows(), 1, 0.0, false);
        let spec = HeatmapSpec {
            tokens: &[],
            weights: &weights,
            theme: pass.theme,
            cell_text: CellText::None,
            show_labels: false,
            show_legend: false,
            show_future: future,
        };
        pass.paint_whole((layout.width, layout.height), |canvas| {
            draw_heatmap(canvas, &layout, &spec, pass.dpr, Redraw::Everything)?;
            match segments {
                Some(s) => draw_segments(canvas, &layout, s, pass.theme, pass.dpr),
                None => Ok(()),
            }
        });
    });
    let name = head_name(layer, head);
    let note = move || note.and_then(|n| n.get());
    let label = move || head_thumb_label(layer, head, note());
    view! {
        <li class="train-thumb">
            <canvas node_ref=canvas_ref role="img" aria-label=label></canvas>
            <span>{name} {move || note().map(|n| view! { <strong class="ko-mark">{format!(" ({n})")}</strong> })}</span>
        </li>
    }
}

/// The side of the thumbnails in a grid that `grid_ref` holds (its width observed).
pub(super) fn thumb_side_of(grid_ref: NodeRef<html::Div>) -> Signal<f64> {
    let width = use_element_width(grid_ref);
    Signal::derive(move || thumb_side(width.get()))
}

/// Where a repeat marks its heatmaps.
pub(super) fn segments_of(r: Repeat) -> Segments {
    Segments {
        first: r.first,
        second: r.second(),
        len: r.len,
    }
}

/// Held-out sequence 1's tokens, the repeat task's two copies marked (as on every heatmap).
#[component]
pub(super) fn TokenStrip() -> impl IntoView {
    let training = use_training();
    let tokens = move || {
        let repeat = training.shown_repeat();
        training
            .shown_tokens()
            .into_iter()
            .enumerate()
            .map(|(i, t)| {
                let copy = repeat.and_then(|r| {
                    if (r.first..r.first + r.len).contains(&i) {
                        Some("seg-first")
                    } else if (r.second()..r.second() + r.len).contains(&i) {
                        Some("seg-second")
                    } else {
                        None
                    }
                });
                view! { <li class=copy>{t}</li> }
            })
            .collect_view()
    };
    view! {
        <ol class="token-strip" data-testid="train-sequence" aria-label="Held-out sequence 1">
            {tokens}
        </ol>
        {move || training.shown_repeat().map(|r| view! {
            <p class="hint segment-note" data-testid="segment-note">{segment_note(r)}</p>
        })}
    }
}

/// Every head of the run in context; `knockouts`: mark the heads the knock-out switches chose
/// (run A's grid; run B has no switches).
#[component]
pub(super) fn HeadGrid(#[prop(default = true)] knockouts: bool) -> impl IntoView {
    let training = use_training();
    let shape = move || {
        let s = training.settings.get();
        (s.layers, s.heads)
    };
    let grid_ref = NodeRef::<html::Div>::new();
    let side = thumb_side_of(grid_ref);
    let attention = Signal::derive(move || training.shown.get().map(|s| s.attention));
    let knocked = use_context::<Knockout>().filter(|_| knockouts);
    view! {
        <h3 class="sub">
            {move || format!("Every head{}, on held-out sequence 1, at step ", of_run(training.letter.get()))}
            {move || training.shown.get().map(|s| grouped(s.eval.step as u64))}
        </h3>
        <TokenStrip />
        <div class="train-layers" node_ref=grid_ref>
            {move || {
                let (layers, heads) = shape();
                (0..layers)
                    .map(|layer| view! {
                        <ul class="train-thumbs" aria-label=format!("Layer {} heads", layer + 1)>
                            {(0..heads).map(|head| view! { <TrainedThumbnail
                                    layer=layer
                                    head=head
                                    side=side
                                    attention=attention
                                    note=Signal::derive(move || {
                                        knocked
                                            .is_some_and(|k| k.is_on((layer, head)))
                                            .then_some("knocked out")
                                    })
                                /> }).collect_view()}
                        </ul>
                    })
                    .collect_view()
            }}
        </div>
    }
}

/// The model the grid shows, as tables and files: every head's weights, the JSON download and
/// "Open in the explorer".
#[component]
pub(super) fn ModelFiles() -> impl IntoView {
    view! {
        <HeadTables />
        <DownloadModel />
        <OpenInExplorer />
    }
}

/// Saves the model the grid shows (this step's or the replayed checkpoint's) as JSON: every
/// trained matrix, the held-out sequences, the grid's weights and the detector scores, the run's
/// training mistake if it has one, and with `knockouts` (run A) the knock-out shown, if any.
#[component]
pub(super) fn DownloadModel(#[prop(default = true)] knockouts: bool) -> impl IntoView {
    let training = use_training();
    let knockout = use_context::<Knockout>().filter(|_| knockouts);
    let problem = RwSignal::new(None::<String>);
    let save = move |_| {
        let result = knockout.and_then(|k| k.result.get_untracked());
        let Some(text) = training.shown_json(result.as_ref().map(|r| &r.knocked)) else {
            return;
        };
        let step = training
            .shown
            .with_untracked(|s| s.as_ref().map_or(0, |s| s.eval.step));
        let run = training
            .letter
            .get_untracked()
            .map_or_else(String::new, |l| format!("run-{}-", l.to_ascii_lowercase()));
        let name = format!("trained-model-{run}step{step}.json");
        problem.set(
            download_text(&name, "application/json", &text)
                .err()
                .map(|e| save_failed("JSON", &format!("{e:?}"))),
        );
    };
    view! {
        <div class="downloads">
            <button type="button" data-testid="download-model" on:click=save>
                {move || format!("Download this model{} (JSON)", of_run(training.letter.get()))}
            </button>
            <p class="hint">
                {if knockouts {
                    "Every trained matrix, the held-out sequences, the weights above and the detector scores, at the step shown, with the knock-out results shown above if there are any: recompute them anywhere (docs/formats.md shows how, with NumPy)."
                } else {
                    "Every trained matrix, the held-out sequences, the weights above and the detector scores, at the step shown, with the run's training mistake if it has one: recompute them anywhere (docs/formats.md shows how, with NumPy)."
                }}
            </p>
            <p class="error" role="alert">{move || problem.get()}</p>
        </div>
    }
}
