//! Notebook step 4 as an experiment: how peaky is softmax over one query's scores against 8 keys,
//! with and without dividing by √d, as the head size d grows?

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

/// Mean and 10th/90th percentiles of the largest softmax weight.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Spread {
    pub mean: f64,
    pub p10: f64,
    pub p90: f64,
}

/// One head size's result.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct LabPoint {
    pub head_size: usize,
    pub unscaled: Spread,
    pub scaled: Spread,
}

fn max_softmax_weight(scores: &[f64], scale: f64) -> f64 {
    let max = scores.iter().copied().fold(f64::NEG_INFINITY, f64::max);
    let sum: f64 = scores.iter().map(|s| ((s - max) * scale).exp()).sum();
    // The maximum entry contributes exp(0) = 1.
    1.0 / sum
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
        p90: at(0.9),
    }
}

/// `draws` seeded experiments at head size `d`: q ~ N(0, I), 8 keys ~ N(0, I), scores `K q`.
pub fn lab_point(head_size: usize, draws: usize, seed: u64) -> LabPoint {
    let d = head_size.max(1);
    let mut rng = SeededRng::stream(seed, &format!("scaling-lab:{d}"));
    let mut unscaled = Vec::with_capacity(draws);
    let mut scaled = Vec::with_capacity(draws);
    let mut q = vec![0.0; d];
    let mut scores = [0.0; KEYS];
    for _ in 0..draws.max(1) {
        for x in &mut q {
            *x = rng.normal();
        }
        for s in &mut scores {
            *s = q.iter().map(|qi| qi * rng.normal()).sum();
        }
        unscaled.push(max_softmax_weight(&scores, 1.0));
        scaled.push(max_softmax_weight(&scores, 1.0 / (d as f64).sqrt()));
    }
    LabPoint {
        head_size: d,
        unscaled: spread(unscaled),
        scaled: spread(scaled),
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
}
