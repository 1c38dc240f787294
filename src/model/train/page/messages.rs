//! The messages between the training page and a run's Web Worker, as flat `f64` buffers (each
//! posts as one transferable `Float64Array`, and every f64 crosses bit for bit).
//!
//! The page sends [`Command`]s; the worker, which owns the run's
//! [`Trainer`](crate::model::train::page::stepping::Trainer), sends [`Report`]s: its step count while it trains, and
//! each evaluation with the weights it measured (the page keeps those for Replay, the head grid
//! and the downloads, [`super::run_record`]). Every message carries the run's `generation`, so a
//! report of a run the page has since replaced is told apart and dropped.
//!
//! Counts, seeds (at most `u32::MAX`) and codes are small whole numbers, exact in f64; a buffer
//! that is not well formed is refused whole ([`Command::decode`], [`Report::decode`]).

use super::settings::{TaskChoice, TrainSettings};
use super::stepping::Snapshot;
use crate::model::train::lab::detectors::HeadScores;
use crate::model::train::lab::evaluation::EvalPoint;
use crate::model::train::lab::mistakes::TrainingMistake;
use crate::model::train::lab::run_config::TrainConfig;
use crate::model::train::shape::PositionKind;

/// What a run is: the learner's settings, a training mistake if any, and how often it evaluates.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct RunSpec {
    pub settings: TrainSettings,
    pub mistake: Option<TrainingMistake>,
    /// Evaluate every this many steps (the task's default, 25, unless a developer link asks).
    pub eval_every: usize,
}

impl RunSpec {
    /// The run with the settings' own evaluation interval and no mistake.
    pub fn new(settings: TrainSettings) -> Self {
        Self {
            settings,
            mistake: None,
            eval_every: settings.config().eval_every,
        }
    }

    /// The run's config.
    pub fn config(&self) -> TrainConfig {
        let mut config = self.settings.config();
        config.mistake = self.mistake;
        config.eval_every = self.eval_every;
        config
    }
}

/// From the page to a run's worker.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Command {
    /// Build the run (step 0, evaluated) and wait.
    Start { generation: u64, spec: RunSpec },
    /// Train until `until` steps (and their evaluation), or without end.
    Run {
        generation: u64,
        until: Option<usize>,
    },
    /// Stop after finishing any evaluation under way.
    Pause { generation: u64 },
    /// One step (and its evaluation, if due), then stop.
    Step { generation: u64 },
}

/// From a run's worker to the page.
#[derive(Debug, Clone, PartialEq)]
pub enum Report {
    /// The worker has loaded and listens.
    Ready,
    /// Steps taken so far (about ten times a second while training).
    Progress { generation: u64, steps: usize },
    /// An evaluation and the weights it measured.
    Evaluated { generation: u64, snapshot: Snapshot },
    /// The run stopped (paused, reached its target or took its one step) at `steps`.
    Stopped { generation: u64, steps: usize },
    /// The run could not be built.
    Failed { generation: u64 },
}

const START: f64 = 1.0;
const RUN: f64 = 2.0;
const PAUSE: f64 = 3.0;
const STEP: f64 = 4.0;
const READY: f64 = 10.0;
const PROGRESS: f64 = 11.0;
const EVALUATED: f64 = 12.0;
const STOPPED: f64 = 13.0;
const FAILED: f64 = 14.0;

/// Reads a buffer front to back, refusing what is not there or not a whole number.
struct Reader<'a> {
    buffer: &'a [f64],
    at: usize,
}

impl<'a> Reader<'a> {
    fn value(&mut self) -> Result<f64, String> {
        let v = *self.buffer.get(self.at).ok_or("the message ends early")?;
        self.at += 1;
        Ok(v)
    }

    fn count(&mut self) -> Result<usize, String> {
        let v = self.value()?;
        if v >= 0.0 && v.fract() == 0.0 && v < 2f64.powi(52) {
            Ok(v as usize)
        } else {
            Err(format!("{v} is not a count"))
        }
    }

    fn flag(&mut self) -> Result<bool, String> {
        match self.count()? {
            0 => Ok(false),
            1 => Ok(true),
            n => Err(format!("{n} is not a flag")),
        }
    }

    fn optional(&mut self) -> Result<Option<f64>, String> {
        let present = self.flag()?;
        let v = self.value()?;
        Ok(present.then_some(v))
    }

    fn slice(&mut self, len: usize) -> Result<&'a [f64], String> {
        let s = self
            .buffer
            .get(self.at..self.at + len)
            .ok_or("the message ends early")?;
        self.at += len;
        Ok(s)
    }

    fn done(&self) -> Result<(), String> {
        if self.at == self.buffer.len() {
            Ok(())
        } else {
            Err("the message is longer than its contents".into())
        }
    }
}

fn push_optional(out: &mut Vec<f64>, v: Option<f64>) {
    out.extend([f64::from(u8::from(v.is_some())), v.unwrap_or(0.0)]);
}

/// Appends an evaluation: step, loss, the two repeat losses, the heads' scores, the "as used"
/// evaluation (a nested one) if any.
fn push_eval(out: &mut Vec<f64>, e: &EvalPoint) {
    out.extend([e.step as f64, e.loss]);
    push_optional(out, e.first_copy_loss);
    push_optional(out, e.repeated_loss);
    out.push(e.heads.len() as f64);
    for layer in &e.heads {
        out.push(layer.len() as f64);
        for h in layer {
            out.push(h.previous_token);
            push_optional(out, h.induction);
            out.extend([h.first_token, h.self_token, h.entropy_bits]);
        }
    }
    out.push(f64::from(u8::from(e.used.is_some())));
    if let Some(used) = &e.used {
        push_eval(out, used);
    }
}

fn read_eval(r: &mut Reader, depth: usize) -> Result<EvalPoint, String> {
    let step = r.count()?;
    let loss = r.value()?;
    let first_copy_loss = r.optional()?;
    let repeated_loss = r.optional()?;
    let layers = r.count()?;
    let mut heads = Vec::new();
    for _ in 0..layers {
        let n = r.count()?;
        let mut layer = Vec::new();
        for _ in 0..n {
            layer.push(HeadScores {
                previous_token: r.value()?,
                induction: r.optional()?,
                first_token: r.value()?,
                self_token: r.value()?,
                entropy_bits: r.value()?,
            });
        }
        heads.push(layer);
    }
    let used = if r.flag()? {
        if depth > 0 {
            return Err("an evaluation nested twice".into());
        }
        Some(Box::new(read_eval(r, depth + 1)?))
    } else {
        None
    };
    Ok(EvalPoint {
        step,
        loss,
        first_copy_loss,
        repeated_loss,
        heads,
        used,
    })
}

fn mistake_code(m: Option<TrainingMistake>) -> f64 {
    m.and_then(|m| TrainingMistake::ALL.iter().position(|&x| x == m))
        .map_or(0.0, |i| (i + 1) as f64)
}

impl Command {
    pub fn generation(&self) -> u64 {
        match *self {
            Self::Start { generation, .. }
            | Self::Run { generation, .. }
            | Self::Pause { generation }
            | Self::Step { generation } => generation,
        }
    }

    pub fn encode(&self) -> Vec<f64> {
        match self {
            Self::Start { generation, spec } => {
                let s = &spec.settings;
                let task = TaskChoice::ALL.iter().position(|&t| t == s.task);
                let positions = PositionKind::ALL.iter().position(|&p| p == s.positions);
                vec![
                    START,
                    *generation as f64,
                    task.unwrap_or(0) as f64,
                    s.seed as f64,
                    s.layers as f64,
                    s.heads as f64,
                    positions.unwrap_or(0) as f64,
                    s.lr,
                    mistake_code(spec.mistake),
                    spec.eval_every as f64,
                ]
            }
            Self::Run { generation, until } => {
                vec![RUN, *generation as f64, until.map_or(0.0, |n| n as f64)]
            }
            Self::Pause { generation } => vec![PAUSE, *generation as f64],
            Self::Step { generation } => vec![STEP, *generation as f64],
        }
    }

    pub fn decode(buffer: &[f64]) -> Result<Self, String> {
        let mut r = Reader { buffer, at: 0 };
        let kind = r.value()?;
        let generation = r.count()? as u64;
        let command = if kind == START {
            let task = *TaskChoice::ALL.get(r.count()?).ok_or("no such task")?;
            let seed = r.count()? as u64;
            let layers = r.count()?;
            let heads = r.count()?;
            let positions = *PositionKind::ALL
                .get(r.count()?)
                .ok_or("no such positions")?;
            let lr = r.value()?;
            let mistake = match r.count()? {
                0 => None,
                i => Some(*TrainingMistake::ALL.get(i - 1).ok_or("no such mistake")?),
            };
            let eval_every = r.count()?;
            Self::Start {
                generation,
                spec: RunSpec {
                    settings: TrainSettings {
                        task,
                        seed,
                        layers,
                        heads,
                        positions,
                        lr,
                    },
                    mistake,
                    eval_every,
                },
            }
        } else if kind == RUN {
            let until = r.count()?;
            Self::Run {
                generation,
                until: (until > 0).then_some(until),
            }
        } else if kind == PAUSE {
            Self::Pause { generation }
        } else if kind == STEP {
            Self::Step { generation }
        } else {
            return Err(format!("{kind} is not a command"));
        };
        r.done()?;
        Ok(command)
    }
}

impl Report {
    pub fn encode(&self) -> Vec<f64> {
        match self {
            Self::Ready => vec![READY],
            Self::Progress { generation, steps } => {
                vec![PROGRESS, *generation as f64, *steps as f64]
            }
            Self::Evaluated {
                generation,
                snapshot,
            } => {
                let mut out = Vec::with_capacity(snapshot.params.len() + 256);
                out.extend([EVALUATED, *generation as f64, snapshot.params.len() as f64]);
                out.extend_from_slice(&snapshot.params);
                push_eval(&mut out, &snapshot.eval);
                out
            }
            Self::Stopped { generation, steps } => {
                vec![STOPPED, *generation as f64, *steps as f64]
            }
            Self::Failed { generation } => vec![FAILED, *generation as f64],
        }
    }

    pub fn decode(buffer: &[f64]) -> Result<Self, String> {
        let mut r = Reader { buffer, at: 0 };
        let kind = r.value()?;
        if kind == READY {
            r.done()?;
            return Ok(Self::Ready);
        }
        let generation = r.count()? as u64;
        let report = if kind == PROGRESS {
            Self::Progress {
                generation,
                steps: r.count()?,
            }
        } else if kind == EVALUATED {
            let n = r.count()?;
            let params = r.slice(n)?.to_vec();
            let eval = read_eval(&mut r, 0)?;
            Self::Evaluated {
                generation,
                snapshot: Snapshot { params, eval },
            }
        } else if kind == STOPPED {
            Self::Stopped {
                generation,
                steps: r.count()?,
            }
        } else if kind == FAILED {
            Self::Failed { generation }
        } else {
            return Err(format!("{kind} is not a report"));
        };
        r.done()?;
        Ok(report)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::train::page::stepping::Trainer;

    /// Every command and report survives encoding bit for bit, including an evaluation with
    /// both measures (a run with a mistake) and a grammar one (no repeat losses); broken buffers
    /// are refused.
    #[test]
    fn messages_round_trip_bit_for_bit() {
        let settings = TrainSettings {
            lr: 0.003,
            seed: u64::from(u32::MAX),
            ..TrainSettings::default()
        };
        for mistake in [None, Some(TrainingMistake::NoCausalMask)] {
            let spec = RunSpec {
                mistake,
                eval_every: 5,
                ..RunSpec::new(settings)
            };
            for c in [
                Command::Start {
                    generation: 3,
                    spec,
                },
                Command::Run {
                    generation: 4,
                    until: Some(1200),
                },
                Command::Run {
                    generation: 4,
                    until: None,
                },
                Command::Pause { generation: 5 },
                Command::Step { generation: 6 },
            ] {
                assert_eq!(Command::decode(&c.encode()), Ok(c));
            }
            let mut config = spec.config();
            config.eval_sequences = 4;
            assert_eq!(config.mistake, mistake);
            assert_eq!(config.eval_every, 5);
            let mut t = Trainer::new(config).unwrap();
            t.run_to(5);
            let snapshot = t.latest_snapshot().clone();
            assert_eq!(snapshot.eval.used.is_some(), mistake.is_some());
            let r = Report::Evaluated {
                generation: 7,
                snapshot,
            };
            let decoded = Report::decode(&r.encode()).unwrap();
            assert_eq!(decoded, r);
            let (Report::Evaluated { snapshot: a, .. }, Report::Evaluated { snapshot: b, .. }) =
                (&decoded, &r)
            else {
                unreachable!()
            };
            assert!(a
                .params
                .iter()
                .zip(&b.params)
                .all(|(x, y)| x.to_bits() == y.to_bits()));
            assert_eq!(a.eval.loss.to_bits(), b.eval.loss.to_bits());
        }
        let grammar = TrainSettings {
            task: TaskChoice::Grammar,
            layers: 1,
            positions: PositionKind::Sinusoidal,
            ..settings
        };
        let mut config = RunSpec::new(grammar).config();
        config.eval_sequences = 3;
        let t = Trainer::new(config).unwrap();
        let r = Report::Evaluated {
            generation: 1,
            snapshot: t.latest_snapshot().clone(),
        };
        assert_eq!(Report::decode(&r.encode()), Ok(r.clone()));
        for r in [
            Report::Ready,
            Report::Progress {
                generation: 2,
                steps: 40,
            },
            Report::Stopped {
                generation: 2,
                steps: 50,
            },
            Report::Failed { generation: 9 },
        ] {
            assert_eq!(Report::decode(&r.encode()), Ok(r.clone()));
        }
        let mut long = r.encode();
        long.push(0.0);
        assert!(Report::decode(&long).is_err());
        let mut short = r.encode();
        short.pop();
        assert!(Report::decode(&short).is_err());
        assert!(Report::decode(&[99.0, 1.0]).is_err());
        assert!(Command::decode(&[RUN, 1.5, 0.0]).is_err());
        assert!(Command::decode(&[]).is_err());
    }
}
