//! The learner's own sentence: a labelled text box, applied with Enter or the button, shown as chips.

use crate::model::tokenizer::{checked_tokens, MAX_SENTENCE_CHARS};
use crate::state::{ExplorerModel, ViewSignals};
use leptos::prelude::*;

/// The text box's `maxlength`, far above the tokenizer's limit on purpose: a sentence that is too
/// long reaches `checked_tokens` whole, so the learner reads how long it was and what the limit
/// is instead of having it silently cut off by the browser (the e2e reliability test pastes
/// 10,000 characters and expects that count in the message). The cap only stops a runaway paste.
const SENTENCE_BOX_MAX_CHARS: usize = 20 * MAX_SENTENCE_CHARS;

/// Above this many tokens the chips scroll in a box of their own (`.chips.long`); up to it they
/// take at most a few lines, so the box never needs to scroll.
const LONG_SENTENCE_TOKENS: usize = 24;

#[component]
pub fn SentenceBox() -> impl IntoView {
    let view = ViewSignals::from_context();
    let model = ExplorerModel::from_context();
    let draft = RwSignal::new(view.sentence.get_untracked());
    let chips = NodeRef::<leptos::html::Ol>::new();
    // Marks the selected row's chip, after the chips are (re)built for new tokens.
    Effect::new(move |_| {
        model.tokens.track();
        let row = view.row.get();
        let Some(list) = chips.get() else { return };
        if let Ok(Some(old)) = list.query_selector(":scope > .chip.selected") {
            let _ = old.set_attribute("class", "chip");
        }
        if let Ok(Some(chip)) = list.query_selector(&format!(":scope > :nth-child({})", row + 1)) {
            let _ = chip.set_attribute("class", "chip selected");
        }
    });
    let error = RwSignal::new(None::<String>);
    let apply = move || {
        let text = draft.get_untracked();
        match checked_tokens(&text, view.max_tokens.get_untracked()) {
            Ok(tokens) => {
                error.set(None);
                model.apply_sentence(text, tokens.len());
            }
            Err(e) => error.set(Some(e.message())),
        }
    };
    let long_sentence = move || model.tokens.with(|t| t.len() > LONG_SENTENCE_TOKENS);
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
                    maxlength=SENTENCE_BOX_MAX_CHARS
                    prop:value=move || draft.get()
                    on:input:target=move |ev| draft.set(ev.target().value())
                    aria-describedby="sentence-help sentence-error"
                    aria-invalid=move || if error.with(Option::is_some) { "true" } else { "false" }
                />
                <button type="submit">"Apply"</button>
            </div>
            <p id="sentence-help" class="help">
                {move || crate::text::sentence_help(view.max_tokens.get())}
            </p>
            <p id="sentence-error" class="error" role="alert">
                {move || error.get()}
            </p>
            // A long sentence's chips scroll in a box of about six lines, so the temperature
            // slider stays near the top, in sight of the heatmap (it is a tab stop then, so the
            // keyboard can scroll it).
            <ol
                node_ref=chips
                class="chips"
                class:long=long_sentence
                tabindex=move || long_sentence().then_some("0")
                aria-label="Tokens"
            >
                // Built from the tokens alone: the selection is marked by the effect above, so a
                // new row changes two chips' class instead of rebuilding every chip, its
                // attributes and its listener (at 256 tokens most of a row click's work). No
                // closure per chip either: a per-chip effect would stay subscribed to `row` after
                // its chip is gone (leptos 0.8 never unsubscribes a dropped effect), leaking 48
                // bytes per chip per sentence (see docs/reliability.md, "Memory").
                {move || {
                    model.tokens
                        .get()
                        .into_iter()
                        .enumerate()
                        .map(|(i, t)| {
                            view! {
                                <li class="chip" on:click=move |_| view.row.set(i)>
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
