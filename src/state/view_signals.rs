//! [`ViewSignals`]: the view as signals, one per parameter of the link, which every page has as a
//! context (`app::provide_view`). The explorer's model ([`super::ExplorerModel`]) is computed from
//! them; the training page needs nothing more (its run is [`super::Training`]).

// `Mistakes`, `CompareChange`, `Step`, `TaskChoice` and `PositionKind` are types in the parameter table,
// which expands here.
use crate::model::broken::Mistakes;
use crate::model::train::{page::settings::TaskChoice, shape::PositionKind};
use crate::model::trained::WeightsChoice;
use crate::model::url_state::CompareChange;
use crate::model::url_state::{view_params, Step, ViewState};
use leptos::prelude::*;

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
            pub fn new(initial: ViewState) -> Self {
                Self {
                    $($field: RwSignal::new(initial.$field),)*
                }
            }

            /// The view now, as the link writes it (tracked: an effect that calls this reruns on
            /// every change).
            pub fn snapshot(&self) -> ViewState {
                ViewState {
                    $($field: self.$field.get(),)*
                }
            }
        }
    };
}
view_params!(view_signals_from_table);

impl ViewSignals {
    /// The view's signals, which every page provides.
    pub fn from_context() -> Self {
        // Not `expect_context`: its panic message debug-prints the type name, and that one use
        // of `str`'s Debug brings core's Unicode escaping tables into the wasm.
        use_context::<ViewSignals>().expect("ViewSignals is provided by every page")
    }

    /// Whether any Break it mistake is on (tracked: a reactive read of `broken`).
    pub fn is_broken(&self) -> bool {
        self.broken.with(|b| !b.is_empty())
    }

    /// Sets the head count, keeping the selected head in range.
    pub fn set_heads(&self, heads: usize) {
        self.heads.set(heads);
        self.head.update(|h| *h = (*h).min(heads - 1));
    }
}
