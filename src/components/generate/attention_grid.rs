//! The text's attention as a heatmap that is also its table: one row per token (the query),
//! one column per key, each cell coloured by its weight and printing it, the future masked.
//! Each generated token adds a row. Clicking a row's button shows what that row predicts.

use crate::charts::colors::{text_on, viridis};
use crate::components::probability_bars::probability_bars;
use crate::format::{fixed, percent};
use crate::model::next_token::candidates;
use crate::model::train::tasks::GRAMMAR_WORDS;
use crate::state::GeneratePage;
use crate::text::{following_token_text, format_tau, next_token_caption, quote, GROWING_HEATMAP};
use leptos::prelude::*;
use wasm_bindgen::JsCast;

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
                    "Row {} is {} reading tokens 1 to {}, with attention at τ = {} (the slider above). Its output (the token's input plus what attention added) times the unembedding, a matrix with one column per word, gives one score per word, a logit; their softmax at T = 1 gives every word a probability of coming next. The likeliest is {}.",
                    row + 1, quote(token), row + 1, format_tau(page.settings.with(|l| l.tau)), quote(likeliest)
                )}</p>
                {probability_bars(probs, None, next_token_caption(token, row), "next-token-table")}
                <p data-testid="following-token">{following_token_text(following)}</p>
            })
        })
    }
}

/// One row of the heatmap as the table shows it: the query token, whether the model wrote it,
/// and its weights over tokens `0..=index`.
#[derive(Clone, PartialEq)]
struct GridRow {
    index: usize,
    token: usize,
    generated: bool,
    weights: Vec<f64>,
}

impl GridRow {
    /// What the row's cells show, bit for bit: a row whose key is unchanged is not rebuilt.
    fn key(&self) -> (usize, usize, bool, Vec<u64>) {
        let bits = self.weights.iter().map(|w| w.to_bits()).collect();
        (self.index, self.token, self.generated, bits)
    }
}

/// The chosen head's rows of the text, one per token.
fn grid_rows(page: GeneratePage) -> Vec<GridRow> {
    let (layer, head) = page.head.get();
    page.run.with(|r| {
        let Some(Ok(run)) = r else { return Vec::new() };
        run.rows
            .iter()
            .enumerate()
            .map(|(index, row)| GridRow {
                index,
                token: run.sequence[index],
                generated: index >= run.prompt_len,
                weights: row
                    .attention
                    .get(layer)
                    .and_then(|l| l.get(head))
                    .cloned()
                    .unwrap_or_default(),
            })
            .collect()
    })
}

/// One row: its button and a coloured cell per key it reads. The masked future has no cells:
/// the table's own hatching shows through there. Nothing in a row follows the text's length or
/// the selection: a row is born marked if it is the selected one, and an effect moves the mark
/// ([`mark_selected`]), so a new token leaves the rows before it as they are.
fn grid_row(row: &GridRow, selected: Memo<usize>, page: GeneratePage) -> impl IntoView {
    let i = row.index;
    let is_selected = selected.get_untracked() == i;
    let cells = row
        .weights
        .iter()
        .map(|&w| {
            let style = format!(
                "background:{};color:{}",
                viridis(w).css(),
                text_on(viridis(w)).css()
            );
            view! { <td style=style title=fixed(w, 4)>{percent(w)}</td> }
        })
        .collect_view();
    let label = format!("{} {}", i + 1, GRAMMAR_WORDS[row.token]);
    view! {
        <tr class:generated=row.generated class:selected=is_selected>
            <th scope="row">
                <button type="button" aria-pressed=is_selected.to_string() on:click=move |_| page.selected.set(Some(i))>{label}</button>
            </th>
            {cells}
        </tr>
    }
}

/// Marks row `selected` of `body` as the one shown (its class and its button's `aria-pressed`),
/// and unmarks every other. It may run before or after a new row is built: a new row is born
/// with its own mark.
fn mark_selected(body: &web_sys::Element, selected: usize) {
    let set = |row: &web_sys::Element, on: bool| {
        let _ = row.class_list().toggle_with_force("selected", on);
        if let Ok(Some(button)) = row.query_selector("button") {
            let _ = button.set_attribute("aria-pressed", if on { "true" } else { "false" });
        }
    };
    if let Ok(marked) = body.query_selector_all(":scope > tr.selected") {
        for k in 0..marked.length() {
            if let Some(row) = marked
                .item(k)
                .and_then(|n| n.dyn_into::<web_sys::Element>().ok())
            {
                set(&row, false);
            }
        }
    }
    if let Ok(Some(row)) = body.query_selector(&format!(":scope > tr:nth-child({})", selected + 1))
    {
        set(&row, true);
    }
}

/// The heatmap table of the chosen head, the row buttons, and the selected row's prediction.
/// Rows and column headings are keyed by what they show, so a generated token builds one new
/// row and one new heading. The keyed lists sit inside a view rebuilt only when the settings or
/// the head change, which also frees what the keyed list keeps for each row it ever made.
#[component]
pub fn AttentionGrid() -> impl IntoView {
    let page = GeneratePage::from_context();
    let ready = Memo::new(move |_| page.run.with(|r| matches!(r, Some(Ok(_)))));
    let settings = page.settings;
    let rows = Memo::new(move |_| grid_rows(page));
    let len = Memo::new(move |_| rows.with(Vec::len));
    let selected = Memo::new(move |_| {
        let n = len.get().max(1);
        page.selected.get().unwrap_or(n - 1).min(n - 1)
    });
    let prompt_len = Memo::new(move |_| {
        page.run.with(|r| {
            r.as_ref()
                .and_then(|r| r.as_ref().ok())
                .map_or(0, |run| run.prompt_len)
        })
    });
    let caption = move || {
        let (layer, head) = page.head.get();
        let (n, prompt) = (len.get(), prompt_len.get());
        format!(
            "Attention of layer {}, head {}: row i is token i's weights over tokens 1 to i (the hatched space after them: the masked future, which gets no weight). {} rows: {} from the prompt, {} generated.",
            layer + 1,
            head + 1,
            n,
            prompt,
            n.saturating_sub(prompt)
        )
    };
    let body = NodeRef::<leptos::html::Tbody>::new();
    Effect::new(move |_| {
        rows.track();
        let selected = selected.get();
        if let Some(body) = body.get() {
            mark_selected(&body, selected);
        }
    });
    let table = move || {
        settings.track();
        page.head.track();
        view! {
            <div class="table-scroll" role="region" tabindex="0" aria-label="The text's attention heatmap">
                <table class="gen-heatmap" data-testid="gen-heatmap" data-rows=move || len.get()>
                    <caption>{caption}</caption>
                    <thead><tr><td></td>
                        <For
                            each=move || rows.with(|r| r.iter().map(|row| (row.index, row.token)).collect::<Vec<_>>())
                            key=|&key| key
                            children=|(j, token)| view! { <th scope="col" title=format!("key {}", j + 1)>{GRAMMAR_WORDS[token]}</th> }
                        />
                    </tr></thead>
                    <tbody node_ref=body>
                        <For
                            each=move || rows.get()
                            key=GridRow::key
                            children=move |row| grid_row(&row, selected, page)
                        />
                    </tbody>
                </table>
            </div>
        }
    };
    view! {
        <p class="hint">{GROWING_HEATMAP}</p>
        <HeadPicker />
        <Show when=move || ready.get()>{table}</Show>
        <RowPrediction />
    }
}
