//! Seeded inputs: token embeddings, sinusoidal positions and the projection matrices (`W_q`, `W_k`,
//! `W_v`, and the output projection `W_o` that mixes the heads' concatenated outputs).
use super::host::lowercase;
use super::rng::SeededRng;
use nalgebra::DMatrix;

/// Width of every token vector.
pub const D_MODEL: usize = 32;
/// The seed a fresh page uses.
pub const DEFAULT_SEED: u64 = 1337;
/// Head counts the app offers; each splits `D_MODEL` evenly.
pub const HEAD_CHOICES: [usize; 4] = [1, 2, 4, 8];
/// Two heads of 16: the notebook's head size with `D_MODEL = 32`.
pub const DEFAULT_HEADS: usize = 2;

/// A token's embedding: `d_model` N(0, 1) entries from the stream named after the lower-cased
/// token, so "The" and "the" share a vector and a word's vector never depends on its neighbours.
pub fn token_embedding(token: &str, seed: u64, d_model: usize) -> Vec<f64> {
    let mut rng = SeededRng::stream(seed, &format!("embedding:{}", lowercase(token)));
    (0..d_model).map(|_| rng.normal()).collect()
}

/// T × `d_model` matrix of token embeddings, one row per token.
pub fn embed(tokens: &[String], seed: u64, d_model: usize) -> DMatrix<f64> {
    let mut x = DMatrix::<f64>::zeros(tokens.len(), d_model);
    for (i, token) in tokens.iter().enumerate() {
        for (c, value) in token_embedding(token, seed, d_model)
            .into_iter()
            .enumerate()
        {
            x[(i, c)] = value;
        }
    }
    x
}

/// The sine–cosine position code of "Attention Is All You Need":
/// `PE[p, 2i] = sin(p / 10000^(2i/d))`, `PE[p, 2i+1] = cos(p / 10000^(2i/d))`.
pub fn sinusoidal_positions(t: usize, d_model: usize) -> DMatrix<f64> {
    DMatrix::from_fn(t, d_model, |p, c| {
        let pair = (c / 2) as f64;
        let angle = p as f64 / 10_000f64.powf(2.0 * pair / d_model as f64);
        if c % 2 == 0 {
            angle.sin()
        } else {
            angle.cos()
        }
    })
}

/// The three projections as full `d_model × d_model` matrices with N(0, `1/d_model`) entries, so a
/// query or key component has unit variance and `q · k` over a head of size d has variance ≈ d.
/// Head `h` of `n` uses columns `h·d .. (h+1)·d` with `d = d_model / n`, as in the article's
/// multi-head code, so a head's weights do not change when another head is added.
///
/// `w_o` (`d_model × d_model`, same distribution) takes the heads' outputs, concatenated side by
/// side into T × `d_model`, to the layer's output. It is a stream of its own, so adding it changed
/// no other number.
#[derive(Debug, Clone, PartialEq)]
pub struct Projections {
    pub w_q: DMatrix<f64>,
    pub w_k: DMatrix<f64>,
    pub w_v: DMatrix<f64>,
    pub w_o: DMatrix<f64>,
}

/// A `d_model × d_model` matrix with N(0, `1/d_model`) entries from the stream `label`, filled
/// row by row so the documented stream order is the row-major order of the JSON.
fn seeded_matrix(seed: u64, label: &str, d_model: usize) -> DMatrix<f64> {
    let std_dev = 1.0 / (d_model.max(1) as f64).sqrt();
    let mut rng = SeededRng::stream(seed, label);
    let mut m = DMatrix::<f64>::zeros(d_model, d_model);
    for r in 0..d_model {
        for c in 0..d_model {
            m[(r, c)] = rng.normal() * std_dev;
        }
    }
    m
}

impl Projections {
    pub fn seeded(seed: u64, d_model: usize) -> Self {
        Self {
            w_q: seeded_matrix(seed, "w_q", d_model),
            w_k: seeded_matrix(seed, "w_k", d_model),
            w_v: seeded_matrix(seed, "w_v", d_model),
            w_o: seeded_matrix(seed, "w_o", d_model),
        }
    }

    /// Columns of head `head` when `d_model` is split into `heads` heads.
    pub fn head_columns(
        &self,
        heads: usize,
        head: usize,
    ) -> (DMatrix<f64>, DMatrix<f64>, DMatrix<f64>) {
        let d = self.w_q.ncols() / heads.max(1);
        let start = head * d;
        (
            self.w_q.columns(start, d).into_owned(),
            self.w_k.columns(start, d).into_owned(),
            self.w_v.columns(start, d).into_owned(),
        )
    }
}

/// Whether `heads` is one of the offered head counts (a link may carry any number).
pub fn valid_heads(heads: usize) -> bool {
    HEAD_CHOICES.contains(&heads)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn same_word_same_vector_regardless_of_case_and_context() {
        let tokens: Vec<String> = ["The", "cat", "the"]
            .iter()
            .map(std::string::ToString::to_string)
            .collect();
        let x = embed(&tokens, DEFAULT_SEED, D_MODEL);
        assert_eq!(x.row(0), x.row(2));
        assert_ne!(x.row(0), x.row(1));
        let alone = embed(&tokens[1..2], DEFAULT_SEED, D_MODEL);
        assert_eq!(alone.row(0), x.row(1));
        assert_ne!(embed(&tokens, 1, D_MODEL), x);
    }

    #[test]
    fn projections_have_variance_one_over_d_model() {
        let p = Projections::seeded(DEFAULT_SEED, 256);
        let n = p.w_q.len() as f64;
        let var = p.w_q.iter().map(|x| x * x).sum::<f64>() / n;
        assert!((var * 256.0 - 1.0).abs() < 0.05, "var·d = {}", var * 256.0);
        assert_eq!(p, Projections::seeded(DEFAULT_SEED, 256));
    }

    #[test]
    fn w_o_is_its_own_stream_filled_row_by_row() {
        let p = Projections::seeded(DEFAULT_SEED, 32);
        assert_eq!(p.w_o.shape(), (32, 32));
        // Recomputed by hand from the documented stream: N(0, 1) draws × 1/√32, row by row.
        let mut rng = SeededRng::stream(DEFAULT_SEED, "w_o");
        let scale = 1.0 / 32f64.sqrt();
        for r in 0..32 {
            for c in 0..32 {
                assert_eq!(p.w_o[(r, c)], rng.normal() * scale, "({r}, {c})");
            }
        }
        // A different matrix from the other three, and the others are untouched by it: W_q is
        // still the stream "w_q" from its first draw.
        assert!(p.w_o != p.w_q && p.w_o != p.w_k && p.w_o != p.w_v);
        let mut q = SeededRng::stream(DEFAULT_SEED, "w_q");
        assert_eq!(p.w_q[(0, 0)], q.normal() * scale);
        assert_eq!(p.w_q[(0, 1)], q.normal() * scale);
        let big = Projections::seeded(DEFAULT_SEED, 256);
        let var = big.w_o.iter().map(|x| x * x).sum::<f64>() / big.w_o.len() as f64;
        assert!((var * 256.0 - 1.0).abs() < 0.05, "var·d = {}", var * 256.0);
    }

    #[test]
    fn heads_are_column_slices() {
        let p = Projections::seeded(3, 32);
        let (q1, _, v1) = p.head_columns(2, 1);
        assert_eq!(q1.shape(), (32, 16));
        assert_eq!(q1.column(0), p.w_q.column(16));
        assert_eq!(v1.column(15), p.w_v.column(31));
        let (q8, _, _) = p.head_columns(8, 7);
        assert_eq!(q8.shape(), (32, 4));
        assert_eq!(q8.column(3), p.w_q.column(31));
    }

    #[test]
    fn positions_follow_the_sine_cosine_formula() {
        let pe = sinusoidal_positions(3, 8);
        assert_eq!(pe[(0, 0)], 0.0);
        assert_eq!(pe[(0, 1)], 1.0);
        assert!((pe[(1, 0)] - 1f64.sin()).abs() < 1e-15);
        assert!((pe[(2, 3)] - (2.0 / 10_000f64.powf(2.0 / 8.0)).cos()).abs() < 1e-15);
        // Different positions get different codes, so "The" and "the" stop being identical.
        assert_ne!(pe.row(0), pe.row(1));
    }
}
