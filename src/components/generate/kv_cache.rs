//! The key–value cache, step by step: after token i, what each layer keeps (K and V, one row per
//! token so far), what token i computed for itself, the work with and without the cache, and
//! the check that the cached numbers are the full pass's, bit for bit.

use crate::charts::colors::diverging;
use crate::components::data_table::{number_cells, DataTable};
use crate::model::generate_page::run::last_row_multiplications;
use crate::model::train::generate::KvCache;
use crate::state::GeneratePage;
use crate::text::{cache_check_text, cache_contents, multiplications_text, positions_text};
use leptos::prelude::*;

/// `rows × cols` numbers (row-major) as colour strips, one element per row (a gradient with hard
/// stops: one colour per number), the last row marked; the numbers themselves are in the table.
fn matrix_strip(values: &[f64], cols: usize, label: String) -> impl IntoView {
    let scale = values
        .iter()
        .fold(0.0f64, |m, v| m.max(v.abs()))
        .max(f64::MIN_POSITIVE);
    let cols = cols.max(1);
    let rows = values.len() / cols;
    let width = 100.0 / cols as f64;
    let strips = values
        .chunks(cols)
        .enumerate()
        .map(|(r, row)| {
            let stops: Vec<String> = row
                .iter()
                .enumerate()
                .map(|(c, v)| {
                    let colour = diverging(v / scale).css();
                    format!(
                        "{colour} {:.3}% {:.3}%",
                        c as f64 * width,
                        (c + 1) as f64 * width
                    )
                })
                .collect();
            let style = format!("background:linear-gradient(to right,{})", stops.join(","));
            view! { <i class:newest=r + 1 == rows style=style></i> }
        })
        .collect_view();
    view! { <div class="kv-strip" role="img" aria-label=label>{strips}</div> }
}

/// The cached numbers as a table, built only while its disclosure is open.
fn numbers_table(k: &[f64], v: &[f64], d_model: usize, layer: usize, at: usize) -> impl IntoView {
    let table_rows = (0..at)
        .map(|i| view! { <tr><th scope="row">{format!("K row {}", i + 1)}</th>{number_cells(&k[i * d_model..(i + 1) * d_model])}</tr> })
        .chain((0..at).map(|i| view! { <tr><th scope="row">{format!("V row {}", i + 1)}</th>{number_cells(&v[i * d_model..(i + 1) * d_model])}</tr> }))
        .collect_view();
    let columns: Vec<String> = std::iter::once("Row".to_string())
        .chain((1..=d_model).map(|c| c.to_string()))
        .collect();
    view! {
        <DataTable test_id="kv-table" class="trace" caption=format!("Layer {}: the cached keys and values after token {at}", layer + 1) columns=columns>
            <tbody>{table_rows}</tbody>
        </DataTable>
    }
}

/// The cache after token i of the text (1-based), for every layer: i is the heatmap's selected
/// row (its query reads this cache), the last token unless a row is chosen, by the slider here or
/// by a click on the heatmap. The slider stays one element (so it keeps focus while it moves);
/// what it shows is rebuilt below it.
#[component]
pub fn KvCacheSteps() -> impl IntoView {
    let page = GeneratePage::from_context();
    // Which layers' number tables are open (built only then).
    let open = RwSignal::new(Vec::<usize>::new());
    let len = move || {
        page.run.with(|r| {
            r.as_ref()
                .and_then(|r| r.as_ref().ok())
                .map_or(1, |run| run.sequence.len())
        })
    };
    let at = move || {
        page.selected
            .get()
            .map_or_else(len, |row| row + 1)
            .clamp(1, len())
    };
    let contents = move || {
        let checkpoint = page.model()?;
        let model = &checkpoint.model;
        let cfg = *model.config();
        page.run.with(|r| {
            let run = r.as_ref()?.as_ref().ok()?;
            let n = run.sequence.len();
            let at = at();
            let mut cache = KvCache::new(model);
            let _ = run.sequence[..at].iter().try_for_each(|&t| cache.push(t).map(|_| ()));
            let layers = (0..cfg.layers)
                .map(|layer| {
                    let (k, v) = cache.keys_and_values(layer);
                    let is_open = open.with(|o| o.contains(&layer));
                    let strip_label = |what: &str| format!("Layer {} {what}: {at} rows of {} numbers, purple negative, orange positive; the last row is token {at}'s", layer + 1, cfg.d_model);
                    view! {
                        <h3>{format!("Layer {}", layer + 1)}</h3>
                        <p data-testid="cache-contents">{cache_contents(layer, at, cfg.d_model)}</p>
                        <div class="kv-pair">
                            <figure><figcaption>"K (keys)"</figcaption>{matrix_strip(k, cfg.d_model, strip_label("keys"))}</figure>
                            <figure><figcaption>"V (values)"</figcaption>{matrix_strip(v, cfg.d_model, strip_label("values"))}</figure>
                        </div>
                        <details prop:open=is_open>
                            <summary on:click=move |ev| {
                                ev.prevent_default();
                                open.update(|o| if let Some(i) = o.iter().position(|&l| l == layer) { o.remove(i); } else { o.push(layer); });
                            }>"The cached numbers"</summary>
                            {is_open.then(|| numbers_table(k, v, cfg.d_model, layer, at))}
                        </details>
                    }
                })
                .collect_view();
            Some(view! {
                <p data-testid="kv-work">{multiplications_text(at, last_row_multiplications(model, at))}</p>
                {layers}
                <p data-testid="cache-check">{cache_check_text(run.check, n)}</p>
                <p data-testid="cache-positions">{positions_text(cfg.positions)}</p>
            })
        })
    };
    view! {
        <label for="kv-step">"Show the cache after token "</label>
        <input id="kv-step" type="range" min="1" max=len step="1"
            prop:value=move || at().to_string()
            on:input:target=move |ev| {
                if let Ok(token) = ev.target().value().parse::<usize>() {
                    page.selected.set(Some(token.saturating_sub(1)));
                }
            }
        />
        <output for="kv-step" data-testid="kv-step-value">{move || format!("{} of {}", at(), len())}</output>
        {contents}
    }
}
