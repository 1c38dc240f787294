//! The generate page's state: its link (one signal, kept in the address bar), the model that
//! writes (the shipped tiny-grammar checkpoint, fetched, or the learner's own, read from this
//! browser), the row and head the learner looks at, and the generation they describe (a memo, so
//! each input recomputes the text once).

use super::trained_weights::{fetch_grammar_checkpoint, read_your_model};
use super::url_sync::keep_in_address_bar;
use crate::model::generate_page::link::{GenerateLink, Writer, MAX_GENERATED};
use crate::model::generate_page::run::{read_prompt, GenerationRun, Prompt};
use crate::model::next_token::context_full;
use crate::model::train::page::checkpoint_file::{Checkpoint, CheckpointTask};
use crate::model::train::tasks::GRAMMAR_WORDS;
use crate::web::location::location_search;
use leptos::prelude::*;
use std::sync::Arc;

/// The model as loaded so far: `None` while it loads.
pub type LoadedModel = Option<Result<Arc<Checkpoint>, String>>;

/// The page's state, a context (`GeneratePage::from_context`).
#[derive(Clone, Copy)]
pub struct GeneratePage {
    pub link: RwSignal<GenerateLink>,
    pub loaded: RwSignal<LoadedModel>,
    /// The row the learner clicked; `None` follows the last row as the text grows.
    pub selected: RwSignal<Option<usize>>,
    /// The head the heatmap shows, `(layer, head)` counted from 0.
    pub head: RwSignal<(usize, usize)>,
    /// The prompt as the model reads it (once the model is loaded).
    pub prompt: Memo<Option<Result<Prompt, String>>>,
    /// The link without its count of generated tokens: what decides every row of the text, so
    /// views keyed by row rebuild when it changes and only add a row when a token is generated.
    pub settings: Memo<GenerateLink>,
    /// The generation the link describes.
    pub run: Memo<Option<Result<GenerationRun, String>>>,
    /// Why the last request for tokens was cut short (the context is full).
    pub message: RwSignal<Option<String>>,
}

/// A loaded checkpoint the page can write with: one that reads the grammar's words.
fn usable(checkpoint: Result<Arc<Checkpoint>, String>) -> Result<Arc<Checkpoint>, String> {
    let c = checkpoint?;
    if c.task != CheckpointTask::Grammar || c.model.config().vocab != GRAMMAR_WORDS.len() {
        return Err("Your saved model was trained on the repeat task, whose tokens are numbers, not words: train the tiny grammar on the training page to write text with your own model.".into());
    }
    Ok(c)
}

/// The model in `loaded`, once it has loaded without error (tracked).
fn model_in(loaded: RwSignal<LoadedModel>) -> Option<Arc<Checkpoint>> {
    loaded.with(|l| l.as_ref().and_then(|m| m.as_ref().ok()).cloned())
}

impl GeneratePage {
    /// Reads the link, starts loading the model and keeps the address bar in step.
    pub fn provide() -> Self {
        let (link, notices) = GenerateLink::from_query(&location_search());
        provide_context(super::Notices(RwSignal::new(notices)));
        let writer = link.writer;
        let link = RwSignal::new(link);
        let loaded: RwSignal<LoadedModel> = RwSignal::new(None);
        match writer {
            Writer::Yours => loaded.set(Some(usable(read_your_model()))),
            Writer::Shipped => leptos::task::spawn_local(async move {
                loaded.set(Some(usable(fetch_grammar_checkpoint().await)));
            }),
        }
        let prompt = Memo::new(move |_| {
            let model = model_in(loaded)?;
            let max_len = model.model.config().max_len;
            Some(link.with(|l| read_prompt(&l.prompt, max_len)))
        });
        let run = Memo::new(move |_| {
            let model = model_in(loaded)?;
            let ids = prompt.with(|p| {
                p.as_ref()
                    .and_then(|p| p.as_ref().ok())
                    .map(|p| p.ids.clone())
            })?;
            crate::web::work::count("generate");
            Some(link.with(|l| GenerationRun::compute(&model.model, &ids, l)))
        });
        let settings = Memo::new(move |_| {
            link.with(|l| GenerateLink {
                generated: 0,
                ..l.clone()
            })
        });
        keep_in_address_bar(move || link.get(), GenerateLink::to_query);
        let page = Self {
            link,
            loaded,
            selected: RwSignal::new(None),
            head: RwSignal::new((0, 0)),
            prompt,
            settings,
            run,
            message: RwSignal::new(None),
        };
        provide_context(page);
        page
    }

    pub fn from_context() -> Self {
        use_context::<Self>().expect("the generate page provides its state")
    }

    /// The model that writes, once loaded (tracked).
    pub fn model(&self) -> Option<Arc<Checkpoint>> {
        model_in(self.loaded)
    }

    /// Generates `more` tokens, or as many as fit in the context (then says why it stopped);
    /// the newest row is then the one shown.
    pub fn generate(&self, more: usize) {
        let Some(model) = self.model() else { return };
        let max_len = model.model.config().max_len;
        let room = self.run.with_untracked(|r| match r {
            Some(Ok(run)) => run.room(&model.model),
            _ => 0,
        });
        let take = more.min(room);
        self.message
            .set((take < more).then(|| context_full(max_len)));
        self.selected.set(None);
        if take > 0 {
            self.link
                .update(|l| l.generated = (l.generated + take).min(MAX_GENERATED));
        }
    }

    /// Back to the prompt alone.
    pub fn reset(&self) {
        self.message.set(None);
        self.selected.set(None);
        self.link.update(|l| l.generated = 0);
    }

    /// A new prompt: nothing generated after it yet.
    pub fn set_prompt(&self, text: String) {
        self.message.set(None);
        self.selected.set(None);
        self.link.update(|l| {
            l.prompt = text;
            l.generated = 0;
        });
    }
}
