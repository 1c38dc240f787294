//! [`PageState`]: what every page has, the view's signals (one per parameter of the link) and
//! the notices about the link. The explorer's model ([`super::AppState`]) is built on it; the
//! training page needs nothing more (its run is [`super::Training`]).

// `Mistakes`, `CompareChange`, `Step`, `TaskChoice` and `PositionKind` are types in the parameter table,
// which expands here.
use crate::model::broken::Mistakes;
use crate::model::train::{settings::TaskChoice, shape::PositionKind};
use crate::model::trained::WeightsChoice;
use crate::model::url_state::CompareChange;
use crate::model::url_state::{view_params, Step, ViewState};
use leptos::prelude::*;
use std::ops::Deref;

/// Declares [`ViewSignals`] from the parameter table in `model::url_state` (`view_params!`): only
/// each entry's field and type matter here; the link text and its checks are the model's.
macro_rules! view_signals_from_table {
    ($( $(#[$doc:meta])* $field:ident: $ty:ty { $($link:tt)* } )*) => {
        /// What a link carries, one signal per parameter.
        #[derive(Clone, Copy)]
        pub struct ViewSignals {
            $($(#[$doc])* pub $field: RwSignal<$ty>,)*
        }

        impl ViewSignals {
            fn new(initial: ViewState) -> Self {
                Self {
                    $($field: RwSignal::new(initial.$field),)*
                }
            }

            /// The view now (tracked: an effect that calls this reruns on every change).
            fn snapshot(&self) -> ViewState {
                ViewState {
                    $($field: self.$field.get(),)*
                }
            }
        }
    };
}
view_params!(view_signals_from_table);

/// The view's signals and the notices about the link.
#[derive(Clone, Copy)]
pub struct PageState {
    /// The view parameters; `page.tau`, `page.row`, … reach them directly (see `Deref` below).
    pub view: ViewSignals,
    /// What the link asked for that could not be used as written (shown until dismissed).
    pub notices: RwSignal<Vec<String>>,
}

/// The view's signals read as the page state's own fields (`page.tau`), as components use them.
impl Deref for PageState {
    type Target = ViewSignals;

    fn deref(&self) -> &ViewSignals {
        &self.view
    }
}

impl PageState {
    /// The training page's state, which `TrainApp` provides (the explorer's components reach it
    /// through [`super::AppState`]).
    pub fn from_context() -> Self {
        // Not `expect_context` (see `AppState::from_context`).
        use_context::<PageState>().expect("PageState is provided by TrainApp")
    }

    pub fn new(initial: ViewState, notices: Vec<String>) -> Self {
        Self {
            view: ViewSignals::new(initial),
            notices: RwSignal::new(notices),
        }
    }

    /// The link for the current view.
    pub fn view_state(&self) -> ViewState {
        self.view.snapshot()
    }
}
