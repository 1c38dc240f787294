//! The explorer's next-token readout and its generation (`model::next_token`) with the tiny
//! grammar's checkpoint: every row's distribution sums to 1, is bit for bit the trainer's full
//! forward pass at τ = 1, stays finite over the whole τ slider, names the following token with the
//! trainer's loss, and generation repeats from its seed and stops at the context length.
#![cfg(not(target_arch = "wasm32"))]

mod shipped;

use attention_explorer::model::next_token::{
    generate_at, next_token, next_token_rows, share_of, SHOWN_CANDIDATES,
};
use attention_explorer::model::sampling::{draw, Sampler};
use attention_explorer::model::temperature::{SLIDER_MAX_TAU, SLIDER_MIN_TAU};
use attention_explorer::model::train::generate::KvCache;
use attention_explorer::model::train::tasks::Grammar;
use attention_explorer::model::train::transformer::ForwardCache;
use proptest::prelude::*;
use shipped::grammar_model;

/// Every sentence the grammar writes (training and held-out parts).
fn grammar_sentences() -> Vec<Vec<usize>> {
    let mut all: Vec<Vec<usize>> = Grammar::part_sentences(false)
        .into_iter()
        .chain(Grammar::part_sentences(true))
        .map(|(s, _)| s)
        .collect();
    all.sort();
    all.dedup();
    all
}

#[test]
fn every_grammatical_sentence_s_rows_are_the_trainer_s_forward_bit_for_bit() {
    let model = grammar_model();
    let vocab = model.config().vocab;
    let sentences = grammar_sentences();
    assert!(sentences.len() > 10);
    let mut cache = ForwardCache::default();
    for ids in sentences {
        model.forward(&ids, &mut cache);
        let rows = next_token_rows(&model, &ids, 1.0).unwrap();
        let losses = cache.position_losses();
        for (i, row) in rows.iter().enumerate() {
            let full = &cache.probs[i * vocab..(i + 1) * vocab];
            assert!(row
                .probs
                .iter()
                .zip(full)
                .all(|(a, b)| a.to_bits() == b.to_bits()));
            let sum: f64 = row.probs.iter().sum();
            assert!((sum - 1.0).abs() < 1e-12, "{sum}");
            let one = next_token(&model, &ids, i, 1.0).unwrap();
            assert!(one
                .probs
                .iter()
                .zip(full)
                .all(|(a, b)| a.to_bits() == b.to_bits()));
            match one.following {
                Some(f) => {
                    assert_eq!(f.token, ids[i + 1]);
                    assert_eq!(f.loss.to_bits(), losses[i].to_bits());
                    assert_eq!(f.p.to_bits(), full[ids[i + 1]].to_bits());
                }
                None => assert_eq!(i + 1, ids.len(), "only the last row has none"),
            }
        }
    }
}

fn tau() -> impl Strategy<Value = f64> {
    prop_oneof![
        (SLIDER_MIN_TAU.log10()..SLIDER_MAX_TAU.log10()).prop_map(|e| 10f64.powf(e)),
        Just(SLIDER_MIN_TAU),
        Just(SLIDER_MAX_TAU),
        Just(1.0),
    ]
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]

    /// Over any token ids and the whole τ slider: rows sum to 1, nothing is NaN, the top tokens
    /// are the largest probabilities in order, the loss is −ln p, and the rows are the cache's.
    #[test]
    fn rows_sum_to_one_and_stay_finite_over_the_tau_slider(
        ids in proptest::collection::vec(0usize..29, 1..=16),
        tau in tau(),
    ) {
        let model = grammar_model();
        let mut cache = KvCache::with_hook(&model, tau, &attention_explorer::model::train::transformer::KeepOutputs);
        for row in 0..ids.len() {
            let p = next_token(&model, &ids, row, tau).unwrap();
            let cached = cache.push(ids[row]).unwrap();
            prop_assert_eq!(&p.probs, &cached.probs);
            let sum: f64 = p.probs.iter().sum();
            prop_assert!((sum - 1.0).abs() < 1e-12, "sum {}", sum);
            prop_assert!(p.probs.iter().all(|x| x.is_finite() && *x >= 0.0));
            prop_assert_eq!(p.top.len(), SHOWN_CANDIDATES);
            let shown: f64 = p.top.iter().map(|c| c.p).sum::<f64>() + p.rest;
            prop_assert!((shown - 1.0).abs() < 1e-12, "top and rest {}", shown);
            for pair in p.top.windows(2) {
                prop_assert!(pair[0].p >= pair[1].p);
            }
            let fifth = p.top[SHOWN_CANDIDATES - 1].p;
            let above = p.probs.iter().filter(|&&x| x > fifth).count();
            prop_assert!(above < SHOWN_CANDIDATES);
            if let Some(f) = p.following {
                prop_assert!(f.loss.is_finite() && f.loss >= -1e-12);
                prop_assert!((f.loss - (-f.p.ln())).abs() < 1e-9 || f.p < 1e-300);
            }
        }
    }

    /// Generation repeats from its seed, step i is drawn with `draw(seed, i)` and lands in its
    /// token's share, and asking for more than the context holds fails with the cap named.
    #[test]
    fn generation_repeats_from_the_seed_and_stops_at_the_context(
        prompt in proptest::collection::vec(0usize..29, 1..=6),
        t in 0.0f64..=2.0,
        k in 1usize..=29,
        seed in 0u64..1000,
        tau in tau(),
    ) {
        let model = grammar_model();
        let max_len = model.config().max_len;
        let sampler = Sampler { temperature: t, top_k: k };
        let room = max_len - prompt.len();
        let steps = generate_at(&model, &prompt, room, sampler, seed, tau).unwrap();
        let again = generate_at(&model, &prompt, room, sampler, seed, tau).unwrap();
        prop_assert_eq!(&steps, &again);
        let shorter = generate_at(&model, &prompt, 3, sampler, seed, tau).unwrap();
        prop_assert_eq!(&steps[..3], &shorter[..]);
        for (i, step) in steps.iter().enumerate() {
            let sum: f64 = step.probs.iter().sum();
            prop_assert!((sum - 1.0).abs() < 1e-12);
            match step.draw {
                Some(u) => {
                    prop_assert_eq!(u.to_bits(), draw(seed, i).to_bits());
                    let (start, end) = share_of(&step.probs, step.token);
                    prop_assert!(start <= u && (u < end || end >= 1.0 - 1e-12), "{} {} {}", start, u, end);
                }
                None => prop_assert!(sampler.is_greedy()),
            }
        }
        let err = generate_at(&model, &prompt, room + 1, sampler, seed, tau).unwrap_err();
        prop_assert!(err.contains(&format!("at most {max_len} tokens")), "{}", err);
    }
}
