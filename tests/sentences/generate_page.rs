//! The generate page's sentences, from the shipped grammar model's own numbers over random
//! texts, τ and settings: the cache's check as counted, the multiplications as the cache counts
//! them while it works, and what moving τ changed, recounted from the rows.

use crate::views::*;
use attention_explorer::format::{fixed, grouped, percent};
use attention_explorer::model::generate_page::link::{GenerateLink, VOCAB};
use attention_explorer::model::generate_page::run::{last_row_multiplications, GenerationRun};
use attention_explorer::model::generate_page::tau_effect;
use attention_explorer::model::next_token::next_token_rows;
use attention_explorer::model::train::generate::KvCache;
use attention_explorer::model::train::tasks::GRAMMAR_WORDS;
use attention_explorer::text;
use proptest::prelude::*;

proptest! {
    #![proptest_config(config(64))]

    /// `cache_check_text`: "bit-identical" with the count compared, for generations at any
    /// settings; the number of tokens as the text has them.
    #[test]
    fn the_cache_check_names_its_count(
        prompt in proptest::collection::vec(0usize..VOCAB, 1..=8),
        generated in 0usize..=15,
        t in 0.0f64..2.0,
        top_k in 1usize..=VOCAB,
        seed in 0u64..1000,
        tau_exponent in -1.0f64..1.0,
    ) {
        let model = &checkpoint().model;
        let link = GenerateLink { generated, temperature: t, top_k, seed, tau: 10f64.powf(tau_exponent), ..GenerateLink::default() };
        let run = GenerationRun::compute(model, &prompt, &link).unwrap();
        let sentence = text::cache_check_text(run.check, run.sequence.len());
        prop_assert_eq!(run.check.differing, 0);
        prop_assert!(sentence.contains(&format!("all {} numbers", grouped(run.check.compared as u64))), "{}", sentence);
        let tokens_phrase = format!("over the {} token", run.sequence.len());
        prop_assert!(sentence.contains(&tokens_phrase), "{}", sentence);
    }

    /// `multiplications_text`: the cache's count is what the cache counted while it appended the
    /// last token; the count without it is every row's, i.e. all the appends so far.
    #[test]
    fn the_multiplications_are_the_cache_s_own_count(ids in proptest::collection::vec(0usize..VOCAB, 1..=16)) {
        let model = &checkpoint().model;
        let mut cache = KvCache::new(model);
        let mut before = 0;
        for &id in &ids {
            before = cache.multiplications();
            cache.push(id).unwrap();
        }
        let work = last_row_multiplications(model, ids.len());
        let (with, without) = (work.with_cache, work.full_pass);
        prop_assert_eq!(with, cache.multiplications() - before);
        prop_assert_eq!(without, cache.multiplications());
        prop_assert!(with <= work.minimal_recompute && work.minimal_recompute <= without);
        let sentence = text::multiplications_text(ids.len(), work, model.config().layers);
        prop_assert!(sentence.contains(&format!("{} multiplications with the cache", grouped(with as u64))), "{}", sentence);
        prop_assert!(sentence.contains(&format!("{} without it", grouped(without as u64))), "{}", sentence);
        let ratio = |n: usize| format!("{}× as many", fixed(n as f64 / with as f64, 1));
        prop_assert!(sentence.contains(&format!("used), {}", ratio(without))), "{}", sentence);
        let minimal = format!("it is {}, {}", grouped(work.minimal_recompute as u64), ratio(work.minimal_recompute));
        prop_assert!(sentence.contains(&minimal), "{}", sentence);
        let route = if model.config().layers == 1 { "(only the earlier tokens' keys and values, then the last row)" } else { "(every layer but the last in full" };
        prop_assert!(sentence.contains(route), "{}", sentence);
    }

    /// `cache_size_text`: the count is every number the cache holds after the text, and the
    /// prefill is the prompt's length.
    #[test]
    fn the_cache_size_is_what_the_cache_holds(ids in proptest::collection::vec(0usize..VOCAB, 1..=16), prompt in 1usize..=16) {
        let model = &checkpoint().model;
        let cfg = *model.config();
        let mut cache = KvCache::new(model);
        for &id in &ids {
            cache.push(id).unwrap();
        }
        let held: usize = (0..cfg.layers).map(|l| { let (k, v) = cache.keys_and_values(l); k.len() + v.len() }).sum();
        let sentence = text::cache_size_text(cfg.layers, ids.len(), cfg.d_model, prompt);
        let longer = text::cache_size_text(cfg.layers, ids.len(), cfg.d_model, 16);
        prop_assert!(longer.contains(&format!("Here token {} is a prompt token", ids.len())), "{}", longer);
        prop_assert!(sentence.contains(&format!("2 × {} × {} × {} = {} numbers", cfg.layers, ids.len(), cfg.d_model, grouped(held as u64))), "{}", sentence);
        let prefill = if prompt == 1 { "Reading the 1 prompt token".to_string() } else { format!("Reading the {prompt} prompt tokens") };
        prop_assert!(sentence.contains(&prefill), "{}", sentence);
        let which = if ids.len() <= prompt { "is a prompt token" } else { "was generated" };
        prop_assert!(sentence.contains(&format!("Here token {} {which}", ids.len())), "{}", sentence);
    }

    /// `tau_effect_text`: the weight it names, at both τ, as the rows hold it, and no weight that
    /// changes more.
    #[test]
    fn what_tau_changed_is_the_largest_change(
        ids in proptest::collection::vec(0usize..VOCAB, 1..=16),
        tau_exponent in -1.0f64..0.69,
    ) {
        let model = &checkpoint().model;
        let (a, b) = (10f64.powf(tau_exponent), 2.0 * 10f64.powf(tau_exponent));
        let words: Vec<&str> = ids.iter().map(|&t| GRAMMAR_WORDS[t]).collect();
        let effect = tau_effect(model, &ids, a, b);
        let sentence = text::tau_effect_text(effect, &words, (a, b));
        let (fa, fb) = text::format_tau_pair(a, b);
        let decimals = |t: &str| t.split('.').nth(1).map_or(0, str::len);
        prop_assert_eq!(decimals(&fa), decimals(&fb));
        prop_assert!(sentence.contains(&format!("moving τ from {fa} to {fb}")), "{}", sentence);
        let (ra, rb) = (next_token_rows(model, &ids, a).unwrap(), next_token_rows(model, &ids, b).unwrap());
        let largest = ra.iter().zip(&rb).flat_map(|(x, y)| {
            x.attention.iter().zip(&y.attention).flat_map(|(lx, ly)| lx.iter().zip(ly).flat_map(|(hx, hy)| hx.iter().zip(hy).map(|(p, q)| (p - q).abs())))
        }).fold(0.0f64, f64::max);
        match effect {
            None => {
                prop_assert_eq!(largest, 0.0);
                prop_assert!(sentence.contains("changes no weight"));
            }
            Some(e) => {
                prop_assert_eq!((e.before - e.after).abs(), largest);
                prop_assert_eq!(ra[e.row].attention[e.layer][e.head][e.key], e.before);
                let named = format!("from {} to {}", percent(e.before), percent(e.after));
                prop_assert!(sentence.contains(&named), "{}", sentence);
                let row_phrase = format!("row {} (“{}”)", e.row + 1, words[e.row]);
                prop_assert!(sentence.contains(&row_phrase), "{}", sentence);
            }
        }
    }
}
