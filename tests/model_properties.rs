//! Property tests of the whole model API: for any sentence size, seed, head split, position
//! setting and temperature, attention weights are finite, rows sum to 1 and the future is 0.
#![cfg(not(target_arch = "wasm32"))]

use attention_explorer::model::attention::{attend, causal_softmax, HeadProjections};
use attention_explorer::model::explorer::{ExplorerConfig, Prepared};
use attention_explorer::model::stats::row_stats;
use attention_explorer::model::temperature::{logit_scale, SLIDER_MAX_TAU, SLIDER_MIN_TAU};
use attention_explorer::model::tokenizer::{checked_tokens, tokenize, MAX_TOKENS};
use attention_explorer::model::trace::RowTrace;
use attention_explorer::model::url_state::{ViewState, DEVELOPER_MAX_TOKENS};
use nalgebra::DMatrix;
use proptest::prelude::*;

fn words(n: usize) -> Vec<String> {
    // A small vocabulary so repeated words (identical embeddings, hence ties) are common.
    let vocab = [
        "the", "cat", "sat", "on", "mat", ".", "a", "dog", "The", "ran",
    ];
    (0..n)
        .map(|i| vocab[(i * 7 + n) % vocab.len()].to_string())
        .collect()
}

fn tau_strategy() -> impl Strategy<Value = f64> {
    prop_oneof![
        (-4.0f64..4.0).prop_map(|e| 10f64.powf(e)),
        Just(f64::NAN),
        Just(f64::INFINITY),
        Just(0.0),
        Just(-1.0),
        Just(1e308),
        Just(SLIDER_MIN_TAU),
        Just(SLIDER_MAX_TAU),
    ]
}

fn assert_valid_weights(w: &DMatrix<f64>) {
    let t = w.nrows();
    for i in 0..t {
        let mut sum = 0.0;
        for j in 0..t {
            let x = w[(i, j)];
            assert!(
                x.is_finite() && (0.0..=1.0).contains(&x),
                "w[{i},{j}] = {x}"
            );
            if j > i {
                assert_eq!(x, 0.0, "future entry w[{i},{j}] must be exactly 0");
            }
            sum += x;
        }
        assert!((sum - 1.0).abs() <= 1e-12, "row {i} sums to {sum}");
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]

    #[test]
    fn weights_are_valid_for_any_view(
        n in 1usize..=MAX_TOKENS,
        seed in any::<u32>(),
        heads_index in 0usize..4,
        positions in any::<bool>(),
        tau in tau_strategy(),
    ) {
        let heads = [1, 2, 4, 8][heads_index];
        let p = Prepared::new(ExplorerConfig { tokens: words(n), seed: u64::from(seed), heads, positions });
        prop_assert_eq!(p.heads.len(), heads);
        for (proj, att) in p.heads.iter().zip(p.attend_all(tau)) {
            assert_valid_weights(&att.weights);
            prop_assert_eq!(att.output.shape(), (n, 32 / heads));
            prop_assert!(att.output.iter().all(|x| x.is_finite()));
            // Output row t is the weighted mean of value rows 0..=t.
            let expected = &att.weights * &proj.v;
            prop_assert!((expected - &att.output).abs().max() < 1e-12);
        }
    }

    #[test]
    fn the_trace_of_any_row_agrees_with_the_model(
        n in 1usize..=MAX_TOKENS,
        seed in any::<u32>(),
        heads_index in 0usize..4,
        tau in tau_strategy(),
        row in any::<prop::sample::Index>(),
    ) {
        let heads = [1, 2, 4, 8][heads_index];
        let p = Prepared::new(ExplorerConfig { tokens: words(n), seed: u64::from(seed), heads, positions: true });
        let t = row.index(n);
        for (proj, weights) in p.heads.iter().zip(p.weights_all(tau)) {
            let trace = RowTrace::new(proj, &weights, t, tau);
            let expected: Vec<f64> = weights.row(t).iter().copied().collect();
            prop_assert_eq!(&trace.weights, &expected);
            prop_assert!(trace.blend_matches(), "blend differs by {}", trace.diff);
            prop_assert!((trace.weight_sum - 1.0).abs() <= 1e-12);
            for j in 0..n {
                let expected = if j > t { f64::NEG_INFINITY } else { trace.scaled[j] };
                prop_assert_eq!(trace.masked[j], expected);
            }
        }
    }

    #[test]
    fn huge_embeddings_and_ties_stay_finite(
        n in 1usize..=16,
        magnitude_exp in 0i32..=6,
        tau in tau_strategy(),
        seed in any::<u16>(),
    ) {
        let p = Prepared::new(ExplorerConfig { tokens: words(n), seed: u64::from(seed), heads: 2, positions: false });
        let big = 10f64.powi(magnitude_exp);
        let x = &p.x * big;
        // Zero projections: every score ties at 0, so attention is exactly the plain average.
        let zeros = DMatrix::zeros(32, 16);
        let tied = attend(&HeadProjections::new(&x, &zeros, &zeros, &zeros), tau);
        assert_valid_weights(&tied.weights);
        for i in 0..n {
            prop_assert!((tied.weights[(i, 0)] - 1.0 / (i + 1) as f64).abs() < 1e-15);
        }
        let (w_q, w_k, w_v) = p.projections.head_columns(2, 0);
        let huge = HeadProjections::new(&x, &w_q, &w_k, &w_v);
        assert_valid_weights(&attend(&huge, tau).weights);
    }

    #[test]
    fn softmax_of_random_scores_is_a_distribution(
        values in prop::collection::vec(prop_oneof![-1e6f64..1e6, Just(f64::NAN), Just(f64::INFINITY), Just(f64::NEG_INFINITY)], 1..=64),
        tau in tau_strategy(),
        d in 1usize..=512,
    ) {
        let t = (values.len() as f64).sqrt().ceil() as usize;
        let scores = DMatrix::from_fn(t, t, |i, j| values[(i * t + j) % values.len()]);
        let w = causal_softmax(&scores, logit_scale(d, tau));
        assert_valid_weights(&w);
        for i in 0..t {
            let row: Vec<f64> = (0..=i).map(|j| w[(i, j)]).collect();
            let s = row_stats(&row);
            prop_assert!(s.entropy_bits >= -1e-12 && s.entropy_bits <= ((i + 1) as f64).log2() + 1e-9);
            prop_assert!(s.effective_tokens >= 1.0 - 1e-9 && s.effective_tokens <= (i + 1) as f64 + 1e-9);
        }
    }

    #[test]
    fn tokenizer_never_panics_and_never_loses_text(s in "\\PC{0,200}") {
        let tokens = tokenize(&s);
        let joined: String = tokens.concat();
        let original: String = s.chars().filter(|c| !c.is_whitespace() && !c.is_control()).collect();
        prop_assert_eq!(joined, original);
        prop_assert!(tokens.iter().all(|t| !t.is_empty()));
        if let Ok(t) = checked_tokens(&s, MAX_TOKENS) {
            prop_assert!(!t.is_empty() && t.len() <= MAX_TOKENS);
        }
    }

    #[test]
    fn any_query_string_gives_a_valid_state(q in "\\PC{0,300}") {
        let (state, notices) = ViewState::from_query(&q);
        let tokens = checked_tokens(&state.sentence, state.max_tokens).expect("a valid sentence");
        prop_assert!(state.row < tokens.len() && state.head < state.heads);
        prop_assert!((SLIDER_MIN_TAU..=SLIDER_MAX_TAU).contains(&state.tau));
        prop_assert!(notices.iter().all(|n| n.0.chars().count() <= 240));
        // A valid state round-trips through its own link.
        let (again, more) = ViewState::from_query(&state.to_query());
        prop_assert_eq!(again, state);
        prop_assert!(more.is_empty());
    }
}

/// Every one of the slider's 401 positions (log10 τ from -2 to 2 in steps of 0.01, turned into τ
/// the way the slider handler does) at the token limit, for one head and for eight.
#[test]
fn every_slider_position_at_the_token_limit() {
    let tokens = words(MAX_TOKENS);
    for heads in [1, 8] {
        let p = Prepared::new(ExplorerConfig {
            tokens: tokens.clone(),
            seed: 1337,
            heads,
            positions: heads == 8,
        });
        for k in -200i32..=200 {
            let value: f64 = format!("{:.2}", f64::from(k) / 100.0).parse().unwrap();
            let tau = 10f64.powf(value).clamp(SLIDER_MIN_TAU, SLIDER_MAX_TAU);
            let all = p.attend_all(tau);
            assert_eq!(all.len(), heads);
            for att in all {
                assert_valid_weights(&att.weights);
                assert_eq!(att.weights.shape(), (MAX_TOKENS, MAX_TOKENS));
            }
        }
    }
}

/// The developer limit (`max_tokens=512`) at the slider's ends and at τ = 1.
#[test]
fn developer_token_limit_stays_valid() {
    let p = Prepared::new(ExplorerConfig {
        tokens: words(DEVELOPER_MAX_TOKENS),
        seed: 7,
        heads: 8,
        positions: true,
    });
    for tau in [SLIDER_MIN_TAU, 1.0, SLIDER_MAX_TAU] {
        for att in p.attend_all(tau) {
            assert_valid_weights(&att.weights);
        }
    }
}

#[test]
fn tiny_temperature_is_one_hot_at_the_argmax_and_huge_is_uniform() {
    let p = Prepared::new(ExplorerConfig {
        tokens: tokenize("The cat sat on the mat ."),
        seed: 1337,
        heads: 2,
        positions: false,
    });
    for (head, cold) in p.heads.iter().zip(p.attend_all(1e-4)) {
        for i in 0..7 {
            // "The" and "the" share a key, so a row's maximum can be tied: the tied keys share it.
            let best = (0..=i)
                .map(|j| head.scores[(i, j)])
                .fold(f64::NEG_INFINITY, f64::max);
            let on_best: f64 = (0..=i)
                .filter(|&j| head.scores[(i, j)] == best)
                .map(|j| cold.weights[(i, j)])
                .sum();
            assert!((on_best - 1.0).abs() < 1e-9, "row {i}");
        }
    }
    for hot in p.attend_all(1e4) {
        for i in 0..7 {
            for j in 0..=i {
                assert!((hot.weights[(i, j)] - 1.0 / (i + 1) as f64).abs() < 1e-3);
            }
        }
    }
}

#[test]
fn one_token_attends_to_itself() {
    let p = Prepared::new(ExplorerConfig {
        tokens: tokenize("Hi"),
        seed: 1,
        heads: 8,
        positions: true,
    });
    for att in p.attend_all(0.3) {
        assert_eq!(att.weights[(0, 0)], 1.0);
    }
}
