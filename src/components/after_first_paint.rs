//! [`AfterFirstPaint`]: children built only once the page has painted its first frame.

use leptos::prelude::*;
use std::time::Duration;

/// A flag that turns true in the first task after the page's first frame has painted.
///
/// The frame's callback runs before it paints; the timeout set there, in the next task.
pub fn painted_flag() -> Signal<bool> {
    let painted = RwSignal::new(false);
    request_animation_frame(move || set_timeout(move || painted.set(true), Duration::ZERO));
    painted.into()
}

/// Its children, built only once the page has painted its first frame: what lies below the first
/// view (the lesson, Break it, the links; on the training page the knock-out results, the closer
/// look and the saved checkpoint) then waits for neither the first heatmap nor the largest paint,
/// and takes a task of its own instead of lengthening the first one. Several of them run in page
/// order, each in its own task (one timeout each), so the browser can handle input between them.
///
/// `with`: a [`painted_flag`] shared with other parts of the page, so that they are all built in
/// the same task. Each page's first view uses one: its first drawing (the heatmap, the loss chart)
/// paints alone, then what sits beside and under it arrives together, so nothing already on
/// screen moves when one part arrives before another.
#[component]
pub fn AfterFirstPaint(
    children: ChildrenFn,
    #[prop(optional, into)] with: Option<Signal<bool>>,
) -> impl IntoView {
    let painted = with.unwrap_or_else(painted_flag);
    view! { <Show when=move || painted.get()>{children()}</Show> }
}
