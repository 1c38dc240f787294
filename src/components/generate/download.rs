//! The generation's download: the weights and every generated step (logits, probabilities, the
//! draw, the token), so that `e2e/check_generate_json.py` can recompute the text in `NumPy`.

use crate::model::generate_page::run::sampler_of;
use crate::model::generation_export::{generation_json, GenerationRecord};
use crate::model::train::tasks::GRAMMAR_WORDS;
use crate::state::GeneratePage;
use crate::web::download::download_text;
use leptos::prelude::*;

#[component]
pub fn GenerationDownload() -> impl IntoView {
    let page = GeneratePage::from_context();
    let status = RwSignal::new(None::<String>);
    let save = move |_| {
        let Some(checkpoint) = page.model() else {
            return;
        };
        let link = page.link.get_untracked();
        let text = page.run.with_untracked(|r| {
            let run = r.as_ref()?.as_ref().ok()?;
            Some(generation_json(&GenerationRecord {
                model: &checkpoint.model,
                vocabulary: &GRAMMAR_WORDS,
                prompt: &run.sequence[..run.prompt_len],
                sampler: sampler_of(&link),
                seed: link.seed,
                tau: link.tau,
                steps: &run.steps,
            }))
        });
        let Some(text) = text else { return };
        let result = download_text("generation.json", "application/json", &text);
        status.set(
            result
                .err()
                .map(|e| crate::text::save_failed("JSON", &format!("{e:?}"))),
        );
    };
    view! {
        <div class="row downloads">
            <button type="button" data-testid="download-generation" on:click=save>"Download this generation (JSON)"</button>
        </div>
        <p class="hint">"The file holds the model's weights and, for every generated token, the logits, the probabilities it was drawn from, the draw u and the token; the script e2e/check_generate_json.py in the app's source code recomputes them in NumPy."</p>
        <p role="status" class="error">{move || status.get()}</p>
    }
}
