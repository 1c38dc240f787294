//! A vector drawn as a strip of coloured squares: the step-3 trace shows q, k and v this way.
//! Each entry is one canvas pixel that CSS scales up (`image-rendering: pixelated`), so showing a
//! new vector is one small pixel upload. (A CSS gradient per vector, the first design, cost a
//! style parse of a kilobyte of stops on every slider step.)

use crate::format::fixed;

/// Okabe–Ito orange (positive entries) and blue (negative entries).
pub const POSITIVE: [u8; 3] = [230, 159, 0];
pub const NEGATIVE: [u8; 3] = [0, 114, 178];

/// The widest a square gets, in CSS pixels.
pub const SQUARE_PX: usize = 13;

/// The colour of entry `v` on a strip whose largest magnitude is `scale`: the sign's hue, and
/// the opacity |v| / `scale` (0 to 1).
pub fn entry_colour(v: f64, scale: f64) -> ([u8; 3], f64) {
    let hue = if v >= 0.0 { POSITIVE } else { NEGATIVE };
    (hue, (v.abs() / scale).clamp(0.0, 1.0))
}

/// One RGBA pixel per entry ([`entry_colour`] at max |v|), so the largest entry is fully opaque
/// and zero is transparent (the strip's background shows through).
pub fn strip_pixels(values: &[f64]) -> Vec<u8> {
    let scale = values.iter().fold(1e-12f64, |m, v| m.max(v.abs()));
    values
        .iter()
        .flat_map(|&v| {
            let ([r, g, b], alpha) = entry_colour(v, scale);
            [r, g, b, (alpha * 255.0).round() as u8]
        })
        .collect()
}

/// The entries as the strip's tooltip and accessible text: "0.1234, -0.5000, …".
pub fn strip_numbers(values: &[f64]) -> String {
    values
        .iter()
        .map(|v| fixed(*v, 4))
        .collect::<Vec<_>>()
        .join(", ")
}

/// The strip's inline style: how many squares the separators mark and its widest size.
pub fn strip_style(len: usize) -> String {
    format!("--n:{len};max-width:{}px", SQUARE_PX * len)
}

/// One strip to show.
pub struct Strip {
    /// The visible label, e.g. "v cat × 0.126".
    pub label: String,
    /// What the vector is, e.g. "v cat": with the numbers, the canvas' accessible name.
    pub name: String,
    /// New entries to paint, or `None` to keep the ones shown.
    pub values: Option<Vec<f64>>,
    pub hidden: bool,
}

/// The strip elements in a container and what each shows, so a redraw touches only what changed.
/// The container is left to this type (the component renders it empty), like a canvas' pixels.
#[cfg(target_arch = "wasm32")]
#[derive(Default)]
pub struct StripRows {
    rows: Vec<StripRow>,
}

#[cfg(target_arch = "wasm32")]
struct StripRow {
    root: web_sys::HtmlElement,
    /// The label's text node: its value is set in place (a new `textContent` would replace it).
    label: web_sys::Node,
    cells: web_sys::Element,
    canvas: web_sys::HtmlCanvasElement,
    shown_label: String,
    hidden: bool,
}

#[cfg(target_arch = "wasm32")]
impl StripRows {
    /// Makes `container` show `strips`, in order: `div.strip > span.strip-label + span.cells >
    /// canvas`, one canvas pixel per entry (see [`paint_strip`]).
    pub fn draw(&mut self, container: &web_sys::Element, strips: &[Strip]) -> super::Result<()> {
        use wasm_bindgen::JsCast;
        let document = container
            .owner_document()
            .ok_or(super::DrawError::Missing("no document"))?;
        while self.rows.len() > strips.len() {
            if let Some(row) = self.rows.pop() {
                row.root.remove();
            }
        }
        for (k, strip) in strips.iter().enumerate() {
            let fresh = k >= self.rows.len();
            if fresh {
                let root: web_sys::HtmlElement = document.create_element("div")?.unchecked_into();
                root.set_class_name("strip");
                let label_span = document.create_element("span")?;
                label_span.set_class_name("strip-label");
                let label: web_sys::Node = document.create_text_node("").into();
                label_span.append_child(&label)?;
                let cells = document.create_element("span")?;
                cells.set_class_name("cells");
                let canvas: web_sys::HtmlCanvasElement =
                    document.create_element("canvas")?.unchecked_into();
                canvas.set_attribute("role", "img")?;
                cells.append_child(&canvas)?;
                root.append_child(&label_span)?;
                root.append_child(&cells)?;
                container.append_child(&root)?;
                self.rows.push(StripRow {
                    root,
                    label,
                    cells,
                    canvas,
                    shown_label: String::new(),
                    hidden: false,
                });
            }
            let row = &mut self.rows[k];
            if row.shown_label != strip.label {
                row.label.set_node_value(Some(&strip.label));
                row.shown_label.clone_from(&strip.label);
            }
            if row.hidden != strip.hidden {
                row.root.set_hidden(strip.hidden);
                row.hidden = strip.hidden;
            }
            if let Some(values) = &strip.values {
                paint_strip(&row.canvas, values)?;
                let numbers = strip_numbers(values);
                row.cells
                    .set_attribute("style", &strip_style(values.len()))?;
                row.canvas
                    .set_attribute("aria-label", &format!("{}: {numbers}", strip.name))?;
                row.canvas.set_attribute("title", &numbers)?;
            }
        }
        Ok(())
    }
}

/// Puts `values` on `canvas` as one pixel per entry (resizing it to `len × 1` if needed).
#[cfg(target_arch = "wasm32")]
pub fn paint_strip(canvas: &web_sys::HtmlCanvasElement, values: &[f64]) -> super::Result<()> {
    let len = values.len() as u32;
    if canvas.width() != len || canvas.height() != 1 {
        canvas.set_width(len);
        canvas.set_height(1);
    }
    if len == 0 {
        return Ok(());
    }
    let pixels = strip_pixels(values);
    let image = web_sys::ImageData::new_with_u8_clamped_array_and_sh(
        wasm_bindgen::Clamped(&pixels),
        len,
        1,
    )?;
    super::canvas::context_2d(canvas)?.put_image_data(&image, 0.0, 0.0)?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn pixel(p: &[u8], i: usize) -> [u8; 4] {
        p[i * 4..i * 4 + 4].try_into().unwrap()
    }

    #[test]
    fn one_pixel_per_entry_shaded_by_magnitude_and_sign() {
        let p = strip_pixels(&[2.0, -1.0, 0.0, -2.0, 0.5]);
        assert_eq!(p.len(), 5 * 4);
        assert_eq!(pixel(&p, 0), [230, 159, 0, 255]);
        assert_eq!(pixel(&p, 1), [0, 114, 178, 128]);
        assert_eq!(pixel(&p, 2), [230, 159, 0, 0]);
        assert_eq!(pixel(&p, 3), [0, 114, 178, 255]);
        assert_eq!(pixel(&p, 4), [230, 159, 0, 64]);
    }

    #[test]
    fn zero_tiny_and_empty_vectors_stay_finite() {
        assert!(strip_pixels(&[0.0; 3]).chunks(4).all(|px| px[3] == 0));
        // Below the 1e-12 floor the scale does not blow tiny values up to full colour.
        assert_eq!(pixel(&strip_pixels(&[1e-15]), 0)[3], 0);
        assert_eq!(pixel(&strip_pixels(&[-1e-9, 1e-10]), 0)[3], 255);
        assert!(strip_pixels(&[]).is_empty());
        assert_eq!(strip_numbers(&[]), "");
    }

    #[test]
    fn numbers_and_style() {
        assert_eq!(
            strip_numbers(&[2.0, -0.12346, 0.0]),
            "2.0000, -0.1235, 0.0000"
        );
        assert_eq!(strip_style(32), "--n:32;max-width:416px");
    }
}
