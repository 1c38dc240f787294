//! Step 5: several heads, combined. The selected row of every head's output, their concatenation
//! and the layer's output `concat · W_o`, as strips, with the check and a note on the article.

use super::follow_when_seen;
use crate::charts::strip::{Strip, StripRows};
use crate::components::break_it::BrokenLessonNote;
use crate::components::how_we_know::HowWeKnow;
use crate::model::multihead::HeadsRow;
use crate::state::{ExplorerModel, Shared, ViewSignals};
use crate::text::{
    concat_strip_name, heads_article_note, heads_check, heads_intro, heads_row_heading,
    heads_shapes, heads_split, heads_strip_label, heads_strip_name, heads_sum_check,
    layer_output_strip_name, quote,
};
use leptos::html;
use leptos::prelude::*;
use nalgebra::DMatrix;

/// The selected row of the layer, and the model it was computed from (its tokens and sizes).
#[derive(Clone, PartialEq)]
struct HeadsData {
    row: HeadsRow,
    prepared: Shared<crate::model::explorer::Prepared>,
}

/// The split, the strips of the selected row, the checks and the note on the article's code.
#[component]
pub(super) fn HeadsStep() -> impl IntoView {
    let view = ViewSignals::from_context();
    let model = ExplorerModel::from_context();
    let data = follow_when_seen("lesson:heads", move || {
        let prepared = model.prepared.get();
        let t = view.row.get().min(prepared.len().saturating_sub(1));
        model.head_weights.with(|weights| {
            let refs: Vec<&DMatrix<f64>> = weights.iter().map(|w| &*w.0).collect();
            HeadsData {
                row: HeadsRow::new(&prepared, &refs, t),
                prepared: prepared.clone(),
            }
        })
    });
    let strips_ref = NodeRef::<html::Div>::new();
    let strips_drawn: StoredValue<StripRows, LocalStorage> =
        StoredValue::new_local(StripRows::default());
    Effect::new(move |_| {
        let Some(container) = strips_ref.get() else {
            return;
        };
        data.with(|d| {
            let t = d.row.t;
            let mut strips: Vec<Strip> = d
                .row
                .heads
                .iter()
                .enumerate()
                .map(|(h, values)| Strip {
                    label: heads_strip_label(h),
                    name: heads_strip_name(h, t),
                    values: Some(values.clone()),
                    hidden: false,
                })
                .collect();
            strips.push(Strip {
                label: "concat".to_string(),
                name: concat_strip_name(t),
                values: Some(d.row.concat.clone()),
                hidden: false,
            });
            strips.push(Strip {
                label: "output".to_string(),
                name: layer_output_strip_name(t),
                values: Some(d.row.output.clone()),
                hidden: false,
            });
            strips_drawn.update_value(|rows| {
                if let Err(e) = rows.draw(&container, &strips) {
                    leptos::logging::error!("strip drawing failed: {e:?}");
                }
            });
        });
    });
    view! {
        <BrokenLessonNote />
        <div class="heads-step" data-testid="heads-step">
            <p>{move || model.prepared.with(|p| heads_intro(p.weights.checkpoint().is_some()))}</p>
            {move || data.with(|d| {
                let p = &*d.prepared.0;
                let (heads, head_size) = (p.heads.len(), p.head_size());
                let t = d.row.t;
                view! {
                    <p data-testid="heads-split">{heads_split(heads, head_size, p.d_model)}</p>
                    <p>{heads_shapes(p.len(), heads, head_size, p.d_model, p.weights.checkpoint().is_some())}</p>
                    <p data-testid="heads-row-heading">
                        {heads_row_heading(&p.config.tokens[t], t, heads, head_size, p.d_model)}
                    </p>
                }
            })}
            <div
                class="qkv heads-strips"
                role="group"
                data-testid="heads-strips"
                aria-label=move || data.with(|d| {
                    let t = d.row.t;
                    format!(
                        "Row {} ({}) through the layer: each head's output, the concatenated row and the output row, as coloured strips (orange positive, blue negative)",
                        t + 1,
                        quote(&d.prepared.0.config.tokens[t])
                    )
                })
                node_ref=strips_ref
            ></div>
            <HowWeKnow>
                <p class="check" data-testid="heads-check">{move || data.with(|d| heads_check(&d.row))}</p>
                <p class="check" data-testid="heads-sum-check">
                    {move || data.with(|d| heads_sum_check(&d.row))}
                </p>
                <p class="note" data-testid="heads-article-note">{heads_article_note()}</p>
            </HowWeKnow>
        </div>
    }
}
