//! [`Training`]: the training page's run. The learner's choices live in the view's signals (they
//! are in the link); this holds the [`Trainer`] they describe and trains it in slices of at most
//! 8 ms, each a task of its own ([`next_task`]), so the browser handles input and draws frames
//! between two slices and the page keeps responding while it learns.
//!
//! A slice does [`Trainer::work`] pieces (one training sequence's forward and backward pass, or
//! one held-out sequence of an evaluation: well under a millisecond each) while the time spent
//! plus the slice's longest piece so far stays within [`SLICE_BUDGET_MS`], then yields to the
//! browser, which runs the next slice as soon as it has handled what was waiting. A slice that
//! finishes an evaluation stops there, so the redraw it causes is not added to a full slice.
//! Components re-read the trainer when `steps` (every 100 ms at most while it trains, and at
//! every evaluation, pause and step) or `evals` (every evaluation, each `eval_every` steps)
//! change; `replay` chooses a kept checkpoint for the head grid and the detector table.

use super::ViewSignals;
use crate::model::train::checkpoint_file::{encode, CheckpointTask};
use crate::model::train::detectors::AgreementReport;
use crate::model::train::evaluation::EvalPoint;
use crate::model::train::export::run_json;
use crate::model::train::settings::TrainSettings;
use crate::model::train::trainer::{Snapshot, Trainer, Work};
use crate::model::train::transformer::HeadOnTokens;
use crate::web::next_task::next_task;
use leptos::prelude::*;
use nalgebra::DMatrix;

/// Milliseconds of work per slice (the page must never wait for training: slices of ≤ 8 ms between frames).
pub const SLICE_BUDGET_MS: f64 = 8.0;
/// How often, at most, the step readout is refreshed while training, in milliseconds.
const READOUT_INTERVAL_MS: f64 = 100.0;
/// How often the speed readout is refreshed, in milliseconds.
const RATE_WINDOW_MS: f64 = 500.0;

/// The run and what the page shows of it.
#[derive(Clone, Copy)]
pub struct Training {
    pub settings: Memo<TrainSettings>,
    trainer: StoredValue<Option<Trainer>>,
    /// Steps taken: refreshed every `READOUT_INTERVAL_MS` at most while training (redrawing the
    /// counter after every slice was half of the browser's share of the main thread), and at
    /// every evaluation, pause and step.
    pub steps: RwSignal<usize>,
    /// Evaluations kept (set when a new one arrives; notified when a new run starts).
    pub evals: RwSignal<usize>,
    pub running: RwSignal<bool>,
    /// Steps per second over the last stretch of running.
    pub rate: RwSignal<Option<f64>>,
    /// The step a link asked for, while it is being retrained.
    pub target: RwSignal<Option<usize>>,
    /// Why the run could not be built, if it could not.
    pub error: RwSignal<Option<String>>,
    /// The checkpoint the replay slider shows, by step; `None`: the latest evaluation.
    pub replay: RwSignal<Option<usize>>,
    /// What the head grid and the detector table show: the evaluation (of the latest step or of
    /// the replayed checkpoint) and every head's weights on held-out sequence 1 then.
    pub shown: Memo<Option<Shown>>,
    /// Repeat task: the first evaluation at which the copying circuit had formed (its
    /// three conditions, `EvalPoint::circuit_formed`), if it has.
    pub circuit_formed_at: Memo<Option<usize>>,
    /// Where the current speed measurement began: (time in ms, steps then).
    rate_start: StoredValue<Option<(f64, usize)>>,
    /// When the step readout was last refreshed while training (ms).
    published_at: StoredValue<f64>,
    /// Which run of slices is current: a slice of an earlier Train (paused and started again
    /// before it ran) stops instead of running beside the new one.
    loop_id: StoredValue<u64>,
    /// The view, whose training settings the run follows (`train_steps` is written back).
    view: ViewSignals,
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

fn now_ms() -> f64 {
    window().performance().map_or(0.0, |p| p.now())
}

impl Training {
    /// The run for the view's settings; if the link names a step count, retraining to it starts
    /// at once.
    pub fn new(view: ViewSignals) -> Self {
        let settings = Memo::new(move |_| TrainSettings {
            task: view.train_task.get(),
            seed: view.train_seed.get(),
            layers: view.train_layers.get(),
            heads: view.train_heads.get(),
            positions: view.train_positions.get(),
            lr: view.train_lr.get(),
        });
        let link_steps = view.train_steps.get_untracked();
        let trainer = StoredValue::new(None::<Trainer>);
        let evals = RwSignal::new(0);
        let replay = RwSignal::new(None::<usize>);
        let shown = Memo::new(move |_| {
            evals.track();
            let replay = replay.get();
            trainer.with_value(|t| shown(t.as_ref()?, replay))
        });
        let circuit_formed_at = Memo::new(move |_| {
            evals.track();
            trainer.with_value(|t| t.as_ref()?.first_step_where(EvalPoint::circuit_formed))
        });
        let training = Self {
            settings,
            trainer,
            steps: RwSignal::new(0),
            evals,
            running: RwSignal::new(false),
            rate: RwSignal::new(None),
            target: RwSignal::new(None),
            error: RwSignal::new(None),
            replay,
            shown,
            circuit_formed_at,
            rate_start: StoredValue::new(None),
            published_at: StoredValue::new(0.0),
            loop_id: StoredValue::new(0),
            view,
        };
        // A new choice starts a new run from step 0.
        Effect::new(move |first: Option<()>| {
            let settings = settings.get();
            training.rebuild(settings);
            if first.is_none() && link_steps > 0 {
                training.target.set(Some(link_steps));
                training.start();
            }
        });
        training
    }

    fn rebuild(self, settings: TrainSettings) {
        self.running.set(false);
        self.target.set(None);
        self.rate.set(None);
        self.replay.set(None);
        match Trainer::new(settings.config()) {
            Ok(t) => {
                self.error.set(None);
                self.trainer.set_value(Some(t));
            }
            Err(e) => {
                self.error.set(Some(e));
                self.trainer.set_value(None);
            }
        }
        self.publish(true);
        // A new run may keep the count of evaluations (one): its views must redraw all the same.
        self.evals.notify();
    }

    /// Reads the trainer (`None` if the settings could not be built). Track `steps` or `evals`
    /// first to re-run when it changes.
    pub fn with<R>(&self, f: impl FnOnce(Option<&Trainer>) -> R) -> R {
        self.trainer.with_value(|t| f(t.as_ref()))
    }

    /// Reads the trainer and the snapshot the grid shows (at `replay`, see [`shown_snapshot`]);
    /// `None` before a run exists.
    fn with_shown<R>(
        self,
        replay: Option<usize>,
        f: impl FnOnce(&Trainer, &Snapshot) -> Option<R>,
    ) -> Option<R> {
        self.with(|t| {
            let t = t?;
            f(t, shown_snapshot(t, replay).0)
        })
    }

    /// Held-out sequence 1 as the page names its tokens (tracks `evals`).
    pub fn shown_tokens(self) -> Vec<String> {
        self.evals.track();
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
        self.evals.track();
        self.with(|t| t?.held_out().first()?.repeat)
    }

    /// Every head on held-out sequence 1 at temperature `tau`, `[layer][head]`: its weights and,
    /// for the closer look's trace, its queries, keys, values and raw scores
    /// ([`crate::model::train::transformer::Transformer::heads_at`]), for the model the head grid
    /// shows (tracks the evaluations and the replay slider).
    pub fn shown_heads_at(self, tau: f64) -> Option<Vec<Vec<HeadOnTokens>>> {
        self.evals.track();
        self.with_shown(self.replay.get(), |t, snapshot| {
            Some(
                snapshot
                    .model(t.config().model)
                    .heads_at(&t.held_out().first()?.tokens, tau),
            )
        })
    }

    /// The model the head grid and the detector table show, as the JSON download
    /// (`model::train::export`); `None` before a run exists.
    pub fn shown_json(self) -> Option<String> {
        self.with_shown(self.replay.get_untracked(), |t, snapshot| {
            let attention = snapshot
                .model(t.config().model)
                .attention(&t.held_out().first()?.tokens);
            Some(run_json(t.config(), snapshot, t.held_out(), &attention))
        })
    }

    /// The model the head grid shows as a checkpoint file (`model::train::checkpoint_file`, f32),
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

    /// Copies the trainer's counts into the signals; `settled` also writes the step count into
    /// the link (on pause, reset and every evaluation, so a link opened mid-run retrains to an
    /// evaluated step).
    fn publish(self, settled: bool) {
        let (steps, evals) = self.with(|t| t.map_or((0, 0), |t| (t.steps(), t.evals.len())));
        self.steps.set(steps);
        if self.evals.get_untracked() != evals {
            self.evals.set(evals);
        }
        if settled && self.view.train_steps.get_untracked() != steps {
            self.view.train_steps.set(steps);
        }
    }

    pub fn start(self) {
        if self.running.get_untracked() || self.with(|t| t.is_none()) {
            return;
        }
        self.running.set(true);
        self.rate_start
            .set_value(Some((now_ms(), self.steps.get_untracked())));
        self.loop_id.update_value(|id| *id += 1);
        let id = self.loop_id.get_value();
        next_task(move || self.slice(id));
    }

    /// Stops training. An evaluation under way is finished first (at most the held-out set's
    /// forward passes, once), so the page and its link show the same evaluated step.
    pub fn pause(self) {
        self.running.set(false);
        self.target.set(None);
        self.trainer.update_value(|t| {
            if let Some(t) = t {
                t.finish_evaluation();
            }
        });
        self.publish(true);
    }

    /// Back to step 0 with the same settings.
    pub fn reset(self) {
        self.rebuild(self.settings.get_untracked());
    }

    /// One step, paused.
    pub fn step_once(self) {
        self.pause();
        self.trainer.update_value(|t| {
            if let Some(t) = t {
                t.step();
            }
        });
        self.publish(true);
    }

    /// One slice of training, then the next.
    fn slice(self, id: u64) {
        // `try_`: the page may have gone (and the signals with it) since this slice was asked for.
        if self.running.try_get_untracked() != Some(true)
            || self.loop_id.try_get_value() != Some(id)
        {
            return;
        }
        let start = now_ms();
        let target = self.target.get_untracked();
        let mut evaluated = false;
        let mut reached = false;
        self.trainer.update_value(|t| {
            let Some(t) = t else { return };
            // The longest piece this slice: the next one is assumed to take as long.
            let mut longest: f64 = 0.0;
            loop {
                if target.is_some_and(|n| t.steps() >= n && t.is_idle()) {
                    reached = true;
                    break;
                }
                let before = now_ms();
                let work = t.work();
                let after = now_ms();
                longest = longest.max(after - before);
                if work == Work::Evaluated {
                    evaluated = true;
                    break;
                }
                if after - start + longest > SLICE_BUDGET_MS {
                    break;
                }
            }
        });
        let end = now_ms();
        if let Some((t0, s0)) = self.rate_start.get_value() {
            if end - t0 >= RATE_WINDOW_MS {
                let steps = self.with(|t| t.map_or(0, Trainer::steps));
                self.rate
                    .set(Some((steps - s0) as f64 * 1000.0 / (end - t0)));
                self.rate_start.set_value(Some((end, steps)));
            }
        }
        if reached {
            self.pause();
            return;
        }
        if evaluated || end - self.published_at.get_value() >= READOUT_INTERVAL_MS {
            self.published_at.set_value(end);
            self.publish(evaluated);
        }
        next_task(move || self.slice(id));
    }
}

/// The snapshot at `replay` (the kept checkpoint at or before that step) or the latest one, and
/// whether it is the latest.
fn shown_snapshot(t: &Trainer, replay: Option<usize>) -> (&Snapshot, bool) {
    let kept = t.checkpoints.kept();
    match replay.and_then(|step| t.checkpoints.at_or_before(step)) {
        Some(i) if kept[i].0 < t.latest().step => (&kept[i].1, false),
        _ => (t.latest_snapshot(), true),
    }
}

/// The evaluation at `replay` (see [`shown_snapshot`]), with every head's weights on held-out
/// sequence 1 then (from the weights of that step, which the model may have trained past).
fn shown(t: &Trainer, replay: Option<usize>) -> Option<Shown> {
    let tokens = &t.held_out().first()?.tokens;
    let (snapshot, latest) = shown_snapshot(t, replay);
    let model = snapshot.model(t.config().model);
    Some(Shown {
        eval: snapshot.eval.clone(),
        attention: model.attention(tokens),
        latest,
        agreement: t.agreement_of(&model),
    })
}
