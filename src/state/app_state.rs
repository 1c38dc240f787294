//! [`AppState`]: the signals the learner controls and the model results memoised from them.

use super::Shared;
use crate::model::explorer::{ModelConfig, Prepared};
use crate::model::tokenizer::{checked_tokens, tokenize};
use crate::model::url_state::{Step, ViewState, DEFAULT_SENTENCE};
use crate::web::BrowserText;
use leptos::prelude::*;
use nalgebra::DMatrix;
use std::sync::Arc;

/// Everything the learner controls, plus the model results derived from it.
#[derive(Clone, Copy)]
pub struct AppState {
    pub sentence: RwSignal<String>,
    pub tau: RwSignal<f64>,
    pub seed: RwSignal<u64>,
    pub heads: RwSignal<usize>,
    pub head: RwSignal<usize>,
    pub row: RwSignal<usize>,
    /// The keyboard-selected key column, when the heatmap is in cell mode.
    pub col: RwSignal<Option<usize>>,
    pub step: RwSignal<Step>,
    pub lab_head_size: RwSignal<usize>,
    pub positions: RwSignal<bool>,
    pub max_tokens: RwSignal<usize>,
    pub notices: RwSignal<Vec<String>>,
    pub tokens: Memo<Vec<String>>,
    pub prepared: Memo<Shared<Prepared>>,
    /// Every head's attention weights at the current τ (outputs are computed where shown).
    pub head_weights: Memo<Shared<Vec<Shared<DMatrix<f64>>>>>,
    /// The selected head's weights: what the main heatmap and the inspector show.
    pub main_weights: Memo<Shared<DMatrix<f64>>>,
}

impl AppState {
    /// The state `App` provides to every component below it.
    pub fn from_context() -> Self {
        // Not `expect_context`: its panic message debug-prints the type name, and that one use
        // of `str`'s Debug brings core's Unicode escaping tables into the wasm.
        use_context::<AppState>().expect("AppState is provided by App")
    }

    pub fn new(initial: ViewState, notices: Vec<String>) -> Self {
        let sentence = RwSignal::new(initial.sentence);
        let max_tokens = RwSignal::new(initial.max_tokens);
        let seed = RwSignal::new(initial.seed);
        let heads = RwSignal::new(initial.heads);
        let positions = RwSignal::new(initial.positions);
        let tau = RwSignal::new(initial.tau);
        // Only sentences that passed the gate are ever stored, so this cannot fail; the fallback
        // (never empty, whatever the limit) keeps the page alive even if that promise were broken.
        let tokens = Memo::new(move |_| {
            checked_tokens(&sentence.get(), max_tokens.get())
                .unwrap_or_else(|_| tokenize(DEFAULT_SENTENCE))
        });
        let prepared = Memo::new(move |_| {
            Shared(Arc::new(Prepared::new_with::<BrowserText>(ModelConfig {
                tokens: tokens.get(),
                seed: seed.get(),
                heads: heads.get(),
                positions: positions.get(),
            })))
        });
        let head_weights = Memo::new(move |_| {
            let tau = tau.get();
            let weights = prepared.with(|p| p.weights_all(tau));
            Shared(Arc::new(
                weights
                    .into_iter()
                    .map(|w| Shared(Arc::new(w)))
                    .collect::<Vec<_>>(),
            ))
        });
        let head = RwSignal::new(initial.head);
        let main_weights = Memo::new(move |_| {
            head_weights.with(|w| w[head.get().min(w.len().saturating_sub(1))].clone())
        });
        Self {
            sentence,
            tau,
            seed,
            heads,
            head,
            row: RwSignal::new(initial.row),
            col: RwSignal::new(None),
            step: RwSignal::new(initial.step),
            lab_head_size: RwSignal::new(initial.lab_head_size),
            positions,
            max_tokens,
            notices: RwSignal::new(notices),
            tokens,
            prepared,
            head_weights,
            main_weights,
        }
    }

    /// The link for the current view.
    pub fn view_state(&self) -> ViewState {
        ViewState {
            sentence: self.sentence.get(),
            tau: self.tau.get(),
            seed: self.seed.get(),
            heads: self.heads.get(),
            head: self.head.get(),
            row: self.row.get(),
            step: self.step.get(),
            lab_head_size: self.lab_head_size.get(),
            positions: self.positions.get(),
            max_tokens: self.max_tokens.get(),
        }
    }

    /// Head size d of the current split.
    pub fn head_size(&self) -> Memo<usize> {
        let prepared = self.prepared;
        Memo::new(move |_| prepared.with(|p| p.head_size()))
    }

    /// Applies a new sentence (already checked), keeping the selected row in range.
    pub fn apply_sentence(&self, sentence: String, token_count: usize) {
        self.sentence.set(sentence);
        self.col.set(None);
        self.row
            .update(|r| *r = (*r).min(token_count.saturating_sub(1)));
    }

    pub fn set_heads(&self, heads: usize) {
        self.heads.set(heads);
        self.head.update(|h| *h = (*h).min(heads - 1));
    }
}
