//! [`Training`]: one of the training page's runs (run A, or run B beside it, see
//! [`super::RunPair`]): the [`Run`] (trained in a Web Worker, or on the page in slices where
//! workers are unavailable, see [`super::run`]) and what the page shows of it. Components re-read the run's record when `steps` (every 100 ms at most while it trains,
//! and at every evaluation, pause and step) or `evals` (every evaluation) change; `replay`
//! chooses a kept checkpoint for the head grid and the detector table.

use super::run::Run;
use crate::model::train::lab::ablation::{evaluate_ablated, AblatedEval, HeadMeans};
use crate::model::train::lab::composition::{composition, Composition};
use crate::model::train::lab::detectors::AgreementReport;
use crate::model::train::lab::evaluation::EvalPoint;
use crate::model::train::lab::knockout::{Ablation, AblationKind};
use crate::model::train::lab::mistakes::TrainingMistake;
use crate::model::train::lab::pass::Pass;
use crate::model::train::page::checkpoint_file::{encode, CheckpointTask};
use crate::model::train::page::export::lab_json;
use crate::model::train::page::run_record::RunRecord;
use crate::model::train::page::settings::TrainSettings;
use crate::model::train::page::stepping::Snapshot;
use crate::model::train::transformer::HeadOnTokens;
use leptos::prelude::*;
use nalgebra::DMatrix;

/// One run and what the page shows of it (the page's run A, or run B beside it: see
/// [`super::RunPair`]).
#[derive(Clone, Copy)]
pub struct Training {
    pub settings: Memo<TrainSettings>,
    /// The run the settings describe.
    pub run: Run,
    /// The checkpoint the replay slider shows, by step; `None`: the latest evaluation.
    pub replay: RwSignal<Option<usize>>,
    /// What the head grid and the detector table show: the evaluation (of the latest step or of
    /// the replayed checkpoint) and every head's weights on held-out sequence 1 then.
    pub shown: Memo<Option<Shown>>,
    /// Repeat task: the first evaluation at which the copying circuit had formed (its
    /// three conditions, `EvalPoint::circuit_formed`), if it has.
    pub circuit_formed_at: Memo<Option<usize>>,
    /// The run's letter beside the other run ("A", "B"); `None` while it is the only run.
    pub letter: Signal<Option<&'static str>>,
}

/// An evaluated step as the page shows it.
#[derive(Clone, Debug, PartialEq)]
pub struct Shown {
    pub eval: EvalPoint,
    /// `[layer][head]`: the weights on held-out sequence 1.
    pub attention: Vec<Vec<DMatrix<f64>>>,
    /// Whether this is the latest evaluation (not an earlier checkpoint).
    pub latest: bool,
    /// Tiny grammar: subject–verb agreement on the run's agreement sentences then.
    pub agreement: Option<AgreementReport>,
}

impl Training {
    /// What the page shows of `run`, trained with `settings` (its own: run B's differ from run
    /// A's by one change); `replay` is the replay slider, which both runs share; `letter` names the
    /// run beside the other one (`None` while it is the only run).
    pub fn of_run(
        run: Run,
        settings: Memo<TrainSettings>,
        replay: RwSignal<Option<usize>>,
        letter: Signal<Option<&'static str>>,
    ) -> Self {
        let shown = Memo::new(move |_| {
            run.evals.track();
            let replay = replay.get();
            run.with(|r| shown(r?, replay))
        });
        let circuit_formed_at = Memo::new(move |_| {
            run.evals.track();
            run.with(|r| r?.circuit_formed_at())
        });
        Self {
            settings,
            run,
            replay,
            shown,
            circuit_formed_at,
            letter,
        }
    }

    /// Reads the run's record (`None` before its first evaluation, or if the settings could not
    /// be built). Track `steps` or `evals` first to re-run when it changes.
    pub fn with<R>(&self, f: impl FnOnce(Option<&RunRecord>) -> R) -> R {
        self.run.with(f)
    }

    /// Reads the record and the snapshot the grid shows (at `replay`, see
    /// [`RunRecord::shown_snapshot`]); `None` before a run exists.
    fn with_shown<R>(
        self,
        replay: Option<usize>,
        f: impl FnOnce(&RunRecord, &Snapshot) -> Option<R>,
    ) -> Option<R> {
        self.with(|r| {
            let r = r?;
            f(r, r.shown_snapshot(replay)?.0)
        })
    }

    /// The model the head grid shows with `heads` (`(layer, head)`, from 0) knocked out by
    /// `kind`: its intact evaluation and the knocked-out one (`model::train::lab::ablation`; forward
    /// passes only, with the run's mistake if any). Tracks the replay slider, not the evaluations
    /// (the caller decides when to compute it again); `None` before a run exists, without heads,
    /// or for a head the model does not have.
    pub fn knocked_out(
        self,
        heads: &[(usize, usize)],
        kind: AblationKind,
    ) -> Option<(EvalPoint, AblatedEval)> {
        if heads.is_empty() {
            return None;
        }
        self.with_shown(self.replay.get(), |t, snapshot| {
            let config = t.config();
            let m = config.model;
            if heads.iter().any(|&(l, h)| l >= m.layers || h >= m.heads) {
                return None;
            }
            let model = snapshot.model(m);
            let held_out = t.held_out();
            let ablation = match kind {
                AblationKind::Zero => {
                    Ablation::zero(heads, (m.layers, m.heads, m.head_size())).ok()?
                }
                AblationKind::Mean => {
                    let chosen: Vec<_> = heads.iter().map(|&(l, h)| (l, h, kind)).collect();
                    HeadMeans::measure(&model, held_out, config.mistake)
                        .ablation(&chosen)
                        .ok()?
                }
            };
            let knocked = evaluate_ablated(
                &model,
                held_out,
                snapshot.eval.step,
                &ablation,
                config.mistake,
            );
            Some((snapshot.eval.clone(), knocked))
        })
    }

    /// The composition test ([`composition`]) on the model the head grid shows: its step and
    /// numbers. Tracks the replay slider, not the evaluations (it runs when asked: `2 + 2 · heads`
    /// passes over the held-out set); `None` before a run exists, for the grammar or one layer.
    pub fn composition(self) -> Option<(usize, Composition)> {
        self.with_shown(self.replay.get(), |t, snapshot| {
            let config = t.config();
            let model = snapshot.model(config.model);
            Some((
                snapshot.eval.step,
                composition(config, &model, t.held_out())?,
            ))
        })
    }

    /// The run's training mistake, if it has one (tracks `evals`: a new run's).
    pub fn mistake(self) -> Option<TrainingMistake> {
        self.run.evals.track();
        self.with(|t| t?.config().mistake)
    }

    /// Held-out sequence 1 as the page names its tokens (tracks `evals`).
    pub fn shown_tokens(self) -> Vec<String> {
        self.run.evals.track();
        self.with(|t| {
            let Some(t) = t else { return Vec::new() };
            let task = t.config().task;
            t.held_out().first().map_or_else(Vec::new, |s| {
                s.tokens.iter().map(|&id| task.token_name(id)).collect()
            })
        })
    }

    /// Held-out sequence 1's repeated segment (repeat task; `None` for the grammar).
    pub fn shown_repeat(self) -> Option<crate::model::train::tasks::Repeat> {
        self.run.evals.track();
        self.with(|t| t?.held_out().first()?.repeat)
    }

    /// Every head on held-out sequence 1 at temperature `tau`, `[layer][head]`: its weights and,
    /// for the closer look's trace, its queries, keys, values and raw scores
    /// ([`crate::model::train::transformer::Transformer::heads_at`]), for the model the head grid
    /// shows, with that model's step (tracks the evaluations and the replay slider).
    pub fn shown_heads_at(self, tau: f64) -> Option<(usize, Vec<Vec<HeadOnTokens>>)> {
        self.run.evals.track();
        self.with_shown(self.replay.get(), |t, snapshot| {
            Some((
                snapshot.eval.step,
                snapshot
                    .model(t.config().model)
                    .heads_at(&t.held_out().first()?.tokens, tau),
            ))
        })
    }

    /// The model the head grid and the detector table show, as the JSON download
    /// (`model::train::page::export`): with the run's training mistake if it has one, and with
    /// `ablated`, a knock-out of that model, if given (ignored if computed at another step);
    /// `None` before a run exists.
    pub fn shown_json(self, ablated: Option<&AblatedEval>) -> Option<String> {
        self.with_shown(self.replay.get_untracked(), |t, snapshot| {
            let config = t.config();
            let attention = snapshot.model(config.model).attention_with(
                &t.held_out().first()?.tokens,
                1.0,
                Pass::with_mistake(config.mistake),
            );
            let ablated = ablated.filter(|a| a.eval.step == snapshot.eval.step);
            Some(lab_json(
                config,
                snapshot,
                t.held_out(),
                &attention,
                ablated,
            ))
        })
    }

    /// The model the head grid shows as a checkpoint file (`model::train::page::checkpoint_file`, f32),
    /// for the explorer; `None` before a run exists or for a run the file cannot hold
    /// ([`TrainSettings::explorer_problem`]).
    pub fn shown_checkpoint(self) -> Option<Vec<u8>> {
        if self
            .settings
            .with_untracked(TrainSettings::explorer_problem)
            .is_some()
        {
            return None;
        }
        self.with_shown(self.replay.get_untracked(), |t, snapshot| {
            let model = snapshot.model(t.config().model);
            let steps = u32::try_from(snapshot.eval.step).ok()?;
            Some(encode(
                CheckpointTask::Grammar,
                t.config().seed,
                steps,
                &model,
            ))
        })
    }
}

/// The evaluation at `replay` (see [`RunRecord::shown_snapshot`]), with every head's weights on
/// held-out sequence 1 then (from the weights of that step, which the model may have trained
/// past), as the run trains: with its training mistake, if it has one.
fn shown(t: &RunRecord, replay: Option<usize>) -> Option<Shown> {
    let tokens = &t.held_out().first()?.tokens;
    let (snapshot, latest) = t.shown_snapshot(replay)?;
    let model = snapshot.model(t.config().model);
    Some(Shown {
        eval: snapshot.eval.clone(),
        attention: model.attention_with(tokens, 1.0, Pass::with_mistake(t.config().mistake)),
        latest,
        agreement: t.agreement_of(&model),
    })
}
