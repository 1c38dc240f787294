//! The app's state: what the learner chose (signals), what the model makes of it (memos), and
//! the address bar kept in step with both. Components read it; nothing here draws.

mod app_state;
mod page_state;
mod shared;
mod theme;
mod trained_weights;
mod training;
mod url_sync;

pub use app_state::AppState;
pub use page_state::{PageState, ViewSignals};
pub use shared::Shared;
pub use theme::{provide_theme, use_theme};
pub use trained_weights::load_trained_weights;
pub use training::Training;
pub use url_sync::sync_url;
