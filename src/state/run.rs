//! [`Run`]: one training run as the page drives and keeps it. What the page draws is a
//! [`RunRecord`] (every evaluation's numbers and the weights it measured, bounded); who trains is
//! an engine:
//! - a **Web Worker** ([`TrainWorker`], the page's own wasm in a module worker) that owns the
//!   [`Trainer`] and posts each evaluation with its weights and, about ten times a second, its
//!   step count (`model::train::page::messages`): the main thread only draws;
//! - or, where workers are unavailable, fail to load, or a developer link says `workers=0`, the
//!   page itself, in slices of at most [`SLICE_BUDGET_MS`], each a task of its own
//!   ([`next_task`]), so the browser handles input and draws frames between two slices.
//!
//! A run is a pure function of its [`RunSpec`], so both engines give the same record, bit for bit.
//! Every command and report carries the run's generation: a report of a run since replaced is
//! dropped.

use crate::model::train::page::messages::{Command, Report, RunSpec};
use crate::model::train::page::run_record::RunRecord;
use crate::model::train::page::stepping::{Trainer, Work};
use crate::web::next_task::next_task;
use crate::web::now_ms;
use crate::web::worker::TrainWorker;
use leptos::prelude::*;

/// Milliseconds of work per slice on the main thread (the fallback engine).
pub const SLICE_BUDGET_MS: f64 = 8.0;
/// How often, at most, the step readout is refreshed while training, in milliseconds.
const READOUT_INTERVAL_MS: f64 = 100.0;
/// How often the speed readout is refreshed, in milliseconds.
const RATE_WINDOW_MS: f64 = 500.0;

/// The worker, once it has said it is ready, and the commands waiting for that.
struct WorkerEngine {
    worker: TrainWorker,
    ready: bool,
    waiting: Vec<Vec<f64>>,
}

/// One run: its record, its engine and the signals the views track.
#[derive(Clone, Copy)]
pub struct Run {
    record: StoredValue<Option<RunRecord>>,
    /// The fallback engine's trainer (`None` while a worker trains).
    local: StoredValue<Option<Trainer>>,
    worker: StoredValue<Option<WorkerEngine>, LocalStorage>,
    /// Whether to try a worker at all (off after one failed, or with `workers=0`).
    use_workers: StoredValue<bool>,
    generation: StoredValue<u64>,
    spec: StoredValue<Option<RunSpec>>,
    /// Steps taken: refreshed every `READOUT_INTERVAL_MS` at most while training, and at every
    /// evaluation, pause and step.
    pub steps: RwSignal<usize>,
    /// Counts the evaluations received (views that show the record track it).
    pub evals: RwSignal<usize>,
    pub running: RwSignal<bool>,
    /// Steps per second over the last stretch of running.
    pub rate: RwSignal<Option<f64>>,
    /// The step a link asked for, while it is being retrained.
    pub target: RwSignal<Option<usize>>,
    /// Why the run could not be built, if it could not.
    pub error: RwSignal<Option<String>>,
    /// Whether a Web Worker trains the run (else the page does, in slices).
    pub in_worker: RwSignal<bool>,
    /// Where the current speed measurement began: (time in ms, steps then).
    rate_start: StoredValue<Option<(f64, usize)>>,
    published_at: StoredValue<f64>,
    loop_id: StoredValue<u64>,
    /// Written with the step count whenever the run settles (pause, evaluation, target): the
    /// link's `tsteps` for the page's main run.
    settled_steps: Option<RwSignal<usize>>,
}

impl Run {
    /// A run with no settings yet ([`Self::rebuild`] gives it some); `workers`: whether to train
    /// in a Web Worker where one can be started.
    pub fn new(workers: bool, settled_steps: Option<RwSignal<usize>>) -> Self {
        Self {
            record: StoredValue::new(None),
            local: StoredValue::new(None),
            worker: StoredValue::new_local(None),
            use_workers: StoredValue::new(workers),
            generation: StoredValue::new(0),
            spec: StoredValue::new(None),
            steps: RwSignal::new(0),
            evals: RwSignal::new(0),
            running: RwSignal::new(false),
            rate: RwSignal::new(None),
            target: RwSignal::new(None),
            error: RwSignal::new(None),
            in_worker: RwSignal::new(false),
            rate_start: StoredValue::new(None),
            published_at: StoredValue::new(0.0),
            loop_id: StoredValue::new(0),
            settled_steps,
        }
    }

    /// Reads the record (`None` before the run's first evaluation has arrived, or if the settings
    /// could not be built). Track `steps` or `evals` first to re-run when it changes.
    pub fn with<R>(&self, f: impl FnOnce(Option<&RunRecord>) -> R) -> R {
        self.record
            .with_value(|r| f(r.as_ref().filter(|r| r.latest().is_some())))
    }

    /// Whether a Web Worker trains this run (untracked; the `in_worker` signal follows it).
    fn has_worker(self) -> bool {
        self.worker.with_value(Option::is_some)
    }

    /// A new run from step 0 for `spec` (`None`: no run).
    pub fn rebuild(self, spec: Option<RunSpec>) {
        self.running.set(false);
        self.target.set(None);
        self.rate.set(None);
        self.generation.update_value(|g| *g += 1);
        self.loop_id.update_value(|id| *id += 1);
        self.spec.set_value(spec);
        self.local.set_value(None);
        self.error.set(None);
        let Some(spec) = spec else {
            self.worker.set_value(None);
            self.record.set_value(None);
            self.publish(false);
            self.evals.update(|n| *n += 1);
            return;
        };
        let config = spec.config();
        self.record.set_value(Some(RunRecord::new(config)));
        if self.use_workers.get_value() && self.ensure_worker() {
            self.send(Command::Start {
                generation: self.generation.get_value(),
                spec,
            });
        } else {
            self.worker.set_value(None);
            match Trainer::new(config) {
                Ok(t) => {
                    self.record_snapshot(t.latest_snapshot().clone());
                    self.local.set_value(Some(t));
                }
                Err(e) => {
                    self.error.set(Some(e));
                    self.record.set_value(None);
                }
            }
        }
        self.in_worker.set(self.has_worker());
        self.publish(false);
        self.evals.update(|n| *n += 1);
    }

    /// Starts the worker if none runs; whether one does.
    fn ensure_worker(self) -> bool {
        if self.has_worker() {
            return true;
        }
        let worker = TrainWorker::spawn(
            move |buffer| self.on_report(&buffer),
            move || self.worker_failed(),
        );
        let started = worker.is_some();
        self.worker.set_value(worker.map(|worker| WorkerEngine {
            worker,
            ready: false,
            waiting: Vec::new(),
        }));
        started
    }

    /// The worker could not load or crashed: train this run on the page instead, from step 0,
    /// to the same target.
    fn worker_failed(self) {
        if self.use_workers.try_get_value() != Some(true) {
            return;
        }
        self.use_workers.set_value(false);
        let target = self.target.get_untracked();
        let was_running = self.running.get_untracked();
        self.worker.set_value(None);
        self.rebuild(self.spec.get_value());
        if let Some(n) = target {
            self.retrain_to(n);
        } else if was_running {
            self.start();
        }
    }

    fn send(self, command: Command) {
        let buffer = command.encode();
        self.worker.update_value(|w| {
            if let Some(w) = w {
                if w.ready {
                    w.worker.post(&buffer);
                } else {
                    w.waiting.push(buffer);
                }
            }
        });
    }

    fn on_report(self, buffer: &[f64]) {
        let Ok(report) = Report::decode(buffer) else {
            return;
        };
        let Some(current) = self.generation.try_get_value() else {
            return;
        };
        match report {
            Report::Ready => self.worker.update_value(|w| {
                if let Some(w) = w {
                    w.ready = true;
                    for buffer in w.waiting.drain(..) {
                        w.worker.post(&buffer);
                    }
                }
            }),
            Report::Progress { generation, steps } if generation == current => {
                self.record.update_value(|r| {
                    if let Some(r) = r {
                        r.set_steps(steps);
                    }
                });
                self.after_progress(false);
            }
            Report::Evaluated {
                generation,
                snapshot,
            } if generation == current => {
                self.record_snapshot(snapshot);
                self.after_progress(true);
            }
            Report::Stopped { generation, steps } if generation == current => {
                self.record.update_value(|r| {
                    if let Some(r) = r {
                        r.set_steps(steps);
                    }
                });
                self.running.set(false);
                self.target.set(None);
                self.publish(true);
            }
            Report::Failed { generation } if generation == current => {
                self.error
                    .set(Some("This run's settings could not be built.".into()));
                self.record.set_value(None);
                self.evals.update(|n| *n += 1);
            }
            _ => {}
        }
    }

    /// Adds an evaluation to the record and tells the views.
    fn record_snapshot(self, snapshot: crate::model::train::page::stepping::Snapshot) {
        self.record.update_value(|r| {
            if let Some(r) = r {
                r.record(snapshot);
            }
        });
        self.evals.update(|n| *n += 1);
    }

    /// The speed readout, and the step readout at most every `READOUT_INTERVAL_MS` (always after
    /// an evaluation).
    fn after_progress(self, evaluated: bool) {
        let end = now_ms();
        let steps = self.with(|r| r.map_or(0, RunRecord::steps));
        if let Some((t0, s0)) = self.rate_start.get_value() {
            if end - t0 >= RATE_WINDOW_MS && self.running.get_untracked() {
                self.rate
                    .set(Some(steps.saturating_sub(s0) as f64 * 1000.0 / (end - t0)));
                self.rate_start.set_value(Some((end, steps)));
            }
        }
        if evaluated || end - self.published_at.get_value() >= READOUT_INTERVAL_MS {
            self.published_at.set_value(end);
            self.publish(evaluated);
        }
    }

    /// Copies the record's step count into `steps`; `settled` also writes it to `settled_steps`.
    fn publish(self, settled: bool) {
        let steps = self
            .record
            .with_value(|r| r.as_ref().map_or(0, RunRecord::steps));
        self.steps.set(steps);
        if let Some(link) = self.settled_steps {
            if settled && link.get_untracked() != steps {
                link.set(steps);
            }
        }
    }

    /// Trains until `steps` (and its evaluation), then stops.
    pub fn retrain_to(self, steps: usize) {
        self.target.set(Some(steps));
        self.start();
    }

    pub fn start(self) {
        // A worker's run may not have sent its step 0 yet: its commands wait for it.
        if self.running.get_untracked() || self.record.with_value(Option::is_none) {
            return;
        }
        self.running.set(true);
        self.rate_start
            .set_value(Some((now_ms(), self.steps.get_untracked())));
        self.loop_id.update_value(|id| *id += 1);
        if self.has_worker() {
            self.send(Command::Run {
                generation: self.generation.get_value(),
                until: self.target.get_untracked(),
            });
        } else {
            let id = self.loop_id.get_value();
            next_task(move || self.slice(id));
        }
    }

    /// Stops training. An evaluation under way is finished first, so the page and its link show
    /// the same evaluated step (for a worker, once it reports where it stopped).
    pub fn pause(self) {
        self.target.set(None);
        if self.has_worker() {
            // `running` stays on until the worker says where it stopped, so a paused page shows
            // one step count (a chunk under way finishes first, at most `CHUNK_MS`).
            self.send(Command::Pause {
                generation: self.generation.get_value(),
            });
            return;
        }
        self.running.set(false);
        self.local_work(Trainer::finish_evaluation);
        self.publish(true);
    }

    /// One step, paused.
    pub fn step_once(self) {
        self.pause();
        if self.has_worker() {
            self.send(Command::Step {
                generation: self.generation.get_value(),
            });
            return;
        }
        self.local_work(|t| {
            t.step();
        });
        self.publish(true);
    }

    /// Runs `f` on the fallback engine's trainer and records an evaluation it finished.
    fn local_work(self, f: impl FnOnce(&mut Trainer)) {
        let snapshot = self.local.try_update_value(|t| {
            let t = t.as_mut()?;
            // Counted so a test can tell, without a timing, that a run in a worker trains
            // nowhere else.
            crate::web::work::count("train:main-thread");
            let before = t.evals.len();
            f(t);
            (t.evals.len() > before).then(|| t.latest_snapshot().clone())
        });
        if let Some(Some(snapshot)) = snapshot {
            self.record_snapshot(snapshot);
        }
        let steps = self.local.with_value(|t| t.as_ref().map(Trainer::steps));
        if let Some(steps) = steps {
            self.record.update_value(|r| {
                if let Some(r) = r {
                    r.set_steps(steps);
                }
            });
        }
    }

    /// One slice of training on the main thread, then the next.
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
        self.local_work(|t| {
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
        if reached {
            self.pause();
            return;
        }
        self.after_progress(evaluated);
        next_task(move || self.slice(id));
    }
}
