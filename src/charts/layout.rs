//! Where things are on a heatmap canvas, in CSS pixels. The same numbers serve drawing (scaled by
//! the device pixel ratio) and hit-testing (mouse offsets), so a click lands on the cell it covers.

/// Geometry of a square T × T heatmap with row labels on the left, column labels below and a
/// colour legend under those.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct HeatmapLayout {
    pub n: usize,
    pub width: f64,
    pub height: f64,
    /// Top-left corner of cell (0, 0).
    pub grid_left: f64,
    pub grid_top: f64,
    /// Side of one cell.
    pub cell: f64,
    pub font_px: f64,
    /// Column labels are written vertically when cells are narrower than a label.
    pub vertical_columns: bool,
    /// Draw every `label_stride`-th label so labels never overlap.
    pub label_stride: usize,
    pub legend_top: f64,
    /// Whether cells are large enough to print their weight inside.
    pub cell_text: bool,
}

/// Average width of a label character relative to the font size (a conservative estimate).
const CHAR_WIDTH: f64 = 0.62;
const LEGEND_HEIGHT: f64 = 34.0;
const PAD: f64 = 6.0;

/// Label text as drawn: long tokens are cut so the margins stay sane.
pub fn short_label(token: &str, max_chars: usize) -> String {
    if token.chars().count() <= max_chars {
        token.to_string()
    } else {
        let mut s: String = token.chars().take(max_chars.saturating_sub(1)).collect();
        s.push('…');
        s
    }
}

/// A weight as printed inside its cell ("31%"), on the canvas and in the first view: the
/// inspector's one-decimal percentage ([`crate::format::percent`]) rounded to a whole one, so
/// two weights the inspector prints alike (45.5% and 45.5%) get the same cell label too.
pub fn percent_label(weight: f64) -> String {
    use crate::format::{fixed, printed_value};
    format!("{}%", fixed(printed_value(weight * 100.0, 1), 0))
}

/// The legend's colour bar starts here, after "0%" (CSS pixels from the canvas's left edge).
pub const LEGEND_BAR_LEFT: f64 = 40.0;

/// The legend's colour bar width on a canvas `width` CSS pixels wide.
pub fn legend_bar_width(width: f64) -> f64 {
    (width - 150.0).clamp(60.0, 220.0)
}

/// Where the masked swatch (or, for broken attention, what the hatching means) starts: 110 px
/// after the bar, room for "100% attention".
pub fn legend_swatch_left(width: f64) -> f64 {
    LEGEND_BAR_LEFT + legend_bar_width(width) + 110.0
}

/// Whether the masked swatch and its words fit on a canvas `width` CSS pixels wide.
pub fn legend_has_swatch(width: f64) -> bool {
    legend_swatch_left(width) + 100.0 <= width
}

/// The legend's words: the colour bar's two ends and the masked swatch.
pub const LEGEND_LOW: &str = "0%";
pub const LEGEND_HIGH: &str = "100% attention";
pub const LEGEND_MASKED: &str = "future (masked)";

impl HeatmapLayout {
    /// Fit `n` rows into a canvas `width` CSS pixels wide; `longest_label` counts characters.
    /// A `font_px` of 0 (no labels) and no legend give the thumbnails' bare grid.
    pub fn new(
        width: f64,
        n: usize,
        longest_label: usize,
        font_px: f64,
        show_legend: bool,
    ) -> Self {
        let n_f = n.max(1) as f64;
        let width = if width.is_finite() {
            width.max(80.0)
        } else {
            320.0
        };
        let label_chars = longest_label.clamp(1, 10) as f64;
        let label_w = if font_px > 0.0 {
            label_chars * font_px * CHAR_WIDTH + PAD
        } else {
            0.0
        };
        let grid_left = (label_w + PAD).min(width * 0.35);
        let available = width - grid_left - PAD;
        let cell = (available / n_f).clamp(0.1, 72.0);
        let vertical_columns = font_px > 0.0 && label_chars * font_px * CHAR_WIDTH > cell - 4.0;
        let label_stride = if font_px > 0.0 {
            ((font_px * 1.25) / cell).ceil().max(1.0) as usize
        } else {
            usize::MAX
        };
        let col_label_h = if font_px <= 0.0 {
            0.0
        } else if vertical_columns {
            label_w + PAD
        } else {
            font_px + 2.0 * PAD
        };
        let grid_top = PAD;
        let legend_top = grid_top + cell * n_f + col_label_h;
        let height = legend_top + if show_legend { LEGEND_HEIGHT } else { PAD };
        Self {
            n,
            width,
            height,
            grid_left,
            grid_top,
            cell,
            font_px,
            vertical_columns,
            label_stride,
            legend_top,
            cell_text: font_px > 0.0 && cell >= font_px * 2.9,
        }
    }

    /// Left (for columns) or top (for rows) edge of index `i`, `i = n` giving the far edge.
    pub fn col_x(&self, i: usize) -> f64 {
        self.grid_left + self.cell * i as f64
    }

    pub fn row_y(&self, i: usize) -> f64 {
        self.grid_top + self.cell * i as f64
    }

    /// The (row, column) under a point, or `None` outside the grid.
    pub fn cell_at(&self, x: f64, y: f64) -> Option<(usize, usize)> {
        let row = self.row_at(y)?;
        if !(x >= self.grid_left && x < self.col_x(self.n)) {
            return None;
        }
        let col = (((x - self.grid_left) / self.cell) as usize).min(self.n - 1);
        Some((row, col))
    }

    /// The row under height `y`, anywhere across the canvas (labels included), or `None`.
    pub fn row_at(&self, y: f64) -> Option<usize> {
        if self.n == 0 || !(y >= self.grid_top && y < self.row_y(self.n)) {
            return None;
        }
        Some((((y - self.grid_top) / self.cell) as usize).min(self.n - 1))
    }

    /// The grid's geometry as CSS custom properties, for the selection outline laid over the
    /// canvas (`.heatmap-box .selection` in style/main.css: its 2 px border is centred on the
    /// cells' edges, so it reaches 1 px beyond them). In percent of the canvas's box, not in
    /// pixels: the outline box is the canvas's, so whatever size the canvas is shown at (a
    /// window just resized, the canvas not yet redrawn for it), the outline stays on its cells.
    pub fn outline_css_vars(&self) -> String {
        let x = |v: f64| v / self.width * 100.0;
        let y = |v: f64| v / self.height * 100.0;
        format!(
            "--grid-left:{}%;--grid-top:{}%;--cell-w:{}%;--cell-h:{}%;--grid-width:{}%",
            x(self.grid_left),
            y(self.grid_top),
            x(self.cell),
            y(self.cell),
            x(self.col_x(self.n) - self.grid_left)
        )
    }
}

/// Gap between the pointer and the tooltip, and the least margin it keeps to the viewport's edges.
const TIP_OFFSET: f64 = 14.0;
const TIP_MARGIN: f64 = 4.0;

/// Where a tooltip of `size` (width, height) goes for a pointer at `pointer` (x, y); all in
/// viewport (client) coordinates, with `viewport` the visible (width, height). Below and to the
/// right of the pointer by default; flipped to the other side where it would cross the right or
/// bottom edge, then clamped so its whole box stays inside (a box larger than the viewport is
/// pinned to the top-left margin). Returns the tooltip's top-left corner.
pub fn tooltip_position(pointer: (f64, f64), size: (f64, f64), viewport: (f64, f64)) -> (f64, f64) {
    let place = |p: f64, len: f64, room: f64| {
        let mut at = p + TIP_OFFSET;
        if at + len > room - TIP_MARGIN {
            at = p - TIP_OFFSET - len;
        }
        at.min(room - TIP_MARGIN - len).max(TIP_MARGIN)
    };
    (
        place(pointer.0, size.0, viewport.0),
        place(pointer.1, size.1, viewport.1),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Weights the inspector prints alike get the same cell label, and each label is the
    /// inspector's number rounded: 0.4549 and 0.4551 are both 45.5%, so both 46%.
    #[test]
    fn cell_labels_agree_with_the_inspector() {
        use crate::format::percent;
        assert_eq!(
            (percent(0.4549), percent(0.4551)),
            ("45.5%".into(), "45.5%".into())
        );
        assert_eq!(
            (percent_label(0.4549), percent_label(0.4551)),
            ("46%".into(), "46%".into())
        );
        let mut rng = crate::model::rng::SeededRng::stream(3, "cell-labels");
        let mut weights: Vec<f64> = (0..=100_000).map(|k| f64::from(k) / 100_000.0).collect();
        weights.extend((0..20_000).map(|_| rng.next_open01()));
        weights.sort_by(f64::total_cmp);
        for pair in weights.windows(2) {
            if percent(pair[0]) == percent(pair[1]) {
                assert_eq!(percent_label(pair[0]), percent_label(pair[1]), "{pair:?}");
            }
        }
        for &w in &weights {
            let inspector: f64 = percent(w).trim_end_matches('%').parse().unwrap();
            let label: f64 = percent_label(w).trim_end_matches('%').parse().unwrap();
            assert!((label - inspector).abs() <= 0.5 + 1e-9, "{w}");
        }
    }

    #[test]
    fn every_cell_centre_maps_back_to_its_cell() {
        for n in [1, 7, 64, 256] {
            for width in [300.0, 520.0, 1000.0] {
                let l = HeatmapLayout::new(width, n, 5, 13.0, true);
                assert!(l.col_x(n) <= width + 1e-9, "grid fits: n={n} width={width}");
                for (i, j) in [(0, 0), (n - 1, 0), (n - 1, n - 1), (n / 2, n / 3)] {
                    let x = l.col_x(j) + l.cell / 2.0;
                    let y = l.row_y(i) + l.cell / 2.0;
                    assert_eq!(l.cell_at(x, y), Some((i, j)));
                }
            }
        }
    }

    #[test]
    fn outside_the_grid_is_nothing_but_labels_still_pick_a_row() {
        let l = HeatmapLayout::new(500.0, 7, 3, 13.0, true);
        assert_eq!(l.cell_at(l.grid_left - 1.0, l.row_y(2) + 1.0), None);
        assert_eq!(l.row_at(l.row_y(2) + 1.0), Some(2));
        assert_eq!(l.cell_at(l.col_x(7) + 1.0, l.row_y(0) + 1.0), None);
        assert_eq!(l.row_at(l.row_y(7) + 0.5), None);
        assert_eq!(l.row_at(-5.0), None);
        assert_eq!(l.cell_at(f64::NAN, f64::NAN), None);
    }

    #[test]
    fn labels_thin_out_and_turn_on_crowded_grids() {
        let small = HeatmapLayout::new(520.0, 7, 3, 13.0, true);
        assert_eq!(small.label_stride, 1);
        assert!(!small.vertical_columns && small.cell_text);
        let big = HeatmapLayout::new(520.0, 256, 6, 13.0, true);
        assert!(big.label_stride > 1 && big.vertical_columns && !big.cell_text);
        assert!(big.cell * big.label_stride as f64 >= 13.0);
    }

    #[test]
    fn outline_geometry_is_the_grids() {
        let l = HeatmapLayout::new(500.0, 7, 3, 13.0, true);
        let vars = l.outline_css_vars();
        let value = |name: &str| -> f64 {
            let rest = vars.split(&format!("{name}:")).nth(1).unwrap();
            rest.split('%').next().unwrap().parse().unwrap()
        };
        // Percent of the canvas box: back in pixels, the grid's own numbers.
        let px = |name: &str, of: f64| value(name) / 100.0 * of;
        assert!((px("--grid-left", l.width) - l.grid_left).abs() < 1e-9);
        assert!((px("--grid-top", l.height) - l.grid_top).abs() < 1e-9);
        assert!((px("--cell-w", l.width) - l.cell).abs() < 1e-9);
        assert!((px("--cell-h", l.height) - l.cell).abs() < 1e-9);
        assert!((px("--grid-width", l.width) - 7.0 * l.cell).abs() < 1e-9);
    }

    #[test]
    fn tooltips_stay_inside_the_viewport() {
        let inside = |(x, y): (f64, f64), (w, h): (f64, f64), (vw, vh): (f64, f64)| {
            x >= TIP_MARGIN - 1e-9
                && y >= TIP_MARGIN - 1e-9
                && x + w <= vw - TIP_MARGIN + 1e-9
                && y + h <= vh - TIP_MARGIN + 1e-9
        };
        // Room below and to the right: the default place.
        assert_eq!(
            tooltip_position((100.0, 50.0), (120.0, 24.0), (390.0, 844.0)),
            (114.0, 64.0)
        );
        // The last column of a phone-wide heatmap: flipped to the pointer's left.
        assert_eq!(
            tooltip_position((370.0, 50.0), (200.0, 24.0), (390.0, 844.0)),
            (156.0, 64.0)
        );
        // Near the bottom edge: flipped above.
        assert_eq!(
            tooltip_position((100.0, 830.0), (120.0, 24.0), (390.0, 844.0)).1,
            792.0
        );
        // Every pointer position on a grid of the viewport, several tooltip sizes.
        for (vw, vh) in [(360.0, 740.0), (390.0, 844.0), (1280.0, 800.0)] {
            for size in [(40.0, 20.0), (250.0, 24.0), (vw - 8.0, 40.0)] {
                for k in 0..=20 {
                    let pointer = (vw * f64::from(k) / 20.0, vh * f64::from(20 - k) / 20.0);
                    let at = tooltip_position(pointer, size, (vw, vh));
                    assert!(inside(at, size, (vw, vh)), "{pointer:?} {size:?} → {at:?}");
                }
            }
        }
        // Too wide for the viewport: pinned to the left margin rather than pushed off the left.
        assert_eq!(
            tooltip_position((200.0, 10.0), (500.0, 20.0), (360.0, 740.0)).0,
            TIP_MARGIN
        );
    }

    #[test]
    fn long_labels_are_cut() {
        assert_eq!(short_label("extraordinary", 6), "extra…");
        assert_eq!(short_label("cat", 6), "cat");
        assert_eq!(short_label("🐈🐈🐈", 2), "🐈…");
    }
}
