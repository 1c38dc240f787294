//! Step 4's chart: expected largest softmax weight against head size, unscaled and scaled, each
//! with its 10th–90th percentile band; the notebook's single draws as dots; the chosen size marked.

use super::canvas::{color, drawing_area};
use super::colors::{Rgb, Theme};
use super::Result;
use crate::format::fixed;
use crate::model::scaling_lab::{LabPoint, Spread, NOTEBOOK_DRAWS};
use plotters::prelude::*;
use web_sys::HtmlCanvasElement;

/// Orange and blue from the Okabe–Ito palette: distinguishable with every common colour-vision
/// deficiency. Both lines are solid; the series differ in their markers too (unscaled: circles,
/// scaled: squares, as the legend's swatches), so neither needs its colour to be told apart.
pub const UNSCALED: Rgb = Rgb(0xd5, 0x5e, 0x00);
pub const SCALED: Rgb = Rgb(0x00, 0x72, 0xb2);

pub fn draw_lab_chart(
    canvas: &HtmlCanvasElement,
    points: &[LabPoint],
    selected_head_size: usize,
    theme: Theme,
    dpr: f64,
) -> Result<()> {
    let root = drawing_area(canvas)?;
    root.fill(&color(theme.background))?;
    if points.is_empty() {
        return Ok(());
    }
    let px = |v: f64| (v * dpr).round() as u32;
    let x_max = (points.len() - 1) as f64;
    let mut chart = ChartBuilder::on(&root)
        .margin(px(10.0))
        .x_label_area_size(px(36.0))
        .y_label_area_size(px(44.0))
        .build_cartesian_2d(-0.2f64..x_max + 0.2, 0.0f64..1.0)?;
    let font = (FontFamily::SansSerif, 12.0 * dpr)
        .into_font()
        .color(&color(theme.text));
    let sizes: Vec<usize> = points.iter().map(|p| p.head_size).collect();
    chart
        .configure_mesh()
        .x_labels(points.len())
        .y_labels(6)
        .x_desc("head size d")
        .y_desc("largest weight")
        .label_style(font.clone())
        .axis_desc_style(font)
        .light_line_style(color(theme.muted).mix(0.15))
        .bold_line_style(color(theme.muted).mix(0.3))
        .axis_style(color(theme.muted))
        .x_label_formatter(&|x| {
            let i = x.round();
            if (x - i).abs() < 1e-6 && i >= 0.0 {
                sizes
                    .get(i as usize)
                    .map(std::string::ToString::to_string)
                    .unwrap_or_default()
            } else {
                String::new()
            }
        })
        .y_label_formatter(&|y| fixed(*y, 1))
        .draw()?;

    let series = |pick: fn(&LabPoint) -> Spread| -> Vec<(f64, Spread)> {
        points
            .iter()
            .enumerate()
            .map(|(i, p)| (i as f64, pick(p)))
            .collect()
    };
    for (values, c) in [
        (series(|p| p.unscaled), UNSCALED),
        (series(|p| p.scaled), SCALED),
    ] {
        let mut band: Vec<(f64, f64)> = values.iter().map(|(x, s)| (*x, s.p90)).collect();
        band.extend(values.iter().rev().map(|(x, s)| (*x, s.p10)));
        chart.draw_series(std::iter::once(Polygon::new(
            band,
            color(c).mix(0.18).filled(),
        )))?;
        chart.draw_series(LineSeries::new(
            values.iter().map(|(x, s)| (*x, s.mean)),
            color(c).stroke_width(px(2.5)),
        ))?;
    }
    let r = px(4.0);
    chart.draw_series(
        series(|p| p.unscaled)
            .into_iter()
            .map(|(x, s)| Circle::new((x, s.mean), r, color(UNSCALED).filled())),
    )?;
    chart.draw_series(series(|p| p.scaled).into_iter().map(|(x, s)| {
        let h = 0.012;
        Rectangle::new(
            [(x - 0.06, s.mean - h), (x + 0.06, s.mean + h)],
            color(SCALED).filled(),
        )
    }))?;
    // The notebook's single draws: hollow markers.
    for (d, unscaled, scaled) in NOTEBOOK_DRAWS {
        if let Some(i) = sizes.iter().position(|&s| s == d) {
            let x = i as f64;
            chart.draw_series([Circle::new(
                (x, unscaled),
                px(6.0),
                color(theme.text).stroke_width(px(1.5)),
            )])?;
            chart.draw_series([Circle::new(
                (x, scaled),
                px(6.0),
                color(theme.text).stroke_width(px(1.5)),
            )])?;
        }
    }
    if let Some(i) = sizes.iter().position(|&s| s == selected_head_size) {
        let x = i as f64;
        chart.draw_series(LineSeries::new(
            [(x, 0.0), (x, 1.0)],
            color(theme.highlight).stroke_width(px(1.5)),
        ))?;
    }
    Ok(())
}
