//! [`ExplorerModel`]: the explorer's model, memoised from the view's signals ([`ViewSignals`]):
//! the tokens, the weights in use and every head's attention. The explorer and practice pages
//! provide it; the training page, which trains a model of its own, has only the view's signals.

use super::{Shared, ViewSignals};
use crate::model::broken::{broken_head_weights, broken_weights_all};
use crate::model::explorer::WeightSource;
use crate::model::explorer::{ExplorerConfig, Prepared};
use crate::model::masked_average::bit_identical;
use crate::model::tokenizer::{checked_tokens, tokenize};
use crate::model::trained::{checkpoint_ids, WeightsChoice};
use crate::model::url_state::DEFAULT_SENTENCE;
use crate::web::work::{count, count_n};
use leptos::prelude::*;
use nalgebra::DMatrix;
use std::sync::Arc;

/// The model the view describes, and the explorer's own selection state that is not in the link.
#[derive(Clone, Copy)]
pub struct ExplorerModel {
    /// The view's sentence and selected row, which [`ExplorerModel::apply_sentence`] sets.
    sentence: RwSignal<String>,
    row: RwSignal<usize>,
    /// The keyboard-selected key column, when the heatmap is in cell mode.
    pub col: RwSignal<Option<usize>>,
    /// The trained checkpoint, once fetched (`state::load_trained_weights`).
    pub trained: RwSignal<super::trained_weights::Loaded>,
    /// The model the learner trained and handed over from the training page, once read.
    pub yours: RwSignal<super::trained_weights::Loaded>,
    /// Why the chosen weights are not the ones shown, if they are not (loading, a failed
    /// download, a word the trained model never learned, a page without trained weights).
    pub weights_problem: Memo<Option<String>>,
    pub tokens: Memo<Vec<String>>,
    pub prepared: Memo<Shared<Prepared>>,
    /// Every head's correct attention weights at the current τ (outputs are computed where
    /// shown). Computed only when read: by the views of every head (the thumbnails, the lesson's
    /// heads step) while they are on screen.
    pub head_weights: Memo<Shared<Vec<Shared<DMatrix<f64>>>>>,
    /// The selected head's correct weights. The lesson and the temperature readout describe
    /// these, whatever "Break it" says.
    pub main_weights: Memo<Shared<DMatrix<f64>>>,
    /// Every head's weights as the thumbnails show them: with the "Break it" mistakes made, or
    /// the very matrices of `head_weights` when none is on.
    pub shown_head_weights: Memo<Shared<Vec<Shared<DMatrix<f64>>>>>,
    /// The selected head's shown weights: what the main heatmap, the inspector and the CSV show.
    pub shown_weights: Memo<Shared<DMatrix<f64>>>,
    /// Whether the thumbnails of every head are on screen (`components::thumbnails` sets it).
    /// While they are, the selected head's weights are picked from every head's; while they are
    /// not, a slider step computes the selected head's softmax alone (one of eight at 8 heads).
    pub every_head_on_screen: RwSignal<bool>,
}

impl ExplorerModel {
    /// The model the explorer and practice pages provide.
    pub fn from_context() -> Self {
        // Not `expect_context` (see `ViewSignals::from_context`).
        use_context::<ExplorerModel>().expect("ExplorerModel is provided by App and PracticeApp")
    }

    /// The model for the page's view; `offers_trained`: whether this page can show trained
    /// weights (the explorer can; the practice page's quiz and compare are written for the random
    /// model).
    pub fn new(view: ViewSignals, offers_trained: bool) -> Self {
        let ViewSignals {
            sentence,
            max_tokens,
            seed,
            heads,
            positions,
            tau,
            head,
            row,
            broken,
            weights,
            ..
        } = view;
        let trained: RwSignal<super::trained_weights::Loaded> = RwSignal::new(None);
        let yours: RwSignal<super::trained_weights::Loaded> = RwSignal::new(None);
        // Where the chosen trained weights are loaded into (`None`: random weights chosen).
        let source = move || match weights.get() {
            WeightsChoice::Random => None,
            WeightsChoice::Grammar => Some(trained),
            WeightsChoice::Yours => Some(yours),
        };
        // Only sentences that passed the gate are ever stored, so this cannot fail; the fallback
        // (never empty, whatever the limit) keeps the page alive even if that promise were broken.
        let tokens = Memo::new(move |_| {
            checked_tokens(&sentence.get(), max_tokens.get())
                .unwrap_or_else(|_| tokenize(DEFAULT_SENTENCE))
        });
        // The weights in use: trained only when chosen, offered, loaded and able to read the
        // sentence (`checkpoint_ids`); random otherwise (and `weights_problem` says why).
        let in_use = Memo::new(move |_| {
            let Some(loaded) = source().filter(|_| offers_trained) else {
                return WeightSource::Random;
            };
            match loaded.get() {
                Some(Ok(c)) if tokens.with(|t| checkpoint_ids(t, &c).is_ok()) => {
                    WeightSource::Trained(c)
                }
                _ => WeightSource::Random,
            }
        });
        let weights_problem = Memo::new(move |_| {
            let loaded = source()?;
            if !offers_trained {
                return Some("This page uses the random weights; the trained ones are shown on the explorer page.".to_string());
            }
            match loaded.get() {
                None => Some("Loading the trained weights…".to_string()),
                Some(Err(e)) => Some(format!("{e} Showing the random weights.")),
                Some(Ok(c)) => tokens
                    .with(|t| checkpoint_ids(t, &c).err())
                    .map(|e| format!("{e} Showing the random weights.")),
            }
        });
        let prepared = Memo::new(move |_| {
            let config = ExplorerConfig {
                tokens: tokens.get(),
                seed: seed.get(),
                heads: heads.get(),
                positions: positions.get(),
            };
            let model = in_use
                .with(|w| w.prepare(config.clone()))
                .unwrap_or_else(|_| Prepared::new(config));
            Shared(Arc::new(model))
        });
        let head_weights = Memo::new(move |_| {
            let tau = tau.get();
            let weights = prepared.with(|p| p.weights_all(tau));
            count_n("attention", weights.len());
            Shared(Arc::new(
                weights
                    .into_iter()
                    .map(|w| Shared(Arc::new(w)))
                    .collect::<Vec<_>>(),
            ))
        });
        let every_head_on_screen = RwSignal::new(false);
        let signals = (prepared, head, tau);
        let main_weights = one_head(
            every_head_on_screen,
            head_weights,
            signals,
            "attention",
            |p, tau, h| p.heads[h].weights(tau),
        );
        let shown_head_weights = Memo::new(move |_| {
            let mistakes = broken.get();
            if mistakes.is_empty() {
                return head_weights.get();
            }
            let tau = tau.get();
            let weights = prepared.with(|p| broken_weights_all(p, mistakes, tau));
            count_n("attention:broken", weights.len());
            Shared(Arc::new(
                weights.into_iter().map(|w| Shared(Arc::new(w))).collect(),
            ))
        });
        let broken_one = one_head(
            every_head_on_screen,
            shown_head_weights,
            signals,
            "attention:broken",
            move |p, tau, h| broken_head_weights(p, broken.get(), tau, h),
        );
        let shown_weights = Memo::new(move |_| {
            if broken.get().is_empty() {
                main_weights.get()
            } else {
                broken_one.get()
            }
        });
        Self {
            sentence,
            row,
            col: RwSignal::new(None),
            trained,
            yours,
            weights_problem,
            tokens,
            prepared,
            head_weights,
            main_weights,
            shown_head_weights,
            shown_weights,
            every_head_on_screen,
        }
    }

    /// Whether the model on screen has the trained weights (tracked).
    pub fn trained_in_use(&self) -> bool {
        self.prepared.with(|p| p.weights.checkpoint().is_some())
    }

    /// Head size d of the current split.
    pub fn head_size(&self) -> Memo<usize> {
        let prepared = self.prepared;
        Memo::new(move |_| prepared.with(|p| p.head_size()))
    }

    /// The selected row, within the sentence (tracked): the link's row, which a shorter sentence
    /// may leave past its end.
    pub fn selected_row(&self) -> usize {
        self.row
            .get()
            .min(self.tokens.with(Vec::len).saturating_sub(1))
    }

    /// Applies a new sentence (already checked), keeping the selected row in range.
    pub fn apply_sentence(&self, sentence: String, token_count: usize) {
        self.sentence.set(sentence);
        self.col.set(None);
        self.row
            .update(|r| *r = (*r).min(token_count.saturating_sub(1)));
    }
}

/// The selected head's weights: picked from `all` (every head's) while the thumbnails are on
/// screen, so that a head click computes nothing; else `alone` computes that head only (one
/// softmax), counted as `what` by the work-per-input hook. When the thumbnails come or go, the
/// other source gives the same bits: the memo then keeps its matrix, and nothing redraws.
fn one_head(
    every_head_on_screen: RwSignal<bool>,
    all: Memo<Shared<Vec<Shared<DMatrix<f64>>>>>,
    (prepared, head, tau): (Memo<Shared<Prepared>>, RwSignal<usize>, RwSignal<f64>),
    what: &'static str,
    alone: impl Fn(&Prepared, f64, usize) -> DMatrix<f64> + Send + Sync + 'static,
) -> Memo<Shared<DMatrix<f64>>> {
    Memo::new_owning(move |previous: Option<Shared<DMatrix<f64>>>| {
        let next = if every_head_on_screen.get() {
            all.with(|w| w[head.get().min(w.len().saturating_sub(1))].clone())
        } else {
            let tau = tau.get();
            count(what);
            prepared.with(|p| {
                let h = head.get().min(p.heads.len().saturating_sub(1));
                Shared(Arc::new(alone(p, tau, h)))
            })
        };
        match previous {
            Some(kept) if kept == next || bit_identical(&kept, &next) => (kept, false),
            _ => (next, true),
        }
    })
}
