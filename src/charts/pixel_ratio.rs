//! The device pixel ratio as the charts use it, and the media query that notices when it changes.

/// The ratio charts draw at: the browser's `devicePixelRatio`, at least 1 and at most 4 (a bound
/// on backing-store memory); 1 when the browser reports nothing usable.
pub fn clamp_pixel_ratio(raw: f64) -> f64 {
    if raw.is_finite() {
        raw.clamp(1.0, 4.0)
    } else {
        1.0
    }
}

/// A media query that matches exactly while the screen's ratio is `raw`: it stops matching (and
/// its list fires `change`) when the window moves to another screen or the page is zoomed.
pub fn resolution_query(raw: f64) -> String {
    format!("(resolution: {raw}dppx)")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ratios_are_bounded_and_never_nan() {
        assert_eq!(clamp_pixel_ratio(2.0), 2.0);
        assert_eq!(clamp_pixel_ratio(1.25), 1.25);
        assert_eq!(clamp_pixel_ratio(0.5), 1.0);
        assert_eq!(clamp_pixel_ratio(9.0), 4.0);
        assert_eq!(clamp_pixel_ratio(f64::NAN), 1.0);
        assert_eq!(clamp_pixel_ratio(f64::INFINITY), 1.0);
    }

    #[test]
    fn the_query_names_the_exact_ratio() {
        assert_eq!(resolution_query(2.0), "(resolution: 2dppx)");
        assert_eq!(
            resolution_query(1.100_000_023_841_858),
            "(resolution: 1.100000023841858dppx)"
        );
    }
}
