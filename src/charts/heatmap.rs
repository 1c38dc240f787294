//! The T × T heatmap: cells as one `ImageData` blit, axis labels and legend via plotters. One
//! blit instead of T² filled rectangles keeps a 256 × 256 grid inside one frame; a small grid (at
//! most [`MAX_RECT_TOKENS`] tokens) is cheaper as one `fillRect` per cell than as a blit of every
//! pixel (a 7-token map is ≈ 1 MB of pixels), and both paint the same pixels. The numbers in the
//! cells go straight to the 2D context ([`paint_cell_text`]).
//! When only the weights changed ([`Redraw::GridOnly`]), the axis labels and the legend already on
//! the canvas are kept and only the grid is painted again. The selection outline is not on the
//! canvas at all: it is an element laid over it (`components::heatmap`), so selecting a row
//! repaints nothing.

use super::canvas::{color, context_2d, drawing_area, ensure_font, text_style, Redraw};
use super::colors::{cell_colour, label_on, viridis, Theme};
use super::layout::{
    legend_bar_width, legend_has_swatch, legend_swatch_left, percent_label, short_label,
    HeatmapLayout, LEGEND_BAR_LEFT, LEGEND_HIGH, LEGEND_LOW, LEGEND_MASKED,
};
use super::Result;
use crate::format::fixed;
use crate::model::broken::sees_future;
use nalgebra::DMatrix;
use plotters::prelude::*;
use plotters::style::text_anchor::{HPos, VPos};
use plotters::style::FontTransform;
use wasm_bindgen::Clamped;
use web_sys::{HtmlCanvasElement, ImageData};

/// What to print inside cells when they are large enough.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CellText {
    None,
    /// "31%"
    Percent,
    /// "0.33", as the notebook prints its averaging matrix.
    Decimal,
}

/// Everything one heatmap drawing needs.
pub struct HeatmapSpec<'a> {
    pub tokens: &'a [String],
    /// T × T weights in [0, 1]; cells above the diagonal are drawn as masked.
    pub weights: &'a DMatrix<f64>,
    pub theme: Theme,
    pub cell_text: CellText,
    pub show_labels: bool,
    pub show_legend: bool,
    /// Broken attention ("Break it"): future cells with weight are coloured by it and hatched.
    pub show_future: bool,
}

impl HeatmapSpec<'_> {
    /// Whether cell (`i`, `j`) is drawn as a weight (not as the masked grey).
    fn has_weight(&self, i: usize, j: usize) -> bool {
        j <= i || (self.show_future && self.weights[(i, j)] > 0.0)
    }
}

/// CSS pixels around the grid that a [`Redraw::GridOnly`] clears: a safe margin that stays inside
/// the 6 px gap to the axis labels.
const GRID_MARGIN: f64 = 4.0;

/// Pixel edges of cells along one axis: rounding each edge (not each size) keeps cells gap-free.
fn edges(start: f64, cell: f64, n: usize, dpr: f64) -> Vec<i32> {
    (0..=n)
        .map(|i| ((start + cell * i as f64) * dpr).round() as i32)
        .collect()
}

/// The device pixels cell `k` owns along one axis: from its rounded edge up to the next cell's,
/// less the gap. Both painters use it, so they agree pixel for pixel. It is zero when the cell's
/// two rounded edges coincide (a cell narrower than a device pixel can round to no width; with a
/// gap, cells are at least 8 device pixels wide): such a cell is not painted.
fn owned_pixels(edges: &[i32], gap: i32, k: usize) -> usize {
    (edges[k + 1] - gap - edges[k]).max(0) as usize
}

/// A one-device-pixel gap between cells once they are big enough for it to read as a grid.
fn cell_gap(layout: &HeatmapLayout, dpr: f64) -> i32 {
    i32::from(layout.cell * dpr >= 8.0)
}

/// Grids up to this many tokens are painted with one rectangle per cell instead of a blit.
pub const MAX_RECT_TOKENS: usize = 16;

/// How the cells are put on the canvas; both give identical pixels (`tests/web_components.rs`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CellPainter {
    /// One `fillRect` per cell on the device-pixel edges.
    Rectangles,
    /// One `ImageData` for the whole grid.
    Blit,
}

impl CellPainter {
    pub fn for_tokens(n: usize) -> Self {
        if n <= MAX_RECT_TOKENS {
            Self::Rectangles
        } else {
            Self::Blit
        }
    }
}

/// The cell colour: viridis of the weight, or the masked grey above the diagonal.
fn cell_color(spec: &HeatmapSpec, i: usize, j: usize) -> super::colors::Rgb {
    cell_colour(spec.weights, (i, j), spec.show_future, spec.theme)
}

/// Hatches the future cells that have weight (broken attention only): diagonal lines and an
/// inner outline in the colour that reads on the cell, so the mark does not depend on hue. Each
/// cell's marks are clipped to the device pixels its fill owns ([`CellPixels`]): at any pixel
/// ratio (1.5 too, where cell edges fall between device pixels) no mark reaches the gap or a
/// neighbouring cell, and the outline sits on the fill's own edge.
pub fn paint_future_hatch(
    canvas: &HtmlCanvasElement,
    layout: &HeatmapLayout,
    spec: &HeatmapSpec,
    dpr: f64,
) -> Result<()> {
    let ctx = context_2d(canvas)?;
    let cells = CellPixels::new(layout, dpr);
    let line = dpr.max(1.0);
    let step = (6.0 * dpr).min(layout.cell * dpr / 2.0).max(2.0);
    ctx.set_line_width(line);
    for i in 0..layout.n {
        for j in i + 1..layout.n {
            if !sees_future(spec.weights, i, j) {
                continue;
            }
            let Some((x, y, w, h)) = cells.rect(i, j) else {
                continue;
            };
            let (x, y, w, h) = (f64::from(x), f64::from(y), w as f64, h as f64);
            ctx.save();
            ctx.begin_path();
            ctx.rect(x, y, w, h);
            ctx.clip();
            ctx.set_stroke_style_str(&label_on(spec.weights[(i, j)]).css());
            ctx.begin_path();
            let mut k = step;
            while k < w + h {
                // A line at 45° from the left or bottom edge to the top or right edge.
                let (x0, y0) = (x + (k - h).max(0.0), y + k.min(h));
                let (x1, y1) = (x + k.min(w), y + (k - w).max(0.0));
                ctx.move_to(x0, y0);
                ctx.line_to(x1, y1);
                k += step;
            }
            ctx.stroke();
            ctx.stroke_rect(x + line, y + line, w - 2.0 * line, h - 2.0 * line);
            ctx.restore();
        }
    }
    Ok(())
}

/// The device pixels each cell's fill owns: both painters fill them and the hatch is clipped
/// to them, so every mark of a cell lands on that cell's own pixels.
pub struct CellPixels {
    xs: Vec<i32>,
    ys: Vec<i32>,
    gap: i32,
}

impl CellPixels {
    pub fn new(layout: &HeatmapLayout, dpr: f64) -> Self {
        Self {
            xs: edges(layout.grid_left, layout.cell, layout.n, dpr),
            ys: edges(layout.grid_top, layout.cell, layout.n, dpr),
            gap: cell_gap(layout, dpr),
        }
    }

    /// Cell (`i`, `j`)'s pixels as (left, top, width, height) in device pixels, or `None` when
    /// it owns none (a cell narrower than a device pixel can round to no width).
    pub fn rect(&self, i: usize, j: usize) -> Option<(i32, i32, usize, usize)> {
        let (w, h) = (
            owned_pixels(&self.xs, self.gap, j),
            owned_pixels(&self.ys, self.gap, i),
        );
        (w > 0 && h > 0).then_some((self.xs[j], self.ys[i], w, h))
    }
}

/// Paints the cells with `painter` over a grid area already filled with the background.
pub fn paint_cells(
    canvas: &HtmlCanvasElement,
    layout: &HeatmapLayout,
    spec: &HeatmapSpec,
    dpr: f64,
    painter: CellPainter,
) -> Result<()> {
    match painter {
        CellPainter::Blit => blit_cells(canvas, layout, spec, dpr),
        CellPainter::Rectangles => {
            let cells = CellPixels::new(layout, dpr);
            let ctx = context_2d(canvas)?;
            let mut current = None;
            for i in 0..layout.n {
                for j in 0..layout.n {
                    let Some((x, y, w, h)) = cells.rect(i, j) else {
                        continue;
                    };
                    let c = cell_color(spec, i, j);
                    if current != Some(c) {
                        ctx.set_fill_style_str(&c.css());
                        current = Some(c);
                    }
                    ctx.fill_rect(x.into(), y.into(), w as f64, h as f64);
                }
            }
            Ok(())
        }
    }
}

/// Pixel runs along one axis, in order: `(length, Some(cell))` for a cell's pixels and
/// `(length, None)` for the gap after it (and any slack up to `total`). A cell that owns no pixel
/// ([`owned_pixels`] is zero) gets no run, so its colour is never computed.
fn pixel_runs(edges: &[i32], gap: i32, total: usize) -> Vec<(usize, Option<usize>)> {
    let mut runs = Vec::with_capacity(2 * edges.len());
    for (k, pair) in edges.windows(2).enumerate() {
        let cell = owned_pixels(edges, gap, k);
        runs.push((cell, Some(k)));
        runs.push(((pair[1] - pair[0]).max(0) as usize - cell, None));
    }
    let used: usize = runs.iter().map(|run| run.0).sum();
    runs.push((total.saturating_sub(used), None));
    runs.retain(|run| run.0 > 0);
    runs
}

/// The grid as one `ImageData`, built run by run: a colour is computed once per cell that owns a
/// pixel and filled along its run, and every further pixel line of a cell row is a copy of its
/// first. A 256-token map at least 256 device pixels wide takes 65 536 colours; one 96 device
/// pixels wide (a thumbnail) takes at most 96 × 96.
fn blit_cells(
    canvas: &HtmlCanvasElement,
    layout: &HeatmapLayout,
    spec: &HeatmapSpec,
    dpr: f64,
) -> Result<()> {
    let n = layout.n;
    let CellPixels { xs, ys, gap } = CellPixels::new(layout, dpr);
    let (x0, y0) = (xs[0], ys[0]);
    let (w, h) = ((xs[n] - x0).max(1) as usize, (ys[n] - y0).max(1) as usize);
    let bg = spec.theme.background;
    let bg_px = [bg.0, bg.1, bg.2, 255];
    let columns = pixel_runs(&xs, gap, w);
    let mut pixels: Vec<[u8; 4]> = Vec::with_capacity(w * h);
    for (lines, row) in pixel_runs(&ys, gap, h) {
        let first_line = pixels.len();
        match row {
            None => pixels.resize(first_line + w, bg_px),
            Some(i) => {
                for &(len, column) in &columns {
                    let px = column.map_or(bg_px, |j| {
                        let c = cell_color(spec, i, j);
                        [c.0, c.1, c.2, 255]
                    });
                    pixels.resize(pixels.len() + len, px);
                }
            }
        }
        for _ in 1..lines {
            pixels.extend_from_within(first_line..first_line + w);
        }
    }
    let image = ImageData::new_with_u8_clamped_array_and_sh(
        Clamped(pixels.as_flattened()),
        w as u32,
        h as u32,
    )?;
    context_2d(canvas)?.put_image_data(&image, f64::from(x0), f64::from(y0))?;
    Ok(())
}

/// The numbers inside the cells, straight on the 2D context: font and alignment once, the colour
/// only when it changes. Plotters' backend sets all four and formats two strings for every label,
/// which made the 28 numbers of the default sentence about a fifth of an update. The pixels are
/// the same as `draw_text` with [`text_style`] gives (`tests/web_components.rs`).
pub fn paint_cell_text(
    canvas: &HtmlCanvasElement,
    layout: &HeatmapLayout,
    spec: &HeatmapSpec,
    dpr: f64,
) -> Result<()> {
    let ctx = context_2d(canvas)?;
    ctx.set_text_baseline("middle");
    ctx.set_text_align("center");
    ensure_font(&ctx, layout.font_px * dpr * CELL_TEXT_SCALE);
    let s = |v: f64| f64::from((v * dpr).round() as i32);
    let mut current = None;
    for i in 0..layout.n {
        for j in (0..layout.n).filter(|&j| spec.has_weight(i, j)) {
            let w = spec.weights[(i, j)];
            let text = match spec.cell_text {
                CellText::Percent => percent_label(w),
                _ => fixed(w, 2),
            };
            let c = label_on(w);
            if current != Some(c) {
                ctx.set_fill_style_str(&c.css());
                current = Some(c);
            }
            let x = s(layout.col_x(j) + layout.cell / 2.0);
            ctx.fill_text(&text, x, s(layout.row_y(i) + layout.cell / 2.0))?;
        }
    }
    Ok(())
}

/// In-cell numbers are this much smaller than the axis labels.
pub const CELL_TEXT_SCALE: f64 = 0.85;

/// Draws the heatmap onto `canvas` (already sized to `layout.width × layout.height × dpr`).
pub fn draw_heatmap(
    canvas: &HtmlCanvasElement,
    layout: &HeatmapLayout,
    spec: &HeatmapSpec,
    dpr: f64,
    redraw: Redraw,
) -> Result<()> {
    let root = drawing_area(canvas)?;
    let n = layout.n;
    let s = |v: f64| (v * dpr).round() as i32;
    let everything = redraw == Redraw::Everything || n == 0;
    if everything {
        root.fill(&color(spec.theme.background))?;
    } else {
        let (left, top) = (
            layout.grid_left - GRID_MARGIN,
            layout.grid_top - GRID_MARGIN,
        );
        let (right, bottom) = (layout.col_x(n) + GRID_MARGIN, layout.row_y(n) + GRID_MARGIN);
        root.draw(&Rectangle::new(
            [(s(left), s(top)), (s(right), s(bottom))],
            color(spec.theme.background).filled(),
        ))?;
    }
    if n == 0 {
        return Ok(());
    }
    paint_cells(canvas, layout, spec, dpr, CellPainter::for_tokens(n))?;
    if spec.show_future {
        paint_future_hatch(canvas, layout, spec, dpr)?;
    }
    let font = layout.font_px * dpr;

    if layout.cell_text && spec.cell_text != CellText::None {
        paint_cell_text(canvas, layout, spec, dpr)?;
    }

    if everything && spec.show_labels && layout.font_px > 0.0 {
        let row_style = text_style(font, spec.theme.text, HPos::Right, VPos::Center);
        let stride = layout.label_stride;
        for (i, token) in spec
            .tokens
            .iter()
            .enumerate()
            .filter(|(i, _)| i % stride == 0)
        {
            let y = s(layout.row_y(i) + layout.cell / 2.0);
            root.draw_text(
                &short_label(token, 10),
                &row_style,
                (s(layout.grid_left - 6.0), y),
            )?;
        }
        let below = layout.row_y(n) + 6.0;
        for (j, token) in spec
            .tokens
            .iter()
            .enumerate()
            .filter(|(j, _)| j % stride == 0)
        {
            let x = s(layout.col_x(j) + layout.cell / 2.0);
            let label = short_label(token, 10);
            if layout.vertical_columns {
                let style = text_style(font, spec.theme.text, HPos::Left, VPos::Center)
                    .transform(FontTransform::Rotate90);
                root.draw_text(&label, &style, (x, s(below)))?;
            } else {
                let style = text_style(font, spec.theme.text, HPos::Center, VPos::Top);
                root.draw_text(&label, &style, (x, s(below)))?;
            }
        }
    }

    if everything && spec.show_legend {
        draw_legend(&root, layout, spec.theme, dpr, spec.show_future)?;
    }
    Ok(())
}

/// The colour bar and the masked swatch; for broken attention the bar's label says BROKEN, so a
/// saved PNG is marked too, and the swatch gives way to what the hatching means.
fn draw_legend(
    root: &super::canvas::Area,
    layout: &HeatmapLayout,
    theme: Theme,
    dpr: f64,
    broken: bool,
) -> Result<()> {
    let s = |v: f64| (v * dpr).round() as i32;
    let font = 12.0 * dpr;
    let left = 6.0;
    let top = layout.legend_top + 4.0;
    let bar_w = legend_bar_width(layout.width);
    let label = text_style(font, theme.text, HPos::Left, VPos::Center);
    // The bar's ends are the colour scale's: weight 0 and weight 1 (100 %), linear between
    // (`colors::viridis`), so a weight can be read off a cell's colour.
    root.draw_text(LEGEND_LOW, &label, (s(left), s(top + 7.0)))?;
    let bar_left = LEGEND_BAR_LEFT;
    let steps = 64;
    for k in 0..steps {
        let x0 = bar_left + bar_w * f64::from(k) / f64::from(steps);
        let x1 = bar_left + bar_w * f64::from(k + 1) / f64::from(steps);
        let c = viridis((f64::from(k) + 0.5) / f64::from(steps));
        root.draw(&Rectangle::new(
            [(s(x0), s(top)), (s(x1) + 1, s(top + 14.0))],
            color(c).filled(),
        ))?;
    }
    root.draw_text(
        if broken {
            "100%+ · BROKEN"
        } else {
            LEGEND_HIGH
        },
        &label,
        (s(bar_left + bar_w + 6.0), s(top + 7.0)),
    )?;
    let swatch_left = legend_swatch_left(layout.width);
    if broken {
        if swatch_left + 150.0 <= layout.width {
            let muted = text_style(font, theme.muted, HPos::Left, VPos::Center);
            root.draw_text(
                "hatched: sees the future",
                &muted,
                (s(swatch_left), s(top + 7.0)),
            )?;
        }
    } else if legend_has_swatch(layout.width) {
        root.draw(&Rectangle::new(
            [
                (s(swatch_left), s(top)),
                (s(swatch_left + 14.0), s(top + 14.0)),
            ],
            color(theme.masked).filled(),
        ))?;
        let muted = text_style(font, theme.muted, HPos::Left, VPos::Center);
        root.draw_text(LEGEND_MASKED, &muted, (s(swatch_left + 20.0), s(top + 7.0)))?;
    }
    Ok(())
}
