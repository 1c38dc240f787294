//! `use_canvas`: the effect that draws a chart canvas, owning what every chart needs around its
//! own drawing.
//!
//! Each chart canvas goes through the same steps whenever its data, size, theme or pixel ratio
//! change: read the width it may fill ([`use_element_width`]) and the device pixel ratio
//! ([`use_device_pixel_ratio`], so a move to a denser screen redraws crisply), give the canvas a
//! backing store of CSS size × ratio, pick the cheapest correct redraw (only the data area while
//! everything outside it, the [`Frame`], is unchanged), log a failed drawing to the console, and
//! tell the benchmark hook that a canvas was drawn (`web::timing::mark_drawn`). This hook does
//! all of that; a chart's component says only what to draw, through a [`DrawPass`].

use super::{use_after_mount, use_device_pixel_ratio, use_element_width};
use crate::charts::canvas::{size_canvas, Frame, Redraw};
use crate::charts::colors::Theme;
use crate::state::use_theme;
use leptos::html;
use leptos::prelude::*;
use web_sys::HtmlCanvasElement;

/// One run of a chart's draw effect: what the chart may read, and the two ways to paint it.
/// `L` is the chart's geometry as far as it decides what is drawn outside the data area (see
/// [`Frame`]); charts that always repaint everything use `()`.
pub struct DrawPass<'a, L> {
    canvas: &'a HtmlCanvasElement,
    /// The width the chart may fill, in CSS pixels: the observed wrapper's content width (0
    /// before it is laid out, and for a chart of fixed size).
    pub width: f64,
    /// The device pixel ratio to draw at.
    pub dpr: f64,
    pub theme: Theme,
    drawn: StoredValue<Option<Frame<L>>, LocalStorage>,
    what: &'static str,
    /// The task that mounts the page is still running: the canvas takes its size now, so its box
    /// is final from the first frame, and its pixels are painted in the next task
    /// ([`use_after_mount`]).
    size_only: bool,
}

impl<L> DrawPass<'_, L> {
    /// The canvas element.
    pub fn canvas(&self) -> &HtmlCanvasElement {
        self.canvas
    }

    /// Marks the canvas `data-ready` once this pass has painted it (tests wait for it; the
    /// offline service worker registers after the main heatmap's, `web::service_worker`). The
    /// first time, the first view's picture laid over it gives way (`web::first_view_handover`).
    pub fn mark_ready(&self) {
        if !self.size_only && !self.canvas.has_attribute("data-ready") {
            let _ = self.canvas.set_attribute("data-ready", "true");
            crate::web::first_view_handover::give_way(self.canvas);
        }
    }

    fn finish(&self, result: crate::charts::Result<()>) {
        if let Err(e) = result {
            leptos::logging::error!("{} drawing failed: {e:?}", self.what);
        }
        crate::web::timing::mark_drawn();
        crate::web::work::count(&format!("canvas:{}", self.what));
    }
}

impl<L: PartialEq + 'static> DrawPass<'_, L> {
    /// Paints a chart that can repaint its data area alone: the canvas is sized to `css_size`
    /// first unless the frame (`layout`, `tokens`, theme, ratio, size) is the one drawn last, and
    /// `draw` is told which [`Redraw`] that allows.
    pub fn paint(
        &self,
        layout: L,
        tokens: &[String],
        css_size: (f64, f64),
        draw: impl FnOnce(&HtmlCanvasElement, Redraw) -> crate::charts::Result<()>,
    ) {
        let canvas = self.canvas;
        let mut frame = Frame::of(canvas, layout, tokens.to_vec(), self.theme, self.dpr);
        if self.size_only {
            frame.prepare(canvas, None, css_size);
            return;
        }
        let redraw = self
            .drawn
            .with_value(|drawn| frame.prepare(canvas, drawn.as_ref(), css_size));
        let result = draw(canvas, redraw);
        // A failed drawing leaves the canvas unknown: the next one repaints everything.
        self.drawn.set_value(result.is_ok().then_some(frame));
        self.finish(result);
    }
}

impl DrawPass<'_, ()> {
    /// Paints a chart that is drawn whole every time, on a canvas sized to `css_size`.
    pub fn paint_whole(
        &self,
        (css_w, css_h): (f64, f64),
        draw: impl FnOnce(&HtmlCanvasElement) -> crate::charts::Result<()>,
    ) {
        size_canvas(self.canvas, css_w, css_h, self.dpr);
        if !self.size_only {
            self.finish(draw(self.canvas));
        }
    }
}

/// Draws the chart `what` (named in error messages) on the canvas behind `canvas` as soon as it
/// is mounted (on the page's first view: sized in the task that mounts the page, painted in the
/// next, [`use_after_mount`]), and again whenever anything `draw` reads changes, or the width of
/// `fill` (the wrapper the chart fills; `None` for a chart of fixed size), the theme or the pixel
/// ratio.
/// `draw` paints through [`DrawPass::paint`] or [`DrawPass::paint_whole`]; a run that calls
/// neither leaves the canvas as it is.
pub fn use_canvas<L: PartialEq + 'static>(
    what: &'static str,
    canvas: NodeRef<html::Canvas>,
    fill: Option<NodeRef<html::Div>>,
    mut draw: impl FnMut(&DrawPass<'_, L>) + 'static,
) {
    let theme = use_theme();
    let dpr = use_device_pixel_ratio();
    let width = fill.map(use_element_width);
    // What the canvas shows outside the data area, as last drawn.
    let drawn = StoredValue::new_local(None);
    let after_mount = use_after_mount();
    Effect::new(move |_| {
        let Some(canvas) = canvas.get() else { return };
        draw(&DrawPass {
            canvas: &canvas,
            width: width.map_or(0.0, |w| w.get()),
            dpr: dpr.get(),
            theme: theme.get(),
            drawn,
            what,
            size_only: !after_mount.get(),
        });
    });
}
