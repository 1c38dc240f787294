//! What rides under the heatmap on narrow screens, where the inputs and the inspector are a
//! screen or two further down: the selected row's key numbers in one line and the compact
//! temperature slider, pinned to the bottom of the viewport (style/heatmap-pages.css, `.phone-dock`) so a
//! learner sees the heatmap change while dragging. Wider layouts hide it: there the slider and
//! the inspector sit beside the heatmap.

use super::temperature::TemperatureSlider;
use crate::hooks::{use_visibility, use_while_seen};
use crate::state::{ExplorerModel, ViewSignals};
use crate::text::{broken_row_summary, row_glance};
use leptos::prelude::*;

/// The dock. Its one-line summary follows the row and τ only while the dock is on screen: wider
/// layouts hide the dock (`display: none`), and there a slider step or a row click costs it
/// nothing; on a narrow screen it is pinned in view, so it follows every update.
#[component]
pub fn PhoneDock() -> impl IntoView {
    let view = ViewSignals::from_context();
    let model = ExplorerModel::from_context();
    let dock = NodeRef::<leptos::html::Div>::new();
    let on_screen = use_visibility(dock);
    let glance = use_while_seen(Some(on_screen), "text:phone dock", move || {
        // The numbers of the heatmap above it: with "Break it" mistakes on, the broken weights,
        // whose rows need not sum to 1 (so no entropy: the sum is what the reader needs).
        let w = model.shown_weights.get();
        let broken = view.is_broken();
        model.tokens.with(|t| {
            let n = t.len().min(w.nrows());
            (n > 0).then(|| {
                let i = view.row.get().min(n - 1);
                if broken {
                    broken_row_summary(t, &w, i)
                } else {
                    row_glance(t, &w, i)
                }
            })
        })
    });
    view! {
        <div class="phone-dock" data-testid="phone-dock" node_ref=dock>
            <p class="glance" data-testid="row-glance">{glance}</p>
            <TemperatureSlider compact=true />
        </div>
    }
}
