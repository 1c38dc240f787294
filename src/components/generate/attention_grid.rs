//! The text's attention as a heatmap that is also its table: one row per token (the query),
//! one column per key, each cell coloured by its weight and printing it, the future masked.
//! Each generated token adds a row. Clicking a row's button shows what that row predicts.

use super::probabilities::probability_bars;
use crate::charts::colors::{text_on, viridis};
use crate::format::{fixed, percent};
use crate::model::next_token::candidates;
use crate::model::train::tasks::GRAMMAR_WORDS;
use crate::state::GeneratePage;
use crate::text::{following_token_text, next_token_caption, quote, GROWING_HEATMAP};
use leptos::prelude::*;

/// The layer and head picker (only for a model with more than one).
#[component]
fn HeadPicker() -> impl IntoView {
    let page = GeneratePage::from_context();
    move || {
        let cfg = *page.model()?.model.config();
        let options = (0..cfg.layers)
            .flat_map(|l| (0..cfg.heads).map(move |h| (l, h)))
            .map(|(l, h)| {
                let value = format!("{l}:{h}");
                view! { <option value=value.clone() selected=move || page.head.get() == (l, h)>{format!("Layer {}, head {}", l + 1, h + 1)}</option> }
            })
            .collect_view();
        Some(view! {
            <label for="gen-head">"Head shown "</label>
            <select id="gen-head" on:change:target=move |ev| {
                let value = ev.target().value();
                if let Some((l, h)) = value.split_once(':') {
                    if let (Ok(l), Ok(h)) = (l.parse(), h.parse()) {
                        page.head.set((l, h));
                    }
                }
            }>{options}</select>
        })
    }
}

/// What the selected row predicts, and the token that follows it in the text.
#[component]
fn RowPrediction() -> impl IntoView {
    let page = GeneratePage::from_context();
    move || {
        page.run.with(|r| {
            let run = r.as_ref()?.as_ref().ok()?;
            let last = run.sequence.len() - 1;
            let row = page.selected.get().unwrap_or(last).min(last);
            let token = GRAMMAR_WORDS[run.sequence[row]];
            let probs = &run.rows[row].probs;
            let following = run.sequence.get(row + 1).map(|&next| {
                (GRAMMAR_WORDS[next], probs[next], run.rows[row].loss_of(next))
            });
            let (top, _) = candidates(probs);
            let likeliest = GRAMMAR_WORDS[top[0].token];
            Some(view! {
                <h3 id="prediction-title">{format!("What row {} predicts", row + 1)}</h3>
                <p class="hint">{format!(
                    "Row {} is {} reading tokens 1 to {}. Its output (the token's input plus what attention added) times the unembedding, a matrix with one column per word, gives one score per word, a logit; their softmax at T = 1 gives every word a probability of coming next. The likeliest is {}.",
                    row + 1, quote(token), row + 1, quote(likeliest)
                )}</p>
                {probability_bars(probs, None, next_token_caption(token, row), "next-token-table")}
                <p data-testid="following-token">{following_token_text(following)}</p>
            })
        })
    }
}

/// The heatmap table of the chosen head, the row buttons, and the selected row's prediction.
#[component]
pub fn AttentionGrid() -> impl IntoView {
    let page = GeneratePage::from_context();
    let grid = move || {
        page.run.with(|r| {
            let run = r.as_ref()?.as_ref().ok()?;
            let (layer, head) = page.head.get();
            let n = run.sequence.len();
            let selected = page.selected.get().unwrap_or(n - 1).min(n - 1);
            let words = run.words();
            let header = words
                .iter()
                .enumerate()
                .map(|(j, w)| view! { <th scope="col" title=format!("key {}", j + 1)>{w.to_string()}</th> })
                .collect_view();
            let body = (0..n)
                .map(|i| {
                    let weights = run.rows[i].attention.get(layer).and_then(|l| l.get(head)).cloned().unwrap_or_default();
                    let cells = (0..n)
                        .map(|j| match weights.get(j) {
                            Some(&w) => {
                                let style = format!("background:{};color:{}", viridis(w).css(), text_on(viridis(w)).css());
                                view! { <td style=style title=fixed(w, 4)>{percent(w)}</td> }.into_any()
                            }
                            None => view! { <td class="m" aria-label="masked future"></td> }.into_any(),
                        })
                        .collect_view();
                    let generated = i >= run.prompt_len;
                    let label = format!("{} {}", i + 1, words[i]);
                    view! {
                        <tr class:generated=generated class:selected=i == selected>
                            <th scope="row">
                                <button type="button" aria-pressed=(i == selected).to_string() on:click=move |_| page.selected.set(Some(i))>{label}</button>
                            </th>
                            {cells}
                        </tr>
                    }
                })
                .collect_view();
            let caption = format!(
                "Attention of layer {}, head {}: row i is token i's weights over tokens 1 to i (empty cells: the masked future). {} rows: {} from the prompt, {} generated.",
                layer + 1,
                head + 1,
                n,
                run.prompt_len,
                n - run.prompt_len
            );
            Some(view! {
                <div class="table-scroll" role="region" tabindex="0" aria-label="The text's attention heatmap">
                    <table class="gen-heatmap" data-testid="gen-heatmap" data-rows=n>
                        <caption>{caption}</caption>
                        <thead><tr><td></td>{header}</tr></thead>
                        <tbody>{body}</tbody>
                    </table>
                </div>
            })
        })
    };
    view! {
        <p class="hint">{GROWING_HEATMAP}</p>
        <HeadPicker />
        {grid}
        <RowPrediction />
    }
}
