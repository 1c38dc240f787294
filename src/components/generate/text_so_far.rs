//! The text so far (the prompt, then what the model wrote), how the newest token was drawn, and
//! every generated step as a table.

use super::probabilities::probability_bars;
use crate::components::data_table::DataTable;
use crate::format::{fixed, percent};
use crate::model::next_token::share_of;
use crate::model::sampling::shares;
use crate::model::train::tasks::GRAMMAR_WORDS;
use crate::state::GeneratePage;
use crate::text::{draw_text, quote};
use leptos::prelude::*;

/// Every token the draw could pick, in vocabulary order, with its share of 0 to 1: the running
/// total before and after it. u picks the token whose share holds it.
fn running_total(probs: &[f64]) -> impl IntoView {
    let rows = shares(probs)
        .map(|(id, start, end)| {
            view! {
                <tr>
                    <td class="num">{id + 1}</td>
                    <th scope="row">{GRAMMAR_WORDS[id]}</th>
                    <td class="num">{percent(probs[id])}</td>
                    <td class="num">{format!("{} – {}", fixed(start, 4), fixed(end, 4))}</td>
                </tr>
            }
        })
        .collect_view();
    view! {
        <details>
            <summary>"The running total, token by token"</summary>
            <DataTable test_id="shares-table" class="weights" caption="The words that can be drawn, in vocabulary order (the order of the model's 29 words), each with its share of 0 to 1" columns=["Word number", "Word", "p", "Share of 0–1"]>
                <tbody>{rows}</tbody>
            </DataTable>
        </details>
    }
}

/// The prompt and the generated words, the newest step's draw, and the steps table.
#[component]
pub fn TextSoFar() -> impl IntoView {
    let page = GeneratePage::from_context();
    move || {
        page.run.with(|r| {
            let run = match r {
                None => return view! { <p class="note" data-testid="generate-loading">"Loading the trained weights…"</p> }.into_any(),
                Some(Err(e)) => return view! { <p class="error" role="alert">{e.clone()}</p> }.into_any(),
                Some(Ok(run)) => run,
            };
            let words = run.words();
            let prompt = words[..run.prompt_len].join(" ");
            let written = words[run.prompt_len..].join(" ");
            let count = run.steps.len();
            let summary = if count == 0 {
                "Nothing generated yet: press Next token.".to_string()
            } else {
                format!("{count} generated (highlighted), {} tokens in all.", words.len())
            };
            let newest = run.steps.last().map(|step| {
                let word = GRAMMAR_WORDS[step.token];
                view! {
                    <h3>"How the newest token was chosen"</h3>
                    <p data-testid="draw">{draw_text(step.draw, word, share_of(&step.probs, step.token))}</p>
                    {probability_bars(
                        &step.probs,
                        Some(step.token),
                        if step.draw.is_some() {
                            format!("The distribution {} was drawn from (T and top-k applied)", quote(word))
                        } else {
                            format!("Greedy: all the probability on the likeliest token, {}", quote(word))
                        },
                        "draw-table",
                    )}
                    {step.draw.map(|_| running_total(&step.probs))}
                }
            });
            let rows = run
                .steps
                .iter()
                .enumerate()
                .map(|(i, s)| {
                    let u = s.draw.map_or_else(|| "none (greedy)".to_string(), |u| fixed(u, 4));
                    view! {
                        <tr>
                            <td class="num">{run.prompt_len + i + 1}</td>
                            <th scope="row">{GRAMMAR_WORDS[s.token]}</th>
                            <td class="num">{percent(s.probs[s.token])}</td>
                            <td class="num">{u}</td>
                            <td class="num">{fixed(s.loss, 3)}</td>
                        </tr>
                    }
                })
                .collect_view();
            view! {
                <p class="generated-text" data-testid="generated-text">
                    <span>{prompt}</span>" "<mark>{written}</mark>
                </p>
                <p class="note" data-testid="generated-count">{summary}</p>
                {newest}
                {(count > 0).then(|| view! {
                    <DataTable test_id="steps-table" class="weights" caption="Every generated token: its probability after T and top-k, the draw u, and its loss −ln p under the model's own distribution (T = 1, every word kept, at the τ above)" columns=["Token", "Word", "p (after T and top-k)", "u", "Loss (nats: −ln p)"]>
                        <tbody>{rows}</tbody>
                    </DataTable>
                })}
            }
            .into_any()
        })
    }
}
