//! One small heatmap per head; choosing one makes it the main heatmap and the inspector's source.

use crate::charts::canvas::Redraw;
use crate::charts::heatmap::{draw_heatmap, CellText, HeatmapSpec};
use crate::charts::layout::HeatmapLayout;
use crate::hooks::{use_canvas, use_visibility, use_while_seen};
use crate::state::{ExplorerModel, Shared, ViewSignals};
use leptos::html;
use leptos::prelude::*;
use nalgebra::DMatrix;

/// Side of a thumbnail in CSS pixels.
const THUMB: f64 = 96.0;

/// One head's weights as a bare grid on a button.
#[component]
pub fn Thumbnail(
    /// Which head this thumbnail shows (0-based), for its labels.
    head: usize,
    /// The head's weights; `None` while the head is going away (fewer heads were chosen).
    #[prop(into)]
    weights: Signal<Option<Shared<DMatrix<f64>>>>,
    /// Whether this head is the one shown large.
    #[prop(into)]
    selected: Signal<bool>,
    /// Called when the thumbnail is chosen.
    on_select: Callback<()>,
) -> impl IntoView {
    let canvas_ref = NodeRef::<html::Canvas>::new();
    let view = ViewSignals::from_context();
    // Drawn whole every time: there are no labels to keep.
    use_canvas("thumbnail", canvas_ref, None, move |pass| {
        let show_future = view.is_broken();
        weights.with(|weights| {
            let Some(weights) = weights else { return };
            let layout = HeatmapLayout::new(THUMB, weights.nrows(), 1, 0.0, false);
            let spec = HeatmapSpec {
                // Only labels would name the tokens, and a thumbnail has none.
                tokens: &[],
                weights,
                theme: pass.theme,
                cell_text: CellText::None,
                show_labels: false,
                show_legend: false,
                show_future,
            };
            pass.paint_whole((layout.width, layout.height), |canvas| {
                draw_heatmap(canvas, &layout, &spec, pass.dpr, Redraw::Everything)
            });
        });
    });
    view! {
        <li>
            <button
                type="button"
                class="thumb"
                aria-pressed=move || if selected.get() { "true" } else { "false" }
                on:click=move |_| on_select.run(())
            >
                <canvas node_ref=canvas_ref role="img" aria-label=format!("Thumbnail of head {}'s attention", head + 1)></canvas>
                <span>{format!("Head {}", head + 1)}</span>
            </button>
        </li>
    }
}

/// A thumbnail per head of the page's model (`ExplorerModel`), shown when there is more than one;
/// choosing one selects that head in the view. They are drawn once at the start wherever they are;
/// then, off screen, they keep their drawing and read no weights, so a slider step computes only
/// the selected head (they tell the model through `every_head_on_screen`), and they catch up as
/// they come near the viewport (`use_visibility`'s margin).
#[component]
pub fn HeadThumbnails() -> impl IntoView {
    let view = ViewSignals::from_context();
    let model = ExplorerModel::from_context();
    let heads = move || model.prepared.with(|p| p.heads.len());
    let list_ref = NodeRef::<html::Ul>::new();
    let seen = use_visibility(list_ref);
    // Sync the observer's report into the model's signal (the model is built before this view).
    Effect::new(move |_| model.every_head_on_screen.set(seen.get()));
    let shown = use_while_seen(Some(seen), "thumbnails", move || {
        model.shown_head_weights.get()
    });
    view! {
        <Show when=move || { heads() > 1 }>
            <h3 class="sub">"All heads — choose one to inspect"</h3>
            <ul class="thumbs" aria-label="Heads" node_ref=list_ref>
                <For
                    each=move || 0..heads()
                    key=|h| *h
                    children=move |h| {
                        view! {
                            <Thumbnail
                                head=h
                                weights=Signal::derive(move || shown.with(|w| w.get(h).cloned()))
                                selected=Signal::derive(move || view.head.get() == h)
                                on_select=Callback::new(move |()| view.head.set(h))
                            />
                        }
                    }
                />
            </ul>
        </Show>
    }
}
