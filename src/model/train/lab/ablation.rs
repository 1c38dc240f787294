//! Knocking heads out and measuring what is lost: the held-out evaluation of a model with some
//! heads' outputs replaced ([`Ablation`], defined in [`super::knockout`]), forward passes only.
//!
//! [`evaluate_ablated`] gives what the training page shows for the weights on screen, with the
//! heads knocked out: the held-out losses (all, first copy, repeated part), every head's detector
//! scores and the head grid of held-out sequence 1. It is the trainer's own evaluation with an
//! ablation passed to every forward pass, so with no head knocked out it is the intact evaluation
//! bit for bit. For a run trained with a mistake it runs with the mistake, and also as the model
//! is used ([`EvalPoint::as_used`]), the heads knocked out in both.
//!
//! **Mean-ablation's means** ([`HeadMeans`]) are measured on the intact model over the run's
//! held-out set: for each head, the mean of its output row `(A_h V_h)[i]` over every position i of
//! every held-out sequence, position 0 included (see [`super::knockout`]). They are measured with
//! the pass the run trains with (its mistake, if any), once per model shown; an ablation then
//! only copies them.

use super::detectors::HeadScores;
use super::evaluation::{EvalInProgress, EvalPoint};
use super::knockout::{Ablation, AblationKind, KnockedOut};
use super::mistakes::TrainingMistake;
use super::pass::Pass;
use crate::model::train::tasks::Sequence;
use crate::model::train::transformer::{ForwardCache, Transformer};
use nalgebra::DMatrix;

/// Every head's mean output row on a set of sequences, `[layer][head]`, head-size long each.
#[derive(Debug, Clone, PartialEq)]
pub struct HeadMeans(pub Vec<Vec<Vec<f64>>>);

impl HeadMeans {
    /// The intact model's means on `sequences` (the run's held-out set), its forward pass making
    /// `mistake`. Each entry is a sum over the sequences in order, then over their rows in
    /// order, divided by the number of rows.
    pub fn measure(
        model: &Transformer,
        sequences: &[Sequence],
        mistake: Option<TrainingMistake>,
    ) -> Self {
        let cfg = model.config();
        let (d, hs) = (cfg.d_model, cfg.head_size());
        let mut sums = vec![vec![vec![0.0; hs]; cfg.heads]; cfg.layers];
        let mut rows = 0usize;
        let mut cache = ForwardCache::default();
        for s in sequences {
            model.forward_with(&s.tokens, &mut cache, 1.0, Pass::with_mistake(mistake));
            for (layer_sums, layer) in sums.iter_mut().zip(&cache.layers) {
                for z_row in layer.z.chunks_exact(d).take(s.tokens.len()) {
                    for (head_sum, z_head) in layer_sums.iter_mut().zip(z_row.chunks_exact(hs)) {
                        for (sum, &z) in head_sum.iter_mut().zip(z_head) {
                            *sum += z;
                        }
                    }
                }
            }
            rows += s.tokens.len();
        }
        let n = rows.max(1) as f64;
        for x in sums.iter_mut().flatten().flatten() {
            *x /= n;
        }
        Self(sums)
    }

    /// The ablation knocking out `heads` (`(layer, head, kind)`, from 0), mean-ablated heads
    /// replaced by these means.
    pub fn ablation(&self, heads: &[(usize, usize, AblationKind)]) -> Result<Ablation, String> {
        let (layers, per_layer) = (self.0.len(), self.0.first().map_or(0, Vec::len));
        let head_size = self.0.first().and_then(|l| l.first()).map_or(0, Vec::len);
        let knocked = heads
            .iter()
            .map(|&(layer, head, kind)| {
                let mean = self.0.get(layer).and_then(|l| l.get(head)).ok_or_else(|| {
                    format!("layer {} head {}: no such head", layer + 1, head + 1)
                })?;
                Ok(KnockedOut {
                    layer,
                    head,
                    kind,
                    replacement: match kind {
                        AblationKind::Zero => vec![0.0; head_size],
                        AblationKind::Mean => mean.clone(),
                    },
                })
            })
            .collect::<Result<Vec<_>, String>>()?;
        Ablation::new(knocked, (layers, per_layer, head_size))
    }
}

/// An evaluation with heads knocked out: what the page shows beside the intact one.
#[derive(Debug, Clone, PartialEq)]
pub struct AblatedEval {
    /// The heads knocked out and what replaced them.
    pub ablation: Ablation,
    /// The held-out losses and every head's scores with them knocked out (with the run's
    /// mistake, and as used in [`EvalPoint::used`], for a run trained with one).
    pub eval: EvalPoint,
    /// Every head's weights on held-out sequence 1, `[layer][head]` (the head grid), with the
    /// run's mistake.
    pub attention: Vec<Vec<DMatrix<f64>>>,
}

/// The held-out evaluation of `model` at `step` with `ablation`'s heads knocked out (see the
/// module documentation), on the run's held-out set `held_out` (non-empty), for a run trained
/// with `mistake`. Costs one forward pass per held-out sequence (two with a mistake), plus one
/// for the grid.
pub fn evaluate_ablated(
    model: &Transformer,
    held_out: &[Sequence],
    step: usize,
    ablation: &Ablation,
    mistake: Option<TrainingMistake>,
) -> AblatedEval {
    let mut eval = EvalInProgress::with(model.config(), mistake, ablation.clone());
    for s in held_out {
        eval.add(model, s);
    }
    let pass = Pass::with_mistake(mistake).knocking_out(ablation);
    AblatedEval {
        ablation: ablation.clone(),
        eval: eval.finish(step),
        attention: model.attention_with(&held_out[0].tokens, 1.0, pass),
    }
}

/// The heads, `(layer, head)` in order, whose previous-token and induction scores are the same
/// bits in `knocked` as in `intact` (the two evaluations of one model, with and without a
/// knock-out). A knock-out replaces what a head writes, not where it looks, and the scores measure
/// where heads look: every head up to the first layer with a knocked-out head, that head
/// included, reads the same input as before and is on this list (tested below); the heads after
/// it read what the knocked-out heads no longer write.
pub fn unchanged_scores(intact: &EvalPoint, knocked: &EvalPoint) -> Vec<(usize, usize)> {
    let same = |a: &HeadScores, b: &HeadScores| {
        a.previous_token.to_bits() == b.previous_token.to_bits()
            && a.induction.map(f64::to_bits) == b.induction.map(f64::to_bits)
    };
    let mut heads = Vec::new();
    for (l, (a, b)) in intact.heads.iter().zip(&knocked.heads).enumerate() {
        for (h, (a, b)) in a.iter().zip(b).enumerate() {
            if same(a, b) {
                heads.push((l, h));
            }
        }
    }
    heads
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::attention::{attend, HeadProjections, LayerOutput};
    use crate::model::rng::SeededRng;
    use crate::model::train::shape::{ParamGroup, PositionKind, TransformerConfig};
    use crate::model::train::tasks::RepeatTask;
    use crate::model::train::transformer::tests::small;
    use crate::model::weights::sinusoidal_positions;

    /// An independent forward pass with `DMatrix` products and the explorer's `attend` and
    /// `LayerOutput`, in which `replace(layer, head, output)` may swap a head's T × hs output
    /// for another before the concatenation. Returns the per-position losses and every head's
    /// output `[layer][head]` (before any replacement).
    /// `(layer, head, intact output)` → the output to use instead, if any.
    type Replace<'a> = &'a dyn Fn(usize, usize, &DMatrix<f64>) -> Option<DMatrix<f64>>;

    fn reference(
        model: &Transformer,
        tokens: &[usize],
        replace: Replace,
    ) -> (Vec<f64>, Vec<Vec<DMatrix<f64>>>) {
        let cfg = model.config();
        let (t, d, hs) = (tokens.len(), cfg.d_model, cfg.head_size());
        let m = |g| model.matrix(g).unwrap();
        let emb = m(ParamGroup::TokenEmbedding);
        let mut x = DMatrix::from_fn(t, d, |i, c| emb[(tokens[i], c)]);
        match cfg.positions {
            PositionKind::Sinusoidal => x += sinusoidal_positions(t, d),
            PositionKind::Learned => x += m(ParamGroup::Positions).rows(0, t),
            PositionKind::Rotary => panic!("the reference has no rotation"),
        }
        let mut outputs = Vec::new();
        for layer in 0..cfg.layers {
            let (q, k, v) = (
                &x * m(ParamGroup::Query(layer)),
                &x * m(ParamGroup::Key(layer)),
                &x * m(ParamGroup::Value(layer)),
            );
            let mut heads = Vec::new();
            let mut used = Vec::new();
            for head in 0..cfg.heads {
                let cols = |a: &DMatrix<f64>| a.columns(head * hs, hs).into_owned();
                let p = HeadProjections {
                    scores: cols(&q) * cols(&k).transpose(),
                    q: cols(&q),
                    k: cols(&k),
                    v: cols(&v),
                };
                let out = attend(&p, 1.0).output;
                used.push(replace(layer, head, &out).unwrap_or_else(|| out.clone()));
                heads.push(out);
            }
            let refs: Vec<&DMatrix<f64>> = used.iter().collect();
            x += LayerOutput::new(&refs, &m(ParamGroup::Output(layer))).output;
            outputs.push(heads);
        }
        let logits = &x * m(ParamGroup::Unembedding);
        let losses = (0..t - 1)
            .map(|i| {
                let row: Vec<f64> = logits.row(i).iter().copied().collect();
                let max = row.iter().copied().fold(f64::NEG_INFINITY, f64::max);
                max + row.iter().map(|l| (l - max).exp()).sum::<f64>().ln() - row[tokens[i + 1]]
            })
            .collect();
        (losses, outputs)
    }

    fn sequences(cfg: &TransformerConfig, count: usize) -> Vec<Sequence> {
        let task = RepeatTask {
            vocab: cfg.vocab,
            seq_len: cfg.max_len,
            min_segment: 2,
            max_segment: 3,
        };
        let mut rng = SeededRng::stream(3, "ablation-test");
        (0..count).map(|_| task.sample(&mut rng)).collect()
    }

    /// Zero- and mean-ablation of several heads at once, in both layers, against the reference
    /// with those heads' outputs replaced by hand: zeros, or the mean of the reference's own
    /// intact outputs over every row of every sequence.
    #[test]
    fn knocked_out_heads_match_an_independent_computation() {
        for positions in [PositionKind::Sinusoidal, PositionKind::Learned] {
            let cfg = small(positions, 2, 2);
            let model = Transformer::new(cfg, 21).unwrap();
            let held = sequences(&cfg, 5);
            // The means by hand, from the reference's intact outputs.
            let hs = cfg.head_size();
            let mut means = vec![vec![DMatrix::<f64>::zeros(1, hs); 2]; 2];
            let mut rows = 0.0;
            for s in &held {
                let (_, outputs) = reference(&model, &s.tokens, &|_, _, _| None);
                for (l, layer) in outputs.iter().enumerate() {
                    for (h, out) in layer.iter().enumerate() {
                        means[l][h] += out.row_sum();
                    }
                }
                rows += s.tokens.len() as f64;
            }
            let measured = HeadMeans::measure(&model, &held, None);
            for (ours, theirs) in measured.0.iter().flatten().zip(means.iter().flatten()) {
                for (c, x) in ours.iter().enumerate() {
                    assert!((x - theirs[(0, c)] / rows).abs() < 1e-12);
                }
            }
            let knocked = [
                (0, 1, AblationKind::Zero),
                (1, 0, AblationKind::Mean),
                (1, 1, AblationKind::Zero),
            ];
            let ablation = measured.ablation(&knocked).unwrap();
            let mut cache = ForwardCache::default();
            for s in &held {
                let replace = |l: usize, h: usize, out: &DMatrix<f64>| {
                    let (_, _, kind) = knocked.iter().find(|k| (k.0, k.1) == (l, h))?;
                    Some(match kind {
                        AblationKind::Zero => DMatrix::zeros(out.nrows(), hs),
                        AblationKind::Mean => {
                            DMatrix::from_fn(out.nrows(), hs, |_, c| means[l][h][(0, c)] / rows)
                        }
                    })
                };
                let (want, _) = reference(&model, &s.tokens, &replace);
                let pass = Pass::default().knocking_out(&ablation);
                model.forward_with(&s.tokens, &mut cache, 1.0, pass);
                for (a, b) in cache.position_losses().iter().zip(&want) {
                    assert!((a - b).abs() < 1e-12, "{positions:?}: {a} vs {b}");
                }
                // Without the ablation the losses differ: the heads did something.
                let intact = model.position_losses(&s.tokens);
                assert!(intact.iter().zip(&want).any(|(a, b)| (a - b).abs() > 1e-6));
            }
        }
    }

    /// Zero-ablating every head of a layer makes it the identity on the residual stream: its
    /// output equals its input bit for bit, for every position kind and with a mistake.
    #[test]
    fn zeroing_every_head_of_a_layer_passes_the_stream_through() {
        for positions in PositionKind::ALL {
            let cfg = small(positions, 2, 4);
            let model = Transformer::new(cfg, 8).unwrap();
            let shape = (2, 4, cfg.head_size());
            for layer in 0..2 {
                let heads: Vec<(usize, usize)> = (0..4).map(|h| (layer, h)).collect();
                let ablation = Ablation::zero(&heads, shape).unwrap();
                assert!(ablation.zeroes_layer(layer, 4));
                for mistake in [None, Some(TrainingMistake::MaskWithZero)] {
                    let mut cache = ForwardCache::default();
                    let pass = Pass::with_mistake(mistake).knocking_out(&ablation);
                    model.forward_with(&[1, 5, 2, 5, 3, 0], &mut cache, 1.0, pass);
                    assert!(cache.ablated);
                    let (input, output) = (&cache.x[layer], &cache.x[layer + 1]);
                    assert!(input
                        .iter()
                        .zip(output)
                        .all(|(a, b)| a.to_bits() == b.to_bits()));
                    // The other layer still changes the stream.
                    let other = 1 - layer;
                    assert_ne!(cache.x[other], cache.x[other + 1]);
                }
            }
        }
    }

    /// Mean-ablating a head whose output is the same on every row (a one-token vocabulary,
    /// no positions) changes nothing: the mean is that row.
    #[test]
    fn mean_ablating_a_constant_head_changes_nothing() {
        let cfg = TransformerConfig {
            vocab: 1,
            d_model: 4,
            layers: 1,
            heads: 2,
            max_len: 5,
            positions: PositionKind::Rotary,
        };
        let model = Transformer::new(cfg, 3).unwrap();
        let held: Vec<Sequence> = (2..=5)
            .map(|t| Sequence {
                tokens: vec![0; t],
                repeat: None,
                agreement: None,
            })
            .collect();
        let means = HeadMeans::measure(&model, &held, None);
        let ablation = means.ablation(&[(0, 0, AblationKind::Mean)]).unwrap();
        let got = evaluate_ablated(&model, &held, 0, &ablation, None);
        let intact = evaluate_ablated(&model, &held, 0, &Ablation::none(), None);
        assert!((got.eval.loss - intact.eval.loss).abs() < 1e-12);
        assert!(means.ablation(&[(1, 0, AblationKind::Zero)]).is_err());
    }
}
