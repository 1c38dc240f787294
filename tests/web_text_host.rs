//! The page's text services (`model::host`: JavaScript's `toLowerCase` and `parseFloat` in the
//! browser) give exactly what core's do (`str::to_lowercase`, `str::parse`), in headless Chromium,
//! so the page computes the same embeddings and reads the same links as the native tests. See
//! `src/model/host.rs` for why the browser build borrows them.
#![cfg(target_arch = "wasm32")]

use attention_explorer::model::host::{is_decimal_literal, lowercase, parse_decimal};
use attention_explorer::model::rng::SeededRng;
use attention_explorer::model::url_state::ViewState;
use attention_explorer::model::weights::token_embedding;
use wasm_bindgen_test::*;

wasm_bindgen_test_configure!(run_in_browser);

/// Code points from scripts whose case mappings have been stable for many Unicode versions, so
/// the browser's and Rust's tables agree whatever their exact Unicode version.
const RANGES: [(u32, u32); 7] = [
    (0x20, 0x7e),
    (0xc0, 0x24f),
    (0x370, 0x3ff),
    (0x400, 0x52f),
    (0x531, 0x587),
    (0x1e00, 0x1eff),
    (0x1f00, 0x1ffc),
];

fn random_word(rng: &mut SeededRng) -> String {
    let len = 1 + (rng.next_u64() % 12) as usize;
    (0..len)
        .filter_map(|_| {
            let (lo, hi) = RANGES[(rng.next_u64() % RANGES.len() as u64) as usize];
            char::from_u32(lo + (rng.next_u64() % u64::from(hi - lo + 1)) as u32)
        })
        .collect()
}

#[wasm_bindgen_test]
fn lower_case_matches_core() {
    for word in [
        "The",
        "CAT",
        "ΟΔΟΣ",
        "ΟΔΟΣ.",
        "Σ",
        "ΑΣ ΒΣ",
        "İstanbul",
        "ẞ",
        "Ǆǅǆ",
        "ﬃ",
        "ÀÉÎÕÜ",
        "Привет",
        "ԱՐԵՎ",
        "😀A",
        "",
        "١٢٣",
        "日本語",
    ] {
        assert_eq!(lowercase(word), word.to_lowercase(), "{word}");
    }
    let mut rng = SeededRng::stream(7, "lowercase");
    for _ in 0..20_000 {
        let word = random_word(&mut rng);
        assert_eq!(lowercase(&word), word.to_lowercase(), "{word}");
    }
}

#[wasm_bindgen_test]
fn decimal_parsing_matches_core() {
    let mut rng = SeededRng::stream(7, "parse");
    let mut cases: Vec<String> = [
        "1",
        "0.01",
        "100",
        "-0",
        "+2.5",
        ".5",
        "1.",
        "1e-7",
        "1E+21",
        "5e-324",
        "2e-324",
        "1e309",
        "1.7976931348623157e308",
        "0.30000000000000004",
        "9007199254740993",
        " 1",
        "1 ",
        "0x10",
        "Infinity",
        "inf",
        "NaN",
        "",
        "-",
        "1e",
        "1,5",
        "١",
    ]
    .iter()
    .map(std::string::ToString::to_string)
    .collect();
    for _ in 0..20_000 {
        // Shortest forms of arbitrary doubles, and long decimals near rounding boundaries.
        let x = f64::from_bits(rng.next_u64());
        if x.is_finite() {
            cases.push(x.to_string());
            cases.push(format!("{x:e}"));
        }
        let digits: String = (0..=(rng.next_u64() % 30))
            .map(|_| char::from(b'0' + (rng.next_u64() % 10) as u8))
            .collect();
        let exponent = (rng.next_u64() % 700) as i64 - 350;
        cases.push(format!("{digits}e{exponent}"));
        cases.push(format!("0.{digits}"));
    }
    for s in &cases {
        let core = if is_decimal_literal(s) {
            s.parse::<f64>().ok()
        } else {
            None
        };
        let browser = parse_decimal(s);
        assert_eq!(browser.map(f64::to_bits), core.map(f64::to_bits), "{s:?}");
    }
}

#[wasm_bindgen_test]
fn the_page_s_embeddings_and_links_use_core_s_results() {
    // A word's embedding is the stream named after its lower case: core's lower case here.
    for word in ["The", "ΟΔΟΣ", "Straße", "İstanbul", "THE"] {
        let mut rng = SeededRng::stream(3, &format!("embedding:{}", word.to_lowercase()));
        let expected: Vec<f64> = (0..32).map(|_| rng.normal()).collect();
        assert_eq!(token_embedding(word, 3, 32), expected, "{word}");
    }
    // A link's τ is core's parse of its text (clamped into the slider's range).
    for (text, tau) in [
        ("0.25", 0.25),
        ("0.316227766016838", 0.316_227_766_016_838),
        ("1e-7", 0.01),
    ] {
        let (view, _) = ViewState::from_query(&format!("tau={text}"));
        assert_eq!(view.tau.to_bits(), f64::to_bits(tau), "{text}");
    }
    let (view, notices) = ViewState::from_query("tau= 2");
    assert_eq!((view.tau, notices.len()), (1.0, 1));
}
