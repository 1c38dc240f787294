//! The first view of each page as HTML, written into index.html, practice.html and train.html at
//! build time so that it paints with the page, before the WebAssembly has loaded. It builds HTML,
//! not pixels: the colours, sizes and escaping come from [`crate::charts`], the words from
//! [`crate::text`].
//!
//! Why: the heatmap is the page's reason to exist, and drawn by the app it came ≈ 115 ms after the
//! page's first paint (the wasm's download and compile, the task that builds the page, the task
//! that draws it). Written into the HTML, it paints with the header.
//!
//! What: the main view exactly as the app's first task builds it for a link without a query (the
//! practice page's way back, the heading, then under the heatmap the explorer's hint, the weights
//! note and the closed glossary), with the heatmap as a grid of cells in place of the canvas. Every number and colour
//! comes from the model and the palette the canvas uses ([`cell_colour`], [`percent_label`]);
//! the cell size follows the canvas's [`HeatmapLayout`] in CSS (`.static-heatmap` in
//! style/heatmap-pages.css: container units give the same cell at every width), so nothing moves when
//! the app takes over. The app's first task removes this view and lays the picture over its own
//! canvas until the canvas is drawn (`web::first_view_handover`); a link with a query never shows
//! it (`assets/first-view.js`). The training page has no heatmap in its first view: [`training`]
//! writes its controls. `cargo run --example first_view` writes every page; a native test fails
//! when a page differs.

mod training;

pub use training::training_first_view;

use crate::charts::colors::{cell_colour, label_on, viridis_stops, Theme};
use crate::charts::layout::{
    percent_label, short_label, HeatmapLayout, LEGEND_HIGH, LEGEND_LOW, LEGEND_MASKED,
};
use crate::charts::svg::escape;
use crate::model::embed::full_link;
use crate::model::explorer::{ExplorerConfig, Prepared};
use crate::model::tokenizer::checked_tokens;
use crate::model::url_state::ViewState;
use crate::text;
use nalgebra::DMatrix;
use std::fmt::Write;

/// The lines around the first view in each page.
pub const START_MARKER: &str =
    "<!-- The first view, written by `cargo run --example first_view` (src/first_view/). -->";
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

/// The two pages that open on the explorer's heatmap.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Page {
    /// index.html: the heading, the notes, the hint and the heatmap with its numbers.
    Explorer,
    /// practice.html: the way back to the explorer above them, no hint, and no numbers in the
    /// cells (the page opens with a question about them, `NumbersHidden`).
    Practice,
    /// train.html: the way back, the panel's heading and its controls ([`training`]).
    Training,
}

impl Page {
    /// Every page with a first view.
    pub const ALL: [Self; 3] = [Self::Explorer, Self::Practice, Self::Training];

    /// The page's file, from the crate's root.
    pub fn file(self) -> &'static str {
        match self {
            Self::Explorer => "index.html",
            Self::Practice => "practice.html",
            Self::Training => "train.html",
        }
    }
}

/// The whole first view of `page`: what the app's first task builds above and in its `main`, in a
/// `div` the app removes. It is `inert`: a picture of the page, nothing in it can be focused or
/// used before the app's own elements replace it.
pub fn first_view_html(d: &DefaultView, page: Page) -> String {
    match page {
        Page::Training => training_first_view(&d.view),
        Page::Explorer | Page::Practice => main_view_html(d, page),
    }
}

/// [`first_view_html`] of the explorer and the practice page: their main view and heatmap.
fn main_view_html(d: &DefaultView, page: Page) -> String {
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
    // Built like the first task of `app::full_layout` (the explorer) and `app::PracticeApp`: the
    // way back (practice), the two side panels empty, the main view's heading, the heatmap, then
    // the hint (explorer), the note and the glossary. No ids: the app's own elements have them.
    let (nav, hint) = match page {
        Page::Explorer => (
            String::new(),
            format!(
                "<p class=\"hint\">{}<span class=\"for-pointer\">{}</span><span class=\"for-touch\">{}</span></p>",
                escape(text::HEATMAP_HINT),
                escape(text::HEATMAP_HINT_POINTER),
                escape(text::HEATMAP_HINT_TOUCH),
            ),
        ),
        Page::Practice | Page::Training => (nav_back(&d.view), String::new()),
    };
    format!(
        "<div id=\"first-view\" inert>{nav}<main class=\"layout\">\
<section class=\"panel controls\"></section>\
<section class=\"panel main-view\">\
<h2>{heading}{heads}</h2>\
<div class=\"heatmap-wrap\">{picture}</div>{hint}\
<p class=\"note\">{note}</p>\
<details class=\"glossary\"><summary>{summary}</summary><dl>{glossary}</dl></details>\
</section>\
<section class=\"panel inspector\"></section>\
</main></div>",
        heading = escape(text::HEATMAP_HEADING),
        heads = escape(&text::heads_label(p.heads.len(), d.view.head, false)),
        note = escape(&text::weights_note(&p.weights, d.view.seed, false)),
        summary = escape(text::SYMBOLS_SUMMARY),
        picture = static_heatmap(
            &p.config.tokens,
            &d.weights,
            d.row(),
            page == Page::Explorer
        ),
    )
}

/// The practice and training pages' way back to the explorer, with `view` in its link
/// (`components::page_links::ToExplorer`).
fn nav_back(view: &ViewState) -> String {
    format!(
        "<nav class=\"page-nav\"><a class=\"to-explorer\" href=\"{}\">{}</a></nav>",
        escape(&full_link("./", view)),
        escape(text::TO_EXPLORER)
    )
}

/// A page's source file as it is and as it should be: with the first view the model computes
/// between the markers. `cargo run --example first_view` writes `expected`; a test checks that
/// `text` is it. (Native only in use: the app never reads files.)
pub struct PageSource {
    pub path: String,
    pub text: String,
    pub expected: String,
}

impl PageSource {
    pub fn read(page: Page, d: &DefaultView) -> Self {
        let path = format!("{}/{}", env!("CARGO_MANIFEST_DIR"), page.file());
        let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{path}: {e}"));
        let expected = with_first_view(&text, &first_view_html(d, page))
            .unwrap_or_else(|| panic!("{path} has no first-view markers"));
        Self {
            path,
            text,
            expected,
        }
    }
}

/// The heatmap as the canvas draws it (`heatmap::draw_heatmap`, weights as percentages, labels,
/// legend) with the selected row's outline: cells coloured by weight in either theme, the masked
/// future in each theme's grey. The geometry is in style/heatmap-pages.css (`.static-heatmap`); this gives
/// it the grid's size (`--n`) and the labels' margin (`--gl`, [`HeatmapLayout`]'s `grid_left`).
/// Without `numbers`, the cells are bare, as the canvas draws them while numbers are hidden.
pub fn static_heatmap(
    tokens: &[String],
    weights: &DMatrix<f64>,
    row: usize,
    numbers: bool,
) -> String {
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
                let colour = cell_colour(weights, (i, j), false, Theme::LIGHT).css();
                if numbers {
                    let _ = write!(
                        cells,
                        "<i style=\"background:{colour};color:{}\">{}</i>",
                        label_on(w).css(),
                        percent_label(w)
                    );
                } else {
                    let _ = write!(cells, "<i style=\"background:{colour}\"></i>");
                }
            }
        }
    }
    let labels: String = tokens[..n]
        .iter()
        .map(|t| format!("<span>{}</span>", escape(&short_label(t, 10))))
        .collect();
    let gradient: Vec<String> = viridis_stops()
        .map(|(at, c)| format!("{} {}%", c.css(), at * 100.0))
        .collect();
    // The canvas's accessible name before any row is read out (`components::heatmap`).
    let mut label = text::heatmap_label(text::HEATMAP_TITLE, n);
    if !numbers {
        label.push(' ');
        label.push_str(text::NUMBERS_HIDDEN);
    }
    let theme_vars = |name: &str, t: Theme| {
        format!(
            "--{name}-bg:{};--{name}-text:{};--{name}-muted:{};--{name}-masked:{}",
            t.background.css(),
            t.text.css(),
            t.muted.css(),
            t.masked.css()
        )
    };
    format!(
        "<div class=\"static-heatmap\" role=\"img\" aria-label=\"{label}\" \
style=\"{light};{dark};--n:{n};--gl:{gl}px;--row:{row};--bar:linear-gradient(to right,{gradient})\">\
<div class=\"sh\"><div class=\"cells\">{cells}</div>\
<div class=\"rows\">{labels}</div><div class=\"cols\">{labels}</div>\
<div class=\"legend\"><span>{low}</span><b></b><span>{high}</span><i></i><span>{masked}</span></div>\
<div class=\"selection\"></div></div></div>",
        label = escape(&label),
        light = theme_vars("light", Theme::LIGHT),
        dark = theme_vars("dark", Theme::DARK),
        gl = layout.grid_left,
        gradient = gradient.join(","),
        low = escape(LEGEND_LOW),
        high = escape(LEGEND_HIGH),
        masked = escape(LEGEND_MASKED),
    )
}

/// `page` (a page's text) with the first view between the markers replaced by `view`, or
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
    use crate::charts::layout::{legend_bar_width, legend_has_swatch, legend_swatch_left};

    #[test]
    fn every_cell_has_the_canvas_colour_and_number() {
        let d = DefaultView::compute();
        let html = static_heatmap(&d.prepared.config.tokens, &d.weights, d.row(), true);
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
                    let colour = cell_colour(&d.weights, (i, j), false, Theme::DARK).css();
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
        // The app's first task shows row 6 "mat" of head 1 of 2 (e2e/first_view_handover.test.mjs
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

    /// The numbers in style/heatmap-pages.css's `.static-heatmap` rules that depend on the default view's
    /// layout: where the cells' numbers, the vertical column labels and the masked swatch switch.
    #[test]
    fn the_style_sheet_switches_where_the_canvas_does() {
        let css = std::fs::read_to_string(concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/style/heatmap-pages.css"
        ))
        .expect("style/heatmap-pages.css");
        // In the order they are written: the swatch, the numbers, the vertical labels.
        let widths: Vec<f64> = css
            .match_indices("@container (width < ")
            .map(|(i, m)| {
                let rest = &css[i + m.len()..];
                rest[..rest.find("px").unwrap()].parse().unwrap()
            })
            .collect();
        let [swatch, numbers, vertical] = widths[..] else {
            panic!("three container queries: {widths:?}");
        };
        let d = DefaultView::compute();
        let longest = d
            .prepared
            .config
            .tokens
            .iter()
            .map(|t| t.chars().count())
            .max()
            .unwrap();
        let at = |w: f64| HeatmapLayout::new(w, d.prepared.len(), longest, 13.0, true);
        assert!(
            at(numbers).cell_text && !at(numbers - 0.01).cell_text,
            "{numbers}"
        );
        assert!(
            !at(vertical).vertical_columns && at(vertical - 0.01).vertical_columns,
            "{vertical}"
        );
        assert!(
            legend_has_swatch(swatch) && !legend_has_swatch(swatch - 0.01),
            "{swatch}"
        );
        // The colour bar's width: the canvas's, width − slack between a floor and a ceiling.
        let (floor, ceiling) = (legend_bar_width(0.0), legend_bar_width(f64::INFINITY));
        let slack = 300.0 - legend_bar_width(300.0);
        assert!(css.contains(&format!(
            "legend b {{ width: clamp({floor}px, 100cqw - {slack}px, {ceiling}px);"
        )));
        // The swatch and its words, from the legend's left edge (6 px).
        assert!(css.contains(&format!(
            "legend i {{ position: absolute; left: {}px;",
            legend_swatch_left(470.0) - 6.0
        )));
        assert!(css.contains(&format!(
            "legend i + span {{ position: absolute; left: {}px;",
            legend_swatch_left(470.0) + 14.0
        )));
    }

    #[test]
    fn without_numbers_the_cells_are_bare_and_the_name_says_so() {
        let d = DefaultView::compute();
        let html = static_heatmap(&d.prepared.config.tokens, &d.weights, d.row(), false);
        assert!(!html.contains("%</i>"));
        assert!(html.contains(text::NUMBERS_HIDDEN));
        assert_eq!(html.matches("<i style=\"background:rgb(").count(), 28);
    }

    #[test]
    fn each_page_holds_the_first_view_the_model_computes() {
        let d = DefaultView::compute();
        for page in Page::ALL {
            let source = PageSource::read(page, &d);
            assert!(
                source.text == source.expected,
                "{}'s first view is not the model's: run `cargo run --example first_view`",
                source.path
            );
        }
        // The practice page's cells are bare; the explorer's have their numbers.
        assert!(!first_view_html(&d, Page::Practice).contains("%</i>"));
        assert!(first_view_html(&d, Page::Explorer).contains(">100%</i>"));
    }
}
