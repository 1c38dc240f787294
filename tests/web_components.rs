//! Component tests in a real browser (wasm-bindgen-test + headless Chromium): the app is mounted
//! into a fresh element, then its DOM and canvas pixels are checked after the effects have run.
//! The charts' drawing on its own (no app) is checked in `web_drawing.rs`.
#![cfg(target_arch = "wasm32")]

use attention_explorer::app::App;
use attention_explorer::charts::layout::HeatmapLayout;
use attention_explorer::components::after_first_paint::all_parts_built;
use attention_explorer::text::{cell_description, row_summary};
use nalgebra::DMatrix;
use wasm_bindgen::JsCast;
use wasm_bindgen_test::*;
use web_sys::{HtmlCanvasElement, HtmlElement, HtmlInputElement};

mod common;
use common::{all_pixels, context_2d, document};

wasm_bindgen_test_configure!(run_in_browser);

/// Waits 30 ms (a few frames).
async fn pause() {
    let promise = js_sys::Promise::new(&mut |resolve, _| {
        web_sys::window()
            .unwrap()
            .set_timeout_with_callback_and_timeout_and_arguments_0(&resolve, 30)
            .unwrap();
    });
    wasm_bindgen_futures::JsFuture::from(promise).await.unwrap();
}

/// Lets Leptos run its effects (they are scheduled as microtasks / timeouts), and the page build
/// the parts it builds after its first frame, one per frame (at most 3 s for all of them).
async fn settle() {
    for _ in 0..3 {
        pause().await;
    }
    for _ in 0..100 {
        if all_parts_built() {
            break;
        }
        pause().await;
    }
}

/// Mounts the app into a new `<div>` 900 px wide; returns the container and the mount handle.
/// The address is reset first: the app reads its view from the query, and an earlier test's app
/// may have written its own there.
fn mount() -> (HtmlElement, impl Drop) {
    mount_at("")
}

/// As [`mount`], with the address's query set to `query` (e.g. `"?step=attention"`) first.
fn mount_at(query: &str) -> (HtmlElement, impl Drop) {
    let window = web_sys::window().unwrap();
    let path = window.location().pathname().unwrap();
    window
        .history()
        .unwrap()
        .replace_state_with_url(
            &wasm_bindgen::JsValue::NULL,
            "",
            Some(&format!("{path}{query}")),
        )
        .unwrap();
    let div: HtmlElement = document()
        .create_element("div")
        .unwrap()
        .dyn_into()
        .unwrap();
    div.style().set_property("width", "900px").unwrap();
    document().body().unwrap().append_child(&div).unwrap();
    // Every test starts at the top of the page: a test that scrolled (or failed before removing
    // its root) must not put the next one's below-the-fold parts on screen.
    window.scroll_to_with_x_and_y(0.0, 0.0);
    let handle = leptos::mount::mount_to(div.clone(), App);
    (div, handle)
}

fn text_of(root: &HtmlElement, selector: &str) -> String {
    element::<web_sys::Element>(root, selector)
        .text_content()
        .unwrap()
}

/// The inspector's "Max weight" readout, as a percentage number.
fn max_weight_percent(root: &HtmlElement) -> f64 {
    let text = text_of(root, "[data-testid=max-weight]");
    text.trim_end_matches('%')
        .parse()
        .unwrap_or_else(|_| panic!("max weight {text:?}"))
}

/// Clicks the `i`-th token chip (selects row `i + 1`) and lets the app update.
async fn click_chip(root: &HtmlElement, i: u32) {
    root.query_selector_all(".chips .chip")
        .unwrap()
        .item(i)
        .unwrap()
        .dyn_into::<HtmlElement>()
        .unwrap()
        .click();
    settle().await;
}

/// Gives an input a new value as typing or dragging would (an `input` event), without settling.
fn input_value(input: &HtmlInputElement, value: &str) {
    input.set_value(value);
    input
        .dispatch_event(&web_sys::Event::new("input").unwrap())
        .unwrap();
}

/// Scrolls the step-3 trace into view (it is built and updated only near the viewport).
async fn show_trace(root: &HtmlElement) {
    element::<HtmlElement>(root, "[data-testid=trace-strips]").scroll_into_view();
    settle().await;
}

/// The first element matching `selector` under `root`, as the element type `T`.
fn element<T: JsCast>(root: &HtmlElement, selector: &str) -> T {
    root.query_selector(selector)
        .unwrap()
        .unwrap_or_else(|| panic!("{selector} missing"))
        .dyn_into()
        .unwrap()
}

fn pixel(canvas: &HtmlCanvasElement, css_x: f64, css_y: f64) -> [u8; 3] {
    let ctx = context_2d(canvas);
    let dpr = f64::from(canvas.width()) / canvas.get_bounding_client_rect().width();
    let data = ctx
        .get_image_data((css_x * dpr).round(), (css_y * dpr).round(), 1.0, 1.0)
        .unwrap()
        .data();
    [data[0], data[1], data[2]]
}

#[wasm_bindgen_test]
async fn the_default_view_renders_seven_tokens_and_a_labelled_heatmap() {
    let (root, _handle) = mount();
    // The document says when the parts built after the first paint are all there (the browser
    // tests wait for it before they count what the page holds).
    let building = || {
        document()
            .document_element()
            .unwrap()
            .has_attribute("data-building")
    };
    assert!(building(), "parts wait for their frame after the mount");
    settle().await;
    assert!(
        all_parts_built() && !building(),
        "every part built, and the mark gone"
    );
    let chips = root.query_selector_all(".chips .chip").unwrap();
    assert_eq!(chips.length(), 7);
    let canvas: HtmlCanvasElement = element(&root, "canvas.heatmap");
    assert_eq!(canvas.get_attribute("role").as_deref(), Some("img"));
    assert!(canvas
        .get_attribute("aria-label")
        .unwrap()
        .contains("attention"));
    assert_eq!(canvas.get_attribute("data-ready").as_deref(), Some("true"));
    let caption = text_of(&root, "[data-testid=inspector-table] caption");
    assert!(
        caption.contains("“mat”") && caption.contains("row 6"),
        "{caption}"
    );
    // Percentages of the visible keys add up to 100 (one-decimal rounding).
    let cells = root
        .query_selector_all("[data-testid=inspector-table] tbody td:last-child")
        .unwrap();
    let mut total = 0.0_f64;
    let mut masked = 0;
    for i in 0..cells.length() {
        let text = cells.item(i).unwrap().text_content().unwrap();
        if let Some(p) = text.strip_suffix('%') {
            total += p.parse::<f64>().unwrap();
        } else {
            assert_eq!(text, "masked");
            masked += 1;
        }
    }
    assert_eq!(masked, 1);
    assert!((total - 100.0).abs() <= 0.5, "sum {total}");
    root.remove();
}

#[wasm_bindgen_test]
async fn masked_cells_are_grey_and_the_diagonal_is_coloured() {
    let (root, _handle) = mount();
    settle().await;
    let canvas: HtmlCanvasElement = element(&root, "canvas.heatmap");
    let css_width = canvas.get_bounding_client_rect().width();
    let layout = HeatmapLayout::new(css_width, 7, 3, 13.0, true);
    let centre = |i: usize, j: usize| {
        (
            layout.col_x(j) + layout.cell / 2.0,
            layout.row_y(i) + layout.cell / 4.0,
        )
    };
    let (x, y) = centre(0, 6);
    let grey = pixel(&canvas, x, y);
    assert!(
        grey == [200, 200, 200] || grey == [110, 110, 110],
        "masked cell is {grey:?}"
    );
    let (x, y) = centre(3, 3);
    let diagonal = pixel(&canvas, x, y);
    assert!(
        !(diagonal[0] == diagonal[1] && diagonal[1] == diagonal[2]),
        "diagonal is {diagonal:?}"
    );
    root.remove();
}

#[wasm_bindgen_test]
async fn clicking_a_chip_selects_its_row_and_the_slider_sharpens_it() {
    let (root, _handle) = mount();
    settle().await;
    click_chip(&root, 2).await;
    let caption = text_of(&root, "[data-testid=inspector-table] caption");
    assert!(
        caption.contains("“sat”") && caption.contains("row 3"),
        "{caption}"
    );
    let before = max_weight_percent(&root);

    let slider: HtmlInputElement = element(&root, "#temperature");
    input_value(&slider, "-2");
    settle().await;
    assert_eq!(text_of(&root, "[data-testid=tau]"), "0.010");
    assert_eq!(text_of(&root, "[data-testid=divisor]"), "0.040");
    let cold = max_weight_percent(&root);
    assert!(cold > before && cold > 99.0, "cold {cold}, before {before}");

    input_value(&slider, "2");
    settle().await;
    let hot = max_weight_percent(&root);
    assert!((hot - 100.0 / 3.0).abs() < 1.0, "hot {hot}");
    root.remove();
}

#[wasm_bindgen_test]
fn descriptions_name_tokens_and_weights() {
    let tokens: Vec<String> = ["mat", "cat"]
        .iter()
        .map(std::string::ToString::to_string)
        .collect();
    let w = DMatrix::from_row_slice(2, 2, &[1.0, 0.0, 0.314, 0.686]);
    assert_eq!(cell_description(&tokens, &w, 1, 0), "cat → mat: 31.4%");
    assert_eq!(
        cell_description(&tokens, &w, 0, 1),
        "mat → cat: masked (future)"
    );
    assert_eq!(
        row_summary(&tokens, &w, 1),
        "Row 2 “cat” attends most to “cat” (68.6%)."
    );
    let even = DMatrix::from_row_slice(2, 2, &[1.0, 0.0, 0.5, 0.5]);
    assert_eq!(
        row_summary(&tokens, &even, 1),
        "Row 2 “cat” spreads its attention evenly: 50.0% on each of its 2 tokens."
    );
}

/// The `n`-th selection outline's inline style. (This page has no stylesheet, so the outline is
/// not laid out over the canvas here; the e2e suite checks its box on the real page.)
fn outline_style(root: &HtmlElement, n: u32) -> String {
    root.query_selector_all(".heatmap-wrap .selection")
        .unwrap()
        .item(n)
        .unwrap()
        .dyn_into::<web_sys::Element>()
        .unwrap()
        .get_attribute("style")
        .unwrap_or_default()
}

#[wasm_bindgen_test]
async fn a_new_selection_moves_the_outline_and_repaints_no_pixels() {
    let (root, _handle) = mount();
    settle().await;
    let canvas: HtmlCanvasElement = element(&root, "canvas.heatmap");
    // The canvas's box carries the grid's geometry the outline's CSS places it by.
    let layout = HeatmapLayout::new(canvas.get_bounding_client_rect().width(), 7, 3, 13.0, true);
    let wrap: web_sys::Element = element(&root, ".heatmap-box");
    assert_eq!(
        wrap.get_attribute("style").as_deref(),
        Some(layout.outline_css_vars().as_str())
    );
    assert_eq!(outline_style(&root, 0), "--row:5", "row 6 is selected");
    assert_eq!(
        outline_style(&root, 1),
        "display:none",
        "no cell is selected"
    );
    let pixels = all_pixels(&canvas);

    let key = |k: &str| {
        let init = web_sys::KeyboardEventInit::new();
        init.set_key(k);
        init.set_bubbles(true);
        let ev =
            web_sys::KeyboardEvent::new_with_keyboard_event_init_dict("keydown", &init).unwrap();
        canvas.dispatch_event(&ev).unwrap();
    };
    key("Home");
    settle().await;
    assert_eq!(outline_style(&root, 0), "--row:0");
    assert_eq!(all_pixels(&canvas), pixels, "the canvas was not repainted");
    // Cell mode outlines one cell as well.
    key("ArrowRight");
    settle().await;
    assert_eq!(outline_style(&root, 1), "--row:0;--col:0");
    key("ArrowRight");
    settle().await;
    assert_eq!(outline_style(&root, 1), "--row:0;--col:1");
    key("Escape");
    settle().await;
    assert_eq!(outline_style(&root, 1), "display:none");
    assert_eq!(outline_style(&root, 0), "--row:0");
    root.remove();
}

/// The labels of the trace's strips that are shown.
fn strip_labels(root: &HtmlElement) -> Vec<String> {
    visible_strips(root).into_iter().map(|(l, _)| l).collect()
}

/// The trace's strips that are shown, as (label, canvas).
fn visible_strips(root: &HtmlElement) -> Vec<(String, HtmlCanvasElement)> {
    let strips = root
        .query_selector_all("[data-testid=trace-strips] .strip")
        .unwrap();
    (0..strips.length())
        .map(|i| strips.item(i).unwrap().dyn_into::<HtmlElement>().unwrap())
        .filter(|s| !s.hidden())
        .map(|s| {
            let label = s.query_selector(".strip-label").unwrap().unwrap();
            let canvas = s.query_selector("canvas").unwrap().unwrap();
            (label.text_content().unwrap(), canvas.dyn_into().unwrap())
        })
        .collect()
}

#[wasm_bindgen_test]
async fn trace_strips_show_the_selected_rows_vectors_as_pixels() {
    let (root, _handle) = mount_at("?step=attention");
    settle().await;
    // The trace is built once at the start even below the viewport, so its words are in the
    // page (find in page, printing) before anyone scrolls to it.
    assert!(root
        .query_selector("[data-testid=trace-table]")
        .unwrap()
        .is_some());
    show_trace(&root).await;
    // Row 6 ("mat") of the default view: q, six keys, six values, the blend and row 6 of A·V.
    let shown = strip_labels(&root);
    assert_eq!(shown.len(), 1 + 6 + 6 + 2, "{shown:?}");
    assert_eq!(shown[0], "q mat");
    assert_eq!(shown[6], "k mat");
    assert!(shown[7].starts_with("v The × 0."), "{}", shown[7]);
    assert_eq!(shown[14], "A·V row 6");
    for (label, canvas) in visible_strips(&root) {
        // One pixel per entry, shaded by |v| / max |v| in the sign's hue (the numbers are the
        // tooltip, rounded to 4 decimals, so the alpha may be one step off).
        let numbers: Vec<f64> = canvas
            .title()
            .split(", ")
            .map(|x| x.parse().unwrap())
            .collect();
        assert_eq!(canvas.width() as usize, numbers.len(), "{label}");
        assert_eq!(canvas.height(), 1);
        let aria = canvas.get_attribute("aria-label").unwrap();
        assert!(aria.ends_with(&canvas.title()), "{label}: {aria}");
        let pixels = all_pixels(&canvas);
        let max = numbers.iter().fold(0.0f64, |m, v| m.max(v.abs()));
        for (v, px) in numbers.iter().zip(pixels.chunks(4)) {
            let alpha = (v.abs() / max * 255.0).round();
            assert!(
                (f64::from(px[3]) - alpha).abs() <= 1.0,
                "{label}: {v} → {px:?}"
            );
            if px[3] >= 128 {
                let positive = px[0] > px[2];
                assert_eq!(positive, *v > 0.0, "{label}: {v} → {px:?}");
            }
        }
    }
    // Σ w·v and row 6 of A·V are the same vector, so the same pixels.
    let strips = visible_strips(&root);
    let n = strips.len();
    assert_eq!(all_pixels(&strips[n - 2].1), all_pixels(&strips[n - 1].1));

    // Another row: the strips follow (its keys are shown, later ones hidden).
    click_chip(&root, 1).await;
    assert_eq!(
        strip_labels(&root)
            .iter()
            .map(|l| l.split(" × ").next().unwrap().to_string())
            .collect::<Vec<_>>(),
        [
            "q cat",
            "k The",
            "k cat",
            "v The",
            "v cat",
            "Σ w·v",
            "A·V row 2"
        ]
    );
    root.remove();
}

#[wasm_bindgen_test]
async fn an_off_screen_trace_catches_up_with_a_longer_sentence() {
    let (root, _handle) = mount_at("?step=attention");
    settle().await;
    // Seen once, then scrolled away: the trace keeps its last state while the sentence grows from
    // 7 to 11 tokens, which must not break it (its rows come from its own snapshot).
    show_trace(&root).await;
    assert_eq!(visible_strips(&root).len(), 1 + 6 + 6 + 2);
    web_sys::window().unwrap().scroll_to_with_x_and_y(0.0, 0.0);
    settle().await;
    let input: HtmlInputElement = element(&root, "#sentence");
    input_value(&input, "<script>alert(1)</script>");
    element::<HtmlElement>(&root, "form button[type=submit]").click();
    settle().await;
    assert_eq!(
        root.query_selector_all(".chips .chip").unwrap().length(),
        11
    );
    show_trace(&root).await;
    let keys = root
        .query_selector_all("[data-testid=trace-table] tbody th")
        .unwrap();
    assert_eq!(keys.length(), 11);
    assert_eq!(keys.item(10).unwrap().text_content().unwrap(), ">");
    let labels = strip_labels(&root);
    // Row 6 stays selected: "1" of "< script > alert ( 1 ) < / script >".
    assert_eq!(labels[0], "q 1", "{labels:?}");
    assert_eq!(labels[6], "k 1", "{labels:?}");
    assert_eq!(labels.len(), 1 + 6 + 6 + 2);
    let all = root
        .query_selector_all("[data-testid=trace-strips] .strip")
        .unwrap();
    assert_eq!(
        all.length(),
        1 + 11 + 11 + 2,
        "every key's strips, the future's hidden"
    );
    root.remove();
}
