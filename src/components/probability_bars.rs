//! A next-token distribution as bars (with a text alternative) and as a table: the most likely
//! tokens, and every other token's probability summed in the last line. The explorer's readout
//! and the generate page show their distributions with it.

use crate::charts::colors::viridis;
use crate::components::data_table::DataTable;
use crate::format::percent;
use crate::model::next_token::candidates;
use crate::model::train::tasks::GRAMMAR_WORDS;
use crate::text::{next_token_bars_label, other_tokens};
use leptos::prelude::*;

/// The (token, probability) lines of `probs`: its likeliest tokens, then the rest summed.
fn lines(probs: &[f64]) -> Vec<(String, f64)> {
    let (top, rest) = candidates(probs);
    let others = probs.len() - top.len();
    let mut lines: Vec<(String, f64)> = top
        .iter()
        .map(|c| (GRAMMAR_WORDS[c.token].to_string(), c.p))
        .collect();
    lines.push((other_tokens(others), rest));
    lines
}

/// `probs` as bars and a table captioned `caption`; `chosen` (a token id) is marked in both.
pub fn probability_bars(
    probs: &[f64],
    chosen: Option<usize>,
    caption: String,
    test_id: &'static str,
) -> impl IntoView {
    let lines = lines(probs);
    let label = next_token_bars_label(&lines);
    let chosen_word = chosen.map(|t| GRAMMAR_WORDS[t]);
    let is_chosen = move |t: &str| chosen_word == Some(t);
    let bars = lines
        .iter()
        .map(|(t, p)| {
            let style = format!("width:{:.1}%;background:{}", 100.0 * p, viridis(*p).css());
            view! { <div class:chosen=is_chosen(t)><span>{t.clone()}</span><b style=style></b></div> }
        })
        .collect_view();
    let rows = lines
        .into_iter()
        .map(|(t, p)| {
            let mark = if is_chosen(&t) { " (chosen)" } else { "" };
            view! { <tr><th scope="row">{t}{mark}</th><td class="num">{percent(p)}</td></tr> }
        })
        .collect_view();
    view! {
        <div class="prob-bars" role="img" aria-label=label>{bars}</div>
        <DataTable test_id=test_id class="weights" caption=caption columns=["Next token", "Probability"]>
            <tbody>{rows}</tbody>
        </DataTable>
    }
}
