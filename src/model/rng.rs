//! A tiny, documented, deterministic random number generator.
//!
//! Every random quantity in the app is drawn from a *named stream*: the stream's starting state is
//! `seed ^ fnv1a64(label)`, stepped by `SplitMix64` (Steele, Lea & Flood, 2014). Normals come from the
//! Box–Muller transform. Naming the stream (for example `"embedding:cat"` or `"w_q"`) means a word's
//! vector never depends on which other words are in the sentence, and a matrix never depends on the
//! order in which things were generated. No OS randomness is used anywhere, so a seed reproduces a
//! view exactly on every machine.

/// FNV-1a, 64-bit: a stable hash of a label (std's hashers are not stable across releases).
pub fn fnv1a64(bytes: &[u8]) -> u64 {
    let mut hash: u64 = 0xcbf2_9ce4_8422_2325;
    for &b in bytes {
        hash ^= u64::from(b);
        hash = hash.wrapping_mul(0x0100_0000_01b3);
    }
    hash
}

/// `SplitMix64` with a cached second Box–Muller normal.
#[derive(Debug, Clone)]
pub struct SeededRng {
    state: u64,
    spare_normal: Option<f64>,
}

impl SeededRng {
    /// The stream named `label` under `seed`.
    pub fn stream(seed: u64, label: &str) -> Self {
        Self {
            state: seed ^ fnv1a64(label.as_bytes()),
            spare_normal: None,
        }
    }

    pub fn next_u64(&mut self) -> u64 {
        self.state = self.state.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.state;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }

    /// Uniform in the open interval (0, 1): never 0, so `ln` below is always finite.
    pub fn next_open01(&mut self) -> f64 {
        ((self.next_u64() >> 11) as f64 + 0.5) / (1u64 << 53) as f64
    }

    /// A standard normal N(0, 1) draw (Box–Muller; the second value of each pair is kept).
    pub fn normal(&mut self) -> f64 {
        if let Some(z) = self.spare_normal.take() {
            return z;
        }
        let u1 = self.next_open01();
        let u2 = self.next_open01();
        let radius = (-2.0 * u1.ln()).sqrt();
        let angle = std::f64::consts::TAU * u2;
        self.spare_normal = Some(radius * angle.sin());
        radius * angle.cos()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fnv1a_matches_published_vectors() {
        assert_eq!(fnv1a64(b""), 0xcbf2_9ce4_8422_2325);
        assert_eq!(fnv1a64(b"a"), 0xaf63_dc4c_8601_ec8c);
        assert_eq!(fnv1a64(b"foobar"), 0x8594_4171_f739_67e8);
    }

    #[test]
    fn streams_are_reproducible_and_distinct() {
        let a: Vec<u64> = (0..4)
            .map({
                let mut r = SeededRng::stream(7, "x");
                move |_| r.next_u64()
            })
            .collect();
        let b: Vec<u64> = (0..4)
            .map({
                let mut r = SeededRng::stream(7, "x");
                move |_| r.next_u64()
            })
            .collect();
        let c: Vec<u64> = (0..4)
            .map({
                let mut r = SeededRng::stream(7, "y");
                move |_| r.next_u64()
            })
            .collect();
        assert_eq!(a, b);
        assert_ne!(a, c);
    }

    #[test]
    fn normals_have_unit_moments() {
        let mut rng = SeededRng::stream(1337, "moments");
        let n = 200_000;
        let draws: Vec<f64> = (0..n).map(|_| rng.normal()).collect();
        let mean = draws.iter().sum::<f64>() / f64::from(n);
        let var = draws.iter().map(|x| (x - mean).powi(2)).sum::<f64>() / f64::from(n);
        assert!(mean.abs() < 0.01, "mean {mean}");
        assert!((var - 1.0).abs() < 0.02, "variance {var}");
        assert!(draws.iter().all(|x| x.is_finite()));
    }
}
