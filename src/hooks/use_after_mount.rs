//! `use_after_mount`: whether the task that mounted the page is over, so that a chart's first
//! painting runs in a task of its own (`use_canvas`: sized in the mount's task, painted in the
//! next).
//!
//! Why: the page's first task ran the wasm's start, built the heading and the heatmap, and drew
//! it: 60–68 ms in traces of the explorer's load on the project's VM (2026-12-03), the drawing
//! (text, cells, legend) a good part of it. Lighthouse's phone counts each task's time beyond
//! 50 ms, at 4× its length here, as blocking: one task of 68 ms blocks for 222 ms, tasks of 53
//! and 15 ms for 172 ms. The canvas still takes its size in the mount's task, so its box is final
//! from the first frame (nothing moves when it is painted), and the painting follows at once, in
//! the next task (`web::next_task`, a message: no timer's delay, usually before the next frame).

use crate::web::next_task::next_task;
use leptos::prelude::*;
use std::cell::RefCell;

/// The flag, once asked for, and what waits for it to turn.
struct MountTask {
    over: ArcRwSignal<bool>,
    then: Vec<Box<dyn FnOnce()>>,
}

thread_local! {
    /// Created by the first call of [`use_after_mount`] or [`after_mount`]. Reference-counted
    /// rather than owned by a component, so that no unmounted page disposes of it (the component
    /// tests mount many).
    static MOUNT_TASK: RefCell<Option<MountTask>> = const { RefCell::new(None) };
}

/// The flag, created (and its turn queued for the next task) on the first call.
fn over() -> ArcRwSignal<bool> {
    MOUNT_TASK.with_borrow_mut(|task| {
        task.get_or_insert_with(|| {
            next_task(|| {
                let (over, then) = MOUNT_TASK.with_borrow_mut(|task| {
                    let task = task.as_mut().expect("created before its turn was queued");
                    (task.over.clone(), std::mem::take(&mut task.then))
                });
                over.set(true);
                for f in then {
                    f();
                }
            });
            MountTask {
                over: ArcRwSignal::new(false),
                then: Vec::new(),
            }
        })
        .over
        .clone()
    })
}

/// False in the task that first calls it (the page's mount), true from the next task on.
pub fn use_after_mount() -> Signal<bool> {
    over().into()
}

/// Runs `f` in the task after the mount's, right after the flag turns (so the charts' first
/// painting, which the flag sets off, comes before any frame `f` waits for); at once if that
/// task has run.
pub fn after_mount(f: impl FnOnce() + 'static) {
    if over().get_untracked() {
        f();
    } else {
        MOUNT_TASK.with_borrow_mut(|task| {
            if let Some(task) = task.as_mut() {
                task.then.push(Box::new(f));
            }
        });
    }
}
