//! Colours: viridis for weights (perceptually uniform, readable with every common colour-vision
//! deficiency and in greyscale) and a neutral grey for the masked future, which no weight can map to.

/// An sRGB colour.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Rgb(pub u8, pub u8, pub u8);

impl Rgb {
    pub fn css(self) -> String {
        format!("rgb({},{},{})", self.0, self.1, self.2)
    }
}

/// Matplotlib's viridis sampled at 0, 0.1, …, 1; intermediate values are interpolated linearly.
const VIRIDIS_STOPS: [Rgb; 11] = [
    Rgb(0x44, 0x01, 0x54),
    Rgb(0x48, 0x24, 0x75),
    Rgb(0x41, 0x44, 0x87),
    Rgb(0x35, 0x5f, 0x8d),
    Rgb(0x2a, 0x78, 0x8e),
    Rgb(0x21, 0x91, 0x8c),
    Rgb(0x22, 0xa8, 0x84),
    Rgb(0x44, 0xbf, 0x70),
    Rgb(0x7a, 0xd1, 0x51),
    Rgb(0xbd, 0xdf, 0x26),
    Rgb(0xfd, 0xe7, 0x25),
];

/// `x.round()` for `x >= 0`, without the libm call `round` becomes in WebAssembly (whose own
/// rounding instruction rounds halves to even). Exact: `x - x.floor()` has no rounding error.
/// Heatmaps colour up to 65 536 cells per canvas, so this is on the redraw path.
fn round_half_up(x: f64) -> f64 {
    let floor = x.floor();
    if x - floor >= 0.5 {
        floor + 1.0
    } else {
        floor
    }
}

/// Colour of an attention weight in [0, 1] (values outside are clamped; NaN maps to 0).
pub fn viridis(weight: f64) -> Rgb {
    let w = if weight.is_nan() {
        0.0
    } else {
        weight.clamp(0.0, 1.0)
    };
    let pos = w * 10.0;
    let i = (pos.floor() as usize).min(9);
    let f = pos - i as f64;
    let (a, b) = (VIRIDIS_STOPS[i], VIRIDIS_STOPS[i + 1]);
    let mix = |x: u8, y: u8| round_half_up(f64::from(x) + (f64::from(y) - f64::from(x)) * f) as u8;
    Rgb(mix(a.0, b.0), mix(a.1, b.1), mix(a.2, b.2))
}

/// A heatmap cell's colour, the same on the canvas and in the SVG figure: viridis of its weight,
/// or the theme's masked grey for the future (unless broken attention gave that cell weight).
pub fn cell_colour(
    weights: &nalgebra::DMatrix<f64>,
    (i, j): (usize, usize),
    show_future: bool,
    theme: Theme,
) -> Rgb {
    if j <= i || (show_future && weights[(i, j)] > 0.0) {
        viridis(weights[(i, j)])
    } else {
        theme.masked
    }
}

/// `ColorBrewer`'s `PuOr` (11 classes, marked colour-blind safe): orange for negative, purple for
/// positive, a neutral light grey at 0.
const PUOR_STOPS: [Rgb; 11] = [
    Rgb(0x7f, 0x3b, 0x08),
    Rgb(0xb3, 0x58, 0x06),
    Rgb(0xe0, 0x82, 0x14),
    Rgb(0xfd, 0xb8, 0x63),
    Rgb(0xfe, 0xe0, 0xb6),
    Rgb(0xf7, 0xf7, 0xf7),
    Rgb(0xd8, 0xda, 0xeb),
    Rgb(0xb2, 0xab, 0xd2),
    Rgb(0x80, 0x73, 0xac),
    Rgb(0x54, 0x27, 0x88),
    Rgb(0x2d, 0x00, 0x4b),
];

/// Colour of a difference on a symmetric scale: `x` in [−1, 1] (clamped; NaN maps to 0), where
/// ±1 stands for ±the largest |difference| shown.
pub fn diverging(x: f64) -> Rgb {
    let x = if x.is_nan() { 0.0 } else { x.clamp(-1.0, 1.0) };
    let pos = (x + 1.0) * 5.0;
    let i = (pos.floor() as usize).min(9);
    let f = pos - i as f64;
    let (a, b) = (PUOR_STOPS[i], PUOR_STOPS[i + 1]);
    let mix = |x: u8, y: u8| round_half_up(f64::from(x) + (f64::from(y) - f64::from(x)) * f) as u8;
    Rgb(mix(a.0, b.0), mix(a.1, b.1), mix(a.2, b.2))
}

/// The stops of the viridis scale as (offset in [0, 1], colour): an SVG gradient through them is
/// the palette exactly (it is linear between stops).
pub fn viridis_stops() -> impl Iterator<Item = (f64, Rgb)> {
    VIRIDIS_STOPS
        .iter()
        .enumerate()
        .map(|(k, &c)| (k as f64 / 10.0, c))
}

/// Text colour that stays readable on top of `viridis(weight)`.
pub fn label_on(weight: f64) -> Rgb {
    if weight > 0.55 {
        Rgb(0x11, 0x11, 0x11)
    } else {
        Rgb(0xff, 0xff, 0xff)
    }
}

/// The WCAG relative luminance of an sRGB colour (0 for black, 1 for white).
pub fn luminance(c: Rgb) -> f64 {
    let linear = |v: u8| {
        let s = f64::from(v) / 255.0;
        if s <= 0.040_45 {
            s / 12.92
        } else {
            ((s + 0.055) / 1.055).powf(2.4)
        }
    };
    0.2126 * linear(c.0) + 0.7152 * linear(c.1) + 0.0722 * linear(c.2)
}

/// The WCAG contrast ratio of two colours (1 to 21).
pub fn contrast(a: Rgb, b: Rgb) -> f64 {
    let (la, lb) = (luminance(a), luminance(b));
    (la.max(lb) + 0.05) / (la.min(lb) + 0.05)
}

/// Black or white text, whichever contrasts more with `background`: on every viridis colour the
/// ratio is at least 4.5:1, the WCAG minimum for small text (tested below). The HTML heatmap of
/// the generate page prints its weights in small type on their cells.
pub fn text_on(background: Rgb) -> Rgb {
    let (black, white) = (Rgb(0, 0, 0), Rgb(0xff, 0xff, 0xff));
    if contrast(background, black) >= contrast(background, white) {
        black
    } else {
        white
    }
}

/// Colours that depend on the page theme (light or dark).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Theme {
    pub background: Rgb,
    pub text: Rgb,
    pub muted: Rgb,
    /// The masked future.
    pub masked: Rgb,
    /// Highlights (the scaling lab's chosen head size); the page's `--focus`, which also outlines
    /// the selected heatmap row, is the same colour.
    pub highlight: Rgb,
}

impl Theme {
    pub const LIGHT: Theme = Theme {
        background: Rgb(0xff, 0xff, 0xff),
        text: Rgb(0x1f, 0x23, 0x28),
        muted: Rgb(0x5f, 0x66, 0x6d),
        masked: Rgb(0xc8, 0xc8, 0xc8),
        highlight: Rgb(0xd6, 0x27, 0x28),
    };
    pub const DARK: Theme = Theme {
        background: Rgb(0x16, 0x1b, 0x22),
        text: Rgb(0xe6, 0xed, 0xf3),
        muted: Rgb(0x9d, 0xa7, 0xb1),
        masked: Rgb(0x6e, 0x6e, 0x6e),
        highlight: Rgb(0xff, 0x7b, 0x72),
    };

    pub fn for_dark_mode(dark: bool) -> Theme {
        if dark {
            Theme::DARK
        } else {
            Theme::LIGHT
        }
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn text_on_every_viridis_colour_meets_the_small_text_contrast() {
        for i in 0..=1000 {
            let bg = viridis(f64::from(i) / 1000.0);
            assert!(contrast(bg, text_on(bg)) >= 4.5, "{bg:?}");
        }
        assert_eq!(text_on(Rgb(0xff, 0xff, 0xff)), Rgb(0, 0, 0));
        assert!((contrast(Rgb(0, 0, 0), Rgb(0xff, 0xff, 0xff)) - 21.0).abs() < 1e-12);
    }

    use super::*;

    #[test]
    fn endpoints_and_midpoint_are_viridis() {
        assert_eq!(viridis(0.0), Rgb(0x44, 0x01, 0x54));
        assert_eq!(viridis(1.0), Rgb(0xfd, 0xe7, 0x25));
        assert_eq!(viridis(0.5), Rgb(0x21, 0x91, 0x8c));
        assert_eq!(viridis(f64::NAN), viridis(0.0));
        assert_eq!(viridis(7.0), viridis(1.0));
    }

    #[test]
    fn fast_rounding_matches_round() {
        for k in 0..=2_000_000u32 {
            let x = f64::from(k) * (255.0 / 2_000_000.0);
            assert_eq!(round_half_up(x), x.round(), "{x}");
        }
        for x in [
            0.0,
            0.5,
            1.5,
            2.5,
            254.5,
            0.499_999_999_999_999_94,
            127.499_999_999_999_99,
        ] {
            assert_eq!(round_half_up(x), x.round(), "{x}");
        }
    }

    #[test]
    fn lightness_rises_monotonically() {
        let luma =
            |c: Rgb| 0.2126 * f64::from(c.0) + 0.7152 * f64::from(c.1) + 0.0722 * f64::from(c.2);
        let mut last = -1.0;
        for i in 0..=100 {
            let l = luma(viridis(f64::from(i) / 100.0));
            assert!(l >= last, "at {i}");
            last = l;
        }
    }

    #[test]
    fn masked_grey_is_no_weight_colour() {
        for theme in [Theme::LIGHT, Theme::DARK] {
            let g = theme.masked;
            assert!(g.0 == g.1 && g.1 == g.2, "neutral");
            for i in 0..=1000 {
                let c = viridis(f64::from(i) / 1000.0);
                let dist = (i32::from(c.0) - i32::from(g.0)).abs()
                    + (i32::from(c.1) - i32::from(g.1)).abs()
                    + (i32::from(c.2) - i32::from(g.2)).abs();
                assert!(dist > 60, "weight {i}‰ too close to the masked grey");
            }
        }
    }

    #[test]
    fn diverging_is_symmetric_and_neutral_at_zero() {
        assert_eq!(diverging(0.0), Rgb(0xf7, 0xf7, 0xf7));
        assert_eq!(diverging(-1.0), Rgb(0x7f, 0x3b, 0x08));
        assert_eq!(diverging(1.0), Rgb(0x2d, 0x00, 0x4b));
        assert_eq!(diverging(f64::NAN), diverging(0.0));
        let luma =
            |c: Rgb| 0.2126 * f64::from(c.0) + 0.7152 * f64::from(c.1) + 0.0722 * f64::from(c.2);
        // Both halves darken steadily away from 0, so |Δ| reads the same on either side.
        let (mut last_neg, mut last_pos) = (f64::MAX, f64::MAX);
        for k in 0..=100 {
            let x = f64::from(k) / 100.0;
            let (neg, pos) = (luma(diverging(-x)), luma(diverging(x)));
            assert!(neg <= last_neg && pos <= last_pos, "at {x}");
            (last_neg, last_pos) = (neg, pos);
        }
    }

    #[test]
    fn cell_colour_is_viridis_or_the_masked_grey() {
        let w = nalgebra::DMatrix::from_row_slice(2, 2, &[1.0, 0.0, 0.25, 0.75]);
        let t = Theme::LIGHT;
        assert_eq!(cell_colour(&w, (0, 0), false, t), viridis(1.0));
        assert_eq!(cell_colour(&w, (1, 0), false, t), viridis(0.25));
        assert_eq!(cell_colour(&w, (0, 1), false, t), t.masked);
        assert_eq!(
            cell_colour(&w, (0, 1), true, t),
            t.masked,
            "no weight: still masked"
        );
        let leaky = nalgebra::DMatrix::from_row_slice(2, 2, &[0.5, 0.5, 0.25, 0.75]);
        assert_eq!(cell_colour(&leaky, (0, 1), true, t), viridis(0.5));
        assert_eq!(
            cell_colour(&leaky, (0, 1), false, Theme::DARK),
            Theme::DARK.masked
        );
    }

    #[test]
    fn viridis_stops_rebuild_the_palette() {
        for (offset, c) in viridis_stops() {
            assert_eq!(viridis(offset), c, "{offset}");
        }
    }
}
