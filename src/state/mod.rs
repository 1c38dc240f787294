//! The app's state: what the learner chose (the view's signals, [`ViewSignals`]), what the model
//! makes of it (memos, [`ExplorerModel`]), the notices about the link ([`Notices`]), and the
//! address bar kept in step with the view. Each is a context of its own, provided by the page
//! (`app`); components read the ones they use. Nothing here draws.

mod explorer_model;
mod generate_page;
mod knockout;
mod notices;
mod numbers_hidden;
mod run;
mod run_pair;
mod shared;
mod theme;
mod trained_weights;
mod training;
mod url_sync;
mod view_signals;

pub use explorer_model::ExplorerModel;
pub use generate_page::GeneratePage;
pub use knockout::{Knockout, KnockoutResult};
pub use notices::Notices;
pub use numbers_hidden::NumbersHidden;
pub use run::Run;
pub use run_pair::RunPair;
pub use shared::Shared;
pub use theme::{provide_theme, use_theme};
pub use trained_weights::load_trained_weights;
pub use training::Training;
pub use url_sync::sync_url;
pub use view_signals::ViewSignals;
