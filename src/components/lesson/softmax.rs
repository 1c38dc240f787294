//! Step 2: the average of step 1 as a softmax over a masked score matrix (the notebook's
//! "version 3"), then the live scores, which reach step 1's matrix as τ grows.

use super::follow_when_seen;
use crate::components::break_it::BrokenLessonNote;
use crate::components::how_we_know::HowWeKnow;
use crate::model::attention::averaging_matrix;
use crate::model::masked_average::{
    bit_identical, largest_gap, mask_fill_demo, zero_score_softmax,
};
use crate::model::temperature::{logit_scale, SLIDER_MAX_TAU};
use crate::state::{ExplorerModel, ViewSignals};
use crate::text::{live_gap, mask_fill_note, zero_scores_check};
use leptos::prelude::*;

/// The zero-score softmax and its check, then the live distance from the average.
#[component]
pub(super) fn SoftmaxStep() -> impl IntoView {
    let view = ViewSignals::from_context();
    let model = ExplorerModel::from_context();
    let zero_check = move || {
        let t = model.tokens.with(Vec::len);
        let (soft, wei) = (zero_score_softmax(t), averaging_matrix(t));
        zero_scores_check(largest_gap(&soft, &wei), bit_identical(&soft, &wei))
    };
    let gap = follow_when_seen("lesson:softmax", move || {
        let wei = averaging_matrix(model.tokens.with(Vec::len));
        let gap = model.main_weights.with(|w| largest_gap(&w.0, &wei));
        live_gap(view.tau.get(), view.head.get(), gap)
    });
    // −∞ against −1e9 for the selected row of the selected head (correct attention).
    let mask_fill = follow_when_seen("lesson:softmax", move || {
        let (tau, head, row) = (view.tau.get(), view.head.get(), view.row.get());
        model.prepared.with(|p| {
            let h = &p.heads[head.min(p.heads.len() - 1)];
            let row = row.min(p.len().saturating_sub(1));
            let demo = mask_fill_demo(&h.scores, row, logit_scale(h.head_size(), tau));
            mask_fill_note(&demo, &p.config.tokens[row], row)
        })
    });
    view! {
        <p>
            "Start from a T × T matrix of scores, one per (query row, key column), and make them all "
            "0: no key is more interesting than another. Set the future (above the diagonal) to −∞, "
            "then take a softmax along each row, w = e^score / Σ e^score. Each visible key gets "
            "e⁰ = 1 and each future key e^−∞ = 0, so row t (counted from 1) gives 1/t to each of "
            "its t keys: step 1's matrix wei, through the same softmax that attention uses."
        </p>
        <HowWeKnow>
            <p class="check" data-testid="zero-scores-check">
                {zero_check}
            </p>
        </HowWeKnow>
        <p>
            "Attention keeps this recipe and puts real scores where the zeros were (step 3 shows "
            "where they come from); the main heatmap shows the result, A(τ), for the selected "
            "head. The scores are divided by √d · τ before the softmax (d is the head size, the length "
            "of each query and key; step 4 shows why it is √d), so a large τ "
            "squeezes them toward 0, and as τ → ∞ every row tends to step 1's averaging matrix wei. The "
            "readout below measures how far A(τ) is from wei right now; the button moves τ to the "
            "slider's top."
        </p>
        <BrokenLessonNote />
        <p class="readout" data-testid="softmax-gap" aria-live="polite">
            {gap}
        </p>
        <button
            type="button"
            data-testid="set-tau-max"
            on:click=move |_| view.tau.set(SLIDER_MAX_TAU)
        >
            {format!("Set τ = {SLIDER_MAX_TAU}")}
        </button>
        <details class="going-further">
            <summary>"Going further: why −∞ and not −1e9?"</summary>
            <p data-testid="mask-fill">{mask_fill}</p>
        </details>
    }
}
