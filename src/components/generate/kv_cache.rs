//! The key–value cache, step by step: after token i, what each layer keeps (K and V, one row per
//! token so far), what token i computed for itself, the work with and without the cache, and
//! the check that the cached numbers are the full pass's, bit for bit.

use crate::charts::strip::entry_colour;
use crate::components::data_table::{number_cells, DataTable};
use crate::model::generate_page::run::{last_row_multiplications, LastRowWork};
use crate::model::train::generate::KvCache;
use crate::state::GeneratePage;
use crate::text::{
    cache_check_text, cache_contents, cache_size_text, multiplications_text, positions_text,
    KV_STRIP_LEGEND,
};
use leptos::prelude::*;

/// One strip of the picture: its row, whether it is the newest, and its style (a gradient
/// with hard stops, one colour per number). What it shows is its key.
type StripRow = (usize, bool, String);

/// `rows × cols` numbers (row-major) as strips, coloured on one scale, the largest magnitude, as
/// the explorer's strips are ([`entry_colour`]), one hard-stopped band per number.
fn strip_rows(values: &[f64], cols: usize) -> Vec<StripRow> {
    let scale = values
        .iter()
        .fold(0.0f64, |m, v| m.max(v.abs()))
        .max(f64::MIN_POSITIVE);
    let cols = cols.max(1);
    let rows = values.len() / cols;
    let width = 100.0 / cols as f64;
    values
        .chunks(cols)
        .enumerate()
        .map(|(r, row)| {
            let stops: Vec<String> = row
                .iter()
                .enumerate()
                .map(|(c, &v)| {
                    let ([red, green, blue], alpha) = entry_colour(v, scale);
                    format!(
                        "rgba({red},{green},{blue},{alpha:.3}) {:.3}% {:.3}%",
                        c as f64 * width,
                        (c + 1) as f64 * width
                    )
                })
                .collect();
            let style = format!("background:linear-gradient(to right,{})", stops.join(","));
            (r, r + 1 == rows, style)
        })
        .collect()
}

/// Strips as a picture, one element per row, keyed, so a new token adds one strip (and
/// restyles the others only when the scale changes); the numbers themselves are in the table.
fn matrix_strip(
    rows: impl Fn() -> Vec<StripRow> + Send + Sync + 'static,
    label: impl Fn() -> String + Send + Sync + 'static,
) -> impl IntoView {
    view! {
        <div class="kv-strip" role="img" aria-label=label>
            <For each=rows key=Clone::clone children=|(_, newest, style)| view! { <i class:newest=newest style=style></i> } />
        </div>
    }
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

/// What the cache holds after token `at` (1-based): each layer's keys and values, and the
/// work of token `at`'s row with the cache and without it.
#[derive(Clone, PartialEq)]
struct CacheShown {
    at: usize,
    layers: Vec<(Vec<f64>, Vec<f64>)>,
    work: LastRowWork,
}

/// The cache after token i of the text (1-based), for every layer: i is the heatmap's selected
/// row (its query reads this cache), the last token unless a row is chosen, by the slider here or
/// by a click on the heatmap. The slider stays one element (so it keeps focus while it moves),
/// and each part below it reads only what it shows.
#[component]
pub fn KvCacheSteps() -> impl IntoView {
    let page = GeneratePage::from_context();
    // Which layers' number tables are open (built only then).
    let open = RwSignal::new(Vec::<usize>::new());
    let len = Memo::new(move |_| {
        page.run.with(|r| {
            r.as_ref()
                .and_then(|r| r.as_ref().ok())
                .map_or(1, |run| run.sequence.len())
        })
    });
    let at = Memo::new(move |_| {
        page.selected
            .get()
            .map_or_else(|| len.get(), |row| row + 1)
            .clamp(1, len.get())
    });
    let shown = Memo::new(move |_| {
        let checkpoint = page.model()?;
        let model = &checkpoint.model;
        let at = at.get();
        page.run.with(|r| {
            let run = r.as_ref()?.as_ref().ok()?;
            let mut cache = KvCache::new(model);
            let _ = run.sequence[..at]
                .iter()
                .try_for_each(|&t| cache.push(t).map(|_| ()));
            let layers = (0..model.config().layers)
                .map(|layer| {
                    let (k, v) = cache.keys_and_values(layer);
                    (k.to_vec(), v.to_vec())
                })
                .collect();
            Some(CacheShown {
                at,
                layers,
                work: last_row_multiplications(model, at),
            })
        })
    });
    let ready = Memo::new(move |_| shown.with(Option::is_some));
    let settings = page.settings;
    let layer_view = move |layer: usize, d_model: usize| {
        let is_open = move || open.with(|o| o.contains(&layer));
        let strips = move |keys: bool| {
            move || {
                shown.with(|s| {
                    s.as_ref().map_or_else(Vec::new, |s| {
                        let (k, v) = &s.layers[layer];
                        strip_rows(if keys { k } else { v }, d_model)
                    })
                })
            }
        };
        let label = move |what: &'static str| {
            move || {
                let at = at.get();
                format!("Layer {} {what}: {at} rows of {d_model} numbers, orange positive, blue negative; the last row is token {at}'s", layer + 1)
            }
        };
        view! {
            <h3>{format!("Layer {}", layer + 1)}</h3>
            <p data-testid="cache-contents">{move || cache_contents(layer, at.get(), d_model)}</p>
            <p class="note">{KV_STRIP_LEGEND}</p>
            <div class="kv-pair">
                <figure><figcaption>"K (keys)"</figcaption>{matrix_strip(strips(true), label("keys"))}</figure>
                <figure><figcaption>"V (values)"</figcaption>{matrix_strip(strips(false), label("values"))}</figure>
            </div>
            <details prop:open=is_open>
                <summary on:click=move |ev| {
                    ev.prevent_default();
                    open.update(|o| if let Some(i) = o.iter().position(|&l| l == layer) { o.remove(i); } else { o.push(layer); });
                }>"The cached numbers"</summary>
                {move || is_open().then(|| shown.with(|s| s.as_ref().map(|s| {
                    let (k, v) = &s.layers[layer];
                    numbers_table(k, v, d_model, layer, s.at)
                })))}
            </details>
        }
    };
    // Rebuilt only when the settings or the model change: that also frees what the keyed strips
    // keep for each strip they ever made.
    let contents = move || {
        settings.track();
        let checkpoint = page.model()?;
        let cfg = *checkpoint.model.config();
        ready.get().then(|| view! {
            <p data-testid="kv-work">{move || shown.with(|s| s.as_ref().map(|s| multiplications_text(s.at, s.work, cfg.layers)))}</p>
            {(0..cfg.layers).map(|layer| layer_view(layer, cfg.d_model)).collect_view()}
            <p data-testid="cache-size">{move || {
                let prompt_len = page.run.with(|r| r.as_ref().and_then(|r| r.as_ref().ok()).map_or(0, |run| run.prompt_len));
                shown.with(|s| s.as_ref().map(|s| cache_size_text(cfg.layers, s.at, cfg.d_model, prompt_len)))
            }}</p>
            <p data-testid="cache-check">{move || page.run.with(|r| {
                let run = r.as_ref()?.as_ref().ok()?;
                Some(cache_check_text(run.check, run.sequence.len()))
            })}</p>
            <p data-testid="cache-positions">{positions_text(cfg.positions)}</p>
        })
    };
    view! {
        <label for="kv-step">"Show the cache after token "</label>
        <input id="kv-step" type="range" min="1" max=move || len.get() step="1"
            prop:value=move || at.get().to_string()
            on:input:target=move |ev| {
                if let Ok(token) = ev.target().value().parse::<usize>() {
                    page.selected.set(Some(token.saturating_sub(1)));
                }
            }
        />
        <output for="kv-step" data-testid="kv-step-value">{move || format!("{} of {}", at.get(), len.get())}</output>
        {contents}
    }
}
