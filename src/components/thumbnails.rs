//! One small heatmap per head; choosing one makes it the main heatmap and the inspector's source.

use crate::charts::canvas::{device_pixel_ratio, size_canvas, Redraw};
use crate::charts::heatmap::{draw_heatmap, CellText, HeatmapSpec};
use crate::charts::layout::HeatmapLayout;
use crate::state::{use_theme, AppState};
use leptos::html;
use leptos::prelude::*;

/// Side of a thumbnail in CSS pixels.
const THUMB: f64 = 96.0;

#[component]
fn Thumbnail(
    /// Which head this thumbnail shows (0-based).
    head: usize,
) -> impl IntoView {
    let state = AppState::from_context();
    let theme = use_theme();
    let canvas_ref = NodeRef::<html::Canvas>::new();
    Effect::new(move |_| {
        let Some(canvas) = canvas_ref.get() else {
            return;
        };
        let theme = theme.get();
        state.head_weights.with(|a| {
            let Some(weights) = a.get(head) else { return };
            let n = weights.nrows();
            let layout = HeatmapLayout::new(THUMB, n, 1, 0.0, false);
            let dpr = device_pixel_ratio();
            size_canvas(&canvas, layout.width, layout.height, dpr);
            state.tokens.with(|t| {
                let spec = HeatmapSpec {
                    tokens: t,
                    weights,
                    theme,
                    cell_text: CellText::None,
                    show_labels: false,
                    show_legend: false,
                };
                if let Err(e) = draw_heatmap(&canvas, &layout, &spec, dpr, Redraw::Everything) {
                    leptos::logging::error!("thumbnail drawing failed: {e:?}");
                }
            });
            crate::web::timing::mark_drawn();
        });
    });
    view! {
        <li>
            <button
                type="button"
                class="thumb"
                aria-pressed=move || if state.head.get() == head { "true" } else { "false" }
                on:click=move |_| state.head.set(head)
            >
                <canvas node_ref=canvas_ref role="img" aria-label=format!("Thumbnail of head {}'s attention", head + 1)></canvas>
                <span>{format!("Head {}", head + 1)}</span>
            </button>
        </li>
    }
}

#[component]
pub fn HeadThumbnails() -> impl IntoView {
    let state = AppState::from_context();
    view! {
        <Show when=move || { state.heads.get() > 1 }>
            <h3 class="sub">"All heads — choose one to inspect"</h3>
            <ul class="thumbs" aria-label="Heads">
                <For each=move || 0..state.heads.get() key=|h| *h children=move |h| view! { <Thumbnail head=h /> } />
            </ul>
        </Show>
    }
}
