//! The training view's loss curve: the held-out loss at every evaluation and, for the repeat
//! task, its two halves (the first copy, which cannot be predicted, and the repeated part, which
//! can once the model copies); for the tiny grammar, the exact floor of its held-out loss as a dashed
//! line; and a dashed vertical line at a milestone step (the repeat task: where the copying circuit
//! first formed, the phase change; the grammar: where the loss first came near its floor). Run B,
//! when there is one, is drawn over it in the same colours, dashed (its curves' dashes staggered,
//! so where they lie on top of each other every colour still shows); a run B trained with a mistake
//! also has its held-out loss with correct attention (as a model is used), dotted.

use super::canvas::{color, drawing_area};
use super::colors::{Rgb, Theme};
use super::dashes::dashes;
use super::Result;
use crate::format::fixed;
use crate::model::train::lab::evaluation::EvalPoint;
use plotters::prelude::*;
use plotters::style::text_anchor::{HPos, Pos, VPos};
use web_sys::HtmlCanvasElement;

/// Okabe–Ito black-ish grey, orange and blue: told apart with every common colour-vision
/// deficiency; the halves are also dashed (first copy) or dotted (repeat) in the legend's words.
pub const HELD_OUT: Rgb = Rgb(0x7f, 0x7f, 0x7f);
pub const FIRST_COPY: Rgb = Rgb(0xd5, 0x5e, 0x00);
pub const REPEATED: Rgb = Rgb(0x00, 0x72, 0xb2);
/// Okabe–Ito reddish purple: run B's held-out loss with correct attention.
pub const AS_USED: Rgb = Rgb(0xcc, 0x79, 0xa7);

/// Run B's dash length in CSS pixels. The gaps are two dashes long, so where the three curves
/// overlap, their dashes (each curve's started one dash later) fill the line in turn.
const B_DASH: f64 = 6.0;

/// Which loss of an evaluation a line shows.
type Pick = fn(&EvalPoint) -> Option<f64>;

/// Draws the curves of `evals` (solid) and of run B's `b` (dashed), `floor` (the loss a model of
/// the task's rules would score) as a dashed horizontal line and `milestone` (a step) as a dashed
/// vertical one, both in the text colour.
pub fn draw_loss_chart(
    canvas: &HtmlCanvasElement,
    evals: &[EvalPoint],
    b: &[EvalPoint],
    floor: Option<f64>,
    milestone: Option<usize>,
    theme: Theme,
    dpr: f64,
) -> Result<()> {
    let root = drawing_area(canvas)?;
    root.fill(&color(theme.background))?;
    let Some(last) = evals.iter().chain(b).map(|e| e.step).max() else {
        return Ok(());
    };
    let px = |v: f64| (v * dpr).round() as u32;
    let x_max = (last as f64).max(25.0);
    // The scale fits the losses as the runs train. Run B's loss with correct attention can be
    // many times higher (19.9 nats at step 600 for seed 1 without the mask, against 4.5 at step 0): it is cut
    // off at the top, with its latest value written there, so run A's curves stay readable.
    let y_max = evals
        .iter()
        .chain(b)
        .flat_map(|e| [Some(e.loss), e.first_copy_loss, e.repeated_loss])
        .flatten()
        .chain(floor)
        .fold(0.5_f64, f64::max)
        * 1.05;
    let mut chart = ChartBuilder::on(&root)
        .margin(px(10.0))
        .x_label_area_size(px(36.0))
        .y_label_area_size(px(40.0))
        .build_cartesian_2d(0.0..x_max, 0.0..y_max)?;
    let font = (FontFamily::SansSerif, 12.0 * dpr)
        .into_font()
        .color(&color(theme.text));
    chart
        .configure_mesh()
        .x_labels(5)
        .y_labels(5)
        .x_desc("step")
        .y_desc("loss (nats)")
        .label_style(font.clone())
        .axis_desc_style(font)
        .light_line_style(color(theme.muted).mix(0.15))
        .bold_line_style(color(theme.muted).mix(0.3))
        .axis_style(color(theme.muted))
        .x_label_formatter(&|x| fixed(*x, 0))
        .y_label_formatter(&|y| fixed(*y, 1))
        .draw()?;
    let dashed = |from: (f64, f64), to: (f64, f64)| {
        DashedLineSeries::new(
            [from, to],
            px(6.0),
            px(4.0),
            color(theme.text).stroke_width(px(1.5)),
        )
    };
    if let Some(floor) = floor {
        chart.draw_series(dashed((0.0, floor), (x_max, floor)))?;
    }
    if let Some(step) = milestone {
        let x = step as f64;
        chart.draw_series(dashed((x, 0.0), (x, y_max)))?;
    }
    let series: [(Pick, Rgb, f64); 3] = [
        (|e| Some(e.loss), HELD_OUT, 1.5),
        (|e| e.first_copy_loss, FIRST_COPY, 2.5),
        (|e| e.repeated_loss, REPEATED, 2.5),
    ];
    let points = |evals: &[EvalPoint], pick: Pick| -> Vec<(f64, f64)> {
        evals
            .iter()
            .filter_map(|e| Some((e.step as f64, pick(e)?)))
            .collect()
    };
    for (i, (pick, c, width)) in series.into_iter().enumerate() {
        let style = color(c).stroke_width(px(width));
        let a = points(evals, pick);
        if !a.is_empty() {
            chart.draw_series(LineSeries::new(a, style))?;
        }
        // Run B's three curves share one dash pattern, each starting a dash later (module
        // `dashes`): where they lie on top of each other, the line shows all three colours.
        let b: Vec<(f64, f64)> = points(b, pick)
            .iter()
            .map(|p| {
                let (x, y) = chart.backend_coord(p);
                (f64::from(x), f64::from(y))
            })
            .collect();
        let (on, off) = (B_DASH * dpr, 2.0 * B_DASH * dpr);
        for dash in dashes(&b, on, off, i as f64 * on) {
            let path: Vec<(i32, i32)> = dash
                .iter()
                .map(|&(x, y)| (x.round() as i32, y.round() as i32))
                .collect();
            root.draw(&PathElement::new(path, style))?;
        }
    }
    let used = points(b, |e| e.used.as_ref().map(|u| u.loss));
    if let Some(&(x, last)) = used.last() {
        let style = color(AS_USED).stroke_width(px(2.5));
        let cut = used.iter().map(|&(x, y)| (x, y.min(y_max)));
        chart.draw_series(DashedLineSeries::new(cut, px(2.0), px(4.0), style))?;
        if last > y_max {
            let label = (FontFamily::SansSerif, 12.0 * dpr)
                .into_font()
                .color(&color(theme.text))
                .pos(Pos::new(HPos::Right, VPos::Top));
            chart.draw_series(std::iter::once(Text::new(
                format!("↑ {} nats", fixed(last, 1)),
                (x, y_max * 0.97),
                label,
            )))?;
        }
    }
    Ok(())
}
