//! [`Notices`]: what the link asked for that could not be used as written, which every page has
//! as a context and shows until dismissed (`components::notices`).

use leptos::prelude::*;

/// The notices about the link (shown until dismissed).
#[derive(Clone, Copy)]
pub struct Notices(pub RwSignal<Vec<String>>);

impl Notices {
    /// The page's notices, which every page provides.
    pub fn from_context() -> Self {
        // Not `expect_context` (see `ViewSignals::from_context`).
        use_context::<Notices>().expect("Notices are provided by every page")
    }
}
