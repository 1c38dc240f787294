//! A small line chart as SVG coordinates: points in data space mapped into a plot box, for the
//! generate page's measured curves (drawn as an inline `<svg>` by the component, with its table).
//! Pure arithmetic, so it is tested natively.

/// Where the plot sits in the SVG's coordinates, and which data values its edges stand for.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct PlotBox {
    pub left: f64,
    pub top: f64,
    pub width: f64,
    pub height: f64,
    /// Data x at the left and right edges.
    pub x_range: (f64, f64),
    /// Data y at the bottom and top edges.
    pub y_range: (f64, f64),
    /// Whether x is placed on a log₁₀ scale (τ's curve, 0.1 to 10).
    pub log_x: bool,
}

impl PlotBox {
    /// The SVG coordinates of data point `(x, y)`.
    pub fn place(&self, x: f64, y: f64) -> (f64, f64) {
        let f = |v: f64| if self.log_x { v.log10() } else { v };
        let (x0, x1) = (f(self.x_range.0), f(self.x_range.1));
        let (y0, y1) = self.y_range;
        let px = self.left + (f(x) - x0) / (x1 - x0) * self.width;
        let py = self.top + self.height - (y - y0) / (y1 - y0) * self.height;
        (px, py)
    }

    /// `points` as an SVG `points` attribute (one decimal).
    pub fn polyline(&self, points: &[(f64, f64)]) -> String {
        points
            .iter()
            .map(|&(x, y)| {
                let (px, py) = self.place(x, y);
                format!("{px:.1},{py:.1}")
            })
            .collect::<Vec<_>>()
            .join(" ")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn corners_and_log_midpoint_land_where_they_should() {
        let b = PlotBox {
            left: 40.0,
            top: 10.0,
            width: 200.0,
            height: 100.0,
            x_range: (0.1, 10.0),
            y_range: (0.0, 1.0),
            log_x: true,
        };
        assert_eq!(b.place(0.1, 0.0), (40.0, 110.0));
        assert_eq!(b.place(10.0, 1.0), (240.0, 10.0));
        assert_eq!(b.place(1.0, 0.5), (140.0, 60.0));
        let lin = PlotBox {
            log_x: false,
            x_range: (0.0, 2.0),
            ..b
        };
        assert_eq!(
            lin.polyline(&[(0.0, 0.0), (1.0, 1.0)]),
            "40.0,110.0 140.0,10.0"
        );
    }
}
