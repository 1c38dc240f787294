//! The learner's own sentence: a labelled text box, applied with Enter or the button, shown as chips.

use crate::model::tokenizer::checked_tokens;
use crate::state::AppState;
use leptos::prelude::*;

#[component]
pub fn SentenceBox() -> impl IntoView {
    let state = AppState::from_context();
    let draft = RwSignal::new(state.sentence.get_untracked());
    let error = RwSignal::new(None::<String>);
    let apply = move || {
        let text = draft.get_untracked();
        match checked_tokens(&text, state.max_tokens.get_untracked()) {
            Ok(tokens) => {
                error.set(None);
                state.apply_sentence(text, tokens.len());
            }
            Err(e) => error.set(Some(e.message())),
        }
    };
    view! {
        <form
            class="field sentence"
            on:submit=move |ev: leptos::ev::SubmitEvent| {
                ev.prevent_default();
                apply();
            }
        >
            <label for="sentence">"Sentence"</label>
            <div class="row">
                <input
                    id="sentence"
                    type="text"
                    autocomplete="off"
                    spellcheck="false"
                    maxlength="20000"
                    prop:value=move || draft.get()
                    on:input:target=move |ev| draft.set(ev.target().value())
                    aria-describedby="sentence-help sentence-error"
                    aria-invalid=move || if error.with(Option::is_some) { "true" } else { "false" }
                />
                <button type="submit">"Apply"</button>
            </div>
            <p id="sentence-help" class="help">
                {move || format!("Up to {} tokens; punctuation becomes its own token.", state.max_tokens.get())}
            </p>
            <p id="sentence-error" class="error" role="alert">
                {move || error.get()}
            </p>
            <ol class="chips" aria-label="Tokens">
                // The selection is read here, not in a closure per chip: a per-chip effect would
                // stay subscribed to `row` after its chip is gone (leptos 0.8 never unsubscribes a
                // dropped effect), leaking 48 bytes per chip per sentence (see README, "Reliability").
                {move || {
                    let row = state.row.get();
                    state
                        .tokens
                        .get()
                        .into_iter()
                        .enumerate()
                        .map(|(i, t)| {
                            view! {
                                <li
                                    class="chip"
                                    class:selected=row == i
                                    on:click=move |_| state.row.set(i)
                                >
                                    {t}
                                </li>
                            }
                        })
                        .collect_view()
                }}
            </ol>
        </form>
    }
}
