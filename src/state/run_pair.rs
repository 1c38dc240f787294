//! [`RunPair`]: the training page's runs. Run A is what the learner's settings describe (they are
//! in the link); run B, when the link has one (`b=`), is run A with one change
//! ([`RunChange`]: another setting, or a training mistake), trained beside it in a worker of its
//! own. The buttons drive both, so the two curves share a step axis; a link retrains both.

use super::run::Run;
use super::training::Training;
use super::ViewSignals;
use crate::model::train::lab::mistakes::TrainingMistake;
use crate::model::train::page::messages::RunSpec;
use crate::model::train::page::run_b::RunChange;
use crate::model::train::page::settings::TrainSettings;
use leptos::prelude::*;

#[derive(Clone, Copy)]
pub struct RunPair {
    pub a: Training,
    pub b: Training,
    /// Run B's one change from run A; `None`: no run B.
    pub change: Memo<Option<RunChange>>,
    /// What run B trains: run A's settings with `change` applied.
    spec_b: Memo<Option<RunSpec>>,
}

impl RunPair {
    /// The runs the view describes; if the link names a step count, retraining both to it starts
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
        let change = Memo::new(move |_| view.train_b.with(|b| RunChange::parse(b)));
        let spec_b = Memo::new(move |_| Some(change.get()?.apply(settings.get())));
        let settings_b =
            Memo::new(move |_| spec_b.get().map_or_else(|| settings.get(), |s| s.settings));
        let workers = view.train_workers.get_untracked();
        let replay = RwSignal::new(None::<usize>);
        let has_b = Signal::derive(move || change.with(Option::is_some));
        let a = Training::of_run(
            Run::new(workers, Some(view.train_steps)),
            settings,
            replay,
            Signal::derive(move || has_b.get().then_some("A")),
        );
        let b = Training::of_run(
            Run::new(workers, None),
            settings_b,
            replay,
            Signal::derive(|| Some("B")),
        );
        let link_steps = view.train_steps.get_untracked();
        // A new setting starts both runs again from step 0. A new run B alone starts from step 0
        // and catches up with run A: it trains along if A is training, else to A's step.
        Effect::new(move |previous: Option<(TrainSettings, Option<RunSpec>)>| {
            let (now_a, now_b) = (settings.get(), spec_b.get());
            match previous {
                None => {
                    a.run.rebuild(Some(RunSpec::new(now_a)));
                    b.run.rebuild(now_b);
                    if link_steps > 0 {
                        a.run.retrain_to(link_steps);
                        b.run.retrain_to(link_steps);
                    }
                }
                Some((was_a, _)) if was_a != now_a => {
                    replay.set(None);
                    a.run.rebuild(Some(RunSpec::new(now_a)));
                    b.run.rebuild(now_b);
                }
                Some((_, was_b)) if was_b != now_b => {
                    b.run.rebuild(now_b);
                    if untrack(|| a.run.running.get()) {
                        b.run.start();
                    } else {
                        let steps = untrack(|| a.run.steps.get());
                        if steps > 0 {
                            b.run.retrain_to(steps);
                        }
                    }
                }
                Some(_) => {}
            }
            (now_a, now_b)
        });
        Self {
            a,
            b,
            change,
            spec_b,
        }
    }

    /// The runs there are: A, and B if the link has one (untracked).
    fn runs(self) -> impl Iterator<Item = Run> {
        let b = self
            .change
            .with_untracked(Option::is_some)
            .then_some(self.b.run);
        std::iter::once(self.a.run).chain(b)
    }

    /// Whether either run is training (tracked).
    pub fn running(self) -> bool {
        self.a.run.running.get() || self.b.run.running.get()
    }

    pub fn start(self) {
        self.runs().for_each(Run::start);
    }

    /// Stops training (an evaluation under way is finished first).
    pub fn pause(self) {
        self.runs().for_each(Run::pause);
    }

    /// Back to step 0 with the same settings.
    pub fn reset(self) {
        self.a.replay.set(None);
        self.a
            .run
            .rebuild(Some(RunSpec::new(self.a.settings.get_untracked())));
        self.b.run.rebuild(self.spec_b.get_untracked());
    }

    /// Run B's training mistake, if its change is one (tracked).
    pub fn b_mistake(self) -> Option<TrainingMistake> {
        self.change.with(|c| c.and_then(|c| c.mistake()))
    }

    /// One step of each run, paused.
    pub fn step_once(self) {
        self.runs().for_each(Run::step_once);
    }
}
