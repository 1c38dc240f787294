//! Dashes along a polyline, starting part-way into their pattern. Run B's loss curves are dashed
//! with one pattern, each curve's dashes starting where the previous curve's end: where the
//! curves lie on top of each other (trained without the causal mask, all three fall to about 0
//! nats) the line shows each curve's colour in turn, instead of only the one drawn last.

/// The dashes of the pattern `on` pixels drawn, `off` pixels skipped, along the polyline `points`
/// (pixels), starting `phase` pixels into the pattern; each dash is a polyline of its own (a dash
/// that turns a corner keeps the corner). Nothing for fewer than two points or no `on` length.
pub fn dashes(points: &[(f64, f64)], on: f64, off: f64, phase: f64) -> Vec<Vec<(f64, f64)>> {
    let period = on + off.max(0.0);
    let mut out = Vec::new();
    if points.len() < 2 || on.is_nan() || on <= 0.0 || !period.is_finite() {
        return out;
    }
    // Distance along the pattern so far, and the dash being drawn.
    let mut along = phase.rem_euclid(period);
    let mut dash: Vec<(f64, f64)> = Vec::new();
    for pair in points.windows(2) {
        let ((x0, y0), (x1, y1)) = (pair[0], pair[1]);
        let length = (x1 - x0).hypot(y1 - y0);
        if !length.is_finite() || length == 0.0 {
            continue;
        }
        let at = |t: f64| (x0 + (x1 - x0) * t / length, y0 + (y1 - y0) * t / length);
        let mut t = 0.0;
        while t < length {
            // `rem_euclid` may round up to the period itself.
            let in_pattern = Some(along.rem_euclid(period))
                .filter(|&p| p < period)
                .unwrap_or(0.0);
            let drawing = in_pattern < on;
            let left = if drawing {
                on - in_pattern
            } else {
                period - in_pattern
            };
            let step = left.min(length - t);
            if drawing {
                if dash.is_empty() {
                    dash.push(at(t));
                }
                dash.push(at(t + step));
                if step == left {
                    out.push(std::mem::take(&mut dash));
                }
            }
            along += step;
            t += step;
        }
    }
    if dash.len() >= 2 {
        out.push(dash);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Each dash's length.
    fn lengths(dashes: &[Vec<(f64, f64)>]) -> Vec<f64> {
        dashes
            .iter()
            .map(|d| {
                d.windows(2)
                    .map(|p| (p[1].0 - p[0].0).hypot(p[1].1 - p[0].1))
                    .sum()
            })
            .collect()
    }

    /// On a straight line, three curves dashed 6 on, 12 off and started 0, 6 and 12 pixels in
    /// share the line without overlapping and without leaving a gap.
    #[test]
    fn three_phases_tile_a_line() {
        let line = [(0.0, 5.0), (180.0, 5.0)];
        let mut spans: Vec<(f64, f64)> = Vec::new();
        for (i, phase) in [0.0, 6.0, 12.0].into_iter().enumerate() {
            let d = dashes(&line, 6.0, 12.0, phase);
            assert!(
                lengths(&d).iter().all(|&l| (l - 6.0).abs() < 1e-9),
                "curve {i}"
            );
            assert_eq!(d.len(), 10, "curve {i}");
            spans.extend(d.iter().map(|d| (d[0].0, d[d.len() - 1].0)));
        }
        spans.sort_by(|a, b| a.0.total_cmp(&b.0));
        assert!((spans[0].0 - 0.0).abs() < 1e-9);
        for w in spans.windows(2) {
            assert!((w[0].1 - w[1].0).abs() < 1e-9, "{w:?}");
        }
        assert!((spans[spans.len() - 1].1 - 180.0).abs() < 1e-9);
    }

    /// A dash across a corner keeps the corner; a partial pattern at either end is kept.
    #[test]
    fn dashes_turn_corners_and_keep_their_ends() {
        let d = dashes(&[(0.0, 0.0), (4.0, 0.0), (4.0, 10.0)], 6.0, 2.0, 0.0);
        assert_eq!(d[0], vec![(0.0, 0.0), (4.0, 0.0), (4.0, 2.0)]);
        assert_eq!(d[1], vec![(4.0, 4.0), (4.0, 10.0)]);
        assert_eq!(d.len(), 2);
        // Started 3 pixels in: the first dash is the pattern's last 3 pixels.
        let d = dashes(&[(0.0, 0.0), (20.0, 0.0)], 6.0, 4.0, 3.0);
        assert_eq!(lengths(&d), vec![3.0, 6.0, 3.0]);
        // A phase of a whole number of periods, or a negative one, is the same pattern.
        assert_eq!(
            dashes(&[(0.0, 0.0), (20.0, 0.0)], 6.0, 4.0, -7.0),
            dashes(&[(0.0, 0.0), (20.0, 0.0)], 6.0, 4.0, 3.0)
        );
    }

    #[test]
    fn nothing_to_dash() {
        assert!(dashes(&[], 6.0, 4.0, 0.0).is_empty());
        assert!(dashes(&[(1.0, 1.0)], 6.0, 4.0, 0.0).is_empty());
        assert!(dashes(&[(1.0, 1.0), (1.0, 1.0)], 6.0, 4.0, 0.0).is_empty());
        assert!(dashes(&[(0.0, 0.0), (9.0, 0.0)], 0.0, 4.0, 0.0).is_empty());
        assert!(dashes(&[(0.0, 0.0), (9.0, 0.0)], f64::NAN, 4.0, 0.0).is_empty());
        assert!(dashes(&[(0.0, 0.0), (f64::NAN, 0.0)], 6.0, 4.0, 0.0).is_empty());
        assert!(dashes(&[(0.0, 0.0), (f64::INFINITY, 0.0)], 6.0, 4.0, 0.0).is_empty());
        assert_eq!(dashes(&[(0.0, 0.0), (9.0, 0.0)], 6.0, 4.0, -1e-18).len(), 1);
        // No gap: one dash along the whole line.
        assert_eq!(
            lengths(&dashes(&[(0.0, 0.0), (9.0, 0.0)], 6.0, 0.0, 0.0)),
            vec![6.0, 3.0]
        );
    }
}
