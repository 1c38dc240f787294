//! Choosing the next token from one row's logits: the sampling temperature T, top-k and a draw.
//!
//! A language model's last row of logits says how much it favours each token of the vocabulary.
//! To write text, it turns them into probabilities and picks one:
//! 1. **Top-k** keeps the k largest logits (ties go to the lower token id) and drops the rest.
//! 2. **The sampling temperature** T divides what is left before the softmax:
//!    `p_i = exp((l_i − l_max)/T) / Σ_j exp((l_j − l_max)/T)`. T = 1 is the model's own
//!    distribution; T < 1 sharpens it and T > 1 flattens it. T = 0 is *greedy*: the most likely
//!    token (the lowest id among equals), with no draw at all.
//! 3. **The draw**: one uniform number u in (0, 1) picks the first token whose running total of
//!    probability, in id order, exceeds u (the inverse of the cumulative distribution).
//!
//! This T acts on the logits, after attention has run: it changes which token is chosen, never the
//! attention weights. The attention temperature τ ([`super::temperature`]) acts on the scores
//! q·k/√d, inside every layer. Each generated step draws from its own named stream
//! (`sample:<step>`) of the seed, so a seed and a step give the same u on every machine.

use super::rng::SeededRng;

/// The slider's range for the sampling temperature T (0 is greedy).
pub const TEMPERATURE_RANGE: (f64, f64) = (0.0, 2.0);

/// How the next token is chosen: the sampling temperature T and how many tokens top-k keeps.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Sampler {
    /// T ≥ 0, on the logits; 0 means greedy.
    pub temperature: f64,
    /// Keep the k most likely tokens (at least 1; `k ≥ vocab` keeps them all).
    pub top_k: usize,
}

impl Sampler {
    /// Greedy choice: always the most likely token.
    pub const GREEDY: Self = Self {
        temperature: 0.0,
        top_k: usize::MAX,
    };

    /// Whether this sampler needs no draw (T = 0 or top-k = 1).
    pub fn is_greedy(&self) -> bool {
        self.temperature <= 0.0 || self.top_k <= 1
    }

    /// The distribution the next token is drawn from: probabilities over the whole vocabulary,
    /// 0 outside the top k, summing to 1 (to rounding). Greedy gives 1 on the argmax.
    pub fn distribution(&self, logits: &[f64]) -> Vec<f64> {
        let mut probs = vec![0.0; logits.len()];
        if logits.is_empty() {
            return probs;
        }
        if self.is_greedy() {
            probs[argmax(logits)] = 1.0;
            return probs;
        }
        let kept = top_k_ids(logits, self.top_k);
        let max = logits[kept[0]];
        let mut sum = 0.0;
        for &i in &kept {
            let p = ((logits[i] - max) / self.temperature).exp();
            probs[i] = p;
            sum += p;
        }
        for &i in &kept {
            probs[i] /= sum;
        }
        probs
    }

    /// The token chosen from `logits` with the uniform draw `u` (ignored when greedy).
    pub fn choose(&self, logits: &[f64], u: f64) -> usize {
        if self.is_greedy() {
            return argmax(logits);
        }
        inverse_cdf(&self.distribution(logits), u)
    }
}

/// The uniform draw of generated step `step` (0 for the first generated token) under `seed`.
pub fn draw(seed: u64, step: usize) -> f64 {
    SeededRng::stream(seed, &format!("sample:{step}")).next_open01()
}

/// The index of the largest value, the lowest index among equals; NaN never wins.
pub fn argmax(values: &[f64]) -> usize {
    let mut best = 0;
    for (i, &v) in values.iter().enumerate() {
        if v > values[best] || values[best].is_nan() {
            best = i;
        }
    }
    best
}

/// The ids of the `k` largest logits, largest first (ties: lower id first).
pub fn top_k_ids(logits: &[f64], k: usize) -> Vec<usize> {
    let mut ids: Vec<usize> = (0..logits.len()).collect();
    ids.sort_by(|&a, &b| logits[b].total_cmp(&logits[a]).then(a.cmp(&b)));
    ids.truncate(k.clamp(1, logits.len().max(1)));
    ids
}

/// Every token with a non-zero probability, in id order, with the running total of `probs`
/// before and after it: the share of (0, 1) in which the draw u picks it.
pub fn shares(probs: &[f64]) -> impl Iterator<Item = (usize, f64, f64)> + '_ {
    probs
        .iter()
        .enumerate()
        .filter(|&(_, &p)| p > 0.0)
        .scan(0.0, |total, (i, &p)| {
            let start = *total;
            *total += p;
            Some((i, start, *total))
        })
}

/// The first id whose running total of `probs` exceeds `u`; the last id with a non-zero
/// probability if rounding leaves the total at or below `u`.
pub fn inverse_cdf(probs: &[f64], u: f64) -> usize {
    let mut last = 0;
    for (i, _, end) in shares(probs) {
        last = i;
        if end > u {
            return i;
        }
    }
    last
}

#[cfg(test)]
mod tests {
    use super::*;

    fn random_logits(seed: u64, n: usize) -> Vec<f64> {
        let mut rng = SeededRng::stream(seed, "sampling-test");
        (0..n).map(|_| 3.0 * rng.normal()).collect()
    }

    #[test]
    fn distributions_sum_to_one_and_keep_only_the_top_k() {
        for seed in 0..200 {
            let n = 2 + (seed as usize % 40);
            let logits = random_logits(seed, n);
            for k in [1, 2, 3, n / 2, n, n + 5] {
                for t in [0.0, 1e-9, 0.05, 0.5, 1.0, 1.7, 2.0] {
                    let p = Sampler {
                        temperature: t,
                        top_k: k,
                    }
                    .distribution(&logits);
                    let sum: f64 = p.iter().sum();
                    assert!((sum - 1.0).abs() < 1e-12, "sum {sum}");
                    assert!(p.iter().all(|x| x.is_finite() && *x >= 0.0));
                    let nonzero = p.iter().filter(|x| **x > 0.0).count();
                    assert!(nonzero <= k.clamp(1, n), "{nonzero} > {k}");
                }
            }
        }
    }

    #[test]
    fn temperature_zero_and_top_one_are_the_argmax() {
        for seed in 0..200 {
            let logits = random_logits(seed, 17);
            let best = argmax(&logits);
            for u in [1e-9, 0.3, 0.999_999] {
                assert_eq!(Sampler::GREEDY.choose(&logits, u), best);
                let top1 = Sampler {
                    temperature: 1.3,
                    top_k: 1,
                };
                assert_eq!(top1.choose(&logits, u), best);
                // T → 0 approaches greedy: a tiny T puts all the mass on the argmax.
                let tiny = Sampler {
                    temperature: 1e-12,
                    top_k: usize::MAX,
                };
                assert_eq!(tiny.choose(&logits, u), best);
            }
        }
    }

    #[test]
    fn top_k_of_the_whole_vocabulary_is_plain_sampling() {
        for seed in 0..100 {
            let logits = random_logits(seed, 12);
            let all = Sampler {
                temperature: 1.0,
                top_k: 12,
            };
            let max = logits.iter().copied().fold(f64::NEG_INFINITY, f64::max);
            let sum: f64 = logits.iter().map(|l| (l - max).exp()).sum();
            for (p, l) in all.distribution(&logits).iter().zip(&logits) {
                assert!((p - (l - max).exp() / sum).abs() < 1e-15);
            }
        }
    }

    #[test]
    fn ties_go_to_the_lower_id_and_nan_never_wins() {
        assert_eq!(argmax(&[1.0, 3.0, 3.0, 2.0]), 1);
        assert_eq!(argmax(&[f64::NAN, 0.5, 0.5]), 1);
        assert_eq!(top_k_ids(&[2.0, 5.0, 5.0, 1.0], 2), vec![1, 2]);
    }

    #[test]
    fn the_draw_picks_by_the_running_total() {
        let probs = [0.25, 0.0, 0.5, 0.25];
        assert_eq!(inverse_cdf(&probs, 0.1), 0);
        assert_eq!(inverse_cdf(&probs, 0.25), 2);
        assert_eq!(inverse_cdf(&probs, 0.74), 2);
        assert_eq!(inverse_cdf(&probs, 0.76), 3);
        assert_eq!(inverse_cdf(&probs, 1.0), 3);
    }

    #[test]
    fn draws_repeat_from_the_seed_and_differ_by_step() {
        assert_eq!(draw(3, 5).to_bits(), draw(3, 5).to_bits());
        assert_ne!(draw(3, 5), draw(3, 6));
        assert_ne!(draw(3, 5), draw(4, 5));
        assert!((0..1000).all(|s| (0.0..1.0).contains(&draw(1, s))));
    }
}
