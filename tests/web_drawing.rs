//! Drawing tests in a real browser (wasm-bindgen-test + headless Chromium): the charts are drawn
//! on their own, without the app, on fresh canvases, and their pixels compared — the cell painters,
//! the cell numbers, fonts, and grid- or bars-only redraws against full draws.
#![cfg(target_arch = "wasm32")]

use attention_explorer::charts::bars::{draw_row_bars, BarsSpec};
use attention_explorer::charts::canvas::{
    canvas_font, drawing_area, ensure_font, size_canvas, text_style, Redraw,
};
use attention_explorer::charts::colors::{label_on, Theme};
use attention_explorer::charts::heatmap::{
    draw_heatmap, paint_cell_text, paint_cells, CellPainter, CellPixels, CellText, HeatmapSpec,
    CELL_TEXT_SCALE,
};
use attention_explorer::charts::layout::{percent_label, HeatmapLayout};
use attention_explorer::format::fixed;
use nalgebra::DMatrix;
use plotters::style::text_anchor::{HPos, VPos};
use wasm_bindgen::JsCast;
use wasm_bindgen_test::*;
use web_sys::HtmlCanvasElement;

mod common;
use common::{all_pixels, context_2d, document};

wasm_bindgen_test_configure!(run_in_browser);

/// The default sentence's tokens.
fn sentence_tokens() -> Vec<String> {
    ["The", "cat", "sat", "on", "the", "mat", "."]
        .iter()
        .map(std::string::ToString::to_string)
        .collect()
}

/// A canvas outside the document, sized like the app sizes its charts.
fn detached_canvas((css_w, css_h): (f64, f64), dpr: f64) -> HtmlCanvasElement {
    let c: HtmlCanvasElement = document()
        .create_element("canvas")
        .unwrap()
        .dyn_into()
        .unwrap();
    size_canvas(&c, css_w, css_h, dpr);
    c
}

fn assert_same_pixels(a: &[u8], b: &[u8], dpr: f64) {
    let differing = a.chunks(4).zip(b.chunks(4)).filter(|(p, q)| p != q).count();
    assert_eq!(differing, 0, "dpr {dpr}: {differing} pixels differ");
}

#[wasm_bindgen_test]
fn a_grid_only_redraw_paints_exactly_what_a_full_draw_does() {
    fn spec<'a>(tokens: &'a [String], w: &'a DMatrix<f64>) -> HeatmapSpec<'a> {
        HeatmapSpec {
            tokens,
            weights: w,
            theme: Theme::LIGHT,
            cell_text: CellText::Percent,
            show_labels: true,
            show_legend: true,
            show_future: false,
        }
    }
    let tokens = sentence_tokens();
    let n = tokens.len();
    // Two different weight matrices (rows sum to 1, future 0), as after a τ change.
    let weights = |sharp: f64| {
        DMatrix::from_fn(n, n, |i, j| {
            if j > i {
                return 0.0;
            }
            let raw = |k: usize| (sharp * ((k * 7 + i * 3) % 5) as f64).exp();
            raw(j) / (0..=i).map(raw).sum::<f64>()
        })
    };
    let (before, after) = (weights(0.3), weights(2.0));
    for dpr in [1.0, 2.0] {
        let layout = HeatmapLayout::new(560.0, n, 3, 13.0, true);
        let canvas = || detached_canvas((layout.width, layout.height), dpr);
        let (incremental, fresh) = (canvas(), canvas());
        draw_heatmap(
            &incremental,
            &layout,
            &spec(&tokens, &before),
            dpr,
            Redraw::Everything,
        )
        .unwrap();
        draw_heatmap(
            &incremental,
            &layout,
            &spec(&tokens, &after),
            dpr,
            Redraw::GridOnly,
        )
        .unwrap();
        draw_heatmap(
            &fresh,
            &layout,
            &spec(&tokens, &after),
            dpr,
            Redraw::Everything,
        )
        .unwrap();
        let b = all_pixels(&fresh);
        assert_same_pixels(&all_pixels(&incremental), &b, dpr);
        // And the redraw did change the picture (the test would be empty otherwise).
        let before_only = canvas();
        draw_heatmap(
            &before_only,
            &layout,
            &spec(&tokens, &before),
            dpr,
            Redraw::Everything,
        )
        .unwrap();
        assert_ne!(all_pixels(&before_only), b);
    }
}

#[wasm_bindgen_test]
fn a_bars_only_redraw_paints_exactly_what_a_full_draw_does() {
    const BEFORE: [f64; 7] = [0.1, 0.2, 0.3, 0.4, 0.0, 0.0, 0.0];
    const AFTER: [f64; 7] = [0.05, 0.05, 0.1, 0.1, 0.2, 0.5, 0.0];
    let tokens = sentence_tokens();
    let size = (420.0, 180.0);
    for dpr in [1.0, 2.0] {
        let canvas = || detached_canvas(size, dpr);
        let spec = |weights: &'static [f64], row| BarsSpec {
            tokens: &tokens,
            weights,
            row,
            theme: Theme::LIGHT,
        };
        let (incremental, fresh) = (canvas(), canvas());
        draw_row_bars(
            &incremental,
            &spec(&BEFORE, 3),
            size,
            dpr,
            Redraw::Everything,
        )
        .unwrap();
        draw_row_bars(&incremental, &spec(&AFTER, 5), size, dpr, Redraw::GridOnly).unwrap();
        draw_row_bars(&fresh, &spec(&AFTER, 5), size, dpr, Redraw::Everything).unwrap();
        let b = all_pixels(&fresh);
        assert_same_pixels(&all_pixels(&incremental), &b, dpr);
        let before_only = canvas();
        draw_row_bars(
            &before_only,
            &spec(&BEFORE, 3),
            size,
            dpr,
            Redraw::Everything,
        )
        .unwrap();
        assert_ne!(all_pixels(&before_only), b);
    }
}

#[wasm_bindgen_test]
fn rectangles_and_the_blit_paint_identical_cells() {
    // Up to 16 tokens the app paints rectangles; the larger grids are what the blit paints in
    // the app, with cells of several device pixels, of about one, and narrower than one.
    for n in [1, 2, 7, 16, 64, 256] {
        let tokens: Vec<String> = (0..n).map(|i| format!("w{i}")).collect();
        let weights = DMatrix::from_fn(n, n, |i, j| {
            if j > i {
                0.0
            } else {
                ((i * 7 + j * 3) % 11) as f64 / 10.0
            }
        });
        for dpr in [1.0, 1.5, 2.0] {
            for (width, font_px, legend) in
                [(96.0, 0.0, false), (220.0, 13.0, true), (506.0, 13.0, true)]
            {
                let layout = HeatmapLayout::new(width, n, 3, font_px, legend);
                let spec = HeatmapSpec {
                    tokens: &tokens,
                    weights: &weights,
                    theme: Theme::LIGHT,
                    cell_text: CellText::None,
                    show_labels: false,
                    show_legend: false,
                    show_future: false,
                };
                let paint = |painter| {
                    let canvas = detached_canvas((layout.width, layout.height), dpr);
                    let ctx = context_2d(&canvas);
                    ctx.set_fill_style_str(&Theme::LIGHT.background.css());
                    ctx.fill_rect(0.0, 0.0, canvas.width().into(), canvas.height().into());
                    paint_cells(&canvas, &layout, &spec, dpr, painter).unwrap();
                    all_pixels(&canvas)
                };
                let blit = paint(CellPainter::Blit);
                assert_same_pixels(&paint(CellPainter::Rectangles), &blit, dpr);
                // Something was painted: a blank canvas would pass the comparison too.
                assert!(blit.chunks(4).any(|p| p[..3] != [255, 255, 255]), "n {n}");
            }
        }
    }
}

/// The browser reads a font back exactly as [`canvas_font`] writes it, so [`ensure_font`] sets a
/// font once and skips it on every later repaint at that size.
#[wasm_bindgen_test]
fn a_font_is_set_once_per_size() {
    let canvas: HtmlCanvasElement = document()
        .create_element("canvas")
        .unwrap()
        .dyn_into()
        .unwrap();
    document().body().unwrap().append_child(&canvas).unwrap();
    let ctx = context_2d(&canvas);
    for px in [10.0, 11.05, 11.5, 22.1, 26.0] {
        ensure_font(&ctx, px);
        assert_eq!(ctx.font(), canvas_font(px), "{px}px");
    }
    canvas.remove();
}

#[wasm_bindgen_test]
fn cell_numbers_on_the_2d_context_match_plotters_text() {
    let tokens = sentence_tokens();
    let n = tokens.len();
    let weights = DMatrix::from_fn(n, n, |i, j| {
        if j > i {
            0.0
        } else {
            // Both label colours (dark text above 0.55) and one- to three-digit percentages.
            [1.0, 0.6, 0.05, 0.333, 0.9, 0.0049, 0.25][(i + 2 * j) % 7]
        }
    });
    for (cell_text, dpr) in [
        (CellText::Percent, 1.0),
        (CellText::Percent, 1.5),
        (CellText::Decimal, 2.0),
    ] {
        let layout = HeatmapLayout::new(506.0, n, 3, 13.0, true);
        let spec = HeatmapSpec {
            tokens: &tokens,
            weights: &weights,
            theme: Theme::LIGHT,
            cell_text,
            show_labels: false,
            show_legend: false,
            show_future: false,
        };
        let with_cells = || {
            let canvas = detached_canvas((layout.width, layout.height), dpr);
            paint_cells(&canvas, &layout, &spec, dpr, CellPainter::Rectangles).unwrap();
            canvas
        };
        let direct = with_cells();
        paint_cell_text(&direct, &layout, &spec, dpr).unwrap();
        // The same numbers through plotters, as every label was drawn before.
        let via_plotters = with_cells();
        let root = drawing_area(&via_plotters).unwrap();
        let s = |v: f64| (v * dpr).round() as i32;
        for i in 0..n {
            for j in 0..=i {
                let w = weights[(i, j)];
                let text = match cell_text {
                    CellText::Percent => percent_label(w),
                    _ => fixed(w, 2),
                };
                let style = text_style(
                    layout.font_px * dpr * CELL_TEXT_SCALE,
                    label_on(w),
                    HPos::Center,
                    VPos::Center,
                );
                let at = (
                    s(layout.col_x(j) + layout.cell / 2.0),
                    s(layout.row_y(i) + layout.cell / 2.0),
                );
                root.draw_text(&text, &style, at).unwrap();
            }
        }
        let expected = all_pixels(&via_plotters);
        assert_same_pixels(&all_pixels(&direct), &expected, dpr);
        assert_ne!(
            all_pixels(&with_cells()),
            expected,
            "the numbers were drawn"
        );
    }
}

/// Run B without the causal mask: its three loss curves fall to 0 together. Drawn on top of
/// each other, each still shows on the line (their dashes take turns), in light and dark, at
/// every pixel ratio; run A's solid curves, drawn alone, cover the line with the last one.
#[wasm_bindgen_test]
fn run_bs_overlapping_curves_each_show() {
    use attention_explorer::charts::loss_chart::{draw_loss_chart, FIRST_COPY, HELD_OUT, REPEATED};
    use attention_explorer::model::train::lab::evaluation::EvalPoint;
    let run: Vec<EvalPoint> = (0..=24)
        .map(|i| {
            let loss = if i < 3 { 4.0 - f64::from(i) } else { 0.0 };
            EvalPoint {
                step: 25 * i as usize,
                loss,
                first_copy_loss: Some(loss),
                repeated_loss: Some(loss),
                heads: Vec::new(),
                used: None,
            }
        })
        .collect();
    let pixels_of = |pixels: &[u8], c: attention_explorer::charts::colors::Rgb| {
        pixels
            .chunks(4)
            .filter(|p| p[0] == c.0 && p[1] == c.1 && p[2] == c.2)
            .count()
    };
    for theme in [Theme::LIGHT, Theme::DARK] {
        for dpr in [1.0, 2.0] {
            let canvas = detached_canvas((400.0, 200.0), dpr);
            draw_loss_chart(&canvas, &[], &run, None, None, theme, dpr).unwrap();
            let pixels = all_pixels(&canvas);
            for (name, c) in [
                ("all", HELD_OUT),
                ("first copy", FIRST_COPY),
                ("repeat", REPEATED),
            ] {
                let n = pixels_of(&pixels, c);
                assert!(
                    n as f64 >= 40.0 * dpr,
                    "run B's {name} curve: {n} pixels at dpr {dpr}"
                );
            }
            // Run A's solid curves on the same line: only the one drawn last shows.
            let canvas = detached_canvas((400.0, 200.0), dpr);
            draw_loss_chart(&canvas, &run, &[], None, None, theme, dpr).unwrap();
            let pixels = all_pixels(&canvas);
            assert_eq!(
                pixels_of(&pixels, FIRST_COPY),
                0,
                "run A covers its first copy"
            );
            assert!(pixels_of(&pixels, REPEATED) as f64 >= 100.0 * dpr);
        }
    }
}

#[wasm_bindgen_test]
fn the_future_hatch_marks_its_own_cells_pixels_and_no_others() {
    // Broken attention that puts weight on every cell, the future included (rows sum to 1).
    fn spread(n: usize) -> DMatrix<f64> {
        let mut w = DMatrix::from_fn(n, n, |i, j| (1 + (i * 5 + j * 3) % 7) as f64);
        for i in 0..n {
            let sum = w.row(i).sum();
            w.row_mut(i).iter_mut().for_each(|v| *v /= sum);
        }
        w
    }
    fn spec<'a>(tokens: &'a [String], weights: &'a DMatrix<f64>, hatched: bool) -> HeatmapSpec<'a> {
        HeatmapSpec {
            tokens,
            weights,
            theme: Theme::LIGHT,
            cell_text: CellText::None,
            show_labels: false,
            show_legend: false,
            show_future: hatched,
        }
    }
    // Widths whose cells fall between device pixels, at the pixel ratios browsers use.
    for (width, n) in [(333.3, 7), (560.0, 7), (401.7, 12), (287.9, 30)] {
        let tokens: Vec<String> = (0..n).map(|k| format!("t{k}")).collect();
        let w = spread(n);
        let future = || (0..n).flat_map(|i| (i + 1..n).map(move |j| (i, j)));
        for dpr in [1.0, 1.25, 1.5, 1.75, 2.0, 3.0] {
            let layout = HeatmapLayout::new(width, n, 3, 13.0, true);
            let canvas = || detached_canvas((layout.width, layout.height), dpr);
            // The broken map as the app draws it, and the same cells without their hatch.
            let (hatched, bare) = (canvas(), canvas());
            let everything = Redraw::Everything;
            draw_heatmap(&hatched, &layout, &spec(&tokens, &w, true), dpr, everything).unwrap();
            draw_heatmap(&bare, &layout, &spec(&tokens, &w, false), dpr, everything).unwrap();
            let painter = CellPainter::for_tokens(n);
            paint_cells(&bare, &layout, &spec(&tokens, &w, true), dpr, painter).unwrap();
            let (a, b) = (all_pixels(&hatched), all_pixels(&bare));
            let stride = hatched.width() as usize;
            let cells = CellPixels::new(&layout, dpr);
            let owner = |x: i32, y: i32| {
                future().find(|&(i, j)| {
                    cells.rect(i, j).is_some_and(|(cx, cy, cw, ch)| {
                        (cx..cx + cw as i32).contains(&x) && (cy..cy + ch as i32).contains(&y)
                    })
                })
            };
            let mut marked = std::collections::BTreeSet::new();
            for (k, _) in a
                .chunks(4)
                .zip(b.chunks(4))
                .enumerate()
                .filter(|(_, (p, q))| p != q)
            {
                let (x, y) = ((k % stride) as i32, (k / stride) as i32);
                let cell = owner(x, y).unwrap_or_else(|| {
                    panic!("width {width}, dpr {dpr}: the hatch painted ({x}, {y}), outside every future cell")
                });
                marked.insert(cell);
            }
            // Every future cell that owns a device pixel carries a mark.
            let expected = future()
                .filter(|&(i, j)| cells.rect(i, j).is_some())
                .count();
            assert_eq!(
                marked.len(),
                expected,
                "width {width}, dpr {dpr}: cells with a mark"
            );
        }
    }
}
