//! The temperature slider: log-scaled τ with marks at the unscaled (1/√d) and scaled (1) regimes.

use crate::format::fixed;
use crate::model::url_state::{SLIDER_MAX_TAU, SLIDER_MIN_TAU};
use crate::state::AppState;
use leptos::prelude::*;

/// Slider position (log10 τ) for a temperature.
fn slider_value(tau: f64) -> f64 {
    tau.log10()
}

/// Where on the track (0–100 %) a temperature sits.
fn track_percent(tau: f64) -> f64 {
    let (lo, hi) = (SLIDER_MIN_TAU.log10(), SLIDER_MAX_TAU.log10());
    ((tau.log10() - lo) / (hi - lo) * 100.0).clamp(0.0, 100.0)
}

/// A readable τ: three significant digits.
pub fn format_tau(tau: f64) -> String {
    if tau >= 10.0 {
        fixed(tau, 1)
    } else if tau >= 1.0 {
        fixed(tau, 2)
    } else {
        fixed(tau, 3)
    }
}

/// What the current temperature means, in plain words.
pub fn regime_sentence(tau: f64, head_size: usize) -> String {
    let unscaled = 1.0 / (head_size as f64).sqrt();
    let near = |a: f64, b: f64| (a / b - 1.0).abs() < 0.04;
    if near(tau, unscaled) {
        format!("τ = 1/√{head_size}: exactly attention without the 1/√d scaling. Scores are {}× larger than standard, so rows turn peaky.", format_tau(1.0 / tau))
    } else if tau < unscaled {
        "Colder than unscaled attention: almost every row puts nearly all its weight on one token (one-hot).".to_string()
    } else if tau < 0.96 {
        "Between unscaled and standard: rows are sharper than in a freshly initialised transformer."
            .to_string()
    } else if tau <= 1.04 {
        "τ = 1: standard scaled attention, softmax(QKᵀ/√d). Rows are soft: weight is spread over several tokens.".to_string()
    } else {
        "Hotter than standard: rows flatten toward the plain average of the past, 1/(t+1) for each token.".to_string()
    }
}

#[component]
pub fn TemperatureSlider() -> impl IntoView {
    let state = AppState::from_context();
    let head_size = state.head_size();
    // Closures, not memos, for these cheap values: every distinct memo type adds code to the wasm.
    let unscaled_tau = move || 1.0 / (head_size.get() as f64).sqrt();
    let divisor = move || (head_size.get() as f64).sqrt() * state.tau.get();
    let on_input = move |ev: leptos::ev::Targeted<leptos::ev::Event, web_sys::HtmlInputElement>| {
        // The browser's own number parsing (NaN when the value is unusable).
        let v = ev.target().value_as_number();
        if v.is_finite() {
            state
                .tau
                .set(10f64.powf(v).clamp(SLIDER_MIN_TAU, SLIDER_MAX_TAU));
        }
    };
    view! {
        <div class="field temperature">
            <label for="temperature">"Temperature"</label>
            <input
                id="temperature"
                type="range"
                min=fixed(slider_value(SLIDER_MIN_TAU), 2)
                max=fixed(slider_value(SLIDER_MAX_TAU), 2)
                step="0.01"
                list="temperature-marks"
                prop:value=move || slider_value(state.tau.get())
                aria-valuetext=move || format!("τ = {}", format_tau(state.tau.get()))
                aria-describedby="temperature-readout temperature-regime"
                on:input:target=on_input
            />
            <datalist id="temperature-marks">
                <option value=move || fixed(slider_value(unscaled_tau()), 6) label="unscaled"></option>
                <option value="0" label="scaled"></option>
            </datalist>
            <div class="marks" aria-label="Temperature marks">
                <button
                    type="button"
                    class="mark"
                    style=move || format!("left:{}%", fixed(track_percent(unscaled_tau()), 3))
                    on:click=move |_| state.tau.set(unscaled_tau())
                    title="Set τ = 1/√d: attention without the scaling"
                >
                    "unscaled"
                </button>
                <button
                    type="button"
                    class="mark scaled"
                    style=format!("left:{}%", fixed(track_percent(1.0), 3))
                    on:click=move |_| state.tau.set(1.0)
                    title="Set τ = 1: standard scaled attention"
                >
                    "scaled"
                </button>
            </div>
            <p id="temperature-readout" class="readout">
                "τ = " <output data-testid="tau">{move || format_tau(state.tau.get())}</output>
                " · logits divided by √d·τ = √" {move || head_size.get()} " × " {move || format_tau(state.tau.get())}
                " = " <output data-testid="divisor">{move || fixed(divisor(), 3)}</output>
            </p>
            <p id="temperature-regime" class="regime" aria-live="polite">
                {move || regime_sentence(state.tau.get(), head_size.get())}
            </p>
        </div>
    }
}
