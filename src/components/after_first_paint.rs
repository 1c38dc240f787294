//! [`AfterFirstPaint`]: children built only once the page has painted its first frame.

use leptos::prelude::*;
use std::time::Duration;

/// Its children, built only once the page has painted its first frame: what lies below the first
/// view (the lesson, Break it, the links; on the training page the knock-out results, the closer
/// look and the saved checkpoint) then waits for neither the first heatmap nor the largest paint,
/// and takes a task of its own instead of lengthening the first one. Several of them run in page
/// order, each in its own task (one timeout each), so the browser can handle input between them.
#[component]
pub fn AfterFirstPaint(children: ChildrenFn) -> impl IntoView {
    let painted = RwSignal::new(false);
    // The frame's callback runs before it paints; the timeout after it, in the next task.
    request_animation_frame(move || set_timeout(move || painted.set(true), Duration::ZERO));
    view! { <Show when=move || painted.get()>{children()}</Show> }
}
