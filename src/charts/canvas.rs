//! Canvas plumbing shared by every chart: `HiDPI` sizing and plotters text styles.
//!
//! plotters-canvas draws in backing-store pixels and knows nothing of `devicePixelRatio`, so each
//! canvas gets a backing store of `css size × dpr` and every coordinate and font size is multiplied
//! by the same ratio before drawing. That keeps lines and text sharp on `HiDPI` screens.

use super::colors::Rgb;
use super::{DrawError, Result};
use plotters::prelude::*;
use plotters::style::text_anchor::{HPos, Pos, VPos};
use plotters_canvas::CanvasBackend;
use wasm_bindgen::JsCast;
use web_sys::{CanvasRenderingContext2d, HtmlCanvasElement};

pub type Area = DrawingArea<CanvasBackend, plotters::coord::Shift>;

/// How much of a chart a draw repaints.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Redraw {
    /// Background, data, labels and legend.
    Everything,
    /// Only the data area (heatmap grid, bar plot area) and what is drawn on it; the labels and
    /// legend already on the canvas stay. Valid only when the canvas shows a full drawing of the
    /// same [`Frame`].
    GridOnly,
}

/// Everything that decides what a chart draws outside its data area. A draw whose frame equals
/// the one drawn last may use [`Redraw::GridOnly`].
#[derive(Debug, Clone, PartialEq)]
pub struct Frame<L> {
    /// The chart's geometry (e.g. a heatmap layout, or a CSS size).
    pub layout: L,
    pub tokens: Vec<String>,
    pub theme: super::colors::Theme,
    pub dpr: f64,
    /// Backing-store size: resizing a canvas clears it.
    pub backing: (u32, u32),
}

impl<L: PartialEq> Frame<L> {
    /// The frame for drawing `tokens` with `layout` on `canvas` as it is now.
    pub fn of(
        canvas: &HtmlCanvasElement,
        layout: L,
        tokens: Vec<String>,
        theme: super::colors::Theme,
        dpr: f64,
    ) -> Self {
        Self {
            layout,
            tokens,
            theme,
            dpr,
            backing: (canvas.width(), canvas.height()),
        }
    }

    /// The cheapest correct redraw when `drawn` is what the canvas shows now. An unchanged frame
    /// means the canvas already has its size; otherwise it is sized to `css_w × css_h` first.
    pub fn prepare(
        &mut self,
        canvas: &HtmlCanvasElement,
        drawn: Option<&Self>,
        (css_w, css_h): (f64, f64),
    ) -> Redraw {
        if drawn == Some(&*self) {
            return Redraw::GridOnly;
        }
        size_canvas(canvas, css_w, css_h, self.dpr);
        self.backing = (canvas.width(), canvas.height());
        Redraw::Everything
    }
}

/// The device pixel ratio as the browser reports it (1 without a window).
pub fn raw_device_pixel_ratio() -> f64 {
    web_sys::window().map_or(1.0, |w| w.device_pixel_ratio())
}

/// The device pixel ratio charts draw at: at least 1 and at most 4 (see
/// [`clamp_pixel_ratio`](super::pixel_ratio::clamp_pixel_ratio)).
pub fn device_pixel_ratio() -> f64 {
    super::pixel_ratio::clamp_pixel_ratio(raw_device_pixel_ratio())
}

/// Sizes `canvas` to `css_w × css_h` CSS pixels with a `dpr`-scaled backing store.
pub fn size_canvas(canvas: &HtmlCanvasElement, css_w: f64, css_h: f64, dpr: f64) {
    let (w, h) = (
        (css_w * dpr).round().max(1.0) as u32,
        (css_h * dpr).round().max(1.0) as u32,
    );
    if canvas.width() != w {
        canvas.set_width(w);
    }
    if canvas.height() != h {
        canvas.set_height(h);
    }
    let style = canvas.style();
    let _ = style.set_property("width", &format!("{css_w}px"));
    let _ = style.set_property("height", &format!("{css_h}px"));
}

/// A plotters drawing area covering the whole backing store.
pub fn drawing_area(canvas: &HtmlCanvasElement) -> Result<Area> {
    CanvasBackend::with_canvas_object(canvas.clone())
        .map(plotters::drawing::IntoDrawingArea::into_drawing_area)
        .ok_or(DrawError::Missing("canvas has no 2D context"))
}

pub fn context_2d(canvas: &HtmlCanvasElement) -> Result<CanvasRenderingContext2d> {
    canvas
        .get_context("2d")?
        .ok_or(DrawError::Missing("canvas has no 2D context"))?
        .dyn_into::<CanvasRenderingContext2d>()
        .map_err(|_| DrawError::Missing("not a 2D context"))
}

pub fn color(c: Rgb) -> RGBColor {
    RGBColor(c.0, c.1, c.2)
}

/// Text in `c`, about `px` device pixels tall (rounded to a half pixel: the backend prints the
/// size into a CSS font string for every label, and "11" is cheaper to format and to parse than
/// "11.049999999999999"), anchored at (`h`, `v`).
pub fn text_style(px: f64, c: Rgb, h: HPos, v: VPos) -> TextStyle<'static> {
    let px = font_px(px);
    TextStyle {
        // The enum, not the string "sans-serif": plotters lower-cases font names given as text,
        // which would pull Unicode case tables into the wasm for nothing.
        font: (FontFamily::SansSerif, px).into_font(),
        color: color(c).to_backend_color(),
        pos: Pos::new(h, v),
    }
}

fn font_px(px: f64) -> f64 {
    (px * 2.0).round() / 2.0
}

/// The CSS font plotters' canvas backend sets for [`text_style`]`(px, …)`, for text drawn on the
/// 2D context directly (it must look the same), written as the browser reads it back ("normal"
/// is the default, so it is left out).
pub fn canvas_font(px: f64) -> String {
    format!("{}px sans-serif", font_px(px))
}

/// Sets `ctx`'s font to [`canvas_font`]`(px)` unless it already is. Setting a font makes the
/// browser resolve it against the canvas's style at once, which forces a style recalculation
/// when the same input has just changed the page's text: about two fifths of the app's own time
/// in a profiled slider step. The context keeps its font from frame to frame (a resize resets
/// it), so a repaint at the same size sets nothing.
pub fn ensure_font(ctx: &web_sys::CanvasRenderingContext2d, px: f64) {
    let font = canvas_font(px);
    if ctx.font() != font {
        ctx.set_font(&font);
    }
}
