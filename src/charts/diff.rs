//! The compare view's difference heatmap A − B: the same grid geometry as the attention heatmap
//! ([`HeatmapLayout`]), cells in the diverging palette on a symmetric scale (±`scale`), cells
//! masked in both settings in the masked grey, and a legend from −scale through 0 to +scale.

use super::canvas::{context_2d, ensure_font};
use super::colors::{diverging, Theme};
use super::layout::{short_label, HeatmapLayout};
use super::Result;
use crate::format::fixed;
use nalgebra::DMatrix;
use web_sys::HtmlCanvasElement;

/// What the difference chart draws.
pub struct DiffSpec<'a> {
    pub tokens: &'a [String],
    pub diff: &'a DMatrix<f64>,
    /// Cells hidden (weight 0) in both A and B: drawn as the masked future.
    pub hidden: &'a dyn Fn(usize, usize) -> bool,
    /// The largest |Δ|: ±scale are the palette's ends (0 gives an all-neutral map).
    pub scale: f64,
    pub theme: Theme,
}

/// A cell's position on the palette: Δ / scale in [−1, 1].
pub fn diff_colour_position(d: f64, scale: f64) -> f64 {
    if scale > 0.0 {
        d / scale
    } else {
        0.0
    }
}

/// Draws the whole chart on a canvas already sized to `layout.width × layout.height × dpr`.
pub fn draw_diff(
    canvas: &HtmlCanvasElement,
    layout: &HeatmapLayout,
    spec: &DiffSpec,
    dpr: f64,
) -> Result<()> {
    let ctx = context_2d(canvas)?;
    let s = |v: f64| (v * dpr).round();
    ctx.set_fill_style_str(&spec.theme.background.css());
    ctx.fill_rect(0.0, 0.0, s(layout.width), s(layout.height));
    let n = layout.n;
    let gap = if layout.cell * dpr >= 8.0 { 1.0 } else { 0.0 };
    for i in 0..n {
        for j in 0..n {
            let c = if (spec.hidden)(i, j) {
                spec.theme.masked
            } else {
                diverging(diff_colour_position(spec.diff[(i, j)], spec.scale))
            };
            ctx.set_fill_style_str(&c.css());
            let (x0, y0) = (s(layout.col_x(j)), s(layout.row_y(i)));
            let (x1, y1) = (s(layout.col_x(j + 1)), s(layout.row_y(i + 1)));
            ctx.fill_rect(x0, y0, x1 - x0 - gap, y1 - y0 - gap);
        }
    }
    ensure_font(&ctx, layout.font_px * dpr);
    ctx.set_fill_style_str(&spec.theme.text.css());
    ctx.set_text_baseline("middle");
    for (k, token) in spec.tokens.iter().enumerate().take(n) {
        if k % layout.label_stride != 0 {
            continue;
        }
        let label = short_label(token, 10);
        let centre = layout.cell * k as f64 + layout.cell / 2.0;
        ctx.set_text_align("right");
        ctx.fill_text(
            &label,
            s(layout.grid_left - 6.0),
            s(layout.grid_top + centre),
        )?;
        let (x, y) = (s(layout.grid_left + centre), s(layout.row_y(n) + 6.0));
        if layout.vertical_columns {
            ctx.save();
            ctx.translate(x, y)?;
            ctx.rotate(std::f64::consts::FRAC_PI_2)?;
            ctx.set_text_align("left");
            ctx.fill_text(&label, 0.0, 0.0)?;
            ctx.restore();
        } else {
            ctx.set_text_align("center");
            ctx.set_text_baseline("top");
            ctx.fill_text(&label, x, y)?;
            ctx.set_text_baseline("middle");
        }
    }
    // Legend: −scale … 0 … +scale.
    let top = layout.legend_top + 4.0;
    let (left, bar_w) = (70.0, (layout.width - 150.0).clamp(60.0, 220.0));
    let steps = 64;
    for k in 0..steps {
        let x = (f64::from(k) + 0.5) / f64::from(steps) * 2.0 - 1.0;
        ctx.set_fill_style_str(&diverging(x).css());
        let x0 = left + bar_w * f64::from(k) / f64::from(steps);
        ctx.fill_rect(s(x0), s(top), s(bar_w / f64::from(steps)) + 1.0, s(14.0));
    }
    ensure_font(&ctx, 12.0 * dpr);
    ctx.set_fill_style_str(&spec.theme.text.css());
    ctx.set_text_align("right");
    ctx.fill_text(
        &format!("−{}", fixed(spec.scale, 3)),
        s(left - 4.0),
        s(top + 7.0),
    )?;
    ctx.set_text_align("left");
    ctx.fill_text(
        &format!("+{}", fixed(spec.scale, 3)),
        s(left + bar_w + 4.0),
        s(top + 7.0),
    )?;
    Ok(())
}
