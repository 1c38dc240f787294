//! The repeat task's repeated segment marked on a heatmap: the first copy's block of rows and
//! keys, the second copy's, and the block where the second copy's rows look back at the first
//! copy's keys (where an induction head's stripe appears, one key to the right of the diagonal).
//!
//! [`segment_boxes`] is pure (tested natively); [`draw_segments`] strokes the boxes along cell
//! borders, a line in the background colour under a thinner coloured one, so the marks show on
//! every viridis colour and never cover a cell's centre.

use super::colors::Rgb;
use super::layout::HeatmapLayout;

/// Okabe–Ito orange (the first copy) and sky blue (the second copy): told apart with every
/// common colour-vision deficiency, and named in words beside every chart.
pub const FIRST_COPY_MARK: Rgb = Rgb(0xe6, 0x9f, 0x00);
pub const SECOND_COPY_MARK: Rgb = Rgb(0x56, 0xb4, 0xe9);

/// Where a heatmap's repeated segment lies: the first copy starts at `first`, the second at
/// `second`, each `len` tokens long.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Segments {
    pub first: usize,
    pub second: usize,
    pub len: usize,
}

/// One box to stroke: `[x, y, width, height]` in CSS pixels, its colour, dashed or not.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct SegmentBox {
    pub rect: [f64; 4],
    pub colour: Rgb,
    pub dashed: bool,
}

/// The three boxes on a layout of `n` rows: first copy (rows and keys), second copy, and the
/// second copy's rows against the first copy's keys (dashed). None if the segment does not fit.
pub fn segment_boxes(layout: &HeatmapLayout, s: Segments) -> Vec<SegmentBox> {
    if s.len == 0 || s.second + s.len > layout.n || s.first + s.len > s.second {
        return Vec::new();
    }
    let block = |row: usize, col: usize, colour: Rgb, dashed: bool| SegmentBox {
        rect: [
            layout.col_x(col),
            layout.row_y(row),
            layout.cell * s.len as f64,
            layout.cell * s.len as f64,
        ],
        colour,
        dashed,
    };
    vec![
        block(s.first, s.first, FIRST_COPY_MARK, false),
        block(s.second, s.second, SECOND_COPY_MARK, false),
        block(s.second, s.first, SECOND_COPY_MARK, true),
    ]
}

#[cfg(target_arch = "wasm32")]
pub use draw::draw_segments;

#[cfg(target_arch = "wasm32")]
mod draw {
    use super::{segment_boxes, Segments};
    use crate::charts::canvas::context_2d;
    use crate::charts::colors::Theme;
    use crate::charts::layout::HeatmapLayout;
    use crate::charts::Result;
    use wasm_bindgen::JsValue;
    use web_sys::HtmlCanvasElement;

    /// Strokes the segment's boxes (see the module documentation) over a drawn heatmap.
    pub fn draw_segments(
        canvas: &HtmlCanvasElement,
        layout: &HeatmapLayout,
        segments: Segments,
        theme: Theme,
        dpr: f64,
    ) -> Result<()> {
        let ctx = context_2d(canvas)?;
        ctx.save();
        ctx.scale(dpr, dpr)?;
        for b in segment_boxes(layout, segments) {
            let [x, y, w, h] = b.rect;
            let dash = js_sys::Array::new();
            if b.dashed {
                dash.push(&JsValue::from_f64(3.0));
                dash.push(&JsValue::from_f64(2.0));
            }
            ctx.set_line_dash(&dash)?;
            ctx.set_line_width(2.5);
            ctx.set_stroke_style_str(&theme.background.css());
            ctx.stroke_rect(x, y, w, h);
            ctx.set_line_width(1.25);
            ctx.set_stroke_style_str(&b.colour.css());
            ctx.stroke_rect(x, y, w, h);
        }
        ctx.restore();
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn boxes_follow_the_cells_of_each_copy() {
        let layout = HeatmapLayout::new(160.0, 16, 1, 0.0, false);
        let s = Segments {
            first: 2,
            second: 7,
            len: 5,
        };
        let boxes = segment_boxes(&layout, s);
        assert_eq!(boxes.len(), 3);
        assert_eq!(boxes[0].rect[0], layout.col_x(2));
        assert_eq!(boxes[0].rect[2], layout.col_x(7) - layout.col_x(2));
        assert_eq!(
            (boxes[2].rect[0], boxes[2].rect[1]),
            (layout.col_x(2), layout.row_y(7))
        );
        assert!(boxes[2].dashed && !boxes[1].dashed);
        assert_ne!(boxes[0].colour, boxes[1].colour);
        // A segment that does not fit the grid is not drawn.
        assert!(segment_boxes(&layout, Segments { second: 12, ..s }).is_empty());
    }
}
