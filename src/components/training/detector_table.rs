//! The head-detector scores of every head at the latest evaluation (or the replayed checkpoint),
//! on the held-out sequences (definitions in `model::train::detectors`).

use super::use_training;
use crate::format::fixed;
use crate::model::train::detectors::HeadScores;
use crate::text::score_cell;
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
    view! {
        <h3 class="sub">"Head detectors"</h3>
        <p class="hint">
            "Mean weight on the previous token, on the token after the current token's earlier occurrence "
            "(induction; repeat task only), on the first token and on the token itself, each from 0 to 1; "
            "and the mean entropy of a row in bits (0 = looks at one token)."
        </p>
        <div class="table-scroll">
            <table data-testid="detector-table">
                <caption>{caption}</caption>
                {detector_header()}
                <tbody>{rows}</tbody>
            </table>
        </div>
    }
}
