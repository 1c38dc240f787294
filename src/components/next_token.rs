//! What the selected row is for: with trained weights, the next-token distribution its output
//! gives, as bars and a table, and how likely the word that actually follows was; with random
//! weights, why there is none. Every number is [`Prepared::next_token`](crate::model::explorer::Prepared).

use crate::components::probability_bars::probability_bars;
use crate::model::train::tasks::GRAMMAR_WORDS;
use crate::state::{ExplorerModel, ViewSignals};
use crate::text::{
    following_token_text, format_tau, next_token_caption, next_token_how, next_token_intro,
    NO_PREDICTION, PREDICTION_READS_CORRECT_ATTENTION,
};
use leptos::prelude::*;

/// The explorer's next-token readout, under the row inspector.
#[component]
pub fn NextTokenReadout() -> impl IntoView {
    let view = ViewSignals::from_context();
    let model = ExplorerModel::from_context();
    let row = Memo::new(move |_| model.selected_row());
    let readout = move || {
        let (row, tau) = (row.get(), view.tau.get());
        model.prepared.with(|p| {
            let Some(prediction) = p.next_token(row, tau) else {
                return view! { <p class="note" data-testid="no-prediction">{NO_PREDICTION}</p> }
                    .into_any();
            };
            let prediction = match prediction {
                Ok(prediction) => prediction,
                Err(problem) => {
                    return view! { <p class="error" role="alert">{problem}</p> }.into_any();
                }
            };
            let token = p.config.tokens[row].as_str();
            let following = prediction
                .following
                .map(|f| (GRAMMAR_WORDS[f.token], f.p, f.loss));
            view! {
                <p class="hint">{next_token_intro(token, row, &format_tau(tau), p.heads.len())}</p>
                {probability_bars(&prediction.probs, None, next_token_caption(token, row), "explorer-next-token-table")}
                <p data-testid="explorer-following-token">{following_token_text(following)}</p>
                <p class="hint">{next_token_how(p.heads.len())}</p>
            }
            .into_any()
        })
    };
    view! {
        <h3 id="next-token-title">"What comes next"</h3>
        <div data-testid="next-token-readout">{readout}</div>
        <p class="note" hidden=move || !view.is_broken()>{PREDICTION_READS_CORRECT_ATTENTION}</p>
    }
}
