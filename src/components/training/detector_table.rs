//! The head-detector scores of every head at the latest evaluation (or the replayed checkpoint),
//! on the held-out sequences (definitions in `model::train::lab::detectors`), with the tiny grammar's
//! agreement weights beside them, and for the repeat task what they add up to: the copying
//! circuit's three conditions, met or not, at the same step.

use super::{circuit_chance, use_training};
use crate::components::data_table::DataTable;
use crate::format::{fixed, grouped};
use crate::model::train::lab::detectors::{AgreementReport, HeadScores};
use crate::text::{
    agreement_summary, circuit_items, circuit_summary, composition_intro, composition_item,
    detector_caption, head_name, of_run, score_cell, CircuitChance, CircuitItem, CIRCUIT_INTRO,
    DETECTORS_READ_THE_PAST,
};
use leptos::prelude::*;

/// A detector table (the live one and the saved checkpoint's): one row per head, layers counted
/// from 1, with the tiny grammar's `agreement` weights beside the detector scores (from the row
/// that predicts the verb, on the subject and on the nearer noun; "–" without a report). `exact`
/// adds every detector score at full precision as the row's `data-scores` (for the tests that
/// compare them with native code); the agreement cells always carry theirs as `data-value`.
pub(super) fn detector_table(
    test_id: &'static str,
    caption: String,
    heads: &[Vec<HeadScores>],
    agreement: Option<&AgreementReport>,
    exact: bool,
) -> impl IntoView {
    let rows = detector_rows(heads, agreement, exact);
    view! {
        <DataTable
            test_id=test_id
            class="detectors"
            caption=caption
            columns=[
                "head",
                "previous token",
                "induction",
                "first token",
                "self",
                "entropy (bits)",
                "agreement: on subject",
                "agreement: on nearer noun",
            ]
        >
            <tbody>{rows}</tbody>
        </DataTable>
    }
}

/// The rows of [`detector_table`].
fn detector_rows(
    heads: &[Vec<HeadScores>],
    agreement: Option<&AgreementReport>,
    exact: bool,
) -> impl IntoView {
    let mut rows = Vec::new();
    for (l, layer) in heads.iter().enumerate() {
        for (h, s) in layer.iter().enumerate() {
            let subject = agreement.map(|r| r.subject_weight[l][h]);
            let nearer = agreement.map(|r| r.attractor_weight[l][h]);
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
            rows.push(view! {
                <tr data-scores=scores>
                    <th scope="row">{head_name(l, h)}</th>
                    <td class="num">{score_cell(Some(s.previous_token))}</td>
                    <td class="num">{score_cell(s.induction)}</td>
                    <td class="num">{score_cell(Some(s.first_token))}</td>
                    <td class="num">{score_cell(Some(s.self_token))}</td>
                    <td class="num">{fixed(s.entropy_bits, 2)}</td>
                    <td class="num" data-value=subject.map(|w| w.to_string())>{score_cell(subject)}</td>
                    <td class="num" data-value=nearer.map(|w| w.to_string())>{score_cell(nearer)}</td>
                </tr>
            });
        }
    }
    rows
}

/// The run's head scores, its circuit checklist and the composition test.
#[component]
pub(super) fn DetectorTable(
    /// Hide the checklist where the run's circuit cannot form (run B: its summary says why);
    /// without it the checklist is always shown (run A's, with its advice for one layer).
    #[prop(optional)]
    only_possible_checks: bool,
) -> impl IntoView {
    let training = use_training();
    // The whole table at once: it changes with every evaluation and every replayed checkpoint.
    let table = move || {
        training.shown.with(|shown| {
            let shown = shown.as_ref()?;
            Some(detector_table(
                "detector-table",
                detector_caption(training.letter.get(), shown.eval.step),
                &shown.eval.heads,
                shown.agreement.as_ref(),
                false,
            ))
        })
    };
    // The repeat task's circuit at the shown step; the first evaluation at which it formed, from
    // every evaluation of the run (it may lie after a replayed checkpoint).
    let checks_apply =
        move || !only_possible_checks || circuit_chance(training) == CircuitChance::Possible;
    let reads_ahead = move || circuit_chance(training) == CircuitChance::ReadsAhead;
    let circuit = move || {
        if !checks_apply() {
            return None;
        }
        let (step, check) = training.shown.with(|s| {
            s.as_ref()
                .and_then(|s| Some((s.eval.step, s.eval.circuit_check()?)))
        })?;
        let first = training.circuit_formed_at.get();
        Some((circuit_summary(step, &check, first), circuit_items(&check)))
    };
    // The composition test, run when asked on the model shown (a few passes over the held-out
    // set); its result names its step and stays until a new run.
    let tested: RwSignal<Option<CircuitItem>> = RwSignal::new(None);
    Effect::new(move |_| {
        training.settings.track();
        tested.set(None);
    });
    let test_composition = move |_| {
        let item = untrack(|| training.composition()).map(|(step, c)| composition_item(step, &c));
        tested.set(item);
    };
    let testable = move || {
        checks_apply()
            && training.shown.with(|s| {
                s.as_ref()
                    .is_some_and(|s| s.eval.heads.len() >= 2 && s.eval.circuit_check().is_some())
            })
    };
    let composition_view = move || {
        testable().then(|| {
            view! {
                <div class="composition" data-testid="composition">
                    <p class="hint">{composition_intro()}</p>
                    <button type="button" data-testid="composition-test" on:click=test_composition>
                        {move || {
                            let step = training.shown.with(|s| s.as_ref().map_or(0, |s| s.eval.step));
                            format!("Test composition at step {}", grouped(step as u64))
                        }}
                    </button>
                    {move || {
                        tested
                            .get()
                            .map(|item| {
                                view! {
                                    <p data-testid="composition-result" data-met=item.met.to_string()>
                                        <strong>{item.status}</strong>
                                        {format!(" — {}", item.text)}
                                    </p>
                                }
                            })
                    }}
                </div>
            }
        })
    };
    let circuit_view = move || {
        circuit().map(|(summary, items)| {
            view! {
                <div class="circuit" data-testid="circuit">
                    <p class="hint">{CIRCUIT_INTRO}</p>
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
    // The tiny grammar's agreement at the shown step, in words (each head's weights are the last
    // two columns).
    let agreement = move || {
        training.shown.with(|shown| {
            let shown = shown.as_ref()?;
            let text = agreement_summary(shown.eval.step, shown.agreement.as_ref()?);
            Some(view! { <p data-testid="agreement">{text}</p> })
        })
    };
    view! {
        <h3 class="sub">{move || format!("Head detectors{}", of_run(training.letter.get()))}</h3>
        <details class="explain">
        <summary>"What the scores mean"</summary>
        <p class="hint">
            "Mean weight on the previous token, on the token after the current token's earlier occurrence "
            "(induction; repeat task only), on the first token and on the token itself, each from 0 to 1; "
            "the mean entropy of a row in bits (0 = looks at one token); and for the tiny grammar, in held-out "
            "sentences like “the key to the cabinets is”, the weight from the nearer noun's row (which predicts "
            "the verb) on the subject and on the nearer noun."
        </p>
        </details>
        <Show when=reads_ahead>
            <p class="hint" data-testid="detectors-past">{DETECTORS_READ_THE_PAST}</p>
        </Show>
        {table}
        {agreement}
        {circuit_view}
        {composition_view}
    }
}
