//! The temperature slider: log-scaled τ with marks at the unscaled (1/√d) and scaled (1) regimes.
//! Its compact form (label, τ and the range only) rides under the heatmap on narrow screens
//! ([`super::phone_dock`]); both write the one `tau` signal.

use crate::format::fixed;
use crate::model::claims::HeadShape;
use crate::model::temperature::{
    slider_value, track_percent, unscaled_tau, Regime, SLIDER_MAX_TAU, SLIDER_MIN_TAU,
};
use crate::state::{ExplorerModel, NumbersHidden, ViewSignals};
use crate::text::{
    format_tau, marks_help, regime_sentence, regime_sentence_hidden, DivisorReadout,
};
use leptos::either::Either;
use leptos::prelude::*;

#[component]
pub fn TemperatureSlider(
    /// Only the labelled range and the value of τ, with its own element id.
    #[prop(optional)]
    compact: bool,
) -> impl IntoView {
    let view = ViewSignals::from_context();
    let model = ExplorerModel::from_context();
    let hidden = NumbersHidden::from_context();
    let head_size = model.head_size();
    // Closures, not memos, for these cheap values: every distinct memo type adds code to the wasm.
    let unscaled = move || unscaled_tau(head_size.get());
    let readout = move || DivisorReadout::new(head_size.get(), view.tau.get());
    let on_input = move |ev: leptos::ev::Targeted<leptos::ev::Event, web_sys::HtmlInputElement>| {
        // The browser's own number parsing (NaN when the value is unusable).
        let v = ev.target().value_as_number();
        if v.is_finite() {
            view.tau
                .set(10f64.powf(v).clamp(SLIDER_MIN_TAU, SLIDER_MAX_TAU));
        }
    };
    // Each form has its own marks, so that neither depends on the other being built (on a narrow
    // screen the compact one arrives first, and its track must not change when the other does).
    let range = move |id: &'static str, described_by: &'static str, marks: &'static str| {
        view! {
            <input
                id=id
                type="range"
                min=fixed(slider_value(SLIDER_MIN_TAU), 2)
                max=fixed(slider_value(SLIDER_MAX_TAU), 2)
                step="0.01"
                list=marks
                prop:value=move || slider_value(view.tau.get())
                aria-valuetext=move || format!("τ = {}", format_tau(view.tau.get()))
                aria-describedby=described_by
                on:input:target=on_input
            />
        }
    };
    let datalist = move |id: &'static str| {
        view! {
            <datalist id=id>
                <option value=move || fixed(slider_value(unscaled()), 6) label="unscaled"></option>
                <option value="0" label="τ = 1"></option>
            </datalist>
        }
    };
    if compact {
        return Either::Left(view! {
            <div class="field temperature compact">
                <label for="temperature-dock">
                    "Temperature: τ = " <output data-testid="tau-dock">{move || format_tau(view.tau.get())}</output>
                </label>
                {range("temperature-dock", "temperature-regime", "temperature-marks-dock")}
                {datalist("temperature-marks-dock")}
            </div>
        });
    }
    Either::Right(view! {
        <div class="field temperature">
            <label for="temperature">"Temperature"</label>
            {range("temperature", "temperature-readout temperature-regime", "temperature-marks")}
            {datalist("temperature-marks")}
            <div class="marks" aria-label="Temperature marks">
                <button
                    type="button"
                    class="mark"
                    style=move || format!("left:{}%", fixed(track_percent(unscaled()), 3))
                    on:click=move |_| view.tau.set(unscaled())
                    title="Set τ = 1/√d: attention without the 1/√d scaling"
                >
                    "unscaled"
                </button>
                <button
                    type="button"
                    class="mark scaled"
                    style=format!("left:{}%", fixed(track_percent(1.0), 3))
                    on:click=move |_| view.tau.set(1.0)
                    title="Set τ = 1: standard scaled attention, what models use"
                >
                    "τ = 1"
                </button>
            </div>
            <p class="hint" data-testid="marks-help">
                {move || marks_help(head_size.get())}
            </p>
            <p id="temperature-readout" class="readout">
                "τ = " <output data-testid="tau">{move || format_tau(view.tau.get())}</output>
                " · scores (q·k) divided by √d·τ = √" {move || head_size.get()} " × "
                {move || {
                    let r = readout();
                    format!("{} {} ", r.tau, r.relation)
                }}
                <output data-testid="divisor">{move || readout().divisor}</output>
            </p>
            <p id="temperature-regime" class="regime" aria-live="polite">
                {move || {
                    let (tau, d) = (view.tau.get(), head_size.get());
                    crate::web::work::count("text:temperature");
                    if NumbersHidden::now(hidden) {
                        return regime_sentence_hidden(Regime::of(tau, d), tau, d);
                    }
                    let shape = model.main_weights.with(|w| HeadShape::of(w));
                    regime_sentence(Regime::of(tau, d), tau, d, &shape)
                }}
            </p>
        </div>
    })
}
