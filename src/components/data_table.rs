//! [`DataTable`]: the app's tables of numbers, each in a box that scrolls sideways on a narrow
//! screen while its caption stays in view, and down when the table is taller than 28 rem while its
//! column headings stay at the top (`.table-scroll` in style/main.css; printed, the box is unbounded).

use leptos::prelude::*;

/// A table's caption: fixed text, or a closure for a caption that follows signals. (Leptos'
/// `TextProp` would do, but it keeps its text as an `Oco`, which costs the explorer's wasm more
/// code.)
pub struct Caption(Box<dyn Fn() -> String + Send + Sync>);

impl From<&'static str> for Caption {
    fn from(text: &'static str) -> Self {
        Self(Box::new(move || text.to_string()))
    }
}

impl From<String> for Caption {
    fn from(text: String) -> Self {
        Self(Box::new(move || text.clone()))
    }
}

impl<F: Fn() -> String + Send + Sync + 'static> From<F> for Caption {
    fn from(text: F) -> Self {
        Self(Box::new(text))
    }
}

/// A table's column headings, left to right: fixed words (`["step", "loss"]`) or words made at
/// run time (a `Vec<String>`, e.g. one heading per token).
pub struct Columns(Vec<String>);

impl<const N: usize> From<[&'static str; N]> for Columns {
    fn from(words: [&'static str; N]) -> Self {
        Self::from(&words[..])
    }
}

impl From<&[&'static str]> for Columns {
    fn from(words: &[&'static str]) -> Self {
        Self(words.iter().map(|w| (*w).to_string()).collect())
    }
}

impl From<Vec<String>> for Columns {
    fn from(words: Vec<String>) -> Self {
        Self(words)
    }
}

/// A table in its scroll box: `<div class="table-scroll">`, then the `<table>` with its caption
/// and one header row of `<th scope="col">` cells; the children are the rest of the table. The box
/// is a named region that takes the keyboard focus, so a table wider than the screen can be
/// scrolled with the arrow keys (WCAG 2.1.1; axe's `scrollable-region-focusable`).
///
/// ```ignore
/// <DataTable test_id="loss-table" class="loss" caption="Loss" columns=["step", "loss"]>
///     <tbody>{rows}</tbody>
/// </DataTable>
/// ```
#[component]
pub fn DataTable(
    /// The table's `data-testid` (the tests find every table by it).
    test_id: &'static str,
    /// The table's classes: what it is (`trace`, `lab`, …), and the hooks of style/main.css.
    class: &'static str,
    /// What the table shows, in its `<caption>`: text, or a closure for a caption that changes.
    #[prop(into)]
    caption: Caption,
    /// The column headings.
    #[prop(into)]
    columns: Columns,
    /// The table's body: its `<tbody>`, and its `<tfoot>` if it has one.
    children: Children,
) -> impl IntoView {
    let headings = columns
        .0
        .into_iter()
        .map(|heading| view! { <th scope="col">{heading}</th> })
        .collect_view();
    let caption = std::sync::Arc::new(caption.0);
    let name = std::sync::Arc::clone(&caption);
    view! {
        <div class="table-scroll" role="region" tabindex="0" aria-label=move || name()>
            <table class=class data-testid=test_id>
                <caption>{move || caption()}</caption>
                <thead>
                    <tr>{headings}</tr>
                </thead>
                {children()}
            </table>
        </div>
    }
}

/// A vector's entries as a table's number cells (`<td class="num">`, 3 decimals: `vector_cells`).
pub fn number_cells(values: &[f64]) -> impl IntoView {
    crate::text::vector_cells(values)
        .into_iter()
        .map(|c| view! { <td class="num">{c}</td> })
        .collect_view()
}
