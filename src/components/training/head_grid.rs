//! Every head's attention (layer × head) on one fixed held-out sequence, redrawn at every
//! evaluation as the model trains, or at the checkpoint the replay slider chose.

use super::head_tables::HeadTables;
use super::open_in_explorer::OpenInExplorer;
use super::use_training;
use crate::charts::canvas::Redraw;
use crate::charts::heatmap::{draw_heatmap, CellText, HeatmapSpec};
use crate::charts::layout::HeatmapLayout;
use crate::hooks::use_canvas;
use crate::model::train::trainer::Task;
use crate::web::download::download_text;
use leptos::html;
use leptos::prelude::*;
use nalgebra::DMatrix;

/// Side of a thumbnail in CSS pixels.
const THUMB: f64 = 96.0;

/// One head's pattern as a bare grid.
#[component]
fn TrainedThumbnail(layer: usize, head: usize) -> impl IntoView {
    let training = use_training();
    let canvas_ref = NodeRef::<html::Canvas>::new();
    use_canvas("training thumbnail", canvas_ref, None, move |pass| {
        let weights: Option<DMatrix<f64>> = training
            .shown
            .with(|shown| shown.as_ref()?.attention.get(layer)?.get(head).cloned());
        let Some(weights) = weights else { return };
        let layout = HeatmapLayout::new(THUMB, weights.nrows(), 1, 0.0, false);
        let spec = HeatmapSpec {
            tokens: &[],
            weights: &weights,
            theme: pass.theme,
            cell_text: CellText::None,
            show_labels: false,
            show_legend: false,
            show_future: false,
        };
        pass.paint_whole((layout.width, layout.height), |canvas| {
            draw_heatmap(canvas, &layout, &spec, pass.dpr, Redraw::Everything)
        });
    });
    let name = format!("Layer {}, head {}", layer + 1, head + 1);
    view! {
        <li class="train-thumb">
            <canvas node_ref=canvas_ref role="img" aria-label=format!("{name}: attention on the held-out sequence")></canvas>
            <span>{name}</span>
        </li>
    }
}

#[component]
pub(super) fn HeadGrid() -> impl IntoView {
    let training = use_training();
    let shape = move || training.settings.with(|s| (s.layers, s.heads));
    let sequence = move || {
        let tokens = training.shown_tokens().join(" ");
        let grammar =
            training.with(|t| t.is_some_and(|t| matches!(t.config().task, Task::Grammar(_))));
        if grammar {
            format!("“{tokens}”")
        } else {
            tokens
        }
    };
    view! {
        <h3 class="sub">
            "Every head, on held-out sequence 1, at step "
            {move || training.shown.with(|s| s.as_ref().map(|s| s.eval.step))}
        </h3>
        <p class="hint" data-testid="train-sequence">"Tokens: " {sequence}</p>
        {move || {
            let (layers, heads) = shape();
            (0..layers)
                .map(|layer| view! {
                    <ul class="train-thumbs" aria-label=format!("Layer {} heads", layer + 1)>
                        {(0..heads).map(|head| view! { <TrainedThumbnail layer=layer head=head /> }).collect_view()}
                    </ul>
                })
                .collect_view()
        }}
        <HeadTables />
        <DownloadModel />
        <OpenInExplorer />
    }
}

/// Saves the model the grid shows (this step's or the replayed checkpoint's) as JSON: every
/// trained matrix, the held-out sequences, the grid's weights and the detector scores.
#[component]
fn DownloadModel() -> impl IntoView {
    let training = use_training();
    let problem = RwSignal::new(None::<String>);
    let save = move |_| {
        let Some(text) = training.shown_json() else {
            return;
        };
        let step = training
            .shown
            .with_untracked(|s| s.as_ref().map_or(0, |s| s.eval.step));
        let name = format!("trained-model-step{step}.json");
        problem.set(
            download_text(&name, "application/json", &text)
                .err()
                .map(|e| format!("Could not save the JSON: {e:?}")),
        );
    };
    view! {
        <div class="downloads">
            <button type="button" data-testid="download-model" on:click=save>
                "Download this model (JSON)"
            </button>
            <p class="hint">
                "Every trained matrix, the held-out sequences, the weights above and the detector scores, at the step shown: recompute them anywhere (the README shows how, with NumPy)."
            </p>
            <p class="error" role="alert">{move || problem.get()}</p>
        </div>
    }
}
