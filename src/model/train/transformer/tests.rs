//! The transformer against independent computations: the explorer's own attention, `nalgebra`
//! products, rotary offsets and the quoted size of the reference model.

use super::*;
use crate::model::attention::causal_softmax;

/// The trace's view of every head: softmax of its raw scores at τ is the head's weights, bit
/// for bit, and in layer 1 its q, k and v are X · W (rotated for rotary positions).
#[test]
fn projections_give_the_weights_the_model_used() {
    for positions in PositionKind::ALL {
        let config = small(positions, 2, 2);
        let model = Transformer::new(config, 5).unwrap();
        let tokens: Vec<usize> = (0..config.max_len)
            .map(|i| (3 * i + 1) % config.vocab)
            .collect();
        let hs = config.head_size();
        for tau in [1.0, 0.5, 2.0] {
            let heads_at = model.heads_at(&tokens, tau);
            let attention = model.attention_at(&tokens, tau);
            for (layer, heads) in heads_at.iter().enumerate() {
                for (head, on_tokens) in heads.iter().enumerate() {
                    let proj = &on_tokens.projections;
                    let weights = causal_softmax(&proj.scores, logit_scale(hs, tau));
                    assert_eq!(
                        weights, attention[layer][head],
                        "{positions:?} layer {layer} head {head} τ {tau}"
                    );
                    assert_eq!(on_tokens.weights, weights);
                }
            }
        }
        // Layer 1's values are X · W_v's head columns (no rotation for values).
        let m = |g| model.matrix(g).unwrap();
        let embedding = m(ParamGroup::TokenEmbedding);
        let t = tokens.len();
        let mut x = DMatrix::from_fn(t, config.d_model, |i, c| embedding[(tokens[i], c)]);
        match positions {
            PositionKind::Sinusoidal => x += sinusoidal_positions(t, config.d_model),
            PositionKind::Learned => x += m(ParamGroup::Positions).rows(0, t),
            PositionKind::Rotary => {}
        }
        let v = &x * m(ParamGroup::Value(0));
        let heads_at = model.heads_at(&tokens, 1.0);
        for (head, proj) in heads_at[0].iter().map(|h| &h.projections).enumerate() {
            assert!((&proj.v - v.columns(head * hs, hs)).abs().max() < 1e-12);
            if positions != PositionKind::Rotary {
                let q = &x * m(ParamGroup::Query(0));
                assert!((&proj.q - q.columns(head * hs, hs)).abs().max() < 1e-12);
            }
        }
    }
}

/// The closer look's temperature: at τ = 1 exactly the training arithmetic; at another τ, layer 1
/// is `softmax(Q_h K_hᵀ / (√d · τ))` computed here with `nalgebra` from the matrices, and the layers
/// after it see layer 1's changed output.
#[test]
fn attention_at_a_temperature_divides_every_layer_s_scores() {
    let config = TransformerConfig {
        vocab: 10,
        d_model: 8,
        layers: 2,
        heads: 2,
        max_len: 6,
        positions: PositionKind::Sinusoidal,
    };
    let model = Transformer::new(config, 7).unwrap();
    let tokens = [3, 1, 4, 1, 5, 9];
    assert_eq!(model.attention_at(&tokens, 1.0), model.attention(&tokens));
    let tau = 2.5;
    let hot = model.attention_at(&tokens, tau);
    let m = |g| model.matrix(g).unwrap();
    let embedding = m(ParamGroup::TokenEmbedding);
    let x = DMatrix::from_fn(6, 8, |i, c| embedding[(tokens[i], c)]) + sinusoidal_positions(6, 8);
    let (q, k) = (&x * m(ParamGroup::Query(0)), &x * m(ParamGroup::Key(0)));
    for (head, ours) in hot[0].iter().enumerate() {
        let cols = head * 4;
        let scores = q.columns(cols, 4) * k.columns(cols, 4).transpose();
        let expected = causal_softmax(&scores, 1.0 / (2.0 * tau));
        assert!((ours - &expected).abs().max() < 1e-12);
    }
    for (a, b) in hot[1].iter().zip(&model.attention(&tokens)[1]) {
        assert!((a - b).abs().max() > 1e-6, "layer 2 changes with τ too");
        for i in 0..6 {
            assert!((a.row(i).sum() - 1.0).abs() < 1e-12);
        }
    }
}

pub(crate) fn small(positions: PositionKind, layers: usize, heads: usize) -> TransformerConfig {
    TransformerConfig {
        vocab: 7,
        d_model: 8,
        layers,
        heads,
        max_len: 6,
        positions,
    }
}

#[test]
fn reference_default_has_the_quoted_size() {
    let cfg = TransformerConfig::REFERENCE;
    // The reference model has 10,240 parameters: 32·32 embedding + 2 layers · 4 · 32·32 + 32·32 unembedding.
    assert_eq!(cfg.parameter_count(), 32 * 32 + 2 * 4 * 32 * 32 + 32 * 32);
    assert_eq!(cfg.parameter_count(), 10_240);
    // ≈ 17 MFLOP per step of 16 sequences of 16: forward per sequence
    // 2 · (4 · 2·16·32·32 + 2 · 2·16·16·32) + 2·16·32·32.
    let forward = 2 * (4 * 2 * 16 * 32 * 32 + 2 * 2 * 16 * 16 * 32) + 2 * 16 * 32 * 32;
    assert_eq!(cfg.forward_flops(16), forward);
    assert_eq!(cfg.step_flops(16, 16), 3 * 16 * forward);
    assert!((16e6..18e6).contains(&(cfg.step_flops(16, 16) as f64)));
    let learned = TransformerConfig {
        positions: PositionKind::Learned,
        ..cfg
    };
    assert_eq!(learned.parameter_count(), 10_240 + 16 * 32);
}

#[test]
fn flat_forward_matches_the_explorer_pipeline() {
    for positions in PositionKind::ALL {
        for (layers, heads) in [(1, 1), (1, 4), (2, 2)] {
            let cfg = small(positions, layers, heads);
            for seed in [1, 2] {
                let model = Transformer::new(cfg, seed).unwrap();
                let tokens = [3, 1, 4, 1, 5, 6];
                let mut cache = ForwardCache::default();
                model.forward(&tokens, &mut cache);
                let (losses, weights) = model.reference_forward(&tokens);
                for (a, b) in cache.position_losses().iter().zip(&losses) {
                    assert!((a - b).abs() < 1e-12, "{positions:?} {a} vs {b}");
                }
                for (fast, slow) in cache.layers.iter().zip(&weights) {
                    for (a, b) in fast.attn.iter().zip(slow) {
                        assert!((a - b).abs().max() < 1e-13);
                    }
                }
            }
        }
    }
}

#[test]
fn rotary_scores_depend_on_the_offset_only() {
    let cfg = small(PositionKind::Rotary, 1, 2);
    let model = Transformer::new(cfg, 9).unwrap();
    // The same q and k vector placed at rows (2, 0) and (5, 3): same offset, same score.
    let d = cfg.d_model;
    let vector: Vec<f64> = (0..d).map(|c| (c as f64 * 0.7).sin()).collect();
    let mut m = vec![0.0; 6 * d];
    for row in 0..6 {
        m[row * d..(row + 1) * d].copy_from_slice(&vector);
    }
    model.rotate_rows(&mut m, 6, 1.0);
    let score = |i: usize, j: usize| dot(&m[i * d..i * d + 4], &m[j * d..j * d + 4]);
    assert!((score(2, 0) - score(5, 3)).abs() < 1e-12);
    assert!((score(2, 0) - score(2, 1)).abs() > 1e-3);
    // Rotating back restores the input.
    model.rotate_rows(&mut m, 6, -1.0);
    for row in 0..6 {
        for c in 0..d {
            assert!((m[row * d + c] - vector[c]).abs() < 1e-15);
        }
    }
}

#[test]
fn initialisation_is_seeded_and_shapes_are_checked() {
    let cfg = TransformerConfig::REFERENCE;
    assert_eq!(
        Transformer::new(cfg, 5).unwrap(),
        Transformer::new(cfg, 5).unwrap()
    );
    assert_ne!(
        Transformer::new(cfg, 5).unwrap().params(),
        Transformer::new(cfg, 6).unwrap().params()
    );
    for bad in [
        TransformerConfig { layers: 3, ..cfg },
        TransformerConfig { heads: 3, ..cfg },
        TransformerConfig {
            d_model: 6,
            heads: 4,
            ..cfg
        },
        TransformerConfig {
            d_model: 6,
            heads: 2,
            ..cfg
        },
    ] {
        assert!(Transformer::new(bad, 1).is_err(), "{bad:?}");
    }
    assert_eq!(
        PositionKind::from_name("rotary"),
        Some(PositionKind::Rotary)
    );
    assert_eq!(ParamGroup::Key(1).label(), "layer 2 W_k");
}

/// The largest weight of each row of `w` (causal: keys 0..=i).
fn row_maxima(w: &DMatrix<f64>) -> Vec<f64> {
    (0..w.nrows())
        .map(|i| (0..=i).map(|j| w[(i, j)]).fold(0.0, f64::max))
        .collect()
}

/// The closer look's sentence on τ: in layer 1 a higher τ never raises a row's largest weight
/// (its scores do not depend on τ, only their divisor does), for every position kind, seed and
/// pair of temperatures on the slider; in layer 2, whose input is layer 1's changed output, some
/// row's largest weight does rise with τ, so "later layers can move either way" is true.
#[test]
fn hotter_spreads_layer_1_and_can_go_either_way_in_layer_2() {
    let taus: Vec<f64> = (-12..=12).map(|k| 2f64.powf(f64::from(k) / 4.0)).collect();
    let mut layer_2_rose = false;
    for positions in PositionKind::ALL {
        for seed in 1..=4 {
            let config = small(positions, 2, 2);
            let model = Transformer::new(config, seed).unwrap();
            let tokens: Vec<usize> = (0..config.max_len)
                .map(|i| (seed as usize * 5 + 3 * i + 1) % config.vocab)
                .collect();
            let mut previous: Option<Vec<Vec<Vec<f64>>>> = None;
            for &tau in &taus {
                let maxima: Vec<Vec<Vec<f64>>> = model
                    .attention_at(&tokens, tau)
                    .iter()
                    .map(|layer| layer.iter().map(row_maxima).collect())
                    .collect();
                if let Some(before) = &previous {
                    for (head, rows) in maxima[0].iter().enumerate() {
                        for (i, &m) in rows.iter().enumerate() {
                            assert!(
                                m <= before[0][head][i] + 1e-12,
                                "{positions:?} seed {seed} head {head} row {i} τ {tau}"
                            );
                        }
                    }
                    layer_2_rose |= maxima[1]
                        .iter()
                        .zip(&before[1])
                        .any(|(now, was)| now.iter().zip(was).any(|(a, b)| *a > b + 1e-9));
                }
                previous = Some(maxima);
            }
        }
    }
    assert!(layer_2_rose, "some layer-2 row sharpens as τ rises");
}
