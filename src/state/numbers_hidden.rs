//! [`NumbersHidden`]: on the practice page, whether the heatmap and the row table must keep their
//! numbers to themselves because a question about them is open ("predict, then reveal"). The quiz
//! sets it; the heatmap, the inspector, Compare A and B and the downloads read it. Pages without a
//! quiz do not provide it.

use leptos::prelude::*;

/// True while a question is open and its answer not yet checked.
#[derive(Clone, Copy)]
pub struct NumbersHidden(pub RwSignal<bool>);

impl NumbersHidden {
    /// The page's, if it has a quiz.
    pub fn from_context() -> Option<Self> {
        use_context::<NumbersHidden>()
    }

    /// Whether the numbers are hidden now (tracked); false on a page without a quiz.
    pub fn now(hidden: Option<Self>) -> bool {
        hidden.is_some_and(|h| h.0.get())
    }
}
