//! `use_while_seen`: a value that follows the view only while its part of the page is on screen.

use leptos::prelude::*;

/// `compute`, memoised, following the signals it reads only while `on_screen` (from
/// [`super::use_visibility`]) is true; off screen it keeps its last value, so a slider step or a row
/// click costs it nothing, and it catches up as soon as its part of the page comes into view. It
/// is computed once at the start wherever the part is, so the page holds its words (find in page,
/// printing) before the learner scrolls there. `what` names the work for the work-per-input hook
/// (`web::work`), which counts every computation.
///
/// Off screen it computes untracked: a memo stays subscribed to what it last read, and at the next
/// change it would make those sources recompute (to learn whether it must rerun) even though it
/// then keeps its last value — every head's softmax, once more, for thumbnails nobody sees.
pub fn use_while_seen<T: Clone + PartialEq + Send + Sync + 'static>(
    on_screen: Option<ReadSignal<bool>>,
    what: &'static str,
    compute: impl Fn() -> T + Send + Sync + 'static,
) -> Memo<T> {
    Memo::new(move |previous: Option<&T>| {
        let seen = on_screen.is_none_or(|s| s.get());
        if let Some(last) = previous.filter(|_| !seen) {
            return last.clone();
        }
        crate::web::work::count(what);
        if seen {
            compute()
        } else {
            untrack(&compute)
        }
    })
}

/// As [`use_while_seen`], for a value that may not exist yet (`None`: nothing computed so far,
/// e.g. before a run's first evaluation). While off screen it keeps the last value that existed
/// and goes on computing until one does: a view below the fold never freezes on "nothing" and
/// never needs a placeholder for numbers the model already has.
pub fn use_while_seen_some<T: Clone + PartialEq + Send + Sync + 'static>(
    on_screen: ReadSignal<bool>,
    what: &'static str,
    compute: impl Fn() -> Option<T> + Send + Sync + 'static,
) -> Memo<Option<T>> {
    Memo::new(move |previous: Option<&Option<T>>| {
        if let Some(Some(last)) = previous.filter(|_| !on_screen.get()) {
            return Some(last.clone());
        }
        crate::web::work::count(what);
        compute()
    })
}
