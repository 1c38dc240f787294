//! The training worker's side (`assets/train-worker.js` calls [`run`] in a module worker that
//! loaded the training page's own wasm): it owns one run's [`Trainer`] and trains it in chunks of
//! about [`CHUNK_MS`], each a task of its own ([`next_task`]), so the page's commands are read
//! between two chunks. It posts the step count at most every [`PROGRESS_MS`] and every
//! evaluation with its weights ([`Report`], `model::train::page::messages`).

use crate::model::train::page::messages::{Command, Report};
use crate::model::train::page::stepping::{Trainer, Work};
use crate::web::next_task::next_task;
use std::cell::RefCell;
use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;
use web_sys::{DedicatedWorkerGlobalScope, MessageEvent};

/// Milliseconds of training per chunk (the page waits at most this long for a pause).
pub const CHUNK_MS: f64 = 40.0;
/// How often, at most, the step count is posted while training, in milliseconds.
pub const PROGRESS_MS: f64 = 100.0;

/// The run this worker holds.
#[derive(Default)]
struct Run {
    generation: u64,
    trainer: Option<Trainer>,
    running: bool,
    until: Option<usize>,
    /// Which run of chunks is current (a chunk of an earlier Run command stops).
    chunks: u64,
    progress_at: f64,
}

thread_local! {
    static RUN: RefCell<Run> = RefCell::new(Run::default());
}

fn scope() -> DedicatedWorkerGlobalScope {
    js_sys::global().unchecked_into()
}

fn now() -> f64 {
    scope().performance().map_or(0.0, |p| p.now())
}

/// Posts `report` to the page as a transferred `Float64Array`.
fn post(report: &Report) {
    let array = js_sys::Float64Array::from(report.encode().as_slice());
    let transfer = js_sys::Array::of1(&array.buffer());
    // Posting from a live worker to its page cannot fail for a plain typed array.
    let _ = scope().post_message_with_transfer(&array, &transfer);
}

/// The run's latest evaluation, posted.
fn post_latest(run: &Run) {
    if let Some(t) = &run.trainer {
        post(&Report::Evaluated {
            generation: run.generation,
            snapshot: t.latest_snapshot().clone(),
        });
    }
}

fn post_stopped(run: &Run) {
    post(&Report::Stopped {
        generation: run.generation,
        steps: run.trainer.as_ref().map_or(0, Trainer::steps),
    });
}

/// The worker's entry: listen to the page, then say so.
pub fn run() {
    let on_message = Closure::<dyn Fn(MessageEvent)>::new(|event: MessageEvent| {
        let buffer = js_sys::Float64Array::new(&event.data()).to_vec();
        if let Ok(command) = Command::decode(&buffer) {
            handle(command);
        }
    });
    scope().set_onmessage(Some(on_message.as_ref().unchecked_ref()));
    // The handler lives as long as the worker.
    on_message.forget();
    post(&Report::Ready);
}

fn handle(command: Command) {
    let generation = command.generation();
    let start_chunks = RUN.with(|cell| {
        let mut run = cell.borrow_mut();
        if let Command::Start { spec, .. } = &command {
            *run = Run {
                generation,
                trainer: None,
                chunks: run.chunks + 1,
                ..Run::default()
            };
            match Trainer::new(spec.config()) {
                Ok(t) => {
                    run.trainer = Some(t);
                    post_latest(&run);
                }
                Err(_) => post(&Report::Failed { generation }),
            }
            return None;
        }
        if generation != run.generation || run.trainer.is_none() {
            return None;
        }
        match command {
            Command::Run { until, .. } => {
                run.running = true;
                run.until = until;
                run.chunks += 1;
                run.progress_at = now();
                Some(run.chunks)
            }
            Command::Pause { .. } | Command::Step { .. } => {
                // Pause ends the evaluation in flight; Step takes one whole step. Either way the
                // page hears the newest evaluation, if this made one, and then that the run stopped.
                let one_step = matches!(command, Command::Step { .. });
                run.running = false;
                run.chunks += 1;
                let evaluated = run.trainer.as_mut().is_some_and(|t| {
                    let before = t.evals.len();
                    if one_step {
                        t.step();
                    } else {
                        t.finish_evaluation();
                    }
                    t.evals.len() > before
                });
                if evaluated {
                    post_latest(&run);
                }
                post_stopped(&run);
                None
            }
            Command::Start { .. } => None,
        }
    });
    if let Some(id) = start_chunks {
        next_task(move || chunk(id));
    }
}

/// One chunk of training, then the next.
fn chunk(id: u64) {
    let more = RUN.with(|cell| {
        let mut run = cell.borrow_mut();
        if !run.running || run.chunks != id {
            return false;
        }
        let start = now();
        let until = run.until;
        let mut reached = false;
        loop {
            let Some(t) = run.trainer.as_mut() else {
                return false;
            };
            if until.is_some_and(|n| t.steps() >= n && t.is_idle()) {
                reached = true;
                break;
            }
            if t.work() == Work::Evaluated {
                post_latest(&run);
            }
            if now() - start >= CHUNK_MS {
                break;
            }
        }
        if reached {
            run.running = false;
            post_stopped(&run);
            return false;
        }
        let end = now();
        if end - run.progress_at >= PROGRESS_MS {
            run.progress_at = end;
            post(&Report::Progress {
                generation: run.generation,
                steps: run.trainer.as_ref().map_or(0, Trainer::steps),
            });
        }
        true
    });
    if more {
        next_task(move || chunk(id));
    }
}
