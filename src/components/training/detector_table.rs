//! The head-detector scores of every head at the latest evaluation (or the replayed checkpoint),
//! on the held-out sequences (definitions in `model::train::detectors`), and for the repeat task
//! what they add up to: the copying circuit's three conditions, met or not, at the same step.

use super::use_training;
use crate::format::fixed;
use crate::model::train::detectors::HeadScores;
use crate::model::train::trainer::EvalPoint;
use crate::text::{circuit_items, circuit_summary, score_cell};
use leptos::prelude::*;

/// The columns of a detector table (also the saved checkpoint's, `saved.rs`).
pub(super) fn detector_header() -> impl IntoView {
    view! {
        <thead>
            <tr>
                <th scope="col">"head"</th>
                <th scope="col">"previous token"</th>
                <th scope="col">"induction"</th>
                <th scope="col">"first token"</th>
                <th scope="col">"self"</th>
                <th scope="col">"entropy (bits)"</th>
            </tr>
        </thead>
    }
}

/// One row per head, layers counted from 1; `exact` adds every score at full precision as the
/// row's `data-scores` (for the tests that compare them with native code).
pub(super) fn detector_rows(heads: &[Vec<HeadScores>], exact: bool) -> impl IntoView {
    heads
        .iter()
        .enumerate()
        .flat_map(|(l, layer)| {
            layer.iter().enumerate().map(move |(h, s)| {
                let scores = exact.then(|| {
                    format!(
                        "{} {} {} {} {}",
                        s.previous_token,
                        s.induction.unwrap_or(f64::NAN),
                        s.first_token,
                        s.self_token,
                        s.entropy_bits
                    )
                });
                view! {
                    <tr data-scores=scores>
                        <th scope="row">{format!("Layer {}, head {}", l + 1, h + 1)}</th>
                        <td class="num">{score_cell(Some(s.previous_token))}</td>
                        <td class="num">{score_cell(s.induction)}</td>
                        <td class="num">{score_cell(Some(s.first_token))}</td>
                        <td class="num">{score_cell(Some(s.self_token))}</td>
                        <td class="num">{fixed(s.entropy_bits, 2)}</td>
                    </tr>
                }
            })
        })
        .collect_view()
}

#[component]
pub(super) fn DetectorTable() -> impl IntoView {
    let training = use_training();
    let rows = move || {
        training
            .shown
            .with(|shown| Some(detector_rows(&shown.as_ref()?.eval.heads, false)))
    };
    let caption = move || {
        let step = training
            .shown
            .with(|s| s.as_ref().map_or(0, |s| s.eval.step));
        format!("What each head attends to at step {step}, averaged over the held-out sequences")
    };
    // The repeat task's circuit at the shown step; the first evaluation at which it formed, from
    // every evaluation of the run (it may lie after a replayed checkpoint).
    let circuit = move || {
        let (step, check) = training.shown.with(|s| {
            s.as_ref()
                .and_then(|s| Some((s.eval.step, s.eval.circuit_check()?)))
        })?;
        training.evals.track();
        let first = training.with(|t| t?.first_step_where(EvalPoint::circuit_formed));
        Some((circuit_summary(step, &check, first), circuit_items(&check)))
    };
    let circuit_view = move || {
        circuit().map(|(summary, items)| {
            view! {
                <div class="circuit" data-testid="circuit">
                    <p class="hint">
                        "Copying takes two heads working together, the induction circuit: a previous-token head in "
                        "layer 1 writes into each position which token came before it; an induction head in layer 2 "
                        "uses that to find where the current token appeared earlier and attends to the token that "
                        "followed it there, the one the repeat predicts. The checklist tests the step shown above."
                    </p>
                    <p data-testid="circuit-summary">{summary}</p>
                    <ul data-testid="circuit-check">
                        {items
                            .into_iter()
                            .map(|item| view! {
                                <li data-met=item.met.to_string()>
                                    <strong>{item.status}</strong>
                                    {format!(" — {}", item.text)}
                                </li>
                            })
                            .collect_view()}
                    </ul>
                </div>
            }
        })
    };
    view! {
        <h3 class="sub">"Head detectors"</h3>
        <p class="hint">
            "Mean weight on the previous token, on the token after the current token's earlier occurrence "
            "(induction; repeat task only), on the first token and on the token itself, each from 0 to 1; "
            "and the mean entropy of a row in bits (0 = looks at one token)."
        </p>
        <div class="table-scroll">
            <table class="detectors" data-testid="detector-table">
                <caption>{caption}</caption>
                {detector_header()}
                <tbody>{rows}</tbody>
            </table>
        </div>
        {circuit_view}
    }
}
