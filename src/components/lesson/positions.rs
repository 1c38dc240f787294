//! Step 6: what attention knows about word order. Shuffling the tokens before the selected row
//! leaves that row's weights where they were without position codes and changes them with
//! position codes (computed in `model::positions`); the "The"/"the" tie; two presets with the same
//! words in opposite orders.

use super::follow_when_seen;
use crate::components::break_it::BrokenLessonNote;
use crate::components::data_table::DataTable;
use crate::format::fixed;
use crate::model::claims::first_repeated_word;
use crate::model::explorer::ExplorerConfig;
use crate::model::positions::{
    order_demo, shuffle_the_past, ShuffleComparison, PAST_SWAPPED, PRESETS,
};
use crate::model::tokenizer::checked_tokens;
use crate::state::{ExplorerModel, ViewSignals};
use crate::text::{
    pair_in_row, positions_help, presets_note, quote, shuffle_check, swap_exercise_head,
    OTHER_POSITIONS,
};
use crate::web::window;
use leptos::prelude::*;
use wasm_bindgen::JsCast;

/// Applies a preset sentence, and shows it in the sentence box too (the box keeps its own draft
/// and follows its `input` events).
fn apply_preset(view: ViewSignals, model: ExplorerModel, sentence: &str) {
    let Ok(tokens) = checked_tokens(sentence, view.max_tokens.get_untracked()) else {
        return;
    };
    model.apply_sentence(sentence.to_string(), tokens.len());
    let input = window()
        .document()
        .and_then(|d| d.get_element_by_id("sentence"))
        .and_then(|el| el.dyn_into::<web_sys::HtmlInputElement>().ok());
    if let Some(input) = input {
        input.set_value(sentence);
        if let Ok(event) = web_sys::Event::new("input") {
            let _ = input.dispatch_event(&event);
        }
    }
}

/// One shuffle of the selected row's past, with the tokens it was computed for.
#[derive(Clone, PartialEq)]
struct Shuffled {
    tokens: Vec<String>,
    row: usize,
    comparison: ShuffleComparison,
}

/// The shuffle, its key-by-key table and check, the tie and the presets.
#[component]
pub(super) fn PositionsStep() -> impl IntoView {
    let view = ViewSignals::from_context();
    let model = ExplorerModel::from_context();
    // How many times "Shuffle the past" was pressed: press n uses shuffle seed n (0: not yet).
    let presses = RwSignal::new(0u64);
    let shuffled = follow_when_seen("lesson:positions", move || {
        let seed = presses.get();
        if seed == 0 {
            return None;
        }
        let (tau, head, row) = (view.tau.get(), view.head.get(), view.row.get());
        model.prepared.with(|p| {
            let row = row.min(p.len() - 1);
            Some(Shuffled {
                tokens: p.config.tokens.clone(),
                row,
                comparison: shuffle_the_past(p, head, tau, row, seed),
            })
        })
    });
    let table = move || {
        shuffled.get().map(|s| {
            let Shuffled {
                tokens,
                row,
                comparison,
            } = s;
            let order_text: Vec<String> = comparison
                .order
                .iter()
                .map(|&i| quote(&tokens[i]))
                .collect();
            let mut position_after = vec![0; comparison.order.len()];
            for (p, &i) in comparison.order.iter().enumerate() {
                position_after[i] = p;
            }
            let lines = (0..=row)
                .map(|j| {
                    view! {
                        <tr>
                            <th scope="row">{format!("{} {}", j + 1, tokens[j])}</th>
                            <td class="num">{position_after[j] + 1}</td>
                            <td class="num">{fixed(comparison.before[j], 6)}</td>
                            <td class="num">{fixed(comparison.after[j], 6)}</td>
                        </tr>
                    }
                })
                .collect_view();
            view! {
                <p data-testid="shuffled-order">
                    {format!("Shuffled order: {}", order_text.join(" "))}
                </p>
                <DataTable
                    test_id="shuffle-table"
                    class="shuffle"
                    caption=format!(
                        "Weights of row {} {} on each key (numbered by its place before the shuffle), before and after it",
                        row + 1,
                        quote(&tokens[row]),
                    )
                    columns=["Key", "Moved to", "Before", "After"]
                >
                    <tbody>{lines}</tbody>
                </DataTable>
                <p class="check" data-testid="shuffle-check">
                    {shuffle_check(&comparison)}
                </p>
            }
        })
    };
    let tie = move || {
        model.tokens.with(|tokens| {
            let repeated = first_repeated_word(tokens);
            let help = positions_help(view.positions.get(), tokens, repeated);
            let row = repeated.map(|pair| {
                let i = view.row.get().min(tokens.len() - 1);
                model.main_weights.with(|w| {
                    let visible: Vec<f64> = (0..=i).map(|j| w.0[(i, j)]).collect();
                    pair_in_row(tokens, i, &visible, pair)
                })
            });
            view! {
                <p data-testid="positions-tie">{help}</p>
                {row.map(|text| view! { <p data-testid="pair-in-row">{text}</p> })}
            }
        })
    };
    // What the presets show, for the live seed, heads, τ and position switch.
    let presets = follow_when_seen("lesson:positions", move || {
        let positions = view.positions.get();
        let config = ExplorerConfig {
            tokens: Vec::new(),
            seed: view.seed.get(),
            heads: view.heads.get(),
            positions,
        };
        presets_note(&order_demo(&config, view.tau.get()), positions)
    });
    // Which head shows the swap, with position codes on (only with several heads).
    let swap_head = follow_when_seen("lesson:positions:swap", move || {
        let heads = view.heads.get();
        let config = ExplorerConfig {
            tokens: Vec::new(),
            seed: view.seed.get(),
            heads,
            positions: true,
        };
        swap_exercise_head(&order_demo(&config, view.tau.get()), heads)
    });
    view! {
        <BrokenLessonNote />
        <p>
            "Without position codes a token's vector depends only on its word, and a row's score for "
            "a key depends only on the two vectors. Then the causal mask tells a row which words came "
            "before it, but nothing tells it in which order. Shuffle the tokens before the selected "
            "row (the row's own token keeps its place, after them) and compare the row's weights key "
            "by key."
        </p>
        <div class="row">
            <input
                id="step-positions"
                type="checkbox"
                disabled=move || model.trained_in_use()
                prop:checked=move || view.positions.get()
                on:change:target=move |ev| view.positions.set(ev.target().checked())
            />
            <label for="step-positions">
                "Add sinusoidal position codes (the same switch as in the model controls)"
            </label>
        </div>
        <button
            type="button"
            data-testid="shuffle-past"
            on:click=move |_| presses.update(|n| *n += 1)
        >
            "Shuffle the past"
        </button>
        {table}
        {tie}
        <p>
            "The same three words in two orders mean opposite things. Apply “dog bites man” or “man "
            "bites dog”, pick a row and shuffle its past. Then try the swap: apply “dog bites man”, click row 3 (“man”) "
            "in the heatmap at the top of the page and note its weights; apply “bites dog man” and "
            "compare; switch position codes on and do it again. Then open “What you should find”."
        </p>
        <p data-testid="swap-head">{swap_head}</p>
        <div class="row presets">
            {PRESETS
                .into_iter()
                .chain([PAST_SWAPPED])
                .map(|sentence| {
                    view! {
                        <button type="button" on:click=move |_| apply_preset(view, model, sentence)>
                            {quote(sentence)}
                        </button>
                    }
                })
                .collect_view()}
        </div>
        <details class="what-to-find">
            <summary>"What you should find"</summary>
            <p data-testid="presets-note">{presets}</p>
        </details>
        <p>{OTHER_POSITIONS}</p>
    }
}
