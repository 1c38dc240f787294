//! Everything the page shows for one sentence, seed and head count, computed in two stages
//! (τ-independent projections, then the τ-dependent softmax) so the slider stays cheap.

use super::attention::{attend, HeadAttention, HeadProjections, LayerOutput};
use super::train::page::checkpoint_file::Checkpoint;
use super::weights::{embed, sinusoidal_positions, Projections, D_MODEL};
use nalgebra::DMatrix;
use std::sync::Arc;

/// The sentence the explorer opens with.
pub const DEFAULT_SENTENCE: &str = "The cat sat on the mat .";

/// The settings that fix Q, K and V.
#[derive(Debug, Clone, PartialEq)]
pub struct ExplorerConfig {
    pub tokens: Vec<String>,
    pub seed: u64,
    pub heads: usize,
    /// Add sinusoidal position codes to the embeddings before attention.
    pub positions: bool,
}

/// The weights a [`Prepared`] model was built from.
#[derive(Debug, Clone, PartialEq)]
pub enum WeightSource {
    /// Seeded random embeddings and projections (`model::weights`).
    Random,
    /// A trained checkpoint's learned embeddings and layer-1 matrices.
    Trained(Arc<Checkpoint>),
}

/// The τ-independent half: embeddings, weights and each head's Q, K, V and raw scores.
#[derive(Debug, Clone, PartialEq)]
pub struct Prepared {
    pub config: ExplorerConfig,
    pub d_model: usize,
    /// T × `d_model` input to attention (token embedding, plus position code when enabled).
    pub x: DMatrix<f64>,
    pub projections: Projections,
    pub heads: Vec<HeadProjections>,
    /// Where `x` and the projections come from: seeded random numbers or a trained checkpoint.
    /// Views that rebuild the model for other tokens (Shuffle the past) build it from the same.
    pub weights: WeightSource,
}

impl Prepared {
    /// The random model: seeded embeddings (and position codes when on) and projections.
    pub fn new(config: ExplorerConfig) -> Self {
        let d_model = D_MODEL;
        let mut x = embed(&config.tokens, config.seed, d_model);
        if config.positions {
            x += sinusoidal_positions(config.tokens.len(), d_model);
        }
        let projections = Projections::seeded(config.seed, d_model);
        Self::from_parts(config, x, projections, WeightSource::Random)
    }

    /// The model for input `x` (T × `d_model`) and `projections` (`d_model` × `d_model` each),
    /// split into `config.heads` heads: the random model above, or trained weights
    /// (`model::trained`).
    pub fn from_parts(
        config: ExplorerConfig,
        x: DMatrix<f64>,
        projections: Projections,
        weights: WeightSource,
    ) -> Self {
        let d_model = x.ncols();
        let heads = config.heads.clamp(1, d_model);
        let head_list = (0..heads)
            .map(|h| {
                let (w_q, w_k, w_v) = projections.head_columns(heads, h);
                HeadProjections::new(&x, &w_q, &w_k, &w_v)
            })
            .collect();
        Self {
            config: ExplorerConfig { heads, ..config },
            d_model,
            x,
            projections,
            heads: head_list,
            weights,
        }
    }

    pub fn head_size(&self) -> usize {
        self.d_model / self.heads.len().max(1)
    }

    pub fn len(&self) -> usize {
        self.config.tokens.len()
    }

    pub fn is_empty(&self) -> bool {
        self.config.tokens.is_empty()
    }

    /// Every head's weights and output at temperature `tau`.
    pub fn attend_all(&self, tau: f64) -> Vec<HeadAttention> {
        self.heads.iter().map(|h| attend(h, tau)).collect()
    }

    /// Every head's weights only: what the heatmaps need on each slider step. The outputs
    /// (`weights · V`) are left to the views that show them.
    pub fn weights_all(&self, tau: f64) -> Vec<DMatrix<f64>> {
        self.heads.iter().map(|h| h.weights(tau)).collect()
    }

    /// The multi-head layer whose heads' weights are `weights` (in head order, T × T each).
    pub fn layer_output(&self, weights: &[&DMatrix<f64>]) -> LayerOutput {
        let outputs: Vec<DMatrix<f64>> = self
            .heads
            .iter()
            .zip(weights)
            .map(|(head, w)| *w * &head.v)
            .collect();
        let refs: Vec<&DMatrix<f64>> = outputs.iter().collect();
        LayerOutput::new(&refs, &self.projections.w_o)
    }
}

/// The page as it opens — "The cat sat on the mat .", seed 1337 — with `heads` heads and position
/// codes on or off: the one model the native tests of the page's numbers and sentences share.
#[cfg(test)]
pub(crate) fn default_view(heads: usize, positions: bool) -> Prepared {
    Prepared::new(ExplorerConfig {
        tokens: super::tokenizer::tokenize(DEFAULT_SENTENCE),
        seed: super::weights::DEFAULT_SEED,
        heads,
        positions,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::tokenizer::tokenize;
    use crate::model::weights::DEFAULT_SEED;

    fn default_config() -> ExplorerConfig {
        ExplorerConfig {
            tokens: tokenize("The cat sat on the mat ."),
            seed: DEFAULT_SEED,
            heads: 2,
            positions: false,
        }
    }

    #[test]
    fn default_view_has_two_heads_of_sixteen() {
        let p = Prepared::new(default_config());
        assert_eq!((p.len(), p.head_size(), p.heads.len()), (7, 16, 2));
        let att = p.attend_all(1.0);
        for head in &att {
            for i in 0..7 {
                let sum: f64 = head.weights.row(i).iter().sum();
                assert!((sum - 1.0).abs() < 1e-12);
            }
        }
    }

    #[test]
    fn weights_only_matches_full_attention() {
        let p = Prepared::new(ExplorerConfig {
            heads: 4,
            ..default_config()
        });
        for tau in [0.01, 0.25, 1.0, 37.0] {
            let full = p.attend_all(tau);
            let only = p.weights_all(tau);
            assert_eq!(only.len(), 4);
            for (a, w) in full.iter().zip(&only) {
                assert_eq!(&a.weights, w);
            }
        }
    }

    #[test]
    fn without_positions_identical_words_get_identical_keys() {
        let p = Prepared::new(default_config());
        // "The" (0) and "the" (4) share an embedding, hence a key.
        assert_eq!(p.heads[0].k.row(0), p.heads[0].k.row(4));
        let with = Prepared::new(ExplorerConfig {
            positions: true,
            ..default_config()
        });
        assert_ne!(with.heads[0].k.row(0), with.heads[0].k.row(4));
    }

    #[test]
    fn heads_split_the_model_width() {
        for heads in [1, 2, 4, 8] {
            let p = Prepared::new(ExplorerConfig {
                heads,
                ..default_config()
            });
            assert_eq!(p.heads.len(), heads);
            assert!(p.heads.iter().all(|h| h.q.ncols() == D_MODEL / heads));
        }
        // One head's first 16 query columns equal head 0 of the two-head split.
        let one = Prepared::new(ExplorerConfig {
            heads: 1,
            ..default_config()
        });
        let two = Prepared::new(default_config());
        assert!(
            (one.heads[0].q.columns(0, 16) - &two.heads[0].q)
                .abs()
                .max()
                < 1e-12
        );
    }
}
