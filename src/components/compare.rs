//! Compare (A/B): setting A is the view on screen, setting B the same with one thing changed
//! (`model::compare::Change`, the link's `cmp`). Both heatmaps side by side, the difference
//! A − B as a diverging heatmap and a table, the rows that changed most, and downloads.

use super::heatmap::Heatmap;
use crate::charts::diff::{draw_diff, DiffSpec};
use crate::charts::layout::HeatmapLayout;
use crate::format::fixed;
use crate::hooks::use_canvas;
use crate::model::broken::{Mistake, Mistakes};
use crate::model::compare::{
    compare_csv, difference, max_abs, refusal, rows_by_change, view_weights, Change,
    SWAPPED_SENTENCE,
};
use crate::model::url_state::ViewState;
use crate::state::{AppState, Shared};
use crate::text::{change_sentence, diff_label, figure_caption, mistake_label, row_change_text};
use crate::web::download::{download_text, download_url};
use crate::web::BrowserText;
use leptos::html;
use leptos::prelude::*;
use nalgebra::DMatrix;
use std::sync::Arc;

/// The kinds of change the select offers, with their labels.
const KINDS: [(&str, &str); 6] = [
    ("off", "nothing: compare off"),
    ("tau", "the temperature τ"),
    ("seed", "the seed"),
    ("pos", "positions on/off"),
    ("s", "the sentence (same length)"),
    ("broken", "Break it vs correct"),
];

fn kind_of(change: &Change) -> &'static str {
    match change {
        Change::Tau(_) => "tau",
        Change::Seed(_) => "seed",
        Change::Positions => "pos",
        Change::Sentence(_) => "s",
        Change::Broken(_) => "broken",
    }
}

/// The change a kind starts with, for view `a`.
fn first_change(kind: &str, a: &ViewState) -> Option<Change> {
    Some(match kind {
        "tau" => Change::Tau(if a.tau == 2.0 { 0.5 } else { 2.0 }),
        "seed" => Change::Seed(a.seed.wrapping_add(1) % (u64::from(u32::MAX) + 1)),
        "pos" => Change::Positions,
        "s" => Change::Sentence(SWAPPED_SENTENCE.to_string()),
        "broken" if a.broken.is_empty() => {
            Change::Broken(Mistakes::NONE.with(Mistake::MaskWithZero, true))
        }
        "broken" => Change::Broken(Mistakes::NONE),
        _ => return None,
    })
}

/// The difference table is written out up to this many tokens (the page's own limit).
const MAX_TABLE_TOKENS: usize = crate::model::tokenizer::MAX_TOKENS;

/// Setting B's numbers, or why there are none.
#[derive(Clone, PartialEq)]
struct Outcome {
    b: ViewState,
    weights: Result<Shared<DMatrix<f64>>, String>,
}

#[component]
pub fn Compare() -> impl IntoView {
    let state = AppState::from_context();
    let status = RwSignal::new(None::<String>);
    // Setting A as far as B depends on it (not the row or the lesson step).
    let a_view = Memo::new(move |_| ViewState {
        sentence: state.sentence.get(),
        tau: state.tau.get(),
        seed: state.seed.get(),
        heads: state.heads.get(),
        head: state.head.get(),
        positions: state.positions.get(),
        broken: state.broken.get(),
        max_tokens: state.max_tokens.get(),
        ..ViewState::default()
    });
    let outcome = Memo::new(move |_| {
        let change = state.compare.get()?;
        let a = a_view.get();
        let b = change.apply(&a);
        let weights = match refusal(&a, &b) {
            Some(message) => Err(message),
            None => Ok(Shared(Arc::new(view_weights::<BrowserText>(&b)))),
        };
        Some(Outcome { b, weights })
    });
    let b_weights = Memo::new(move |_| {
        outcome.with(|o| match o {
            Some(Outcome { weights: Ok(w), .. }) => Some(w.clone()),
            _ => None,
        })
    });
    let diff = Memo::new(move |_| {
        let b = b_weights.get()?;
        let a = state.shown_weights.get();
        Some(Shared(Arc::new(difference(&a, &b))))
    });

    // The body is built once when B appears, not on every new weight.
    let shown = Memo::new(move |_| b_weights.with(Option::is_some));
    let on_kind = move |ev: leptos::ev::Event| {
        status.set(None);
        state.compare.set(first_change(
            &event_target_value(&ev),
            &a_view.get_untracked(),
        ));
    };
    let value_text = move || {
        state.compare.with(|c| match c {
            Some(Change::Tau(t)) => t.to_string(),
            Some(Change::Seed(s)) => s.to_string(),
            Some(Change::Sentence(s)) => s.clone(),
            _ => String::new(),
        })
    };
    let on_value = move |ev: leptos::ev::Event| {
        let Some(kind) = state.compare.with_untracked(|c| c.as_ref().map(kind_of)) else {
            return;
        };
        let text = format!("{kind}:{}", event_target_value(&ev));
        match Change::parse(
            &text,
            <BrowserText as crate::model::host::TextHost>::parse_decimal,
        ) {
            Some(change) => {
                status.set(None);
                state.compare.set(Some(change));
            }
            None => status.set(Some(format!(
                "“{}” is not a value for setting B: {}",
                event_target_value(&ev),
                match kind {
                    "tau" => "use a temperature from 0.05 to 20.",
                    "seed" => "use a whole number from 0 to 4294967295.",
                    _ => "type a sentence.",
                }
            ))),
        }
    };
    let on_mistake = move |ev: leptos::ev::Event| {
        let set = Mistake::from_key(&event_target_value(&ev))
            .map_or(Mistakes::NONE, |m| Mistakes::NONE.with(m, true));
        state.compare.set(Some(Change::Broken(set)));
    };
    let value_editor = move || {
        let kind = state.compare.with(|c| c.as_ref().map(kind_of));
        match kind {
            Some("tau" | "seed" | "s") => Some(
                view! {
                    <label class="compare-value">
                        "B's value "
                        <input type="text" prop:value=value_text on:change=on_value spellcheck="false" />
                    </label>
                }
                .into_any(),
            ),
            Some("broken") => {
                let chosen = move || {
                    state.compare.with(|c| match c {
                        Some(Change::Broken(m)) => m.iter().next().map_or("", |m| m.key()),
                        _ => "",
                    })
                };
                Some(
                    view! {
                        <label class="compare-value">
                            "B's mistake "
                            <select on:change=on_mistake prop:value=chosen>
                                <option value="">"none: correct attention"</option>
                                {Mistake::ALL
                                    .iter()
                                    .map(|&m| view! { <option value=m.key()>{mistake_label(m)}</option> })
                                    .collect_view()}
                            </select>
                        </label>
                    }
                    .into_any(),
                )
            }
            _ => None,
        }
    };
    let refused = move || {
        outcome.with(|o| match o {
            Some(Outcome {
                weights: Err(m), ..
            }) => Some(m.clone()),
            _ => None,
        })
    };

    view! {
        <section class="panel compare" aria-labelledby="compare-title" data-testid="compare">
            <h2 id="compare-title">"Compare A and B"</h2>
            <p class="hint">
                "Setting A is the view above. Setting B is the same view with one thing changed; the difference A − B shows what that one change does to every weight."
            </p>
            <div class="compare-controls">
                <label>
                    "Setting B changes "
                    <select
                        on:change=on_kind
                        prop:value=move || state.compare.with(|c| c.as_ref().map_or("off", kind_of))
                    >
                        {KINDS.map(|(k, label)| view! { <option value=k>{label}</option> }).collect_view()}
                    </select>
                </label>
                {value_editor}
            </div>
            <p class="error" role="alert">{move || status.get().or_else(refused)}</p>
            {move || shown.get().then(|| compare_body(state, a_view, outcome, b_weights, diff))}
        </section>
    }
}

fn compare_body(
    state: AppState,
    a_view: Memo<ViewState>,
    outcome: Memo<Option<Outcome>>,
    b_weights: Memo<Option<Shared<DMatrix<f64>>>>,
    diff: Memo<Option<Shared<DMatrix<f64>>>>,
) -> impl IntoView {
    let b_view = move || {
        outcome
            .with(|o| o.as_ref().map(|o| o.b.clone()))
            .unwrap_or_default()
    };
    let caption = move |v: &ViewState| {
        figure_caption(
            &v.sentence,
            v.seed,
            (v.head, v.heads),
            v.tau,
            v.positions,
            v.broken,
        )
    };
    let b_shown = Signal::derive(move || {
        b_weights
            .get()
            .unwrap_or_else(|| Shared(Arc::new(DMatrix::zeros(0, 0))))
    });
    let none = Signal::derive(|| None::<usize>);
    let b_tokens = Signal::derive(move || {
        crate::model::tokenizer::tokenize(
            &outcome
                .with(|o| o.as_ref().map(|o| o.b.sentence.clone()))
                .unwrap_or_default(),
        )
    });
    let scale = move || diff.with(|d| d.as_ref().map_or(0.0, |d| max_abs(d)));
    // Masked in both settings: weight 0 above the diagonal in A and in B.
    let hidden = move |a: &DMatrix<f64>, b: &DMatrix<f64>, i: usize, j: usize| {
        j > i && a[(i, j)] == 0.0 && b[(i, j)] == 0.0
    };
    let canvas_ref = NodeRef::<html::Canvas>::new();
    let wrap_ref = NodeRef::<html::Div>::new();
    use_canvas("difference", canvas_ref, Some(wrap_ref), move |pass| {
        let (Some(d), Some(b)) = (diff.get(), b_weights.get()) else {
            return;
        };
        let a = state.shown_weights.get();
        state.tokens.with(|tokens| {
            let n = tokens.len().min(d.nrows());
            let longest = tokens.iter().map(|t| t.chars().count()).max().unwrap_or(1);
            let l = HeatmapLayout::new(pass.width.clamp(200.0, 720.0), n, longest, 13.0, true);
            let is_hidden = |i: usize, j: usize| hidden(&a, &b, i, j);
            let spec = DiffSpec {
                tokens: &tokens[..n],
                diff: &d,
                hidden: &is_hidden,
                scale: max_abs(&d),
                theme: pass.theme,
            };
            pass.paint_whole((l.width, l.height), |canvas| {
                draw_diff(canvas, &l, &spec, pass.dpr)
            });
            let _ = pass.canvas().set_attribute("data-ready", "true");
        });
    });
    let table = move || {
        let (Some(d), Some(b)) = (diff.get(), b_weights.get()) else {
            return None;
        };
        let a = state.shown_weights.get();
        let tokens = state.tokens.get();
        let n = tokens.len().min(d.nrows());
        if n > MAX_TABLE_TOKENS {
            return None;
        }
        let head = tokens[..n]
            .iter()
            .map(|t| view! { <th scope="col">{t.clone()}</th> })
            .collect_view();
        let rows = (0..n)
            .map(|i| {
                let cells = (0..n)
                    .map(|j| {
                        if hidden(&a, &b, i, j) {
                            view! { <td data-masked="true">"masked"</td> }.into_any()
                        } else {
                            let v = d[(i, j)];
                            view! { <td data-d=v.to_string()>{fixed(v, 3)}</td> }.into_any()
                        }
                    })
                    .collect_view();
                view! { <tr><th scope="row">{format!("{} {}", i + 1, tokens[i])}</th>{cells}</tr> }
            })
            .collect_view();
        Some(view! {
            <table class="diff-table" data-testid="diff-table">
                <caption>"A − B for every query row (rows) and key (columns)"</caption>
                <thead><tr><th scope="col">"query \\ key"</th>{head}</tr></thead>
                <tbody>{rows}</tbody>
            </table>
        })
    };
    let most_changed = move || {
        let d = diff.get()?;
        let tokens = state.tokens.get();
        Some(
            rows_by_change(&d)
                .into_iter()
                .take(3)
                .map(|r| view! { <li>{row_change_text(&tokens, &r, &d)}</li> })
                .collect_view(),
        )
    };
    let status = RwSignal::new(None::<String>);
    let csv = move |_| {
        let (Some(b), a) = (
            b_weights.get_untracked(),
            state.shown_weights.get_untracked(),
        ) else {
            return;
        };
        let text = state.tokens.with_untracked(|t| compare_csv(t, &a, &b));
        status.set(
            download_text("compare.csv", "text/csv", &text)
                .err()
                .map(|e| format!("Could not save the CSV: {e:?}")),
        );
    };
    let png = move |_| {
        let result = canvas_ref
            .get_untracked()
            .ok_or_else(|| wasm_bindgen::JsValue::from_str("no difference heatmap"))
            .and_then(|c| c.to_data_url_with_type("image/png"))
            .and_then(|url| download_url("difference.png", &url));
        status.set(
            result
                .err()
                .map(|e| format!("Could not save the image: {e:?}")),
        );
    };
    view! {
        <p data-testid="change-sentence">
            {move || state.compare.get().map(|c| change_sentence(&c, &a_view.get()))}
        </p>
        <div class="compare-pair">
            <figure data-testid="compare-a">
                <figcaption>"A: " {move || caption(&a_view.get())}</figcaption>
                <Heatmap
                    weights=state.shown_weights
                    tokens=state.tokens
                    selected_row=none
                    on_select=Callback::new(|_: usize| {})
                    percent_labels=true
                    title="Setting A heatmap"
                    broken=Signal::derive(move || !state.broken.get().is_empty())
                />
            </figure>
            <figure data-testid="compare-b">
                <figcaption>"B: " {move || caption(&b_view())}</figcaption>
                <Heatmap
                    weights=b_shown
                    tokens=b_tokens
                    selected_row=none
                    on_select=Callback::new(|_: usize| {})
                    percent_labels=true
                    title="Setting B heatmap"
                    broken=Signal::derive(move || !b_view().broken.is_empty())
                />
                <a href=move || format!("?{}", b_view().to_query()) data-testid="open-b">"Open setting B on its own"</a>
            </figure>
        </div>
        <h3>"Difference A − B"</h3>
        <div class="heatmap-wrap" node_ref=wrap_ref>
            <canvas
                node_ref=canvas_ref
                class="diff-heatmap"
                role="img"
                tabindex="0"
                aria-label=move || diff_label(state.tokens.with(Vec::len), scale())
            ></canvas>
        </div>
        <p class="hint">
            "Purple: A gives the key more weight; orange: B does; light grey: no change. Both ends of the scale are ±the largest |Δ|, "
            {move || fixed(scale(), 3)} "; grey cells are masked in both."
        </p>
        <h3>"Rows that changed most"</h3>
        <ol data-testid="rows-changed">{most_changed}</ol>
        <details>
            <summary>"The difference as a table"</summary>
            <div class="table-scroll">{table}</div>
        </details>
        <div class="downloads" role="group" aria-label="Compare downloads">
            <button type="button" on:click=csv>"Download compare CSV"</button>
            <button type="button" on:click=png>"Download difference PNG"</button>
            <p class="error" role="alert">{move || status.get()}</p>
        </div>
    }
}
