//! The row inspector: how the selected token splits its attention, as bars and as a table.

use crate::charts::bars::{draw_row_bars, BarsSpec};
use crate::components::data_table::DataTable;
use crate::format::percent;
use crate::hooks::use_canvas;
use crate::model::stats::{divided_by_sum, row_stats};
use crate::state::{ExplorerModel, ViewSignals};
use crate::text::{
    bar_chart_label, broken_stats_note, effective_tokens_text, entropy_text, inspector_caption,
    quote,
};
use leptos::html;
use leptos::prelude::*;

/// One table line: a key the row sees, and its weight.
#[derive(Clone)]
struct KeyWeight {
    index: usize,
    token: String,
    weight: f64,
}

#[component]
pub fn RowInspector() -> impl IntoView {
    let view = ViewSignals::from_context();
    let model = ExplorerModel::from_context();
    // What the heatmap shows: with the "Break it" mistakes made, when any is on; then every key
    // is listed and counted, the future included.
    let weights = model.shown_weights;
    let broken = move || view.is_broken();
    // The keys the row's numbers cover: its past, or every key when broken.
    let seen = move |i: usize, n: usize| if broken() { n } else { i + 1 };
    let row = Memo::new(move |_| model.selected_row());
    let row_weights = Memo::new(move |_| {
        let (w, i) = (weights.get(), row.get());
        crate::web::work::count("inspector");
        (0..w.ncols()).map(|j| w[(i, j)]).collect::<Vec<f64>>()
    });
    // Closures rather than memos of their own types (each memo type adds wasm code); the row
    // statistics are a few sums, recomputed by each of their four readouts.
    let stats = move || {
        let i = row.get();
        row_weights.with(|w| row_stats(&w[..seen(i, w.len()).min(w.len())]))
    };
    // A broken row may not sum to 1: its entropy is of the row divided by its sum (as in Break
    // it's table), and it is spread over the keys with weight, out of every key it lists.
    let spread = move || {
        if !broken() {
            let i = row.get();
            let s = stats();
            return (s.entropy_bits, s.effective_tokens, i + 1);
        }
        row_weights.with(|w| {
            let s = row_stats(&divided_by_sum(w));
            let weighted = w.iter().filter(|&&x| x > 0.0).count();
            (s.entropy_bits, s.effective_tokens, weighted)
        })
    };
    let row_sum_note = move || {
        if broken() {
            row_weights.with(|w| broken_stats_note(w.iter().sum()))
        } else {
            None
        }
    };
    // The keys the row sees, with their weights (τ-dependent), and the masked ones (not).
    let seen_lines = move || {
        let i = row.get();
        let w = row_weights.get();
        let seen = seen(i, w.len());
        model.tokens.with(|t| {
            t.iter()
                .zip(&w)
                .take(seen)
                .enumerate()
                .map(|(j, (tok, &weight))| KeyWeight {
                    index: j,
                    token: tok.clone(),
                    weight,
                })
                .collect::<Vec<_>>()
        })
    };
    let masked_lines = move || {
        let i = row.get();
        model.tokens.with(|t| {
            let seen = seen(i, t.len());
            t.iter()
                .enumerate()
                .skip(seen)
                .map(|(j, tok)| (j, tok.clone()))
                .collect::<Vec<_>>()
        })
    };
    let token = move || {
        model
            .tokens
            .with(|t| t.get(row.get()).cloned().unwrap_or_default())
    };

    let canvas_ref = NodeRef::<html::Canvas>::new();
    let wrap_ref = NodeRef::<html::Div>::new();
    // While the axis and token labels stay the same, only the plot area repaints (the hook's
    // frame check, with the chart's size as its layout).
    use_canvas("bar chart", canvas_ref, Some(wrap_ref), move |pass| {
        let i = row.get();
        let w = row_weights.get();
        let size = (pass.width.clamp(200.0, 720.0), 180.0);
        model.tokens.with(|t| {
            let spec = BarsSpec {
                tokens: t,
                weights: &w,
                row: seen(i, t.len()) - 1,
                theme: pass.theme,
            };
            pass.paint(size, t, size, |canvas, redraw| {
                draw_row_bars(canvas, &spec, size, pass.dpr, redraw)
            });
        });
    });

    let bar_label = move || {
        let i = row.get();
        row_weights.with(|w| {
            model
                .tokens
                .with(|t| bar_chart_label(t, i, &w[..seen(i, w.len()).min(w.len())]))
        })
    };

    view! {
        <h2 id="inspector-title">"Row inspector"</h2>
        <p class="hint">
            "How " <strong class="token">{move || quote(&token())}</strong>
            " (row " {move || row.get() + 1} ") splits its attention"
            {move || if broken() {
                " over every key: this is BROKEN attention, so the future is listed too, with the broken weights."
            } else {
                " over the past. Grey keys are the future it may not see."
            }}
        </p>
        <div class="bars-wrap" node_ref=wrap_ref>
            <canvas node_ref=canvas_ref class="bars" role="img" aria-label=bar_label></canvas>
        </div>
        <dl class="stats">
            <div>
                <dt>"Max weight"</dt>
                <dd data-testid="max-weight">{move || percent(stats().max_weight)}</dd>
            </div>
            <div>
                <dt>"Entropy"</dt>
                <dd data-testid="entropy">{move || entropy_text(spread().0)}</dd>
            </div>
            <div>
                <dt>"Effective tokens"</dt>
                <dd data-testid="effective">
                    {move || {
                        let (_, effective, keys) = spread();
                        effective_tokens_text(effective, keys)
                    }}
                </dd>
            </div>
        </dl>
        <p class="hint" data-testid="stats-definitions">
            <dfn>"Entropy"</dfn> ": −Σ w·log₂ w over the row's weights w, in bits (0 when one key takes "
            "everything). " <dfn>"Effective tokens"</dfn> ": 2^entropy, how many keys the row is spread "
            "over, as if evenly, out of "
            {move || if broken() { "the keys with weight above 0." } else { "the keys it sees." }}
            {move || row_sum_note().map(|note| view! { " " <strong>{note}</strong> })}
        </p>
        <DataTable
            test_id="inspector-table"
            class="weights key-weights"
            caption=move || inspector_caption(&token(), row.get())
            columns=["#", "Key token", "Weight"]
        >
            // Plain re-rendered lists, not <For>: every line changes with τ or the row anyway,
            // and <For> leaks a reactive-owner allocation (72 bytes) in its parent for every keyed
            // child it ever creates (leptos 0.8; see docs/reliability.md, "Memory"). The rows have
            // no attributes: with `erase_components` (.cargo/config.toml) a re-rendered element
            // removes and re-adds every attribute it has, which at 256 keys was 1,500 attribute
            // writes per slider step. So the masked keys sit in a tbody of their own (its class
            // styles them), the number column is styled by position, and a slider step only sets
            // the text of the weights that changed.
            <tbody>
                {move || {
                    seen_lines()
                        .into_iter()
                        .map(|l| {
                            view! {
                                <tr>
                                    <td>{l.index + 1}</td>
                                    <th>{l.token}</th>
                                    <td>{percent(l.weight)}</td>
                                </tr>
                            }
                        })
                        .collect_view()
                }}
            </tbody>
            <tbody class="masked">
                {move || {
                    masked_lines()
                        .into_iter()
                        .map(|(j, token)| {
                            view! {
                                <tr>
                                    <td>{j + 1}</td>
                                    <th>{token}</th>
                                    <td>"masked"</td>
                                </tr>
                            }
                        })
                        .collect_view()
                }}
            </tbody>
        </DataTable>
    }
}
