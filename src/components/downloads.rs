//! Download buttons: JSON (everything needed to recompute the view), CSV (the weights), PNG,
//! and the heatmap as an SVG figure with a caption of the view's settings. On the practice page
//! they wait, like the heatmap's numbers, while a question is open: each file holds the numbers
//! it asks about.

use crate::charts::svg::{heatmap_svg, SvgHeatmap};
use crate::model::broken::broken_attention;
use crate::model::export::{view_json, weights_csv};
use crate::state::{use_theme, ExplorerModel, NumbersHidden, ViewSignals};
use crate::text::{figure_caption, DOWNLOADS_HIDDEN};
use crate::web::download::{download_canvas_png, download_text};
use leptos::prelude::*;

#[component]
pub fn Downloads() -> impl IntoView {
    let view = ViewSignals::from_context();
    let model = ExplorerModel::from_context();
    let status = RwSignal::new(None::<String>);
    let hidden = NumbersHidden::from_context();
    let waiting = move || NumbersHidden::now(hidden);
    let report = move |result: Result<(), wasm_bindgen::JsValue>, what: &str| {
        status.set(
            result
                .err()
                .map(|e| crate::text::save_failed(what, &format!("{e:?}"))),
        );
    };
    let json = move |_| {
        let (tau, broken) = (view.tau.get_untracked(), view.broken.get_untracked());
        // The outputs are not kept between slider steps; compute the full attention for the file,
        // with the "Break it" mistakes the page shows (none: correct attention, bit for bit).
        let text = model.prepared.with_untracked(|p| {
            let attention = broken_attention(p, broken, tau);
            view_json(&view.sentence.get_untracked(), p, (tau, broken), &attention)
        });
        report(
            download_text("attention.json", "application/json", &text),
            "JSON",
        );
    };
    let csv = move |_| {
        let head = view.head.get_untracked();
        let text = model
            .shown_weights
            .with_untracked(|w| model.tokens.with_untracked(|t| weights_csv(t, w)));
        report(
            download_text(
                &format!("attention-head{}.csv", head + 1),
                "text/csv",
                &text,
            ),
            "CSV",
        );
    };
    let theme = use_theme();
    let svg = move |_| {
        let broken = view.broken.get_untracked();
        let caption = figure_caption(
            &view.sentence.get_untracked(),
            view.seed.get_untracked(),
            (view.head.get_untracked(), view.heads.get_untracked()),
            view.tau.get_untracked(),
            view.positions.get_untracked(),
            broken,
        );
        let text = model.shown_weights.with_untracked(|weights| {
            model.tokens.with_untracked(|tokens| {
                heatmap_svg(&SvgHeatmap {
                    tokens,
                    weights,
                    theme: theme.get_untracked(),
                    show_future: !broken.is_empty(),
                    caption: &caption,
                })
            })
        });
        report(
            download_text("attention.svg", "image/svg+xml", &text),
            "SVG",
        );
    };
    let png = move |_| {
        let result = (|| {
            let canvas = crate::web::window()
                .document()
                .and_then(|d| d.query_selector("canvas.heatmap").ok().flatten())
                .ok_or_else(|| wasm_bindgen::JsValue::from_str("no heatmap"))?;
            download_canvas_png("attention.png", canvas)
        })();
        report(result, "image");
    };
    view! {
        <div class="downloads" role="group" aria-label="Downloads">
            <button type="button" on:click=json disabled=waiting>"Download JSON"</button>
            <button type="button" on:click=csv disabled=waiting>"Download CSV"</button>
            <button type="button" on:click=png disabled=waiting>"Download PNG"</button>
            <button type="button" on:click=svg disabled=waiting>"Download SVG"</button>
            <p class="hint" data-testid="downloads-hidden" hidden=move || !waiting()>{DOWNLOADS_HIDDEN}</p>
            <p class="error" role="alert">{move || status.get()}</p>
        </div>
    }
}
