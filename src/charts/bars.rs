//! The inspector's bar chart: one selected row's weights over every key token.

use super::canvas::{color, drawing_area, text_style, Redraw};
use super::colors::{viridis, Theme};
use super::layout::short_label;
use super::Result;
use plotters::prelude::*;
use plotters::style::text_anchor::{HPos, VPos};
use plotters::style::FontTransform;
use web_sys::HtmlCanvasElement;

/// One row of attention to draw as bars.
pub struct BarsSpec<'a> {
    pub tokens: &'a [String],
    /// The row's weights over every key; keys after `row` are the masked future.
    pub weights: &'a [f64],
    pub row: usize,
    pub theme: Theme,
}

/// Draws the bars on a canvas of `css_w × css_h` CSS pixels. With [`Redraw::GridOnly`] only the
/// plot area (gridlines and bars) is painted again and the axis and token labels already on the
/// canvas stay: valid when they were drawn for the same tokens, theme, size and pixel ratio.
pub fn draw_row_bars(
    canvas: &HtmlCanvasElement,
    spec: &BarsSpec,
    (css_w, css_h): (f64, f64),
    dpr: f64,
    redraw: Redraw,
) -> Result<()> {
    let BarsSpec {
        tokens,
        weights,
        row,
        theme,
    } = *spec;
    let root = drawing_area(canvas)?;
    let n = tokens.len().min(weights.len());
    let everything = redraw == Redraw::Everything || n == 0;
    let s = |v: f64| (v * dpr).round() as i32;
    let left = s(44.0);
    let top = s(10.0);
    let right = s(css_w - 8.0);
    let label_h = 22.0;
    let bottom = s(css_h - label_h - 6.0);
    if everything {
        root.fill(&color(theme.background))?;
    } else {
        // The plot area and its 1 px gridlines; labels sit ≥ 4 px outside it.
        root.draw(&Rectangle::new(
            [(left, top - 1), (right + 1, bottom + 2)],
            color(theme.background).filled(),
        ))?;
    }
    if n == 0 {
        return Ok(());
    }
    let font = 12.0 * dpr;
    let plot_h = f64::from(bottom - top);
    let slot = f64::from(right - left) / n as f64;
    let y_of = |w: f64| bottom - (w.clamp(0.0, 1.0) * plot_h).round() as i32;

    // Axis: 0, 50 and 100 % gridlines.
    let axis = text_style(font * 0.9, theme.muted, HPos::Right, VPos::Center);
    for (w, label) in [(0.0, "0%"), (0.5, "50%"), (1.0, "100%")] {
        let y = y_of(w);
        root.draw(&PathElement::new(
            [(left, y), (right, y)],
            color(theme.muted).stroke_width(1),
        ))?;
        if everything {
            root.draw_text(label, &axis, (left - s(4.0), y))?;
        }
    }
    let gap = (slot * 0.15).min(f64::from(s(6.0)));
    let label = text_style(font, theme.text, HPos::Center, VPos::Top);
    let stride = ((font * 1.3) / slot).ceil().max(1.0) as usize;
    for j in 0..n {
        let x0 = left + (slot * j as f64 + gap / 2.0).round() as i32;
        let x1 = left + (slot * (j + 1) as f64 - gap / 2.0).round() as i32;
        if j > row {
            // The future: a full-height grey band, so "masked" never looks like a short bar.
            root.draw(&Rectangle::new(
                [(x0, top), (x1.max(x0 + 1), bottom)],
                color(theme.masked).mix(0.55).filled(),
            ))?;
        } else {
            let w = weights[j];
            root.draw(&Rectangle::new(
                [(x0, y_of(w).min(bottom - 1)), (x1.max(x0 + 1), bottom)],
                color(viridis(w)).filled(),
            ))?;
        }
        if everything && n <= 16 && j % stride == 0 {
            let cx = (x0 + x1) / 2;
            root.draw_text(&short_label(&tokens[j], 8), &label, (cx, bottom + s(4.0)))?;
        }
    }
    if everything && n > 16 {
        let note =
            text_style(font, theme.muted, HPos::Left, VPos::Top).transform(FontTransform::None);
        root.draw_text(
            "keys in sentence order (see the table for names)",
            &note,
            (left, bottom + s(2.0)),
        )?;
    }
    Ok(())
}
