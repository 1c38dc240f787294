//! The generate page's inputs: the prompt, the sampling temperature T, top-k, the seed, the
//! attention temperature τ, and the buttons that write: Next token, Generate N, Reset.

use crate::model::generate_page::link::{GenerateLink, MAX_GENERATED, TAU_RANGE, VOCAB};
use crate::model::sampling::TEMPERATURE_RANGE;
use crate::model::url_state::MAX_SEED;
use crate::state::GeneratePage;
use crate::text::{format_tau, SEED_HINT, TAU_HINT, TOP_K_HINT, T_HINT};
use leptos::prelude::*;

/// τ from the slider's position `x` (log₁₀ τ), to three significant digits, so the link stays
/// short and the value shown is the value used.
fn tau_at(x: f64) -> f64 {
    let tau = 10f64.powf(x);
    let digits = 10f64.powi(2 - tau.log10().floor() as i32);
    ((tau * digits).round() / digits).clamp(TAU_RANGE.0, TAU_RANGE.1)
}

/// A whole number typed into a number input, if it is one.
fn whole(value: &str) -> Option<u64> {
    value.trim().parse::<u64>().ok()
}

/// The prompt box: the text is read when submitted (Enter or the button), so a half-typed word
/// is never judged.
#[component]
fn PromptBox() -> impl IntoView {
    let page = GeneratePage::from_context();
    let draft = RwSignal::new(page.link.with_untracked(|l| l.prompt.clone()));
    view! {
        <form class="row prompt-form" on:submit=move |ev| {
            ev.prevent_default();
            page.set_prompt(draft.get_untracked());
        }>
            <label for="gen-prompt">"Prompt"</label>
            <input
                id="gen-prompt"
                type="text"
                maxlength="400"
                autocomplete="off"
                spellcheck="false"
                aria-describedby="gen-prompt-error"
                prop:value=move || draft.get()
                on:input:target=move |ev| draft.set(ev.target().value())
            />
            <button type="submit" data-testid="use-prompt">"Use this prompt"</button>
        </form>
        <p class="error" id="gen-prompt-error" role="alert" data-testid="prompt-error">
            {move || page.prompt.with(|p| match p {
                Some(Err(e)) => Some(e.clone()),
                _ => None,
            })}
        </p>
        <p class="note" data-testid="prompt-notice">
            {move || page.prompt.with(|p| p.as_ref().and_then(|p| p.as_ref().ok()).and_then(|p| p.notice.clone()))}
        </p>
    }
}

/// Sets one field of the link.
fn set(page: GeneratePage, f: impl FnOnce(&mut GenerateLink)) {
    page.link.update(f);
}

/// Every input of the generation, and the buttons.
#[component]
pub fn GenerateControls() -> impl IntoView {
    let page = GeneratePage::from_context();
    let batch = RwSignal::new(5usize);
    let (t_low, t_high) = TEMPERATURE_RANGE;
    let (tau_low, tau_high) = (TAU_RANGE.0.log10(), TAU_RANGE.1.log10());
    // The settings, not the link: a generated token changes only the link's count, and no
    // control shows it.
    let link = page.settings;
    let ready = Memo::new(move |_| page.run.with(|r| matches!(r, Some(Ok(_)))));
    view! {
        <PromptBox />
        <div class="generate-controls">
            <label for="gen-t">"Sampling temperature T"</label>
            <input
                id="gen-t"
                type="range"
                min=t_low
                max=t_high
                step="0.05"
                aria-describedby="gen-t-hint"
                prop:value=move || link.with(|l| l.temperature.to_string())
                on:input:target=move |ev| {
                    if let Ok(t) = ev.target().value().parse::<f64>() {
                        set(page, |l| l.temperature = t.clamp(t_low, t_high));
                    }
                }
            />
            <output for="gen-t" data-testid="gen-t-value">
                {move || link.with(|l| if l.temperature == 0.0 { "0 (greedy)".to_string() } else { format!("{:.2}", l.temperature) })}
            </output>
            <p class="hint" id="gen-t-hint">{T_HINT}</p>
            <label for="gen-k">"Top-k"</label>
            <input
                id="gen-k"
                type="number"
                min="1"
                max=VOCAB
                aria-describedby="gen-k-hint"
                prop:value=move || link.with(|l| l.top_k.to_string())
                on:change:target=move |ev| {
                    if let Some(k) = whole(&ev.target().value()) {
                        set(page, |l| l.top_k = (k as usize).clamp(1, VOCAB));
                    }
                }
            />
            <p class="hint" id="gen-k-hint">{TOP_K_HINT}</p>
            <label for="gen-seed">"Seed of the draws"</label>
            <input
                id="gen-seed"
                type="number"
                min="0"
                max=MAX_SEED
                aria-describedby="gen-seed-hint"
                prop:value=move || link.with(|l| l.seed.to_string())
                on:change:target=move |ev| {
                    if let Some(s) = whole(&ev.target().value()) {
                        set(page, |l| l.seed = s.min(MAX_SEED));
                    }
                }
            />
            <p class="hint" id="gen-seed-hint">{SEED_HINT}</p>
            <label for="gen-tau">"Attention temperature τ"</label>
            <input
                id="gen-tau"
                type="range"
                min=tau_low
                max=tau_high
                step="0.01"
                aria-describedby="gen-tau-hint"
                aria-valuetext=move || format!("τ = {}", format_tau(link.with(|l| l.tau)))
                prop:value=move || link.with(|l| l.tau.log10().to_string())
                on:input:target=move |ev| {
                    if let Ok(x) = ev.target().value().parse::<f64>() {
                        set(page, |l| l.tau = tau_at(x));
                    }
                }
            />
            <output for="gen-tau" data-testid="gen-tau-value">{move || format_tau(link.with(|l| l.tau))}</output>
            <p class="hint" id="gen-tau-hint">{TAU_HINT}</p>
            <label for="gen-n">"Tokens per press of Generate"</label>
            <input
                id="gen-n"
                type="number"
                min="1"
                max=MAX_GENERATED
                prop:value=move || batch.get().to_string()
                on:change:target=move |ev| {
                    if let Some(n) = whole(&ev.target().value()) {
                        batch.set((n as usize).clamp(1, MAX_GENERATED));
                    }
                }
            />
        </div>
        <div class="row generate-buttons">
            <button type="button" data-testid="next-token" disabled=move || !ready.get() on:click=move |_| page.generate(1)>"Next token"</button>
            <button type="button" data-testid="generate-n" disabled=move || !ready.get() on:click=move |_| page.generate(batch.get_untracked())>
                {move || format!("Generate {}", batch.get())}
            </button>
            <button type="button" data-testid="generate-reset" disabled=move || !ready.get() on:click=move |_| page.reset()>"Reset"</button>
        </div>
        <p role="status" class="note" data-testid="generate-message">{move || page.message.get()}</p>
    }
}
