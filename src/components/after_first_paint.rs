//! [`AfterFirstPaint`]: children built only once the page has painted its first frame, one part
//! per frame.
//!
//! This orders the app's own building, after the mount: the rest of the first view, then what lies
//! below it. The first view written into the HTML, and its hand-over to the app in the mount's
//! task, are `first_view` and `web::first_view_handover`.

use crate::hooks::after_mount;
use crate::web::now_ms;
use leptos::prelude::*;
use std::cell::{Cell, RefCell};
use std::collections::VecDeque;
use std::time::Duration;

thread_local! {
    /// The parts not built yet, in the order they were asked for.
    static WAITING: RefCell<VecDeque<Part>> = const { RefCell::new(VecDeque::new()) };
    /// Whether a frame is being waited for on their behalf.
    static WAITING_FOR_FRAME: Cell<bool> = const { Cell::new(false) };
    /// Where the part first in line stands with its `ready`.
    static HOLD: Cell<Hold> = const { Cell::new(Hold::NotAsked) };
}

/// Where a part with a `ready` ([`painted_flag_when`]) stands, once its turn has come.
#[derive(Clone, Copy)]
enum Hold {
    /// Not looked at yet.
    NotAsked,
    /// Not ready when first looked at, at this time (`performance.now()`, ms).
    Since(f64),
    /// Ready (or waited too long) when last looked at: built at the next look, a frame later, so
    /// that a frame lays out what made it ready (on the training page, the first evaluation's
    /// update) before the part adds to the page.
    Released,
}

/// How long, at most, a part waits for its `ready` once its turn has come ([`painted_flag_when`]):
/// a run that never evaluates (no settings) must not keep the rest of the page away. Its first
/// evaluation takes 70–95 ms here from the mount (worker start and one evaluation), about four
/// times that on a slow phone.
const MAX_HOLD_MS: f64 = 3_000.0;

/// A part waiting for its frame.
struct Part {
    /// Turns true when the part is to be built.
    flag: RwSignal<bool>,
    /// What else it waits for, if anything (read untracked, once per frame while it waits).
    ready: Option<Box<dyn Fn() -> bool>>,
}

/// A flag that turns true in a task of its own, after a frame has painted since the page's first
/// charts were painted (the task after the mount's, `hooks::after_mount`) and since the flag asked
/// for before it turned true: flags turn true in the order they were asked for, one per frame.
///
/// One per frame because each part's build ends in a layout of what it added (the first canvas
/// size read, or the next frame, lays out every element added since the last layout). In one
/// frame, several parts would make one long layout, or one long task; spread over frames, each
/// part's task stays short on a slow phone, and each frame shows a page whose parts so far are
/// final. The frame's callback runs before it paints; the timeout set there, in the next task.
pub fn painted_flag() -> Signal<bool> {
    queue(None)
}

/// A [`painted_flag`] that also waits until `ready()` is true (checked once per frame, for at
/// most [`MAX_HOLD_MS`]) and a frame has painted since, and so do the parts asked for after it.
/// On the training page the parts that show the run's numbers (the heads, the detector scores,
/// run B and below) wait for its first evaluation: built before it, they were all updated by the
/// task that received it, one long task (21–57 ms here at a phone's size, 35 ms median) and one
/// long layout after it; built after it, each part's task holds that part alone.
pub fn painted_flag_when(ready: impl Fn() -> bool + 'static) -> Signal<bool> {
    queue(Some(Box::new(ready)))
}

fn queue(ready: Option<Box<dyn Fn() -> bool>>) -> Signal<bool> {
    let flag = RwSignal::new(false);
    WAITING.with_borrow_mut(|waiting| waiting.push_back(Part { flag, ready }));
    if !WAITING_FOR_FRAME.replace(true) {
        mark_building(true);
        // Counted from the task after the mount's, whose first painting of the charts is then
        // in the first frame, before any part is built.
        after_mount(after_next_frame);
    }
    flag.into()
}

/// Whether every part asked for so far has been built: no flag is waiting for its frame. For
/// tests that mount a page and then look at its later parts.
pub fn all_parts_built() -> bool {
    !WAITING_FOR_FRAME.get()
}

/// Shows [`all_parts_built`] in the document: `<html data-building>` while a part waits for its
/// frame, so a script driving the page (the browser tests) can wait for the whole page before it
/// counts what the page holds.
fn mark_building(building: bool) {
    if let Some(root) = document().document_element() {
        let _ = if building {
            root.set_attribute("data-building", "")
        } else {
            root.remove_attribute("data-building")
        };
    }
}

/// After the next frame, turns the first waiting flag true (its part is built in that task, by
/// the effects the flag sets off), then waits for another frame for the next one. A part whose
/// `ready` is still false keeps its place, and is looked at again after the next frame.
fn after_next_frame() {
    request_animation_frame(move || {
        set_timeout(
            move || match WAITING.with_borrow_mut(next_turn) {
                Turn::Build(flag) => {
                    // A part removed before its turn (its owner disposed) is skipped.
                    flag.try_set(true);
                    after_next_frame();
                }
                Turn::Wait => after_next_frame(),
                Turn::Done => {
                    WAITING_FOR_FRAME.set(false);
                    mark_building(false);
                }
            },
            Duration::ZERO,
        );
    });
}

/// What a frame's turn does.
enum Turn {
    /// Build the first part: its flag, taken off the line.
    Build(RwSignal<bool>),
    /// The first part is not ready yet (or became ready since the last frame): look again after
    /// the next one.
    Wait,
    /// No part is left.
    Done,
}

fn next_turn(waiting: &mut VecDeque<Part>) -> Turn {
    let Some(first) = waiting.front() else {
        return Turn::Done;
    };
    // A part whose owner was disposed is not asked (its `ready` may read disposed signals).
    if let Some(ready) = first.ready.as_ref().filter(|_| !first.flag.is_disposed()) {
        let hold = HOLD.get();
        if !matches!(hold, Hold::Released) {
            let now = now_ms();
            let since = match hold {
                Hold::Since(since) => since,
                _ => now,
            };
            HOLD.set(if ready() || now - since >= MAX_HOLD_MS {
                Hold::Released
            } else {
                Hold::Since(since)
            });
            return Turn::Wait;
        }
    }
    HOLD.set(Hold::NotAsked);
    waiting
        .pop_front()
        .map_or(Turn::Done, |part| Turn::Build(part.flag))
}

/// Its children, built only once the page has painted its first frame: what lies below the first
/// view (the lesson, Break it, the links; on the training page the knock-out results, the closer
/// look and the saved checkpoint) then waits for neither the first heatmap nor the largest paint,
/// and takes a task of its own instead of lengthening the first one. Several of them are built in
/// page order, one per frame ([`painted_flag`]), so the browser can handle input and paint between
/// them.
///
/// `with`: a [`painted_flag`] made beforehand, to set the order of a page's first view: its first
/// drawing (the heatmap, the loss chart) paints alone, then the parts that sit beside and under
/// it arrive in an order in which nothing already on screen moves.
#[component]
pub fn AfterFirstPaint(
    children: ChildrenFn,
    #[prop(optional, into)] with: Option<Signal<bool>>,
) -> impl IntoView {
    let painted = with.unwrap_or_else(painted_flag);
    view! { <Show when=move || painted.get()>{children()}</Show> }
}
