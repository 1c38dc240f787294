//! The clickable attention heatmap: hover (or tap) for a tooltip, click a row to inspect it, or
//! focus it and steer with the keyboard.

use crate::charts::heatmap::{draw_heatmap, CellText, HeatmapSpec};
use crate::charts::layout::{tooltip_position, HeatmapLayout};
use crate::hooks::use_canvas;
use crate::model::broken::sees_future;
use crate::state::Shared;
use crate::text::{
    broken_cell_description, broken_heatmap_label, broken_row_summary, cell_description,
    heatmap_label, row_summary, NUMBERS_HIDDEN,
};
use leptos::html;
use leptos::prelude::*;
use nalgebra::DMatrix;

/// The tooltip's text for a cell, of correct or of broken weights.
fn describe(broken: bool, tokens: &[String], w: &DMatrix<f64>, i: usize, j: usize) -> String {
    if broken {
        broken_cell_description(tokens, w, i, j)
    } else {
        cell_description(tokens, w, i, j)
    }
}

/// A row's summary, of correct or of broken weights.
fn summary(broken: bool, tokens: &[String], w: &DMatrix<f64>, i: usize) -> String {
    if broken {
        broken_row_summary(tokens, w, i)
    } else {
        row_summary(tokens, w, i)
    }
}

/// A heatmap canvas with its tooltip and keyboard handling.
#[component]
pub fn Heatmap(
    /// T × T weights; cells above the diagonal are drawn as the masked future.
    #[prop(into)]
    weights: Signal<Shared<DMatrix<f64>>>,
    /// Row and column labels.
    #[prop(into)]
    tokens: Signal<Vec<String>>,
    /// The outlined row, if any.
    #[prop(into)]
    selected_row: Signal<Option<usize>>,
    /// The outlined cell's column in keyboard cell mode.
    #[prop(into, optional)]
    selected_col: Option<Signal<Option<usize>>>,
    /// Called with the row index when a row is clicked or chosen by keyboard.
    on_select: Callback<usize>,
    /// Called when the keyboard moves into (Some) or out of (None) cell mode.
    #[prop(optional)]
    on_select_col: Option<Callback<Option<usize>>>,
    /// Print percentages in cells that are large enough.
    #[prop(optional)]
    percent_labels: bool,
    /// Print decimals (0.33) instead, as the notebook's averaging matrix.
    #[prop(optional)]
    decimal_labels: bool,
    /// Mark the canvas `data-ready="true"` after it first draws (tests wait for this).
    #[prop(optional)]
    ready_flag: bool,
    /// What the chart is, for its accessible name.
    #[prop(into)]
    title: String,
    /// The weights are broken attention ("Break it"): the future may have weight.
    #[prop(into, optional)]
    broken: Option<Signal<bool>>,
    /// While true, no number is shown: cells without labels, tooltips and the accessible name
    /// without weights (a practice question about them is open).
    #[prop(into, optional)]
    hide_numbers: Option<Signal<bool>>,
) -> impl IntoView {
    let hide_numbers = hide_numbers.unwrap_or_else(|| Signal::derive(|| false));
    let broken = broken.unwrap_or_else(|| Signal::derive(|| false));
    let canvas_ref = NodeRef::<html::Canvas>::new();
    let wrap_ref = NodeRef::<html::Div>::new();
    // The canvas's own box: the selection outlines are placed in percent of it.
    let box_ref = NodeRef::<html::Div>::new();
    // The geometry last drawn: clicks map through it.
    let layout: StoredValue<Option<HeatmapLayout>> = StoredValue::new(None);
    let tip_ref = NodeRef::<html::Div>::new();
    // The hovered cell and the pointer's viewport position.
    let hover = RwSignal::new(None::<(usize, usize, f64, f64)>);
    let selected_col = selected_col.unwrap_or_else(|| Signal::derive(|| None));
    let labels = if decimal_labels {
        CellText::Decimal
    } else if percent_labels {
        CellText::Percent
    } else {
        CellText::None
    };

    // While the labels and legend stay the same, new weights repaint only the grid (the hook's
    // frame check). A new selection repaints nothing: see the outlines below.
    use_canvas("heatmap", canvas_ref, Some(wrap_ref), move |pass| {
        let weights = weights.get();
        let hidden = hide_numbers.get();
        let cell_text = if hidden { CellText::None } else { labels };
        tokens.with(|tokens| {
            let n = tokens.len().min(weights.nrows());
            let width = pass.width.clamp(200.0, 720.0);
            let longest = tokens.iter().map(|t| t.chars().count()).max().unwrap_or(1);
            let l = HeatmapLayout::new(width, n, longest, 13.0, true);
            let spec = HeatmapSpec {
                tokens: &tokens[..n],
                weights: &weights,
                theme: pass.theme,
                cell_text,
                show_labels: true,
                show_legend: true,
                show_future: broken.get(),
            };
            // The legend reads differently for broken attention, and hidden numbers leave the
            // cells bare: either switch repaints everything.
            pass.paint(
                (l, spec.show_future, hidden),
                spec.tokens,
                (l.width, l.height),
                |canvas, redraw| draw_heatmap(canvas, &l, &spec, pass.dpr, redraw),
            );
            if layout.get_value() != Some(l) {
                // The grid's geometry for the selection outline's CSS (style/main.css).
                if let Some(outline_box) = box_ref.get() {
                    let _ = outline_box.set_attribute("style", &l.outline_css_vars());
                }
                layout.set_value(Some(l));
                // A tooltip placed for the old geometry would point at the wrong cell.
                hover.set(None);
            }
            if ready_flag {
                pass.mark_ready();
            }
        });
    });

    let on_move = move |ev: leptos::ev::MouseEvent| {
        let cell = layout
            .get_value()
            .and_then(|l| l.cell_at(f64::from(ev.offset_x()), f64::from(ev.offset_y())));
        let pointer = (f64::from(ev.client_x()), f64::from(ev.client_y()));
        hover.set(cell.map(|(i, j)| (i, j, pointer.0, pointer.1)));
    };
    let on_click = move |ev: leptos::ev::MouseEvent| {
        if let Some(row) = layout
            .get_value()
            .and_then(|l| l.row_at(f64::from(ev.offset_y())))
        {
            on_select.run(row);
            if let Some(cb) = on_select_col {
                cb.run(None);
            }
        }
    };
    let on_key = move |ev: leptos::ev::KeyboardEvent| {
        let n = tokens.with(Vec::len);
        if n == 0 {
            return;
        }
        let row = selected_row.get_untracked().unwrap_or(0).min(n - 1);
        let col = selected_col.get_untracked();
        let mut new_row = row;
        let mut new_col = col;
        match ev.key().as_str() {
            "ArrowDown" => new_row = (row + 1).min(n - 1),
            "ArrowUp" => new_row = row.saturating_sub(1),
            "Home" => new_row = 0,
            "End" => new_row = n - 1,
            "PageDown" => new_row = (row + 5).min(n - 1),
            "PageUp" => new_row = row.saturating_sub(5),
            "ArrowRight" if on_select_col.is_some() => {
                new_col = Some(col.map_or(0, |c| (c + 1).min(n - 1)));
            }
            "ArrowLeft" if on_select_col.is_some() => {
                new_col = Some(col.map_or(row, |c| c.saturating_sub(1)));
            }
            "Escape" if col.is_some() => new_col = None,
            _ => return,
        }
        ev.prevent_default();
        if new_row != row {
            on_select.run(new_row);
        }
        if new_col != col {
            if let Some(cb) = on_select_col {
                cb.run(new_col);
            }
        }
    };

    let aria_label = move || {
        let w = weights.get();
        tokens.with(|t| {
            let n = t.len().min(w.nrows());
            let broken = broken.get();
            let mut label = if broken {
                let future = (0..n).map(|i| (i + 1..n).filter(|&j| sees_future(&w, i, j)).count());
                broken_heatmap_label(&title, n, future.sum())
            } else {
                heatmap_label(&title, n)
            };
            if hide_numbers.get() {
                label.push(' ');
                label.push_str(NUMBERS_HIDDEN);
            } else if let Some(i) = selected_row.get().filter(|&i| i < n) {
                label.push(' ');
                label.push_str(&summary(broken, t, &w, i));
            }
            label
        })
    };
    let announcement = move || {
        if hide_numbers.get() {
            return String::new();
        }
        let w = weights.get();
        tokens.with(|t| {
            let n = t.len().min(w.nrows());
            match (selected_row.get().filter(|&i| i < n), selected_col.get()) {
                (Some(i), Some(j)) if j < n => describe(broken.get(), t, &w, i, j),
                (Some(i), _) => summary(broken.get(), t, &w, i),
                _ => String::new(),
            }
        })
    };
    // The view only adds or removes the tooltip; it is filled and placed here, because its size
    // must be measured with its new text before it is placed, flipped and clamped inside the
    // viewport (it is `position: fixed`, so the pointer's viewport coordinates place it directly).
    // It is a manual popover, shown in the top layer: the sections below the first screen
    // contain their layout and paint (`content-visibility: auto` in `style/main.css`), which
    // would otherwise make a heatmap's section the tooltip's frame and clip it at its edges.
    // Where the Popover API is missing, the tooltip is an ordinary fixed box, as before.
    // Reading the node ref reruns this once a new tooltip is mounted.
    Effect::new(move |_| {
        let Some(tip) = tip_ref.get() else { return };
        let shown = hover.get().and_then(|(i, j, x, y)| {
            let w = weights.get();
            let fits = |t: &Vec<String>| i < t.len().min(w.nrows()) && j < t.len().min(w.nrows());
            tokens.with(|t| {
                fits(t).then(|| {
                    let text = if hide_numbers.get() {
                        format!("{} → {}: {NUMBERS_HIDDEN}", t[i], t[j])
                    } else {
                        describe(broken.get(), t, &w, i, j)
                    };
                    (text, x, y)
                })
            })
        });
        let Some((text, x, y)) = shown else { return };
        tip.set_text_content(Some(&text));
        // Shown before it is measured: a closed popover has no size.
        if tip.matches(":popover-open") == Ok(false) {
            let _ = tip.show_popover();
        }
        let Some(root) = document().document_element() else {
            return;
        };
        let (left, top) = tooltip_position(
            (x, y),
            (
                f64::from(tip.offset_width()),
                f64::from(tip.offset_height()),
            ),
            (
                f64::from(root.client_width()),
                f64::from(root.client_height()),
            ),
        );
        let _ = tip.set_attribute("style", &format!("left:{left}px;top:{top}px"));
    });

    // The outlines are drawn by CSS over the canvas rather than on it, so a new selection repaints
    // no pixels: the draw effect gives the wrapper the grid's geometry, and an outline only needs
    // its row (and column, for a cell). Its style is a string either way, not an optional one plus
    // a `hidden` flag: fewer view types in the wasm.
    let selected = move || {
        let n = tokens.with(Vec::len);
        selected_row
            .get()
            .filter(|&i| i < n)
            .map(|i| (i, selected_col.get().filter(|&j| j < n)))
    };
    let row_outline = move || match selected() {
        Some((i, _)) => format!("--row:{i}"),
        None => "display:none".to_string(),
    };
    let cell_outline = move || match selected() {
        Some((i, Some(j))) => format!("--row:{i};--col:{j}"),
        _ => "display:none".to_string(),
    };

    view! {
        <div class="heatmap-wrap" node_ref=wrap_ref>
            <div class="heatmap-box" node_ref=box_ref>
            <canvas
                node_ref=canvas_ref
                class="heatmap"
                role="img"
                tabindex="0"
                aria-label=aria_label
                aria-describedby=on_select_col.map(|_| "heatmap-keys")
                on:mousemove=on_move
                on:mouseleave=move |_| hover.set(None)
                on:click=on_click
                on:keydown=on_key
            ></canvas>
            <div class="selection" aria-hidden="true" style=row_outline></div>
            <div class="selection cell" aria-hidden="true" style=cell_outline></div>
            {move || {
                hover.with(Option::is_some).then(|| {
                    view! { <div class="tooltip" role="tooltip" popover="manual" node_ref=tip_ref></div> }
                })
            }}
            </div>
            <p class="visually-hidden" aria-live="polite">{announcement}</p>
        </div>
    }
}
