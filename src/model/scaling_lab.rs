//! Notebook step 4 as an experiment: how peaky is softmax over one query's scores against 8 keys,
//! with and without dividing by √d, as the head size d grows?
//!
//! Besides the largest weight, each head size reports why peakiness matters and where it comes
//! from: the variance of the scores q·k (d for unit-normal entries, 1 once divided by √d), and how
//! much gradient reaches the query. Training changes q by the gradient of the loss with respect to
//! it; that gradient passes through the softmax, whose Jacobian `diag(p) − p pᵀ` is close to zero
//! for a nearly one-hot row, and through the scores, `∂s/∂q = k` unscaled or `k/√d` scaled. With a
//! random unit-normal gradient arriving at the 8 weights (the lab's own stream), each draw gives
//! `‖∂L/∂q‖` both ways: without the scaling its mean is larger (the unsaturated rows pass a lot,
//! through keys √d times longer) while, from d = 64 on, its median falls below the scaled one
//! (more and more rows are saturated and pass almost nothing: 40 % at d = 64, 73 % at 512). [`times_eight`] is the lab's first draw at d = 64, where leaving out the
//! division by √d = 8 multiplies every score by 8.

use super::rng::SeededRng;

/// Keys per draw, as in the notebook.
pub const KEYS: usize = 8;
/// Seeded draws per head size.
pub const DRAWS: usize = 1_000;
/// The lab's own seed: fixed, and independent of the page's seed, so every reader sees the
/// same bands whatever weights they are exploring.
pub const LAB_SEED: u64 = 1337;
/// Head sizes on the chart: powers of two from 1 to 512.
pub const HEAD_SIZES: [usize; 10] = [1, 2, 4, 8, 16, 32, 64, 128, 256, 512];
/// The single draws the notebook printed: (head size, unscaled max, scaled max).
pub const NOTEBOOK_DRAWS: [(usize, f64, f64); 2] = [(16, 0.87, 0.32), (256, 0.94, 0.24)];

/// A row counts as saturated when its largest weight is above this.
pub const SATURATED: f64 = 0.99;

/// Mean, median and 10th/90th percentiles of a number over the draws.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Spread {
    pub mean: f64,
    pub p10: f64,
    pub median: f64,
    pub p90: f64,
}

/// One head size's result.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct LabPoint {
    pub head_size: usize,
    pub unscaled: Spread,
    pub scaled: Spread,
    /// How many scores q·k the variances are taken over (draws × keys).
    pub scores: usize,
    /// Sample variance of the raw scores q·k (expected: d).
    pub variance_unscaled: f64,
    /// Sample variance of q·k/√d (expected: 1).
    pub variance_scaled: f64,
    /// `‖∂L/∂q‖` over the draws for a unit-normal gradient arriving at the weights, raw scores.
    pub gradient_unscaled: Spread,
    /// The same with the scores divided by √d.
    pub gradient_scaled: Spread,
    /// The share of draws whose largest weight is above [`SATURATED`], raw scores.
    pub saturated_unscaled: f64,
    /// The same with the scores divided by √d.
    pub saturated_scaled: f64,
    /// The mean of `‖∂L/∂q‖` (raw scores) over the saturated draws, and over the others (0 where
    /// there are none): where the unscaled mean comes from.
    pub gradient_unscaled_by_saturation: (f64, f64),
}

/// Step 4's worked example: two keys with scores `(0, gap)`, and the first score nudged up by
/// `nudge`. The first key's weight before and after: near 1/2 it moves by about `nudge / 4`, and
/// when the other key takes nearly everything it barely moves (the softmax's slope
/// `p(1 − p)` is nearly 0 there), which is why a saturated row passes little gradient back.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct TwoKeyNudge {
    pub gap: f64,
    pub nudge: f64,
    /// The first key's weight with scores `(0, gap)`.
    pub before: f64,
    /// Its weight with scores `(nudge, gap)`.
    pub after: f64,
}

/// The two-key example at score gap `gap` (see [`TwoKeyNudge`]).
pub fn two_key_nudge(gap: f64, nudge: f64) -> TwoKeyNudge {
    TwoKeyNudge {
        gap,
        nudge,
        before: softmax_scaled(&[0.0, gap], 1.0)[0],
        after: softmax_scaled(&[nudge, gap], 1.0)[0],
    }
}

/// The two cases the lesson shows: close scores, and scores 8 apart (the lab's ×8 at d = 64).
pub const TWO_KEY_GAPS: [f64; 2] = [1.0, 8.0];
/// The nudge the lesson gives the first score.
pub const TWO_KEY_NUDGE: f64 = 0.5;

/// Softmax of `scores × scale` (row maximum subtracted first).
fn softmax_scaled(scores: &[f64], scale: f64) -> Vec<f64> {
    let max = scores.iter().copied().fold(f64::NEG_INFINITY, f64::max);
    let e: Vec<f64> = scores.iter().map(|s| ((s - max) * scale).exp()).collect();
    let sum: f64 = e.iter().sum();
    e.iter().map(|x| x / sum).collect()
}

fn max_softmax_weight(scores: &[f64], scale: f64) -> f64 {
    let max = scores.iter().copied().fold(f64::NEG_INFINITY, f64::max);
    let sum: f64 = scores.iter().map(|s| ((s - max) * scale).exp()).sum();
    // The maximum entry contributes exp(0) = 1.
    1.0 / sum
}

/// Sample variance (divided by n − 1) of `values`.
fn sample_variance(values: &[f64]) -> f64 {
    let n = values.len() as f64;
    let mean = values.iter().sum::<f64>() / n;
    values.iter().map(|x| (x - mean) * (x - mean)).sum::<f64>() / (n - 1.0).max(1.0)
}

fn spread(mut values: Vec<f64>) -> Spread {
    // Unstable is enough (values equal under `total_cmp` are the same bits) and shares the sort
    // the reactive runtime already links, instead of adding the stable one to the wasm.
    values.sort_unstable_by(f64::total_cmp);
    let n = values.len();
    let mean = values.iter().sum::<f64>() / n as f64;
    let at = |q: f64| values[((q * (n - 1) as f64).round() as usize).min(n - 1)];
    Spread {
        mean,
        p10: at(0.1),
        median: at(0.5),
        p90: at(0.9),
    }
}

/// `‖∂L/∂q‖` for one query: the scores `K q` (raw, `keys` row by row, `KEYS` × d) multiplied by
/// `scale`, softmaxed, and the gradient `upstream` arriving at the weights carried back through
/// the softmax (`∂L/∂s_j = p_j (g_j − p·g)`) and the scores (`∂s_j/∂q = scale · k_j`).
pub fn query_gradient_norm(keys: &[f64], scores: &[f64], scale: f64, upstream: &[f64]) -> f64 {
    let p = softmax_scaled(scores, scale);
    let mean: f64 = p.iter().zip(upstream).map(|(p, g)| p * g).sum();
    let d = keys.len() / scores.len().max(1);
    let mut grad = vec![0.0; d];
    for (j, (p, g)) in p.iter().zip(upstream).enumerate() {
        let through_softmax = p * (g - mean) * scale;
        for (x, k) in grad.iter_mut().zip(&keys[j * d..(j + 1) * d]) {
            *x += through_softmax * k;
        }
    }
    grad.iter().map(|x| x * x).sum::<f64>().sqrt()
}

/// `draws` seeded experiments at head size `d`: q ~ N(0, I), 8 keys ~ N(0, I), scores `K q`.
pub fn lab_point(head_size: usize, draws: usize, seed: u64) -> LabPoint {
    let d = head_size.max(1);
    let mut rng = SeededRng::stream(seed, &format!("scaling-lab:{d}"));
    // The gradients have their own stream, so the scores are the same draws as without them.
    let mut upstream_rng = SeededRng::stream(seed, &format!("scaling-lab-gradient:{d}"));
    let mut unscaled = Vec::with_capacity(draws);
    let mut scaled = Vec::with_capacity(draws);
    let mut gradient_unscaled = Vec::with_capacity(draws);
    let mut gradient_scaled = Vec::with_capacity(draws);
    let mut all_scores = Vec::with_capacity(draws.max(1) * KEYS);
    let scale = 1.0 / (d as f64).sqrt();
    let mut q = vec![0.0; d];
    let mut keys = vec![0.0; KEYS * d];
    let mut scores = [0.0; KEYS];
    let mut upstream = [0.0; KEYS];
    for _ in 0..draws.max(1) {
        draw_scores(&mut rng, &mut q, &mut keys, &mut scores);
        for g in &mut upstream {
            *g = upstream_rng.normal();
        }
        unscaled.push(max_softmax_weight(&scores, 1.0));
        scaled.push(max_softmax_weight(&scores, scale));
        gradient_unscaled.push(query_gradient_norm(&keys, &scores, 1.0, &upstream));
        gradient_scaled.push(query_gradient_norm(&keys, &scores, scale, &upstream));
        all_scores.extend_from_slice(&scores);
    }
    let share = |v: &[f64]| v.iter().filter(|&&w| w > SATURATED).count() as f64 / v.len() as f64;
    let (saturated_unscaled, saturated_scaled) = (share(&unscaled), share(&scaled));
    let mean_where = |saturated: bool| {
        let picked: Vec<f64> = unscaled
            .iter()
            .zip(&gradient_unscaled)
            .filter(|(w, _)| (**w > SATURATED) == saturated)
            .map(|(_, g)| *g)
            .collect();
        picked.iter().sum::<f64>() / picked.len().max(1) as f64
    };
    let gradient_unscaled_by_saturation = (mean_where(true), mean_where(false));
    let variance_unscaled = sample_variance(&all_scores);
    let scaled_scores: Vec<f64> = all_scores.iter().map(|s| s * scale).collect();
    LabPoint {
        head_size: d,
        unscaled: spread(unscaled),
        scaled: spread(scaled),
        gradient_unscaled: spread(gradient_unscaled),
        gradient_scaled: spread(gradient_scaled),
        saturated_unscaled,
        saturated_scaled,
        gradient_unscaled_by_saturation,
        scores: all_scores.len(),
        variance_unscaled,
        variance_scaled: sample_variance(&scaled_scores),
    }
}

/// One draw: a unit-normal query `q` and `KEYS` unit-normal keys (`keys`, row by row), drawn one
/// by one, giving the scores `K q`.
fn draw_scores(rng: &mut SeededRng, q: &mut [f64], keys: &mut [f64], scores: &mut [f64; KEYS]) {
    for x in q.iter_mut() {
        *x = rng.normal();
    }
    let d = q.len();
    for (s, key) in scores.iter_mut().zip(keys.chunks_mut(d)) {
        for k in key.iter_mut() {
            *k = rng.normal();
        }
        *s = q.iter().zip(key.iter()).map(|(qi, ki)| qi * ki).sum();
    }
}

/// The head size of the ×8 example: √64 = 8.
pub const TIMES_EIGHT_D: usize = 64;

/// The ×8 example: the lab's first draw at d = 64, softmaxed after dividing by √d = 8 (scaled)
/// and without it, which is the same as multiplying the scaled scores by 8.
#[derive(Debug, Clone, PartialEq)]
pub struct TimesEight {
    /// The scaled scores q·k/8.
    pub scaled: [f64; KEYS],
    /// softmax of the scaled scores.
    pub weights: Vec<f64>,
    /// 8 × the scaled scores.
    pub times_eight: [f64; KEYS],
    /// softmax of 8 × the scaled scores.
    pub weights_times_eight: Vec<f64>,
    /// Largest difference between `weights_times_eight` and the softmax of the raw scores
    /// (rounding only: ×8 undoes ÷8).
    pub diff_from_raw: f64,
}

/// The ×8 example from the lab's stream `seed` (see [`TimesEight`]).
pub fn times_eight(seed: u64) -> TimesEight {
    let d = TIMES_EIGHT_D;
    let mut rng = SeededRng::stream(seed, &format!("scaling-lab:{d}"));
    let mut q = vec![0.0; d];
    let mut keys = vec![0.0; KEYS * d];
    let mut raw = [0.0; KEYS];
    draw_scores(&mut rng, &mut q, &mut keys, &mut raw);
    let root = (d as f64).sqrt();
    let scaled = raw.map(|s| s / root);
    let times_eight = scaled.map(|s| 8.0 * s);
    let weights_times_eight = softmax_scaled(&times_eight, 1.0);
    let diff_from_raw = softmax_scaled(&raw, 1.0)
        .iter()
        .zip(&weights_times_eight)
        .map(|(a, b)| (a - b).abs())
        .fold(0.0, f64::max);
    TimesEight {
        weights: softmax_scaled(&scaled, 1.0),
        scaled,
        times_eight,
        weights_times_eight,
        diff_from_raw,
    }
}

/// The whole chart's data.
pub fn scaling_lab(draws: usize, seed: u64) -> Vec<LabPoint> {
    HEAD_SIZES
        .iter()
        .map(|&d| lab_point(d, draws, seed))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn unscaled_grows_peaky_scaled_stays_soft() {
        let p16 = lab_point(16, 2_000, LAB_SEED);
        let p256 = lab_point(256, 2_000, LAB_SEED);
        assert!((p16.unscaled.mean - 0.75).abs() < 0.04, "{p16:?}");
        assert!((p256.unscaled.mean - 0.94).abs() < 0.03, "{p256:?}");
        for p in [p16, p256] {
            assert!((p.scaled.mean - 0.36).abs() < 0.04, "{p:?}");
        }
    }

    #[test]
    fn the_notebook_draws_fall_inside_the_bands() {
        for (d, unscaled, scaled) in NOTEBOOK_DRAWS {
            let p = lab_point(d, DRAWS, LAB_SEED);
            assert!(
                p.unscaled.p10 <= unscaled && unscaled <= p.unscaled.p90,
                "{p:?}"
            );
            assert!(p.scaled.p10 <= scaled && scaled <= p.scaled.p90, "{p:?}");
        }
    }

    #[test]
    fn bands_are_ordered_and_reproducible() {
        for p in scaling_lab(200, 7) {
            for s in [p.unscaled, p.scaled] {
                assert!(s.p10 <= s.p90 && s.p10 >= 1.0 / KEYS as f64 - 1e-12 && s.p90 <= 1.0);
            }
        }
        assert_eq!(lab_point(64, 100, 9), lab_point(64, 100, 9));
    }

    /// The lab's variances are d and 1 within 5 standard errors. For unit-normal q and k, q·k
    /// has variance d and fourth moment 3d² + 6d, so the sample variance of n independent scores
    /// has standard error √((2d² + 6d)/n); scores of one draw share q, so n is taken as the
    /// number of draws (the conservative end), not draws × keys.
    #[test]
    fn score_variance_is_d_unscaled_and_one_scaled() {
        for p in scaling_lab(DRAWS, LAB_SEED) {
            let d = p.head_size as f64;
            assert_eq!(p.scores, DRAWS * KEYS);
            let relative_se = ((2.0 + 6.0 / d) / DRAWS as f64).sqrt();
            assert!(
                (p.variance_unscaled / d - 1.0).abs() < 5.0 * relative_se,
                "{p:?}"
            );
            assert!((p.variance_scaled - 1.0).abs() < 5.0 * relative_se, "{p:?}");
            // Dividing every score by √d divides the variance by d exactly (up to rounding).
            assert!((p.variance_unscaled / d - p.variance_scaled).abs() < 1e-12 * d);
        }
        // The estimator itself, by hand: 1, 2, 3, 4 has mean 2.5 and variance 5/3.
        assert!((sample_variance(&[1.0, 2.0, 3.0, 4.0]) - 5.0 / 3.0).abs() < 1e-15);
    }

    #[test]
    fn times_eight_is_the_unscaled_softmax_at_d_64() {
        let x = times_eight(LAB_SEED);
        // The scores are the first draw of the d = 64 stream, divided by 8.
        let mut rng = SeededRng::stream(LAB_SEED, "scaling-lab:64");
        let q: Vec<f64> = (0..64).map(|_| rng.normal()).collect();
        for j in 0..KEYS {
            let raw: f64 = q.iter().map(|qi| qi * rng.normal()).sum();
            assert!((x.scaled[j] - raw / 8.0).abs() < 1e-15);
            assert!((x.times_eight[j] - raw).abs() < 1e-12);
        }
        // Softmax by hand, and the check the page shows.
        let by_hand = |s: &[f64]| {
            let e: Vec<f64> = s.iter().map(|v| v.exp()).collect();
            let sum: f64 = e.iter().sum();
            e.into_iter().map(|v| v / sum).collect::<Vec<f64>>()
        };
        for (a, b) in x.weights.iter().zip(by_hand(&x.scaled)) {
            assert!((a - b).abs() < 1e-15);
        }
        for (a, b) in x.weights_times_eight.iter().zip(by_hand(&x.times_eight)) {
            assert!((a - b).abs() < 1e-12);
        }
        assert!(x.diff_from_raw < 1e-12);
        // Multiplying by 8 sharpens: the top weight grows (softmax of c·s is monotone in c).
        let top = |w: &[f64]| w.iter().copied().fold(0.0, f64::max);
        assert!(top(&x.weights_times_eight) > top(&x.weights));
    }

    /// `query_gradient_norm` against central finite differences of the loss
    /// `L(q) = g · softmax(scale · K q)`, for several head sizes and both scales.
    #[test]
    fn the_query_gradient_matches_finite_differences() {
        let mut rng = SeededRng::stream(9, "gradient-check");
        for d in [1usize, 4, 16] {
            let (mut q, mut keys, mut scores) = (vec![0.0; d], vec![0.0; KEYS * d], [0.0; KEYS]);
            draw_scores(&mut rng, &mut q, &mut keys, &mut scores);
            let g: Vec<f64> = (0..KEYS).map(|_| rng.normal()).collect();
            for scale in [1.0, 1.0 / (d as f64).sqrt()] {
                let loss = |q: &[f64]| {
                    let s: Vec<f64> = keys
                        .chunks(d)
                        .map(|k| k.iter().zip(q).map(|(a, b)| a * b).sum())
                        .collect();
                    softmax_scaled(&s, scale)
                        .iter()
                        .zip(&g)
                        .map(|(p, g)| p * g)
                        .sum::<f64>()
                };
                let h = 1e-6;
                let numeric: f64 = (0..d)
                    .map(|i| {
                        let (mut up, mut down) = (q.clone(), q.clone());
                        up[i] += h;
                        down[i] -= h;
                        ((loss(&up) - loss(&down)) / (2.0 * h)).powi(2)
                    })
                    .sum::<f64>()
                    .sqrt();
                let exact = query_gradient_norm(&keys, &scores, scale, &g);
                assert!(
                    (exact - numeric).abs() <= 1e-6 * numeric.max(1.0),
                    "d {d}: {exact} vs {numeric}"
                );
            }
        }
    }

    /// The picture step 4 teaches, computed: at d = 1 the scaling is no change at all; as d grows,
    /// the unscaled mean gradient reaching q is the larger (about 3× at d = 256) while its median
    /// collapses (over 10× smaller than the scaled one at d = 256), because most unscaled rows
    /// are saturated (above 99 % on one key) and pass almost nothing; scaled rows never saturate
    /// here and their gradient hardly depends on d.
    #[test]
    fn without_scaling_most_rows_pass_almost_nothing_and_a_few_pass_a_lot() {
        let one = lab_point(1, DRAWS, LAB_SEED);
        assert_eq!(one.gradient_unscaled, one.gradient_scaled);
        let p16 = lab_point(16, DRAWS, LAB_SEED);
        let p256 = lab_point(256, DRAWS, LAB_SEED);
        assert!(
            p256.gradient_unscaled.mean > 2.0 * p256.gradient_scaled.mean,
            "{p256:?}"
        );
        assert!(
            p16.gradient_unscaled.mean > 1.5 * p16.gradient_scaled.mean,
            "{p16:?}"
        );
        assert!(
            p256.gradient_unscaled.median < 0.1 * p256.gradient_scaled.median,
            "{p256:?}"
        );
        assert!(
            p256.saturated_unscaled > 0.5 && p256.saturated_scaled == 0.0,
            "{p256:?}"
        );
        for p in [p16, p256] {
            assert!(p.gradient_unscaled.p10 <= p.gradient_unscaled.median);
            assert!(p.gradient_unscaled.median <= p.gradient_unscaled.p90);
        }
        assert!((p256.gradient_scaled.median / p16.gradient_scaled.median - 1.0).abs() < 0.2);
    }
}
