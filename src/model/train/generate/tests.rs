//! The cache against the full forward pass recomputed from scratch, bit for bit, and the
//! generator's sampling, refusals and multiplication counts.

use super::*;
use crate::model::attention::causal_softmax;
use crate::model::rng::SeededRng;
use crate::model::sampling::argmax;
use nalgebra::DMatrix;

/// Every shape [`TransformerConfig::check`] allows, with odd sizes so that the products' 4 × 4
/// tiles have remainders: `d_model` 8 (every head count) and 12 (head sizes 12, 6, 3).
fn shapes() -> Vec<TransformerConfig> {
    let mut out = Vec::new();
    for positions in PositionKind::ALL {
        for layers in [1, 2] {
            for heads in [1, 2, 4] {
                for d_model in [8, 12] {
                    let cfg = TransformerConfig {
                        vocab: 11,
                        d_model,
                        layers,
                        heads,
                        max_len: 13,
                        positions,
                    };
                    if cfg.check().is_ok() {
                        out.push(cfg);
                    }
                }
            }
        }
    }
    out
}

fn random_tokens(cfg: &TransformerConfig, seed: u64, len: usize) -> Vec<usize> {
    let mut rng = SeededRng::stream(seed, "generate-test-tokens");
    (0..len)
        .map(|_| (rng.next_u64() % cfg.vocab as u64) as usize)
        .collect()
}

fn bits(values: &[f64]) -> Vec<u64> {
    values.iter().map(|v| v.to_bits()).collect()
}

/// Appends `tokens` one at a time and checks every row, key and value against the full pass.
fn assert_rows_match(model: &Transformer, tokens: &[usize], tau: f64, after_head: &dyn AfterHead) {
    let cfg = *model.config();
    let (d, vocab) = (cfg.d_model, cfg.vocab);
    let (full, logits) = full_pass(model, tokens, tau, after_head);
    let mut kv = KvCache::with_hook(model, tau, after_head);
    for (i, &token) in tokens.iter().enumerate() {
        let row = kv.push(token).unwrap();
        let what = format!("{cfg:?} τ {tau} row {i}");
        assert_eq!(
            bits(&row.logits),
            bits(&logits[i * vocab..(i + 1) * vocab]),
            "{what}"
        );
        assert_eq!(
            bits(&row.probs),
            bits(&full.probs[i * vocab..(i + 1) * vocab]),
            "{what}"
        );
        assert_eq!(row.log_norm.to_bits(), full.log_norm[i].to_bits(), "{what}");
        for (layer, heads) in row.attention.iter().enumerate() {
            for (head, weights) in heads.iter().enumerate() {
                let want: Vec<f64> = (0..=i)
                    .map(|j| full.layers[layer].attn[head][(i, j)])
                    .collect();
                assert_eq!(
                    bits(weights),
                    bits(&want),
                    "{what} layer {layer} head {head}"
                );
            }
        }
    }
    let t = tokens.len();
    for layer in 0..cfg.layers {
        let (k, v) = kv.keys_and_values(layer);
        assert_eq!(
            bits(k),
            bits(&full.layers[layer].k[..t * d]),
            "{cfg:?} keys"
        );
        assert_eq!(
            bits(v),
            bits(&full.layers[layer].v[..t * d]),
            "{cfg:?} values"
        );
    }
}

#[test]
fn every_row_matches_the_full_pass_bit_for_bit() {
    let shapes = shapes();
    // Sinusoidal, learned and rotary; 1 and 2 layers; 1, 2 and 4 heads.
    assert_eq!(shapes.len(), 3 * 2 * 3 * 2 - 2);
    for cfg in shapes {
        for seed in [1, 2, 7] {
            let model = Transformer::new(cfg, seed).unwrap();
            for len in [1, 2, 5, cfg.max_len] {
                let tokens = random_tokens(&cfg, seed * 100 + len as u64, len);
                assert_rows_match(&model, &tokens, 1.0, &KeepOutputs);
            }
        }
    }
}

#[test]
fn temperatures_and_knocked_out_heads_match_the_full_pass() {
    for cfg in shapes() {
        let model = Transformer::new(cfg, 3).unwrap();
        let tokens = random_tokens(&cfg, 9, cfg.max_len);
        for tau in [0.05, 0.5, 2.0, 30.0] {
            assert_rows_match(&model, &tokens, tau, &KeepOutputs);
        }
        // Heads' outputs replaced, as a knock-out does: zeros, and a seeded row (a mean).
        let mut rng = SeededRng::stream(4, "generate-test-replacement");
        let hs = cfg.head_size();
        let hook = Replace {
            heads: vec![
                (0, cfg.heads - 1, vec![0.0; hs]),
                (cfg.layers - 1, 0, (0..hs).map(|_| rng.normal()).collect()),
            ],
        };
        assert_rows_match(&model, &tokens, 1.0, &hook);
        assert_rows_match(&model, &tokens, 0.7, &hook);
    }
}

/// A hook replacing the output rows of some heads, `(layer, head, row)` (the first listed wins).
struct Replace {
    heads: Vec<(usize, usize, Vec<f64>)>,
}

impl AfterHead for Replace {
    fn replacement(&self, layer: usize, head: usize) -> Option<&[f64]> {
        self.heads
            .iter()
            .find(|(l, h, _)| (*l, *h) == (layer, head))
            .map(|(_, _, row)| row.as_slice())
    }

    fn replaces_any(&self) -> bool {
        !self.heads.is_empty()
    }
}

#[test]
fn the_row_softmax_is_causal_softmax_s_last_row() {
    let special = [f64::INFINITY, f64::NEG_INFINITY, f64::NAN, 0.0, -0.0, 1e300];
    let mut rng = SeededRng::stream(5, "generate-test-softmax");
    for case in 0..400 {
        let n = 1 + case % 9;
        let mut scores = DMatrix::from_fn(n, n, |_, _| 4.0 * rng.normal());
        // Some rows with infinities, NaN, equal or huge values.
        if case % 3 == 0 {
            for j in 0..n {
                if rng.next_u64() % 2 == 0 {
                    scores[(n - 1, j)] = special[(rng.next_u64() % 6) as usize];
                }
            }
        }
        if case % 7 == 0 {
            for j in 0..n {
                scores[(n - 1, j)] = f64::NAN;
            }
        }
        for scale in [1.0, 0.3, 1e-3, 50.0] {
            let full = causal_softmax(&scores, scale);
            let last: Vec<f64> = (0..n).map(|j| scores[(n - 1, j)]).collect();
            let want: Vec<f64> = (0..n).map(|j| full[(n - 1, j)]).collect();
            assert_eq!(
                bits(&causal_softmax_row(&last, scale)),
                bits(&want),
                "{last:?}"
            );
        }
    }
}

fn sampler(temperature: f64, top_k: usize) -> Sampler {
    Sampler { temperature, top_k }
}

fn tokens_and_draws(steps: &[GeneratedStep]) -> Vec<(usize, Option<u64>)> {
    steps
        .iter()
        .map(|s| (s.token, s.draw.map(f64::to_bits)))
        .collect()
}

#[test]
fn sampling_repeats_from_the_seed() {
    let cfg = TransformerConfig {
        max_len: 24,
        ..shapes()[5]
    };
    let model = Transformer::new(cfg, 11).unwrap();
    let prompt = [3, 1, 4];
    let count = cfg.max_len - prompt.len();
    for s in [sampler(1.0, usize::MAX), sampler(0.7, 3), sampler(2.0, 5)] {
        let first = generate(&model, &prompt, count, s, 42).unwrap();
        let again = generate(&model, &prompt, count, s, 42).unwrap();
        assert_eq!(first, again);
        assert_eq!(tokens_and_draws(&first), tokens_and_draws(&again));
        for (i, step) in first.iter().enumerate() {
            assert_eq!(step.draw.unwrap().to_bits(), draw(42, i).to_bits());
            let sum: f64 = step.probs.iter().sum();
            assert!((sum - 1.0).abs() < 1e-12);
        }
        let other = generate(&model, &prompt, count, s, 43).unwrap();
        assert_ne!(tokens_and_draws(&first), tokens_and_draws(&other));
    }
}

/// Greedy generation, recomputed naively: the full pass over the whole sequence at every step,
/// the argmax of its last row of logits.
#[test]
fn greedy_is_the_argmax_of_the_full_pass_and_temperature_zero_is_greedy() {
    for cfg in shapes() {
        let model = Transformer::new(cfg, 8).unwrap();
        let prompt = random_tokens(&cfg, 1, 2);
        let count = cfg.max_len - prompt.len();
        let greedy = generate(&model, &prompt, count, Sampler::GREEDY, 1).unwrap();
        let mut sequence = prompt.clone();
        for step in &greedy {
            let (_, logits) = full_pass(&model, &sequence, 1.0, &KeepOutputs);
            let last = &logits[(sequence.len() - 1) * cfg.vocab..];
            assert_eq!(bits(&step.logits), bits(last));
            assert_eq!(step.token, argmax(last));
            assert_eq!(step.draw, None);
            sequence.push(step.token);
        }
        // The losses are the full pass's position losses of the generated text.
        let losses = model.position_losses(&sequence);
        for (step, loss) in greedy.iter().zip(&losses[prompt.len() - 1..]) {
            assert_eq!(step.loss.to_bits(), loss.to_bits());
        }
        let cold = generate(&model, &prompt, count, sampler(1e-12, usize::MAX), 1).unwrap();
        let tokens = |s: &[GeneratedStep]| s.iter().map(|s| s.token).collect::<Vec<_>>();
        assert_eq!(tokens(&cold), tokens(&greedy));
        assert!(cold.iter().all(|s| s.draw.is_some()));
    }
}

#[test]
fn top_k_one_is_greedy_and_top_k_of_the_vocabulary_is_plain_sampling() {
    let cfg = shapes()[9];
    let model = Transformer::new(cfg, 2).unwrap();
    let prompt = [5];
    let count = cfg.max_len - 1;
    let greedy = generate(&model, &prompt, count, Sampler::GREEDY, 7).unwrap();
    let top1 = generate(&model, &prompt, count, sampler(1.5, 1), 7).unwrap();
    assert_eq!(greedy, top1);
    for t in [0.5, 1.0, 2.0] {
        let all = generate(&model, &prompt, count, sampler(t, usize::MAX), 7).unwrap();
        let vocab = generate(&model, &prompt, count, sampler(t, cfg.vocab), 7).unwrap();
        assert_eq!(all, vocab);
        assert!(all.iter().all(|s| s.probs.iter().all(|&p| p > 0.0)));
    }
}

#[test]
fn bad_prompts_are_refused_and_generation_stops_at_max_len() {
    let cfg = shapes()[0];
    let model = Transformer::new(cfg, 1).unwrap();
    let max = cfg.max_len;
    let refused =
        |prompt: &[usize]| Generator::new(&model, prompt, Sampler::GREEDY, 1).unwrap_err();
    assert!(refused(&[]).contains("empty"));
    assert!(refused(&[1, cfg.vocab]).contains("outside the vocabulary"));
    assert!(refused(&vec![0; max]).contains("no room"));
    assert!(refused(&vec![0; max + 3]).contains("no room"));
    let too_many = generate(&model, &[1, 2], max - 1, Sampler::GREEDY, 1).unwrap_err();
    assert!(too_many.contains("do not fit"), "{too_many}");
    assert_eq!(
        generate(&model, &[1, 2], max - 2, Sampler::GREEDY, 1)
            .unwrap()
            .len(),
        max - 2
    );

    let mut generator = Generator::new(&model, &[1, 2], sampler(1.0, 4), 3).unwrap();
    for room in (1..=max - 2).rev() {
        assert_eq!(generator.room(), room);
        generator.step().unwrap();
    }
    assert_eq!(generator.sequence().len(), max);
    assert_eq!(generator.generated().len(), max - 2);
    let full = generator.step().unwrap_err();
    assert!(full.contains("context is full"), "{full}");
    assert_eq!(generator.sequence().len(), max);

    let mut kv = KvCache::new(&model);
    assert!(kv.push(cfg.vocab).unwrap_err().contains("outside"));
    for _ in 0..max {
        kv.push(0).unwrap();
    }
    assert!(kv.push(0).unwrap_err().contains("context is full"));
}

/// The counts against the cache's own tally, made where each product runs, and the cache-free
/// count against the sum of the cached ones (the full pass computes exactly those products).
#[test]
fn multiplications_are_counted_where_they_happen() {
    for cfg in shapes() {
        let model = Transformer::new(cfg, 1).unwrap();
        let mut kv = KvCache::new(&model);
        let mut total = 0;
        for len in 1..=cfg.max_len {
            let before = kv.multiplications();
            kv.push(len % cfg.vocab).unwrap();
            assert_eq!(
                kv.multiplications() - before,
                multiplications_with_cache(&cfg, len)
            );
            total += multiplications_with_cache(&cfg, len);
            assert_eq!(multiplications_without_cache(&cfg, len), total);
            assert_eq!(kv.multiplications(), total);
        }
    }
    // The reference repeat model at its full length of 16: 2 · (4 · 32² + 2 · 16 · 32) + 32 · 32
    // with the cache, against 2 · (4 · 16 · 32² + 16 · 17 · 32) + 16 · 32 · 32 without.
    let r = TransformerConfig::REFERENCE;
    assert_eq!(multiplications_with_cache(&r, 16), 11_264);
    assert_eq!(multiplications_without_cache(&r, 16), 164_864);
}

/// Recomputing only what the last row needs lies between the cache and the naive full pass: all
/// three agree on a text of one token, and with one layer the saving against the full pass is
/// exactly each earlier row's q and `W_o` (2·d² each), its scores and weighted values (2·i·d for
/// row i) and its unembedding (d·vocab).
#[test]
fn the_minimal_recomputation_lies_between_the_cache_and_the_full_pass() {
    for cfg in shapes() {
        let (d, vocab) = (cfg.d_model, cfg.vocab);
        let one = multiplications_with_cache(&cfg, 1);
        assert_eq!(multiplications_minimal_recompute(&cfg, 1), one);
        assert_eq!(multiplications_without_cache(&cfg, 1), one);
        for len in 1..=cfg.max_len {
            let minimal = multiplications_minimal_recompute(&cfg, len);
            assert!(multiplications_with_cache(&cfg, len) <= minimal);
            assert!(minimal <= multiplications_without_cache(&cfg, len));
            if cfg.layers == 1 {
                let earlier_rows: usize = (1..len).map(|i| 2 * d * d + 2 * i * d + d * vocab).sum();
                assert_eq!(
                    multiplications_without_cache(&cfg, len) - minimal,
                    earlier_rows
                );
            }
        }
    }
    // The reference repeat model at 16 tokens: layer 1 in full (4 · 16 · 32² + 16 · 17 · 32),
    // then layer 2's keys and values of all 16 tokens (2 · 16 · 32²), the last row's q and W_o
    // (2 · 32²), its scores and weighted values (2 · 16 · 32) and its unembedding (32 · 32).
    assert_eq!(
        multiplications_minimal_recompute(&TransformerConfig::REFERENCE, 16),
        111_104
    );
}

#[test]
fn the_cache_check_counts_every_number_and_catches_a_difference() {
    for cfg in shapes() {
        let model = Transformer::new(cfg, 3).unwrap();
        for len in [1, 4, cfg.max_len] {
            let tokens = random_tokens(&cfg, 40 + len as u64, len);
            let same = check_cache(&model, &tokens, 1.0, 1.0);
            let (d, t) = (cfg.d_model, len);
            let attention: usize = cfg.layers * cfg.heads * t * (t + 1) / 2;
            assert_eq!(
                same.compared,
                2 * t * cfg.vocab + attention + 2 * cfg.layers * t * d
            );
            assert_eq!(same.differing, 0, "{cfg:?} len {len}");
            // A full pass at another τ is another computation: the check must see it (one
            // token attends only to itself, whatever τ).
            let other = check_cache(&model, &tokens, 1.0, 2.0);
            assert_eq!(other.differing > 0, len > 1, "{cfg:?} len {len}");
            let at_half = check_cache(&model, &tokens, 0.5, 0.5);
            assert_eq!(at_half.differing, 0);
        }
    }
}
