//! Knock out a head: a switch per head of the model shown and zero or mean, then "predict
//! first" (what will the watched loss do?), then the knocked-out model beside the intact one:
//! the held-out losses, the detector scores and every head's weights, with the differences. The
//! numbers stay hidden until the prediction is made. State: [`crate::state::Knockout`].

use super::head_grid::{thumb_side_of, TrainedThumbnail};
use super::use_training;
use crate::components::data_table::DataTable;
use crate::model::train::lab::ablation::unchanged_scores;
use crate::model::train::lab::evaluation::EvalPoint;
use crate::model::train::lab::knockout::AblationKind;
use crate::model::train::lab::prediction::LossChange;
use crate::state::{Knockout, KnockoutResult};
use crate::text::{
    ablation_kind_label, change_label, head_name, knocked_heads_text, knockout_grid_hint,
    knockout_losses_caption, loss_cell, of_run, prediction_grade, prediction_question, score_cell,
    signed_cell, unchanged_scores_note, KNOCKOUT_INTRO,
};
use leptos::html;
use leptos::prelude::*;

fn use_knockout() -> Knockout {
    use_context::<Knockout>().expect("Knockout is provided by TrainingPanel")
}

/// A switch per head and the kind of knock-out.
#[component]
pub(super) fn KnockoutSwitches() -> impl IntoView {
    let training = use_training();
    let knockout = use_knockout();
    let shape = move || {
        let s = training.settings.get();
        (s.layers, s.heads)
    };
    let switches = move || {
        let (layers, heads) = shape();
        (0..layers)
            .flat_map(|l| (0..heads).map(move |h| (l, h)))
            .map(|(l, h)| {
                let id = format!("ko-{}-{}", l + 1, h + 1);
                view! {
                    <label class="ko-head">
                        <input
                            type="checkbox"
                            data-testid=id
                            prop:checked=move || knockout.is_on((l, h))
                            on:change:target=move |ev| knockout.toggle((l, h), ev.target().checked())
                        />
                        {head_name(l, h)}
                    </label>
                }
            })
            .collect_view()
    };
    let kinds = [AblationKind::Zero, AblationKind::Mean]
        .into_iter()
        .map(|kind| {
            let id = format!("ko-kind-{}", kind.key());
            view! {
                <label class="ko-kind">
                    <input
                        type="radio"
                        name="ko-kind"
                        data-testid=id
                        prop:checked=move || knockout.kind() == kind
                        on:change=move |_| knockout.set_kind(kind)
                    />
                    {ablation_kind_label(kind)}
                </label>
            }
        })
        .collect_view();
    view! {
        <fieldset class="field knockout" data-testid="knockout">
            <legend>{move || format!("Knock out heads{}", of_run(training.letter.get()))}</legend>
            <p class="hint">{KNOCKOUT_INTRO}</p>
            <div class="ko-heads">{switches}</div>
            <fieldset class="ko-kinds">
                <legend>"How"</legend>
                {kinds}
            </fieldset>
        </fieldset>
    }
}

/// One row of the losses table: intact, knocked out and the difference.
fn loss_row(name: &'static str, intact: Option<f64>, knocked: Option<f64>) -> impl IntoView {
    let diff = intact.zip(knocked).map(|(a, b)| b - a);
    view! {
        <tr>
            <th scope="row">{name}</th>
            <td class="num" data-value=intact.map(|x| x.to_string())>{loss_cell(intact)}</td>
            <td class="num" data-value=knocked.map(|x| x.to_string())>{loss_cell(knocked)}</td>
            <td class="num">{diff.map_or_else(|| "–".to_string(), signed_cell)}</td>
        </tr>
    }
}

/// The held-out losses intact and knocked out, and for a run trained with a mistake the same as
/// the model is used (correct causal attention).
fn losses_table(intact: &EvalPoint, knocked: &EvalPoint) -> impl IntoView {
    type Row = (&'static str, Option<f64>, Option<f64>);
    let rows = |a: &EvalPoint, b: &EvalPoint, names: [&'static str; 3]| -> Vec<Row> {
        let mut rows = vec![(names[0], Some(a.loss), Some(b.loss))];
        if a.repeated_loss.is_some() {
            rows.push((names[1], a.first_copy_loss, b.first_copy_loss));
            rows.push((names[2], a.repeated_loss, b.repeated_loss));
        }
        rows
    };
    let mut all = rows(
        intact,
        knocked,
        ["all predicted tokens", "first copy", "repeated part"],
    );
    if let (Some(a), Some(b)) = (intact.used.as_deref(), knocked.used.as_deref()) {
        all.extend(rows(
            a,
            b,
            [
                "all predicted tokens, as used",
                "first copy, as used",
                "repeated part, as used",
            ],
        ));
    }
    let body = all
        .into_iter()
        .map(|(name, a, b)| loss_row(name, a, b))
        .collect_view();
    view! {
        <DataTable
            test_id="knockout-losses"
            class="loss"
            caption=knockout_losses_caption(intact.step)
            columns=["loss", "intact", "knocked out", "difference"]
        >
            <tbody>{body}</tbody>
        </DataTable>
    }
}

/// Every head's previous-token and induction scores, intact and knocked out.
fn scores_table(intact: &EvalPoint, knocked: &EvalPoint) -> impl IntoView {
    let mut rows = Vec::new();
    for (l, (a, b)) in intact.heads.iter().zip(&knocked.heads).enumerate() {
        for (h, (a, b)) in a.iter().zip(b).enumerate() {
            let ind = a.induction.zip(b.induction).map(|(x, y)| y - x);
            rows.push(view! {
                <tr>
                    <th scope="row">{head_name(l, h)}</th>
                    <td class="num">{score_cell(Some(a.previous_token))}</td>
                    <td class="num" data-value=b.previous_token.to_string()>{score_cell(Some(b.previous_token))}</td>
                    <td class="num">{signed_cell(b.previous_token - a.previous_token)}</td>
                    <td class="num">{score_cell(a.induction)}</td>
                    <td class="num" data-value=b.induction.map(|x| x.to_string())>{score_cell(b.induction)}</td>
                    <td class="num">{ind.map_or_else(|| "–".to_string(), signed_cell)}</td>
                </tr>
            });
        }
    }
    view! {
        <DataTable
            test_id="knockout-scores"
            class="detectors"
            caption="Detector scores, intact and with the heads knocked out (each difference is of the unrounded scores)"
            columns=[
                "head",
                "previous token: intact",
                "knocked out",
                "difference",
                "induction: intact",
                "knocked out",
                "difference",
            ]
        >
            <tbody>{rows}</tbody>
        </DataTable>
    }
}

/// The heads a result knocked out, as (layer, head) from 0.
fn knocked_heads(r: &KnockoutResult) -> Vec<(usize, usize)> {
    r.knocked
        .ablation
        .heads()
        .iter()
        .map(|k| (k.layer, k.head))
        .collect()
}

/// Which heads kept their scores under the knock-out, and why.
fn unchanged_note(r: &KnockoutResult) -> String {
    let shape = (
        r.intact.heads.len(),
        r.intact.heads.first().map_or(0, Vec::len),
    );
    let kind = r
        .knocked
        .ablation
        .heads()
        .first()
        .map_or(AblationKind::Zero, |k| k.kind);
    unchanged_scores_note(
        &knocked_heads(r),
        kind,
        &unchanged_scores(&r.intact, &r.knocked.eval),
        shape,
    )
}

/// "Predict first", then the result.
#[component]
pub(super) fn KnockoutResults() -> impl IntoView {
    let training = use_training();
    let knockout = use_knockout();
    let repeat = move || training.settings.get().is_repeat();
    let chosen = move || knockout.any();
    let what = move || knocked_heads_text(&knockout.heads(), knockout.kind());
    let question = move || {
        let choices = LossChange::ALL
            .into_iter()
            .map(|change| {
                let id = format!("ko-predict-{}", change.key());
                view! {
                    <label>
                        <input
                            type="radio"
                            name="ko-predict"
                            data-testid=id
                            prop:checked=move || knockout.prediction() == Some(change)
                            on:change=move |_| knockout.predict(change)
                        />
                        {change_label(change)}
                    </label>
                }
            })
            .collect_view();
        view! {
            <fieldset class="ko-predict" data-testid="ko-predict">
                <legend>{prediction_question(repeat())}</legend>
                {choices}
                <Show when=move || knockout.prediction().is_none()>
                    <p class="hint" data-testid="ko-hidden">"The numbers show once you have answered."</p>
                </Show>
            </fieldset>
        }
    };
    let grid_ref = NodeRef::<html::Div>::new();
    let side = thumb_side_of(grid_ref);
    let attention = Signal::derive(move || knockout.result.get().map(|r| r.knocked.attention));
    let result = move || {
        knockout.result.get().map(|r: KnockoutResult| {
            view! {
                <p data-testid="ko-grade" data-correct=r.graded.correct().to_string()>
                    {prediction_grade(&r.graded, repeat())}
                </p>
                {losses_table(&r.intact, &r.knocked.eval)}
                {scores_table(&r.intact, &r.knocked.eval)}
                <p class="hint" data-testid="ko-unchanged">{unchanged_note(&r)}</p>
            }
        })
    };
    let shape = move || {
        let s = training.settings.get();
        (s.layers, s.heads)
    };
    view! {
        <Show when=chosen>
            <section class="knockout-results" aria-labelledby="ko-title" data-testid="knockout-results">
                <h3 class="sub" id="ko-title">"Knocked out: " {what}</h3>
                {question}
                {result}
                <div class="train-layers" node_ref=grid_ref hidden=move || knockout.result.get().is_none()>
                    <p class="hint" data-testid="ko-grid-hint">
                        {move || knockout.result.with(|r| {
                            r.as_ref().map(|r| knockout_grid_hint(&knocked_heads(r), r.intact.heads.len()))
                        })}
                    </p>
                    {move || {
                        let (layers, heads) = shape();
                        (0..layers)
                            .map(|layer| view! {
                                <ul class="train-thumbs" aria-label=format!("Layer {} heads, knocked out", layer + 1)>
                                    {(0..heads)
                                        .map(|head| view! {
                                            <TrainedThumbnail layer=layer head=head side=side attention=attention />
                                        })
                                        .collect_view()}
                                </ul>
                            })
                            .collect_view()
                    }}
                </div>
            </section>
        </Show>
    }
}
