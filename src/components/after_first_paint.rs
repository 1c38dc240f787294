//! [`AfterFirstPaint`]: children built only once the page has painted its first frame, one part
//! per frame.

use crate::hooks::after_mount;
use leptos::prelude::*;
use std::cell::{Cell, RefCell};
use std::collections::VecDeque;
use std::time::Duration;

thread_local! {
    /// The flags still false, in the order they were asked for.
    static WAITING: RefCell<VecDeque<RwSignal<bool>>> = const { RefCell::new(VecDeque::new()) };
    /// Whether a frame is being waited for on their behalf.
    static WAITING_FOR_FRAME: Cell<bool> = const { Cell::new(false) };
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
    let flag = RwSignal::new(false);
    WAITING.with_borrow_mut(|waiting| waiting.push_back(flag));
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
/// the effects the flag sets off), then waits for another frame for the next one.
fn after_next_frame() {
    request_animation_frame(move || {
        set_timeout(
            move || {
                if let Some(flag) = WAITING.with_borrow_mut(VecDeque::pop_front) {
                    // A part removed before its turn (its owner disposed) is skipped.
                    flag.try_set(true);
                    after_next_frame();
                } else {
                    WAITING_FOR_FRAME.set(false);
                    mark_building(false);
                }
            },
            Duration::ZERO,
        );
    });
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
