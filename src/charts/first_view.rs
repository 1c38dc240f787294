//! The explorer's first view as HTML, written into index.html at build time so that the default
//! heatmap paints with the page, before the WebAssembly has loaded.
//!
//! Why: the heatmap is the page's reason to exist, and drawn by the app it came ≈ 115 ms after the
//! page's first paint (the wasm's download and compile, the task that builds the page, the task
//! that draws it). Written into the HTML, it paints with the header.
//!
//! What: the main view exactly as the app's first task builds it for a link without a query (the
//! heading, the weights note, the closed glossary, the hint), with the heatmap as a grid of cells
//! in place of the canvas. Every number and colour comes from the model and the palette the canvas
//! uses ([`cell_colour`], [`percent_label`]); the cell size follows the canvas's [`HeatmapLayout`]
//! in CSS (`.static-heatmap` in style/main.css: container units give the same cell at every
//! width), so nothing moves when the app takes over. The app's first task removes this main view
//! and lays the picture over its own canvas until the canvas is drawn (`web::first_view`).
//! `cargo run --example first_view` writes it into index.html; a native test fails when the two
//! differ.

use super::colors::{cell_colour, label_on, viridis_stops, Theme};
use super::layout::{
    percent_label, short_label, HeatmapLayout, LEGEND_HIGH, LEGEND_LOW, LEGEND_MASKED,
};
use super::svg::escape;
use crate::model::explorer::{ExplorerConfig, Prepared};
use crate::model::tokenizer::checked_tokens;
use crate::model::url_state::ViewState;
use crate::text;
use nalgebra::DMatrix;
use std::fmt::Write;

/// The lines around the first view in index.html.
pub const START_MARKER: &str =
    "<!-- The first view, written by `cargo run --example first_view` (src/charts/first_view.rs). -->";
pub const END_MARKER: &str = "<!-- End of the first view. -->";

/// The default view (a link without a query) as the app computes it: its tokens, the shown
/// head's weights, the selected row and the model they come from.
pub struct DefaultView {
    pub view: ViewState,
    pub prepared: Prepared,
    pub weights: DMatrix<f64>,
}

impl DefaultView {
    /// The same steps as `state::ExplorerModel` for the default view: the sentence's tokens,
    /// the random model for the seed, heads and positions, then the head's weights at τ.
    pub fn compute() -> Self {
        let view = ViewState::default();
        let tokens = checked_tokens(&view.sentence, view.max_tokens)
            .expect("the default sentence passes the sentence gate");
        let prepared = Prepared::new(ExplorerConfig {
            tokens,
            seed: view.seed,
            heads: view.heads,
            positions: view.positions,
        });
        let weights = prepared.heads[view.head].weights(view.tau);
        Self {
            view,
            prepared,
            weights,
        }
    }

    /// The row the inspector opens on (the view's row, moved up for a shorter sentence).
    pub fn row(&self) -> usize {
        self.view.row.min(self.prepared.len() - 1)
    }
}

/// The whole first view: the `main` the app's first task replaces.
pub fn first_view_html(d: &DefaultView) -> String {
    let p = &d.prepared;
    let mut glossary = String::new();
    for (symbol, meaning) in text::glossary(p.len(), p.d_model, p.heads.len(), false) {
        let _ = write!(
            glossary,
            "<dt><dfn>{}</dfn></dt><dd>{}</dd>",
            escape(symbol),
            escape(&meaning)
        );
    }
    // Built like `app::full_layout`'s first task: the two side panels empty, the main view's
    // heading, note, glossary and hint, then the heatmap. No ids: the app's own elements have them.
    format!(
        "<main class=\"layout\" id=\"first-view\">\
<section class=\"panel controls\"></section>\
<section class=\"panel main-view\">\
<h2>{heading}{heads}</h2>\
<p class=\"note\">{note}</p>\
<details class=\"glossary\"><summary>{summary}</summary><dl>{glossary}</dl></details>\
<p class=\"hint\">{hint}<span class=\"for-pointer\">{pointer}</span><span class=\"for-touch\">{touch}</span></p>\
<div class=\"heatmap-wrap\">{picture}</div>\
</section>\
<section class=\"panel inspector\"></section>\
</main>",
        heading = escape(text::HEATMAP_HEADING),
        heads = escape(&text::heads_label(p.heads.len(), d.view.head, false)),
        note = escape(&text::weights_note(&p.weights, d.view.seed)),
        summary = escape(text::SYMBOLS_SUMMARY),
        hint = escape(text::HEATMAP_HINT),
        pointer = escape(text::HEATMAP_HINT_POINTER),
        touch = escape(text::HEATMAP_HINT_TOUCH),
        picture = static_heatmap(&p.config.tokens, &d.weights, d.row()),
    )
}

/// A colour as CSS.
fn hex(c: super::colors::Rgb) -> String {
    format!("#{:02x}{:02x}{:02x}", c.0, c.1, c.2)
}

/// The heatmap as the canvas draws it (`heatmap::draw_heatmap`, weights as percentages, labels,
/// legend) with the selected row's outline: cells coloured by weight in either theme, the masked
/// future in each theme's grey. The geometry is in style/main.css (`.static-heatmap`); this gives
/// it the grid's size (`--n`) and the labels' margin (`--gl`, [`HeatmapLayout`]'s `grid_left`).
pub fn static_heatmap(tokens: &[String], weights: &DMatrix<f64>, row: usize) -> String {
    let n = tokens.len().min(weights.nrows());
    let longest = tokens.iter().map(|t| t.chars().count()).max().unwrap_or(1);
    // At the canvas's widest, where labels never take a third of the width.
    let layout = HeatmapLayout::new(720.0, n, longest, 13.0, true);
    let mut cells = String::new();
    for i in 0..n {
        for j in 0..n {
            if j > i {
                // The masked future: each theme's grey (`.static-heatmap .m`).
                cells.push_str("<i class=\"m\"></i>");
            } else {
                // Viridis, the same in both themes.
                let w = weights[(i, j)];
                let _ = write!(
                    cells,
                    "<i style=\"background:{};color:{}\">{}</i>",
                    hex(cell_colour(weights, (i, j), false, Theme::LIGHT)),
                    hex(label_on(w)),
                    percent_label(w)
                );
            }
        }
    }
    let labels: String = tokens[..n]
        .iter()
        .map(|t| format!("<span>{}</span>", escape(&short_label(t, 10))))
        .collect();
    let gradient: Vec<String> = viridis_stops()
        .map(|(at, c)| format!("{} {}%", hex(c), at * 100.0))
        .collect();
    let theme_vars = |name: &str, t: Theme| {
        format!(
            "--{name}-bg:{};--{name}-text:{};--{name}-muted:{};--{name}-masked:{}",
            hex(t.background),
            hex(t.text),
            hex(t.muted),
            hex(t.masked)
        )
    };
    format!(
        "<div class=\"static-heatmap\" role=\"img\" aria-label=\"{label}\" \
style=\"{light};{dark};--n:{n};--gl:{gl}px;--row:{row};--bar:linear-gradient(to right,{gradient})\">\
<div class=\"sh\"><div class=\"cells\">{cells}</div>\
<div class=\"rows\">{labels}</div><div class=\"cols\">{labels}</div>\
<div class=\"legend\"><span>{low}</span><b></b><span>{high}</span><i></i><span>{masked}</span></div>\
<div class=\"selection\"></div></div></div>",
        label = escape(&text::heatmap_label(text::HEATMAP_TITLE, n)),
        light = theme_vars("light", Theme::LIGHT),
        dark = theme_vars("dark", Theme::DARK),
        gl = layout.grid_left,
        gradient = gradient.join(","),
        low = escape(LEGEND_LOW),
        high = escape(LEGEND_HIGH),
        masked = escape(LEGEND_MASKED),
    )
}

/// `page` (index.html's text) with the first view between the markers replaced by `view`, or
/// `None` when the markers are missing.
pub fn with_first_view(page: &str, view: &str) -> Option<String> {
    let start = page.find(START_MARKER)? + START_MARKER.len();
    let end = start + page[start..].find(END_MARKER)?;
    Some(format!(
        "{}\n    {view}\n    {}",
        &page[..start],
        &page[end..]
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_cell_has_the_canvas_colour_and_number() {
        let d = DefaultView::compute();
        let html = static_heatmap(&d.prepared.config.tokens, &d.weights, d.row());
        let cells: Vec<&str> = html
            .split("<i")
            .skip(1)
            .take(d.prepared.len().pow(2))
            .collect();
        let n = d.prepared.len();
        assert_eq!(n, 7);
        for i in 0..n {
            for j in 0..n {
                let cell = cells[i * n + j];
                if j > i {
                    assert!(
                        cell.starts_with(" class=\"m\">"),
                        "({i}, {j}) masked: {cell}"
                    );
                } else {
                    let colour = hex(cell_colour(&d.weights, (i, j), false, Theme::DARK));
                    assert!(cell.contains(&format!("background:{colour}")), "({i}, {j})");
                    let number = percent_label(d.weights[(i, j)]);
                    assert!(cell.contains(&format!(">{number}</i>")), "({i}, {j})");
                }
            }
        }
    }

    #[test]
    fn the_default_view_is_the_apps() {
        let d = DefaultView::compute();
        assert_eq!(
            d.prepared.config.tokens.join(" "),
            "The cat sat on the mat ."
        );
        assert_eq!(d.prepared.len(), 7);
        // The app's first task shows row 6 "mat" of head 1 of 2 (e2e/written_view.test.mjs
        // compares the picture with the canvas pixel by pixel).
        assert_eq!((d.row(), d.view.head, d.view.heads), (5, 0, 2));
        for i in 0..7 {
            let sum: f64 = (0..7).map(|j| d.weights[(i, j)]).sum();
            assert!((sum - 1.0).abs() < 1e-12);
        }
    }

    #[test]
    fn markers_are_replaced_and_missing_ones_are_none() {
        let page = format!("a\n    {START_MARKER}\n    old\n    {END_MARKER}\nb");
        let new = with_first_view(&page, "new").unwrap();
        assert_eq!(
            new,
            format!("a\n    {START_MARKER}\n    new\n    {END_MARKER}\nb")
        );
        assert_eq!(with_first_view(&new, "new").unwrap(), new);
        assert_eq!(with_first_view("no markers", "x"), None);
    }

    #[test]
    fn index_html_holds_the_first_view_the_model_computes() {
        let page = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/index.html"))
            .expect("index.html");
        let view = first_view_html(&DefaultView::compute());
        let expected = with_first_view(&page, &view).expect("index.html has the markers");
        assert!(
            page == expected,
            "index.html's first view is not the model's: run `cargo run --example first_view`"
        );
    }
}
