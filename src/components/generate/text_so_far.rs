//! The text so far (the prompt, then what the model wrote), how the newest token was drawn, and
//! every generated step as a table.

use crate::components::data_table::DataTable;
use crate::components::probability_bars::probability_bars;
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
        <DataTable test_id="shares-table" class="weights" caption="The words that can be drawn, in vocabulary order (the order of the model's 29 words), each with its share of 0 to 1" columns=["Word number", "Word", "p", "Share of 0–1"]>
                <tbody>{rows}</tbody>
        </DataTable>
    }
}

/// One line of the steps table: what it shows, bit for bit, is its key.
#[derive(Clone, PartialEq)]
struct StepLine {
    position: usize,
    token: usize,
    p: f64,
    draw: Option<f64>,
    loss: f64,
}

impl StepLine {
    fn key(&self) -> (usize, usize, u64, Option<u64>, u64) {
        let draw = self.draw.map(f64::to_bits);
        (
            self.position,
            self.token,
            self.p.to_bits(),
            draw,
            self.loss.to_bits(),
        )
    }
}

/// How the newest token was drawn: the sentence, and the distribution as bars and a table.
fn newest_step(page: GeneratePage) -> impl IntoView {
    move || {
        page.run.with(|r| {
            let step = r.as_ref()?.as_ref().ok()?.steps.last()?;
            let word = GRAMMAR_WORDS[step.token];
            let caption = if step.draw.is_some() {
                format!("The distribution {} was drawn from (T and top-k applied)", quote(word))
            } else {
                format!("Greedy: all the probability on the likeliest token, {}", quote(word))
            };
            Some(view! {
                <h3>"How the newest token was chosen"</h3>
                <p data-testid="draw">{draw_text(step.draw, word, share_of(&step.probs, step.token))}</p>
                {probability_bars(&step.probs, Some(step.token), caption, "draw-table")}
            })
        })
    }
}

/// The running total behind the newest draw, in a disclosure (there only when there was a
/// draw) whose table is built only while it is open.
fn newest_running_total(page: GeneratePage) -> impl IntoView {
    let drawn = Memo::new(move |_| {
        page.run.with(|r| {
            let step = r.as_ref()?.as_ref().ok()?.steps.last()?;
            step.draw.map(|_| step.probs.clone())
        })
    });
    let open = RwSignal::new(false);
    view! {
        <details hidden=move || drawn.with(Option::is_none) on:toggle:target=move |ev| open.set(ev.target().open())>
            <summary>"The running total, token by token"</summary>
            {move || open.get().then(|| drawn.with(|probs| probs.as_deref().map(running_total)))}
        </details>
    }
}

/// The prompt and the generated words, the newest step's draw, and the steps table. Each part
/// reads only what it shows, and the table's lines are keyed, so a new token adds one line.
#[component]
pub fn TextSoFar() -> impl IntoView {
    let page = GeneratePage::from_context();
    let status = Memo::new(move |_| {
        page.run.with(|r| match r {
            None => None,
            Some(Err(e)) => Some(Err(e.clone())),
            Some(Ok(_)) => Some(Ok(())),
        })
    });
    let texts = Memo::new(move |_| {
        page.run.with(|r| {
            let Some(Ok(run)) = r else {
                return Default::default();
            };
            let words = run.words();
            let count = run.steps.len();
            let summary = if count == 0 {
                "Nothing generated yet: press Next token.".to_string()
            } else {
                format!(
                    "{count} generated (highlighted), {} tokens in all.",
                    words.len()
                )
            };
            (
                words[..run.prompt_len].join(" "),
                words[run.prompt_len..].join(" "),
                summary,
            )
        })
    });
    let lines = Memo::new(move |_| {
        page.run.with(|r| {
            let Some(Ok(run)) = r else { return Vec::new() };
            run.steps
                .iter()
                .enumerate()
                .map(|(i, s)| StepLine {
                    position: run.prompt_len + i + 1,
                    token: s.token,
                    p: s.probs[s.token],
                    draw: s.draw,
                    loss: s.loss,
                })
                .collect::<Vec<_>>()
        })
    });
    let settings = page.settings;
    let steps_table = move || {
        settings.track();
        view! {
            <div hidden=move || lines.with(Vec::is_empty)>
                <DataTable test_id="steps-table" class="weights" caption="Every generated token: its probability after T and top-k, the draw u, and its loss −ln p under the model's own distribution (T = 1, every word kept, at the τ above)" columns=["Token", "Word", "p (after T and top-k)", "u", "Loss at T = 1 (nats)"]>
                    <tbody>
                        <For each=move || lines.get() key=StepLine::key children=|s| {
                            let u = s.draw.map_or_else(|| "none (greedy)".to_string(), |u| fixed(u, 4));
                            view! {
                                <tr>
                                    <td class="num">{s.position}</td>
                                    <th scope="row">{GRAMMAR_WORDS[s.token]}</th>
                                    <td class="num">{percent(s.p)}</td>
                                    <td class="num">{u}</td>
                                    <td class="num">{fixed(s.loss, 3)}</td>
                                </tr>
                            }
                        } />
                    </tbody>
                </DataTable>
            </div>
        }
    };
    move || {
        match status.get() {
        None => view! { <p class="note" data-testid="generate-loading">"Loading the trained weights…"</p> }.into_any(),
        Some(Err(e)) => view! { <p class="error" role="alert">{e}</p> }.into_any(),
        Some(Ok(())) => view! {
            <p class="generated-text" data-testid="generated-text">
                <span>{move || texts.with(|t| t.0.clone())}</span>" "<mark>{move || texts.with(|t| t.1.clone())}</mark>
            </p>
            <p class="note" data-testid="generated-count">{move || texts.with(|t| t.2.clone())}</p>
            {newest_step(page)}
            {newest_running_total(page)}
            {steps_table}
        }
        .into_any(),
    }
    }
}
