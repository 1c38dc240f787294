//! What rides under the heatmap on narrow screens, where the inputs and the inspector are a
//! screen or two further down: the selected row's key numbers in one line and the compact
//! temperature slider, pinned to the bottom of the viewport (style/main.css, `.phone-dock`) so a
//! learner sees the heatmap change while dragging. Wider layouts hide it: there the slider and
//! the inspector sit beside the heatmap.

use super::temperature::TemperatureSlider;
use crate::state::AppState;
use crate::text::row_glance;
use leptos::prelude::*;

#[component]
pub fn PhoneDock() -> impl IntoView {
    let state = AppState::from_context();
    let glance = move || {
        let w = state.main_weights.get();
        state.tokens.with(|t| {
            let n = t.len().min(w.nrows());
            (n > 0).then(|| row_glance(t, &w, state.row.get().min(n - 1)))
        })
    };
    view! {
        <div class="phone-dock" data-testid="phone-dock">
            <p class="glance" data-testid="row-glance">{glance}</p>
            <TemperatureSlider compact=true />
        </div>
    }
}
