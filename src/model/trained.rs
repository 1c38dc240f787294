//! The explorer's model with trained weights: the tiny-grammar checkpoint
//! (`assets/checkpoints/grammar.bin`) read as a [`Prepared`], so every view that draws the random
//! model (heatmap, inspector, trace, temperature, exports) can draw the trained one instead.
//!
//! Why this is exact and not an imitation: the grammar's model is one attention layer on
//! X = token embedding + the same sinusoidal position code the explorer adds, with each head's
//! `W_q`, `W_k`, `W_v` taken as columns of `d_model` × `d_model` matrices (`Projections::head_columns`)
//! and `W_o` applied to the concatenated heads, which is the explorer's own arrangement. So the
//! checkpoint's learned embedding table and layer-1 matrices drop into a [`Prepared`] unchanged,
//! and at τ = 1 its weights are the trained model's attention (tested below against the trainer's
//! own forward pass). Only words of the grammar's 29-word vocabulary have learned vectors, so
//! any other word is refused with a message that names it.

use super::explorer::{ExplorerConfig, Prepared, WeightSource};
use super::host::lowercase;
use super::next_token::{next_token, NextToken};
use super::train::page::checkpoint_file::Checkpoint;
use super::train::shape::{ParamGroup, PositionKind};
use super::train::tasks::GRAMMAR_WORDS;
use super::weights::{sinusoidal_positions, Projections};
use nalgebra::DMatrix;
use std::sync::Arc;

/// Which weights the learner chose (the link's `w`): the seeded random ones, the tiny grammar's
/// trained checkpoint, or a tiny-grammar model the learner trained on the training page (kept in
/// the browser, `web::saved_model`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum WeightsChoice {
    #[default]
    Random,
    Grammar,
    Yours,
}

impl WeightsChoice {
    /// The value in the link.
    pub fn key(self) -> &'static str {
        match self {
            Self::Random => "random",
            Self::Grammar => "grammar",
            Self::Yours => "yours",
        }
    }

    pub fn parse(value: &str) -> Option<Self> {
        [Self::Random, Self::Grammar, Self::Yours]
            .into_iter()
            .find(|c| c.key() == value)
    }
}

impl WeightSource {
    /// The model for `config` with these weights (for trained weights, the checkpoint's head
    /// count and position codes replace the config's).
    pub fn prepare(&self, config: ExplorerConfig) -> Result<Prepared, String> {
        match self {
            Self::Random => Ok(Prepared::new(config)),
            Self::Trained(checkpoint) => Prepared::from_checkpoint(config.tokens, checkpoint),
        }
    }

    /// The checkpoint, for trained weights.
    pub fn checkpoint(&self) -> Option<&Checkpoint> {
        match self {
            Self::Random => None,
            Self::Trained(c) => Some(c),
        }
    }
}

/// Which layer of the checkpoint the explorer shows (the grammar model has one).
const LAYER: usize = 0;

/// The grammar's vocabulary as a sentence of examples, for messages.
pub fn vocabulary() -> String {
    GRAMMAR_WORDS.join(" ")
}

/// The ids of `tokens` in the grammar's vocabulary (lower-cased through `H`, as the embedding
/// does for the random model), or a message naming the first word the model never learned.
pub fn grammar_ids(tokens: &[String]) -> Result<Vec<usize>, String> {
    tokens
        .iter()
        .map(|t| {
            let word = lowercase(t);
            GRAMMAR_WORDS.iter().position(|&g| g == word).ok_or_else(|| {
                format!(
                    "The trained model knows only the tiny grammar's 29 words ({}); “{t}” is not one of them.",
                    vocabulary()
                )
            })
        })
        .collect()
}

/// The ids of `tokens` for `checkpoint`'s model, or why it cannot read them: a model without
/// sinusoidal position codes, a sentence longer than it was trained on, or a word it never
/// learned. The one check behind [`Prepared::from_checkpoint`] and the page's fallback message.
pub fn checkpoint_ids(tokens: &[String], checkpoint: &Checkpoint) -> Result<Vec<usize>, String> {
    let cfg = checkpoint.model.config();
    if cfg.positions != PositionKind::Sinusoidal {
        return Err("the explorer shows models with sinusoidal position codes only".into());
    }
    if cfg.layers != 1 {
        return Err("the explorer shows models of one attention layer only".into());
    }
    if cfg.heads < 2 {
        // Its lesson compares heads, and trained weights fix the head count.
        return Err("the explorer shows trained models of two or more heads only".into());
    }
    if tokens.len() > cfg.max_len {
        return Err(format!(
            "The trained model was trained on sequences of up to {} tokens; this sentence has {}.",
            cfg.max_len,
            tokens.len()
        ));
    }
    grammar_ids(tokens)
}

impl Prepared {
    /// The explorer's model for `tokens` with the checkpoint's learned embeddings and layer-1
    /// matrices (heads and positions are the checkpoint's: its head count, sinusoidal codes on).
    pub fn from_checkpoint(
        tokens: Vec<String>,
        checkpoint: &Arc<Checkpoint>,
    ) -> Result<Self, String> {
        let model = &checkpoint.model;
        let cfg = *model.config();
        let ids = checkpoint_ids(&tokens, checkpoint)?;
        let matrix = |group| model.matrix(group).expect("every model has this group");
        let embedding = matrix(ParamGroup::TokenEmbedding);
        let d_model = cfg.d_model;
        let mut x = DMatrix::from_fn(ids.len(), d_model, |i, c| embedding[(ids[i], c)]);
        x += sinusoidal_positions(ids.len(), d_model);
        let projections = Projections {
            w_q: matrix(ParamGroup::Query(LAYER)),
            w_k: matrix(ParamGroup::Key(LAYER)),
            w_v: matrix(ParamGroup::Value(LAYER)),
            w_o: matrix(ParamGroup::Output(LAYER)),
        };
        Ok(Self::from_parts(
            ExplorerConfig {
                tokens,
                seed: checkpoint.seed,
                heads: cfg.heads,
                positions: true,
            },
            x,
            projections,
            WeightSource::Trained(Arc::clone(checkpoint)),
        ))
    }
}

impl Prepared {
    /// What row `row` of the shown sentence predicts at attention temperature `tau`: `None` for
    /// random weights, which have no unembedding to predict with. The trained model's own
    /// forward pass ([`next_token`]) reads correct causal attention, whatever Break it shows.
    pub fn next_token(&self, row: usize, tau: f64) -> Option<Result<NextToken, String>> {
        let checkpoint = self.weights.checkpoint()?;
        Some(
            checkpoint_ids(&self.config.tokens, checkpoint)
                .and_then(|ids| next_token(&checkpoint.model, &ids, row, tau)),
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::explorer::DEFAULT_SENTENCE;
    use crate::model::tokenizer::tokenize;
    use crate::model::train::page::checkpoint_file::decode;

    fn grammar_checkpoint() -> Arc<Checkpoint> {
        Arc::new(decode(include_bytes!("../../assets/checkpoints/grammar.bin")).unwrap())
    }

    #[test]
    fn at_tau_1_the_explorer_shows_the_trained_model_s_own_attention() {
        let checkpoint = grammar_checkpoint();
        for sentence in [
            DEFAULT_SENTENCE,
            "the keys to the cabinet are rusted .",
            "my dog slept under the small red box . the cat ran",
        ] {
            let tokens = tokenize(sentence);
            let ids = grammar_ids(&tokens).unwrap();
            let trainer_view = checkpoint.model.attention(&ids);
            let explorer = Prepared::from_checkpoint(tokens, &checkpoint).unwrap();
            let weights = explorer.weights_all(1.0);
            assert_eq!(weights.len(), trainer_view[LAYER].len());
            for (ours, theirs) in weights.iter().zip(&trainer_view[LAYER]) {
                assert_eq!(ours.shape(), theirs.shape());
                let gap = (ours - theirs).abs().max();
                assert!(gap <= 1e-12, "{sentence}: {gap}");
            }
        }
    }

    #[test]
    fn words_outside_the_grammar_and_long_sentences_are_refused_by_name() {
        let checkpoint = grammar_checkpoint();
        let err = Prepared::from_checkpoint(tokenize("the cat sat on the sofa ."), &checkpoint)
            .unwrap_err();
        assert!(err.contains("“sofa” is not one of them"), "{err}");
        let long = tokenize(&"the cat sat . ".repeat(5));
        let err = Prepared::from_checkpoint(long, &checkpoint).unwrap_err();
        assert!(
            err.contains("up to 16 tokens; this sentence has 20"),
            "{err}"
        );
    }

    /// The training page offers "Show this model in the explorer" exactly for the runs the explorer
    /// can read (the tiny grammar, one layer, 2 or 4 heads, sinusoidal positions), and the explorer
    /// then shows that run's attention (to f32 rounding: the file keeps f32); it refuses the rest.
    #[test]
    fn the_explorer_shows_exactly_the_learner_s_runs_it_can_read() {
        use crate::model::train::page::checkpoint_file::{encode, CheckpointTask};
        use crate::model::train::page::settings::{
            TaskChoice, TrainSettings, LAYER_CHOICES, TRAIN_HEAD_CHOICES,
        };
        use crate::model::train::page::stepping::Trainer;
        let tokens = tokenize(DEFAULT_SENTENCE);
        let ids = grammar_ids(&tokens).unwrap();
        let mut offered = 0;
        for task in TaskChoice::ALL {
            for layers in LAYER_CHOICES {
                for heads in TRAIN_HEAD_CHOICES {
                    for positions in PositionKind::ALL {
                        let settings = TrainSettings {
                            task,
                            seed: 4,
                            layers,
                            heads,
                            positions,
                            lr: 0.03,
                        };
                        let expected = task == TaskChoice::Grammar
                            && (layers, positions) == (1, PositionKind::Sinusoidal)
                            && heads >= 2;
                        assert_eq!(
                            settings.explorer_problem().is_none(),
                            expected,
                            "{settings:?}"
                        );
                        if !expected {
                            if task == TaskChoice::Grammar {
                                // Nor does the explorer read such a file.
                                let model = crate::model::train::transformer::Transformer::new(
                                    settings.config().model,
                                    4,
                                )
                                .unwrap();
                                let bytes = encode(CheckpointTask::Grammar, 4, 0, &model);
                                let checkpoint = Arc::new(decode(&bytes).unwrap());
                                assert!(
                                    Prepared::from_checkpoint(tokens.clone(), &checkpoint).is_err()
                                );
                            }
                            continue;
                        }
                        offered += 1;
                        let mut config = settings.config();
                        config.eval_sequences = 2;
                        let mut t = Trainer::new(config).unwrap();
                        t.run_to(30);
                        let bytes = encode(CheckpointTask::Grammar, 4, 30, t.model());
                        let checkpoint = Arc::new(decode(&bytes).unwrap());
                        let explorer =
                            Prepared::from_checkpoint(tokens.clone(), &checkpoint).unwrap();
                        let theirs = t.model().attention(&ids);
                        assert_eq!(explorer.heads.len(), heads);
                        assert_eq!(explorer.weights_all(1.0).len(), heads);
                        for (ours, theirs) in explorer.weights_all(1.0).iter().zip(&theirs[0]) {
                            let gap = (ours - theirs).abs().max();
                            assert!(gap > 0.0 && gap < 1e-5, "f32 rounding only: {gap}");
                        }
                    }
                }
            }
        }
        assert_eq!(offered, 2, "2 and 4 heads");
        assert_eq!(WeightsChoice::parse("yours"), Some(WeightsChoice::Yours));
        assert_eq!(WeightsChoice::Yours.key(), "yours");
    }

    /// The explorer's next-token readout, over sentences, every row and the slider's whole τ
    /// range: a distribution (sums to 1), its likeliest tokens in order, the rest summed, the
    /// following token's probability and loss; a row's prediction reads only the tokens up to
    /// it (bit for bit the same when later words change); random weights predict nothing.
    #[test]
    fn the_readout_is_the_trained_model_s_distribution_for_every_row_and_tau() {
        use crate::model::temperature::{SLIDER_MAX_TAU, SLIDER_MIN_TAU};
        let checkpoint = grammar_checkpoint();
        let random = Prepared::new(ExplorerConfig {
            tokens: tokenize(DEFAULT_SENTENCE),
            seed: 3,
            heads: 2,
            positions: true,
        });
        assert!(random.next_token(0, 1.0).is_none());
        let sentences = [
            DEFAULT_SENTENCE,
            "the keys to the cabinet are rusted .",
            "my dog slept under the small red box . the cat ran",
            "the cats and the dogs are old .",
        ];
        let mut checked = 0;
        for sentence in sentences {
            let tokens = tokenize(sentence);
            let ids = grammar_ids(&tokens).unwrap();
            let explorer = Prepared::from_checkpoint(tokens.clone(), &checkpoint).unwrap();
            for step in 0..=12 {
                let tau =
                    SLIDER_MIN_TAU * (SLIDER_MAX_TAU / SLIDER_MIN_TAU).powf(f64::from(step) / 12.0);
                for row in 0..tokens.len() {
                    let p = explorer.next_token(row, tau).unwrap().unwrap();
                    assert_eq!(p.probs.len(), GRAMMAR_WORDS.len());
                    assert!(p.probs.iter().all(|x| x.is_finite() && *x >= 0.0));
                    let total: f64 = p.probs.iter().sum();
                    assert!(
                        (total - 1.0).abs() < 1e-12,
                        "{sentence} row {row} τ {tau}: {total}"
                    );
                    let shown: f64 = p.top.iter().map(|c| c.p).sum::<f64>() + p.rest;
                    assert!((shown - 1.0).abs() < 1e-12);
                    assert!(p.top.windows(2).all(|w| w[0].p >= w[1].p));
                    let best = p.probs.iter().copied().fold(0.0, f64::max);
                    assert_eq!(p.top[0].p, best);
                    match (p.following, ids.get(row + 1)) {
                        (Some(f), Some(&next)) => {
                            assert_eq!(f.token, next);
                            assert_eq!(f.p, p.probs[next]);
                            assert!((f.loss + f.p.ln()).abs() < 1e-9, "loss is −ln p");
                        }
                        (None, None) => {}
                        other => panic!("following token wrong: {other:?}"),
                    }
                    // Later words changed (every one to "and"): the row's prediction is the same.
                    let mut changed = tokens.clone();
                    for t in changed.iter_mut().skip(row + 1) {
                        *t = "and".into();
                    }
                    let other = Prepared::from_checkpoint(changed, &checkpoint).unwrap();
                    let q = other.next_token(row, tau).unwrap().unwrap();
                    assert_eq!(q.probs, p.probs, "row {row} reads only tokens up to it");
                    checked += 1;
                }
            }
        }
        assert_eq!(checked, 13 * (7 + 8 + 12 + 8));
        // The row past the sentence is refused, not a panic.
        let explorer = Prepared::from_checkpoint(tokenize(DEFAULT_SENTENCE), &checkpoint).unwrap();
        assert!(explorer.next_token(7, 1.0).unwrap().is_err());
    }

    #[test]
    fn capitals_fold_like_the_random_model_s_embedding() {
        let tokens = tokenize(DEFAULT_SENTENCE);
        let ids = grammar_ids(&tokens).unwrap();
        assert_eq!(ids[0], ids[4], "“The” and “the” are one word to the model");
        let explorer = Prepared::from_checkpoint(tokens, &grammar_checkpoint()).unwrap();
        assert_eq!(explorer.config.heads, 2);
        assert_eq!(explorer.head_size(), 16);
    }
}

#[cfg(test)]
mod report {
    use super::*;
    use crate::model::explorer::DEFAULT_SENTENCE;
    use crate::model::tokenizer::tokenize;
    use crate::model::train::page::checkpoint_file::decode;

    /// The account of the trained heads on "The cat sat on the mat ." (section "Trained
    /// checkpoints"): each row's most-attended key, per head, at τ = 1.
    #[test]
    fn what_the_trained_heads_attend_to_in_the_default_sentence() {
        let c = Arc::new(decode(include_bytes!("../../assets/checkpoints/grammar.bin")).unwrap());
        let tokens = tokenize(DEFAULT_SENTENCE);
        let p = Prepared::from_checkpoint(tokens, &c).unwrap();
        let top = |w: &DMatrix<f64>, i: usize| {
            let (mut best, mut max) = (0, f64::MIN);
            for j in 0..=i {
                if w[(i, j)] > max {
                    (best, max) = (j, w[(i, j)]);
                }
            }
            (best + 1, max)
        };
        let w = p.weights_all(1.0);
        // Head 1: the first token for every row but "mat" (row 6), which looks at "on" (4).
        for (row, key) in [(2, 1), (3, 1), (4, 1), (5, 1), (6, 4), (7, 1)] {
            assert_eq!(top(&w[0], row - 1).0, key, "head 1 row {row}");
        }
        // Head 2: mostly itself (rows 2–4 above 0.97), but "mat" looks at the verb "sat" (3) and
        // "." at "on" (4).
        for (row, key) in [(2, 2), (3, 3), (4, 4), (6, 3), (7, 4)] {
            assert_eq!(top(&w[1], row - 1).0, key, "head 2 row {row}");
        }
        for row in 2..=4 {
            assert!(top(&w[1], row - 1).1 > 0.97);
        }
        assert!(top(&w[1], 5).1 > 0.99, "mat → sat");
    }
}
