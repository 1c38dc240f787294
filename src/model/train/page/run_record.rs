//! [`RunRecord`]: what the training page keeps of a run it draws, whoever trains it (a Web
//! Worker that posts each evaluation, or the page itself when workers are unavailable).
//!
//! The record is fed each evaluation with the weights it measured ([`RunRecord::record`]), in
//! step order, and keeps, in bounded memory however long the run goes on:
//! - the loss curve: at most [`MAX_CURVE_POINTS`] evaluations, thinned as the checkpoints are
//!   (when full, every second one is dropped; step 0 and the newest stay), so the curve still
//!   spans the whole run;
//! - the checkpoints for Replay, by the trainer's own rule ([`Checkpoints`]);
//! - the latest evaluation and its weights;
//! - the first evaluated step at which the copying circuit had formed, and for the tiny grammar
//!   the first at which the held-out loss came near its floor (found as evaluations arrive, so
//!   thinning never moves them).
//!
//! Fed the evaluations of a [`Trainer`](crate::model::train::page::stepping::Trainer), a record holds the same
//! checkpoints and the same latest snapshot as the trainer, bit for bit (tested).

use super::checkpoints::{Checkpoints, MAX_CHECKPOINTS};
use super::stepping::Snapshot;
use crate::model::train::lab::detectors::{agreement_on, AgreementReport};
use crate::model::train::lab::evaluation::EvalPoint;
use crate::model::train::lab::run_config::{agreement_set, held_out_set, TrainConfig};
use crate::model::train::tasks::{Grammar, Sequence, Task};
use crate::model::train::transformer::Transformer;

/// The most evaluations the loss curve keeps (about 25,000 steps at the default interval before
/// the first thinning).
pub const MAX_CURVE_POINTS: usize = 1024;

/// A run as the page keeps it (see the module documentation).
#[derive(Debug, Clone)]
pub struct RunRecord {
    config: TrainConfig,
    held_out: Vec<Sequence>,
    agreement: Vec<Sequence>,
    curve: Vec<EvalPoint>,
    curve_capacity: usize,
    /// The weights and scores at evaluated steps, thinned to at most [`MAX_CHECKPOINTS`].
    pub checkpoints: Checkpoints<Snapshot>,
    latest: Option<Snapshot>,
    steps: usize,
    circuit_formed_at: Option<usize>,
    grammar_floor: Option<f64>,
    near_floor_at: Option<usize>,
}

impl RunRecord {
    /// An empty record of the run `config` describes (its held-out and agreement sets are
    /// generated here, from the run's seed, as the trainer generates them).
    pub fn new(config: TrainConfig) -> Self {
        Self::with_capacity(config, MAX_CURVE_POINTS)
    }

    /// As [`Self::new`], keeping at most `curve_capacity` (at least 2) evaluations on the curve.
    pub fn with_capacity(config: TrainConfig, curve_capacity: usize) -> Self {
        Self {
            held_out: held_out_set(&config),
            agreement: agreement_set(&config),
            curve: Vec::new(),
            curve_capacity: curve_capacity.max(2),
            checkpoints: Checkpoints::new(MAX_CHECKPOINTS, config.eval_every.max(1)),
            latest: None,
            steps: 0,
            circuit_formed_at: None,
            grammar_floor: match config.task {
                Task::Grammar(g) => Some(g.held_out_floor()),
                Task::Repeat(_) => None,
            },
            near_floor_at: None,
            config,
        }
    }

    pub fn config(&self) -> &TrainConfig {
        &self.config
    }

    pub fn held_out(&self) -> &[Sequence] {
        &self.held_out
    }

    /// Adds the evaluation of `snapshot`'s weights (evaluations arrive in step order; one of a
    /// step already recorded, such as step 0 from both the page and a worker, is ignored).
    pub fn record(&mut self, snapshot: Snapshot) {
        if self
            .latest
            .as_ref()
            .is_some_and(|l| l.eval.step >= snapshot.eval.step)
        {
            return;
        }
        let e = &snapshot.eval;
        self.steps = self.steps.max(e.step);
        if self.circuit_formed_at.is_none() && e.circuit_formed() {
            self.circuit_formed_at = Some(e.step);
        }
        if self.near_floor_at.is_none()
            && self
                .grammar_floor
                .is_some_and(|floor| Grammar::near_floor(e.loss, floor))
        {
            self.near_floor_at = Some(e.step);
        }
        if self.curve.len() >= self.curve_capacity {
            let last = self.curve.len() - 1;
            let mut index = 0;
            self.curve.retain(|_| {
                index += 1;
                index % 2 == 1 || index - 1 == last
            });
        }
        self.curve.push(e.clone());
        let step = e.step;
        self.checkpoints.offer(step, || snapshot.clone());
        self.latest = Some(snapshot);
    }

    /// The trainer's step count, told between evaluations.
    pub fn set_steps(&mut self, steps: usize) {
        self.steps = steps;
    }

    /// Steps taken, as last told (at least the latest evaluation's step).
    pub fn steps(&self) -> usize {
        self.steps
    }

    /// The evaluations the loss curve shows, oldest first (see the module documentation).
    pub fn evals(&self) -> &[EvalPoint] {
        &self.curve
    }

    /// The loss table's rows, newest first: the kept checkpoints' evaluations and the latest one
    /// (at most [`MAX_CHECKPOINTS`] + 1 rows, however long the run), each as (step, held-out
    /// loss, first copy's, repeated part's).
    pub fn table_rows(&self) -> Vec<(usize, f64, Option<f64>, Option<f64>)> {
        self.table_evals()
            .map(|e| (e.step, e.loss, e.first_copy_loss, e.repeated_loss))
            .collect()
    }

    /// The evaluations of [`Self::table_rows`], newest first.
    pub fn table_evals(&self) -> impl Iterator<Item = &EvalPoint> {
        let kept = self.checkpoints.kept().iter().map(|(_, s)| &s.eval);
        let latest = self.latest().filter(|e| {
            self.checkpoints
                .kept()
                .last()
                .is_none_or(|&(k, _)| e.step > k)
        });
        latest.into_iter().chain(kept.rev())
    }

    /// The latest evaluation, if one has arrived.
    pub fn latest(&self) -> Option<&EvalPoint> {
        self.latest.as_ref().map(|s| &s.eval)
    }

    /// The weights and scores of the latest evaluation.
    pub fn latest_snapshot(&self) -> Option<&Snapshot> {
        self.latest.as_ref()
    }

    /// The first evaluated step at which the copying circuit had formed.
    pub fn circuit_formed_at(&self) -> Option<usize> {
        self.circuit_formed_at
    }

    /// Tiny grammar: the first evaluated step whose held-out loss was near its floor.
    pub fn near_floor_at(&self) -> Option<usize> {
        self.near_floor_at
    }

    /// Grammar task: the agreement report for `model` (`None` for the repeat task).
    pub fn agreement_of(&self, model: &Transformer) -> Option<AgreementReport> {
        agreement_on(model, &self.agreement)
    }

    /// The snapshot at `replay` (the kept checkpoint at or before that step) or the latest one,
    /// and whether it is the latest; `None` before the first evaluation.
    pub fn shown_snapshot(&self, replay: Option<usize>) -> Option<(&Snapshot, bool)> {
        let latest = self.latest.as_ref()?;
        let kept = self.checkpoints.kept();
        Some(
            match replay.and_then(|step| self.checkpoints.at_or_before(step)) {
                Some(i) if kept[i].0 < latest.eval.step => (&kept[i].1, false),
                _ => (latest, true),
            },
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::train::lab::evaluation::EvalPoint;
    use crate::model::train::page::settings::{TaskChoice, TrainSettings};
    use crate::model::train::page::stepping::{Trainer, Work};
    use crate::model::train::shape::PositionKind;

    /// Fed a trainer's evaluations as they happen, the record holds the trainer's checkpoints,
    /// latest snapshot, evaluations and circuit step, bit for bit.
    #[test]
    fn a_record_fed_a_trainers_evaluations_matches_the_trainer() {
        let mut config = TrainConfig::repeat_default(1);
        config.eval_every = 5;
        config.eval_sequences = 8;
        let mut t = Trainer::new(config).unwrap();
        let mut record = RunRecord::new(config);
        assert!(record.latest().is_none());
        record.record(t.latest_snapshot().clone());
        record.record(t.latest_snapshot().clone());
        while t.steps() < 120 || !t.is_idle() {
            if t.work() == Work::Evaluated {
                record.record(t.latest_snapshot().clone());
            }
        }
        assert_eq!(record.evals(), &t.evals[..]);
        assert_eq!(record.checkpoints, t.checkpoints);
        assert_eq!(record.latest_snapshot(), Some(t.latest_snapshot()));
        assert_eq!(record.steps(), 120);
        assert_eq!(
            record.circuit_formed_at(),
            t.first_step_where(EvalPoint::circuit_formed)
        );
        assert_eq!(record.held_out(), t.held_out());
        // Every evaluation is still kept: the table lists them all, newest first.
        let rows: Vec<usize> = record.table_rows().iter().map(|r| r.0).collect();
        assert_eq!(rows, (0..=24).rev().map(|i| i * 5).collect::<Vec<_>>());
        let (shown, latest) = record.shown_snapshot(Some(12)).unwrap();
        assert_eq!((shown.eval.step, latest), (10, false));
        assert!(record.shown_snapshot(None).unwrap().1);
    }

    /// However many evaluations arrive, the curve keeps at most its capacity, spans step 0 to
    /// the newest, and the milestones found before thinning stay.
    #[test]
    fn the_curve_stays_bounded_and_spans_the_run() {
        let settings = TrainSettings {
            task: TaskChoice::Grammar,
            layers: 1,
            positions: PositionKind::Sinusoidal,
            ..TrainSettings::default()
        };
        let mut config = settings.config();
        config.eval_sequences = 2;
        let t = Trainer::new(config).unwrap();
        let mut record = RunRecord::with_capacity(config, 8);
        let floor = record.grammar_floor.unwrap();
        for step in 0..=101 {
            let mut snapshot = t.latest_snapshot().clone();
            snapshot.eval.step = step * 25;
            snapshot.eval.loss = if step >= 37 { floor } else { 10.0 };
            record.record(snapshot);
            assert!(record.evals().len() <= 8);
            assert_eq!(record.evals()[0].step, 0);
            assert_eq!(record.evals().last().unwrap().step, step * 25);
            assert!(record.checkpoints.kept().len() <= MAX_CHECKPOINTS);
        }
        assert_eq!(record.near_floor_at(), Some(37 * 25));
        assert_eq!(record.circuit_formed_at(), None);
        let steps: Vec<usize> = record.evals().iter().map(|e| e.step).collect();
        assert!(steps.windows(2).all(|w| w[0] < w[1]));
        // The loss table: the kept checkpoints and the latest (not kept here), newest first.
        let rows = record.table_rows();
        assert!(rows.len() <= MAX_CHECKPOINTS + 1);
        assert_eq!(rows[0].0, 2525);
        assert_eq!(rows.last().unwrap().0, 0);
        assert_eq!(rows.len(), record.checkpoints.kept().len() + 1);
        assert!(rows.windows(2).all(|w| w[0].0 > w[1].0));
    }
}
