//! The heatmap as a vector figure (SVG text): cells in exactly the canvas palette
//! ([`cell_colour`]), their weights, token labels on both axes, the colour scale and a caption
//! line. Pure string building, so it is tested natively; every piece of text is XML-escaped.

use super::colors::{cell_colour, label_on, viridis_stops, Rgb, Theme};
use super::layout::{percent_label, short_label, LEGEND_HIGH, LEGEND_LOW, LEGEND_MASKED};
use crate::model::broken::sees_future;
use nalgebra::DMatrix;
use std::fmt::Write;

/// What the figure shows.
pub struct SvgHeatmap<'a> {
    pub tokens: &'a [String],
    /// T × T weights, as the canvas draws them.
    pub weights: &'a DMatrix<f64>,
    pub theme: Theme,
    /// Broken attention: future cells with weight are coloured and hatched, as on the canvas.
    pub show_future: bool,
    /// One line under the figure (sentence, seed, head, τ, switches): see `text::figure_caption`.
    pub caption: &'a str,
}

/// `s` with the five XML special characters escaped, for text and attribute values alike.
pub fn escape(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&apos;"),
            // Control characters are not allowed in XML 1.0 text at all.
            c if c.is_control() && !matches!(c, '\t' | '\n') => out.push('\u{FFFD}'),
            c => out.push(c),
        }
    }
    out
}

/// Geometry, in SVG user units (CSS pixels).
const FONT: f64 = 13.0;
const CHAR_W: f64 = 8.0;
const PAD: f64 = 8.0;

/// The figure as a standalone SVG document.
pub fn heatmap_svg(h: &SvgHeatmap) -> String {
    let n = h.tokens.len().min(h.weights.nrows());
    let labels: Vec<String> = h.tokens[..n].iter().map(|t| short_label(t, 10)).collect();
    let longest = labels.iter().map(|l| l.chars().count()).max().unwrap_or(1) as f64;
    let cell = (560.0 / n.max(1) as f64).clamp(4.0, 48.0);
    let stride = (FONT * 1.25 / cell).ceil().max(1.0) as usize;
    let label_w = longest * CHAR_W + PAD;
    let vertical = label_w - PAD > cell - 4.0;
    let (left, top) = (PAD + label_w, PAD);
    let grid = cell * n as f64;
    let below = top + grid + PAD + if vertical { label_w } else { FONT + PAD };
    let legend_top = below + PAD;
    let caption_y = legend_top + 14.0 + 2.0 * PAD + FONT;
    let width = (left + grid + PAD)
        .max(PAD * 2.0 + h.caption.chars().count() as f64 * 7.0)
        .max(520.0)
        .ceil();
    let height = (caption_y + PAD).ceil();
    let mut s = String::with_capacity(256 + n * n * 160);
    let _ = write!(
        s,
        "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"{width}\" height=\"{height}\" viewBox=\"0 0 {width} {height}\" font-family=\"system-ui, sans-serif\" font-size=\"{FONT}\">\n<title>{}</title>\n",
        escape(h.caption)
    );
    s.push_str("<defs><linearGradient id=\"scale\">");
    for (offset, c) in viridis_stops() {
        let _ = write!(s, "<stop offset=\"{offset}\" stop-color=\"{}\"/>", c.css());
    }
    s.push_str("</linearGradient>");
    for (id, c) in [
        ("hatch-dark", Rgb(0x11, 0x11, 0x11)),
        ("hatch-light", Rgb(0xff, 0xff, 0xff)),
    ] {
        let _ = write!(
            s,
            "<pattern id=\"{id}\" width=\"6\" height=\"6\" patternUnits=\"userSpaceOnUse\" patternTransform=\"rotate(45)\"><line x1=\"0\" y1=\"0\" x2=\"0\" y2=\"6\" stroke=\"{}\" stroke-width=\"1.5\"/></pattern>",
            c.css()
        );
    }
    let _ = write!(
        s,
        "</defs>\n<rect width=\"{width}\" height=\"{height}\" fill=\"{}\"/>\n<g class=\"cells\">\n",
        h.theme.background.css()
    );
    let cell_text = cell >= FONT * 2.5;
    let size = if cell >= 8.0 { cell - 1.0 } else { cell };
    for i in 0..n {
        for j in 0..n {
            let (x, y) = (left + cell * j as f64, top + cell * i as f64);
            let w = h.weights[(i, j)];
            let fill = cell_colour(h.weights, (i, j), h.show_future, h.theme);
            let _ = write!(
                s,
                "<rect class=\"cell\" data-row=\"{}\" data-col=\"{}\" x=\"{x}\" y=\"{y}\" width=\"{size}\" height=\"{size}\" fill=\"{}\"/>",
                i + 1,
                j + 1,
                fill.css()
            );
            let future = h.show_future && sees_future(h.weights, i, j);
            if future {
                let ink = if label_on(w).0 > 0x80 {
                    "light"
                } else {
                    "dark"
                };
                let _ = write!(
                    s,
                    "<rect class=\"hatch\" x=\"{x}\" y=\"{y}\" width=\"{size}\" height=\"{size}\" fill=\"url(#hatch-{ink})\"/>"
                );
            }
            if cell_text && (j <= i || future) {
                let _ = write!(
                    s,
                    "<text x=\"{}\" y=\"{}\" text-anchor=\"middle\" dominant-baseline=\"central\" font-size=\"{}\" fill=\"{}\">{}</text>",
                    x + cell / 2.0,
                    y + cell / 2.0,
                    FONT * 0.85,
                    label_on(w).css(),
                    percent_label(w)
                );
            }
            s.push('\n');
        }
    }
    let ink = h.theme.text.css();
    let _ = write!(s, "</g>\n<g class=\"labels\" fill=\"{ink}\">\n");
    for (k, label) in labels.iter().enumerate().filter(|(k, _)| k % stride == 0) {
        let centre = cell * k as f64 + cell / 2.0;
        let label = escape(label);
        let _ = writeln!(
            s,
            "<text class=\"row-label\" x=\"{}\" y=\"{}\" text-anchor=\"end\" dominant-baseline=\"central\">{label}</text>",
            left - PAD,
            top + centre
        );
        let (x, y) = (left + centre, top + grid + PAD);
        if vertical {
            let _ = writeln!(
                s,
                "<text class=\"col-label\" x=\"{x}\" y=\"{y}\" text-anchor=\"end\" dominant-baseline=\"central\" transform=\"rotate(-90 {x} {y})\">{label}</text>"
            );
        } else {
            let _ = writeln!(
                s,
                "<text class=\"col-label\" x=\"{x}\" y=\"{y}\" text-anchor=\"middle\" dominant-baseline=\"hanging\">{label}</text>"
            );
        }
    }
    let bar_left = PAD + 34.0;
    let mid = legend_top + 7.0;
    let _ = write!(
        s,
        "</g>\n<g class=\"legend\" fill=\"{ink}\"><text x=\"{PAD}\" y=\"{mid}\" dominant-baseline=\"central\">{LEGEND_LOW}</text><rect x=\"{bar_left}\" y=\"{legend_top}\" width=\"200\" height=\"14\" fill=\"url(#scale)\"/><text x=\"{}\" y=\"{mid}\" dominant-baseline=\"central\">{LEGEND_HIGH}</text>",
        bar_left + 206.0
    );
    let swatch = bar_left + 330.0;
    let muted = h.theme.muted.css();
    if h.show_future {
        let _ = write!(
            s,
            "<text x=\"{swatch}\" y=\"{mid}\" dominant-baseline=\"central\" fill=\"{muted}\">BROKEN · hatched: sees the future</text>"
        );
    } else {
        let _ = write!(
            s,
            "<rect x=\"{swatch}\" y=\"{legend_top}\" width=\"14\" height=\"14\" fill=\"{}\"/><text x=\"{}\" y=\"{mid}\" dominant-baseline=\"central\" fill=\"{muted}\">{LEGEND_MASKED}</text>",
            h.theme.masked.css(),
            swatch + 20.0
        );
    }
    let _ = write!(
        s,
        "</g>\n<text class=\"caption\" x=\"{PAD}\" y=\"{caption_y}\" font-size=\"12\" fill=\"{ink}\">{}</text>\n</svg>\n",
        escape(h.caption)
    );
    s
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::charts::colors::viridis;

    fn figure(tokens: &[&str], weights: &DMatrix<f64>, broken: bool, caption: &str) -> String {
        let tokens: Vec<String> = tokens.iter().map(|t| (*t).to_string()).collect();
        heatmap_svg(&SvgHeatmap {
            tokens: &tokens,
            weights,
            theme: Theme::LIGHT,
            show_future: broken,
            caption,
        })
    }

    /// The value of `attr="…"` in `tag`.
    fn attr<'a>(tag: &'a str, name: &str) -> &'a str {
        let key = format!(" {name}=\"");
        let start = tag.find(&key).expect(name) + key.len();
        &tag[start..start + tag[start..].find('"').unwrap()]
    }

    fn cells(svg: &str) -> Vec<&str> {
        svg.split("<rect class=\"cell\"").skip(1).collect()
    }

    #[test]
    fn escapes_the_five_xml_characters() {
        assert_eq!(
            escape(r#"a<b & "c" 'd'>"#),
            "a&lt;b &amp; &quot;c&quot; &apos;d&apos;&gt;"
        );
        assert_eq!(escape("x\u{0}y"), "x\u{FFFD}y");
    }

    #[test]
    fn cell_fills_are_the_canvas_palette() {
        let w = DMatrix::from_row_slice(3, 3, &[1.0, 0.0, 0.0, 0.3, 0.7, 0.0, 0.2, 0.5, 0.3]);
        let svg = figure(&["a", "b", "c"], &w, false, "cap");
        let cells = cells(&svg);
        assert_eq!(cells.len(), 9);
        for tag in cells {
            let i: usize = attr(tag, "data-row").parse::<usize>().unwrap() - 1;
            let j: usize = attr(tag, "data-col").parse::<usize>().unwrap() - 1;
            let expected = if j > i {
                Theme::LIGHT.masked
            } else {
                viridis(w[(i, j)])
            };
            assert_eq!(attr(tag, "fill"), expected.css(), "({i}, {j})");
        }
        assert!(svg.contains(">70%</text>") && svg.contains(">30%</text>"));
        assert!(
            !svg.contains("hatch\" x"),
            "no hatching for correct attention"
        );
    }

    #[test]
    fn broken_future_cells_are_coloured_and_hatched() {
        let w = DMatrix::from_row_slice(2, 2, &[0.5, 0.5, 0.25, 0.75]);
        let svg = figure(&["a", "b"], &w, true, "cap");
        let future = cells(&svg)[1];
        assert_eq!(attr(future, "fill"), viridis(0.5).css());
        assert_eq!(svg.matches("<rect class=\"hatch\"").count(), 1);
        assert!(svg.contains("BROKEN"));
    }

    #[test]
    fn structure_labels_and_escaped_text() {
        let w = DMatrix::from_row_slice(2, 2, &[1.0, 0.0, 0.4, 0.6]);
        let caption = r#"“a<b & c” · seed 1 · "x" 'y'"#;
        let svg = figure(&["<b>", "&"], &w, false, caption);
        assert!(svg.starts_with("<svg xmlns=\"http://www.w3.org/2000/svg\""));
        assert!(svg.trim_end().ends_with("</svg>"));
        for raw in ["<b>", " & ", "\"x\"", "'y'"] {
            assert!(!svg.contains(raw), "unescaped {raw}");
        }
        assert_eq!(
            svg.matches(">&lt;b&gt;</text>").count(),
            2,
            "row and column label"
        );
        assert_eq!(svg.matches(">&amp;</text>").count(), 2);
        let escaped = escape(caption);
        assert!(svg.contains(&format!("<title>{escaped}</title>")));
        assert!(svg.contains("class=\"caption\""));
        assert!(svg.contains(&format!(">{escaped}</text>")));
        // Every element opened is closed: tags balance (self-closing ones aside).
        let opened = svg.matches('<').count() - svg.matches("</").count();
        let self_closed = svg.matches("/>").count();
        assert_eq!(opened - self_closed, svg.matches("</").count());
        // The legend's gradient is viridis through its stops.
        assert_eq!(svg.matches("<stop ").count(), 11);
        assert!(svg.contains(&format!("stop-color=\"{}\"", viridis(1.0).css())));
    }
}
