//! Weights (random or trained), seed, head count and position codes: the settings that fix Q,
//! K and V. While the trained weights are shown, the checkpoint fixes the heads and positions
//! (`state::load_trained_weights` keeps them equal to it), so those controls are disabled.

use crate::model::claims::{first_repeated_word, PairWeights};
use crate::model::rng::SeededRng;
use crate::model::trained::WeightsChoice;
use crate::model::url_state::MAX_SEED;
use crate::model::weights::{D_MODEL, HEAD_CHOICES};
use crate::state::{ExplorerModel, NumbersHidden, ViewSignals};
use crate::text::{broken_pair_note, positions_help, seed_help, seed_refused};
use leptos::prelude::*;

/// The seed "New seed" moves to: derived from the current one, so the sequence of seeds a
/// class clicks through is the same for everyone.
pub fn next_seed(seed: u64) -> u64 {
    SeededRng::stream(seed, "next-seed").next_u64() % (MAX_SEED + 1)
}

#[component]
pub fn ModelControls() -> impl IntoView {
    let view = ViewSignals::from_context();
    let model = ExplorerModel::from_context();
    let seed_error = RwSignal::new(None::<String>);
    let trained = move || model.trained_in_use();
    let hidden = NumbersHidden::from_context();
    let choice = move |c: WeightsChoice| move || view.weights.get() == c;
    view! {
        <fieldset class="field model">
            <legend>"Model"</legend>
            <div class="row">
                <label for="weights">"Weights"</label>
                <select
                    id="weights"
                    on:change:target=move |ev| {
                        if let Some(c) = WeightsChoice::parse(&ev.target().value()) {
                            view.weights.set(c);
                        }
                    }
                >
                    <option value="random" selected=choice(WeightsChoice::Random)>
                        "random, from the seed"
                    </option>
                    <option value="grammar" selected=choice(WeightsChoice::Grammar)>
                        "trained on a tiny grammar"
                    </option>
                    <option value="yours" selected=choice(WeightsChoice::Yours)>
                        "trained by you (training page)"
                    </option>
                </select>
            </div>
            <p class="hint" role="status" data-testid="weights-status">
                {move || model.weights_problem.get()}
            </p>
            <div class="row">
                <label for="seed">"Seed"</label>
                <input
                    id="seed"
                    type="number"
                    min="0"
                    max=MAX_SEED
                    step="1"
                    inputmode="numeric"
                    disabled=trained
                    prop:value=move || view.seed.get().to_string()
                    on:change:target=move |ev| {
                        match ev.target().value().trim().parse::<u64>() {
                            Ok(s) if s <= MAX_SEED => {
                                seed_error.set(None);
                                view.seed.set(s);
                            }
                            _ => {
                                // Show the seed still in use, so the box never disagrees with the view.
                                ev.target().set_value(&view.seed.get_untracked().to_string());
                                seed_error.set(Some(seed_refused(view.seed.get_untracked())));
                            }
                        }
                    }
                />
                <button
                    type="button"
                    disabled=trained
                    on:click=move |_| view.seed.update(|s| *s = next_seed(*s))
                >
                    "New seed"
                </button>
            </div>
            <p class="hint">
                {move || {
                    model.prepared.with(|p| {
                        let trained = p
                            .weights
                            .checkpoint()
                            .map(|c| (p.heads.len(), p.head_size(), c.seed));
                        seed_help(trained)
                    })
                }}
            </p>
            <p class="error" role="alert">{move || seed_error.get()}</p>
            <div class="row">
                <label for="heads">"Heads"</label>
                <select
                    id="heads"
                    disabled=trained
                    on:change:target=move |ev| {
                        if let Ok(h) = ev.target().value().parse::<usize>() {
                            if HEAD_CHOICES.contains(&h) {
                                view.set_heads(h);
                            }
                        }
                    }
                >
                    {HEAD_CHOICES
                        .iter()
                        .map(|&h| {
                            view! {
                                <option value=h.to_string() selected=move || view.heads.get() == h>
                                    {format!("{h} {} of d = {}", if h == 1 { "head" } else { "heads" }, D_MODEL / h)}
                                </option>
                            }
                        })
                        .collect_view()}
                </select>
            </div>
            <div class="row">
                <input
                    id="positions"
                    type="checkbox"
                    disabled=trained
                    prop:checked=move || view.positions.get()
                    on:change:target=move |ev| view.positions.set(ev.target().checked())
                />
                <label for="positions">"Add sinusoidal position codes"</label>
            </div>
            // On the practice page the help names the equal columns, which one question asks
            // for: it waits, like the heatmap's numbers, until the answer is checked.
            <p class="help" data-testid="positions-help" hidden=move || NumbersHidden::now(hidden)>
                {move || {
                    model.tokens.with(|tokens| {
                        let repeated = first_repeated_word(tokens);
                        let help = positions_help(view.positions.get(), tokens, repeated);
                        let mistakes = view.broken.get();
                        // While broken, the heatmap is not correct attention: say whether its
                        // weights still keep the claim.
                        match repeated {
                            Some(pair) if !mistakes.is_empty() && !view.positions.get() => {
                                let counted = model
                                    .shown_weights
                                    .with(|w| PairWeights::of(w, mistakes, pair));
                                format!("{help} {}", broken_pair_note(&counted))
                            }
                            _ => help,
                        }
                    })
                }}
            </p>
        </fieldset>
    }
}
