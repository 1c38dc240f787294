//! Compare (A/B): setting A is the view on screen, setting B the same with one thing changed
//! (`model::url_state::CompareChange`, the link's `cmp`). Both heatmaps side by side, the difference
//! A − B as a diverging heatmap and a table, the rows that changed most, and downloads.
//!
//! On the practice page (`app::PracticeApp`). One memo holds everything B needs (its words come
//! from `text::compare_text`, the menus' kinds and B's first change from `model::compare`, both
//! tested natively), and one change and one click handler serve all controls (events bubble to
//! them).

use super::data_table::DataTable;
use super::heatmap::Heatmap;
use crate::charts::diff::{draw_diff, DiffSpec};
use crate::charts::layout::HeatmapLayout;
use crate::format::fixed;
use crate::hooks::{use_canvas, use_visibility, use_while_seen};
use crate::model::broken::Mistake;
use crate::model::compare::{
    compare_csv, difference, max_abs, mistake_change, refusal, setting_b, shown_mistake,
    typed_value, view_weights, CompareKind,
};
use crate::model::tokenizer::tokenize;
use crate::model::url_state::ViewState;
use crate::state::{ExplorerModel, NumbersHidden, Shared, ViewSignals};
use crate::text::{
    compare_kind_label, compare_text, compare_value_refused, diff_label, mistake_label,
    save_failed, CompareText, COMPARE_HIDDEN, COMPARE_HINT, COMPARE_NO_MISTAKE,
};
use crate::web::download::{download_text, download_url};
use leptos::either::Either;
use leptos::html;
use leptos::prelude::*;
use nalgebra::DMatrix;
use std::sync::Arc;
use wasm_bindgen::JsCast;

/// A select's `<option>`s; the one whose value `selected` returns is selected.
fn options(
    items: impl Iterator<Item = (&'static str, &'static str)>,
    selected: impl Fn() -> &'static str + Copy + Send + Sync + 'static,
) -> impl IntoView {
    items
        .map(|(value, label)| {
            view! { <option value=value prop:selected=move || selected() == value>{label}</option> }
        })
        .collect_view()
}

/// Everything B needs, recomputed when A or the change does.
#[derive(Clone, PartialEq)]
struct Compared {
    b_view: ViewState,
    b: Shared<DMatrix<f64>>,
    /// A − B.
    diff: Shared<DMatrix<f64>>,
    /// Cells with weight 0 above the diagonal in both settings.
    hidden: Shared<Vec<bool>>,
    text: Shared<CompareText>,
}

/// B for the view now: `Ok(None)` while compare is off, `Err` with the message when refused.
fn compare_now(view: ViewSignals, model: ExplorerModel) -> Result<Option<Compared>, String> {
    let Some(change) = view.compare.get() else {
        return Ok(None);
    };
    // Setting A as far as B depends on it (not the row or the lesson step).
    let a_view = ViewState {
        sentence: view.sentence.get(),
        tau: view.tau.get(),
        seed: view.seed.get(),
        heads: view.heads.get(),
        head: view.head.get(),
        positions: view.positions.get(),
        broken: view.broken.get(),
        max_tokens: view.max_tokens.get(),
        ..ViewState::default()
    };
    let b_view = setting_b(&change, &a_view);
    if let Some(message) = refusal(&a_view, &b_view) {
        return Err(message);
    }
    let a = model.shown_weights.get();
    let b = view_weights(&b_view);
    let diff = difference(&a, &b);
    let n = diff.nrows();
    let hidden = (0..n * n)
        .map(|k| {
            let (i, j) = (k / n, k % n);
            j > i && a[(i, j)] == 0.0 && b[(i, j)] == 0.0
        })
        .collect();
    let text = model
        .tokens
        .with(|t| compare_text(&change, (&a_view, &b_view), t, &diff));
    Ok(Some(Compared {
        b_view,
        b: Shared(Arc::new(b)),
        diff: Shared(Arc::new(diff)),
        hidden: Shared(Arc::new(hidden)),
        text: Shared(Arc::new(text)),
    }))
}

#[component]
pub fn Compare() -> impl IntoView {
    let view = ViewSignals::from_context();
    let model = ExplorerModel::from_context();
    let status = RwSignal::new(None::<String>);
    let hidden = NumbersHidden::from_context();
    // Below the first screen: B and the difference follow the view only while the panel is on
    // screen.
    let panel_ref = NodeRef::<html::Div>::new();
    let compared = use_while_seen(Some(use_visibility(panel_ref)), "compare", move || {
        compare_now(view, model)
    });
    let current = move || compared.get().ok().flatten();
    let shown = Memo::new(move |_| compared.with(|c| matches!(c, Ok(Some(_)))));

    // Every control's change event, told apart by the control's name.
    let on_change = move |ev: leptos::ev::Event| {
        let Some(el) = ev
            .target()
            .and_then(|t| t.dyn_into::<web_sys::HtmlElement>().ok())
        else {
            return;
        };
        let value = event_target_value(&ev);
        status.set(None);
        let kind = view.compare.with_untracked(|c| CompareKind::of(c.as_ref()));
        let change = match el.get_attribute("name").as_deref() {
            Some("cmp-kind") => {
                let a = ViewState {
                    tau: view.tau.get_untracked(),
                    seed: view.seed.get_untracked(),
                    broken: view.broken.get_untracked(),
                    ..ViewState::default()
                };
                CompareKind::from_key(&value).and_then(|k| k.first_change(&a))
            }
            Some("cmp-mistake") => Some(mistake_change(&value)),
            _ => {
                let parsed = kind.with_value(&value);
                if parsed.is_none() {
                    status.set(Some(compare_value_refused(&value)));
                    return;
                }
                parsed
            }
        };
        view.compare.set(change);
    };
    let kind = move || view.compare.with(|c| CompareKind::of(c.as_ref()).key());
    let value_text = move || view.compare.with(|c| typed_value(c.as_ref()));
    let mistake = move || view.compare.with(|c| shown_mistake(c.as_ref()));
    let message = move || {
        status
            .get()
            .or_else(|| compared.with(|c| c.as_ref().err().cloned()))
    };

    view! {
        <section class="panel compare" aria-labelledby="compare-title" data-testid="compare">
            <div node_ref=panel_ref>
            <h2 id="compare-title">"Compare A and B"</h2>
            <p class="hint">{COMPARE_HINT}</p>
            <div
                class="compare-controls"
                data-kind=kind
                on:change=on_change
            >
                <label>
                    "Choose what B changes "
                    <select name="cmp-kind">
                        {options(CompareKind::ALL.into_iter().map(|k| (k.key(), compare_kind_label(k))), kind)}
                    </select>
                </label>
                <label class="cmp-value">
                    "B's value "
                    <input name="cmp-value" type="text" spellcheck="false" prop:value=value_text />
                </label>
                <label class="cmp-mistake">
                    "B's mistake "
                    <select name="cmp-mistake">
                        {options(
                            std::iter::once(("", COMPARE_NO_MISTAKE))
                                .chain(Mistake::ALL.iter().map(|&m| (m.key(), mistake_label(m)))),
                            mistake,
                        )}
                    </select>
                </label>
            </div>
            <p class="error" role="alert">{message}</p>
            // Setting A is the heatmap the open question asks about: its numbers, and A − B's,
            // wait for the answer like the heatmap's own.
            {move || {
                shown.get().then(|| {
                    if NumbersHidden::now(hidden) {
                        Either::Left(view! { <p class="note" data-testid="compare-hidden">{COMPARE_HIDDEN}</p> })
                    } else {
                        Either::Right(compare_body(view, model, current))
                    }
                })
            }}
            </div>
        </section>
    }
}

fn compare_body(
    view: ViewSignals,
    model: ExplorerModel,
    current: impl Fn() -> Option<Compared> + Copy + Send + Sync + 'static,
) -> impl IntoView {
    let b_weights = Signal::derive(move || {
        current().map_or_else(|| Shared(Arc::new(DMatrix::zeros(0, 0))), |c| c.b)
    });
    let b_tokens = Signal::derive(move || {
        current()
            .map(|c| tokenize(&c.b_view.sentence))
            .unwrap_or_default()
    });
    let none = Signal::derive(|| None::<usize>);
    let canvas_ref = NodeRef::<html::Canvas>::new();
    let wrap_ref = NodeRef::<html::Div>::new();
    use_canvas("difference", canvas_ref, Some(wrap_ref), move |pass| {
        let Some(c) = current() else { return };
        model.tokens.with(|tokens| {
            let n = tokens.len().min(c.diff.nrows());
            let longest = tokens.iter().map(|t| t.chars().count()).max().unwrap_or(1);
            let l = HeatmapLayout::new(pass.width.clamp(200.0, 720.0), n, longest, 13.0, true);
            let spec = DiffSpec {
                tokens: &tokens[..n],
                diff: &c.diff,
                hidden: &|i, j| c.hidden[i * n + j],
                scale: max_abs(&c.diff),
                theme: pass.theme,
            };
            pass.paint_whole((l.width, l.height), |canvas| {
                draw_diff(canvas, &l, &spec, pass.dpr)
            });
            pass.mark_ready();
        });
    });
    let status = RwSignal::new(None::<String>);
    // Both download buttons, told apart by their data-file.
    let on_click = move |ev: leptos::ev::MouseEvent| {
        let file = ev
            .target()
            .and_then(|t| t.dyn_into::<web_sys::Element>().ok())
            .and_then(|e| e.get_attribute("data-file"));
        let Some(c) = current() else { return };
        let result = match file.as_deref() {
            Some("csv") => {
                let a = model.shown_weights.get_untracked();
                let text = model.tokens.with_untracked(|t| compare_csv(t, &a, &c.b));
                download_text("compare.csv", "text/csv", &text)
            }
            Some("png") => canvas_ref
                .get_untracked()
                .ok_or_else(|| wasm_bindgen::JsValue::from_str("no difference heatmap"))
                .and_then(|c| c.to_data_url_with_type("image/png"))
                .and_then(|url| download_url("difference.png", &url)),
            _ => return,
        };
        status.set(result.err().map(|e| save_failed("file", &format!("{e:?}"))));
    };
    view! {
        {move || current().map(|c| settings_words(&c.text))}
        <div class="compare-pair">
            <Heatmap
                weights=model.shown_weights
                tokens=model.tokens
                selected_row=none
                on_select=Callback::new(|_: usize| {})
                percent_labels=true
                title="Setting A heatmap"
                broken=Signal::derive(move || view.is_broken())
            />
            <Heatmap
                weights=b_weights
                tokens=b_tokens
                selected_row=none
                on_select=Callback::new(|_: usize| {})
                percent_labels=true
                title="Setting B heatmap"
                broken=Signal::derive(move || current().is_some_and(|c| !c.b_view.broken.is_empty()))
            />
        </div>
        <h3>"Difference A − B"</h3>
        <div class="heatmap-wrap" node_ref=wrap_ref>
            <canvas
                node_ref=canvas_ref
                class="diff-heatmap"
                role="img"
                tabindex="0"
                aria-label=move || current().map(|c| diff_label(c.diff.nrows(), max_abs(&c.diff)))
            ></canvas>
        </div>
        {move || {
            current()
                .map(|c| {
                    model.tokens
                        .with(|tokens| difference_words(&c.text, tokens, &c.diff, &c.hidden))
                })
        }}
        <div class="downloads" role="group" aria-label="Compare downloads" on:click=on_click>
            <button type="button" data-file="csv">"Download compare CSV"</button>
            <button type="button" data-file="png">"Download difference PNG"</button>
            <p class="error" role="alert">{move || status.get()}</p>
        </div>
    }
}

/// What B changes, both settings' captions and B's own link.
fn settings_words(text: &CompareText) -> impl IntoView {
    view! {
        <p data-testid="change-sentence">{text.change.clone()}</p>
        <ul class="compare-captions">
            <li>"A: " {text.captions.0.clone()}</li>
            <li>
                "B: " {text.captions.1.clone()} " "
                <a data-testid="open-b" href=format!("?{}", text.b_query)>"Open setting B on its own"</a>
            </li>
        </ul>
    }
}

/// How to read the difference, the rows that changed most, and the difference as a table (cells
/// hidden in both settings say "masked"; no table past the page's token limit).
fn difference_words(
    text: &CompareText,
    tokens: &[String],
    diff: &DMatrix<f64>,
    hidden: &[bool],
) -> impl IntoView {
    let n = tokens.len().min(diff.nrows());
    let table = (n <= crate::model::tokenizer::MAX_TOKENS).then(|| {
        let mut columns = vec!["query \\ key".to_string()];
        columns.extend_from_slice(&tokens[..n]);
        let rows = (0..n)
            .map(|i| {
                let cells = (0..n)
                    .map(|j| {
                        if hidden[i * n + j] {
                            Either::Left(view! { <td data-masked="true">"masked"</td> })
                        } else {
                            let d = diff[(i, j)];
                            Either::Right(view! { <td data-d=d.to_string()>{fixed(d, 3)}</td> })
                        }
                    })
                    .collect_view();
                view! {
                    <tr>
                        <th scope="row">{format!("{} {}", i + 1, tokens[i])}</th>
                        {cells}
                    </tr>
                }
            })
            .collect_view();
        view! {
            <details>
                <summary>"The difference as a table"</summary>
                <DataTable
                    test_id="diff-table"
                    class="diff-table"
                    caption="A − B for every query row (rows) and key (columns)"
                    columns=columns
                >
                    <tbody>{rows}</tbody>
                </DataTable>
            </details>
        }
    });
    view! {
        <p class="hint">{text.legend.clone()}</p>
        <h3>"Rows that changed most"</h3>
        <ol data-testid="rows-changed">
            {text.rows_changed.iter().map(|r| view! { <li>{r.clone()}</li> }).collect_view()}
        </ol>
        {table}
    }
}
