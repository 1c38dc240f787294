//! Thin wrappers over the browser APIs the app uses, one job per file. Nothing here knows the
//! app's state: components and `state` call these.

pub mod clipboard;
pub mod download;
pub mod fetch;
pub mod first_view_handover;
pub mod location;
pub mod next_task;
pub mod saved_model;
pub mod service_worker;
pub mod session;
pub mod theme;
pub mod timing;
pub mod work;
pub mod worker;

/// The page's window (the app only runs in one).
pub fn window() -> web_sys::Window {
    web_sys::window().expect("a browser window")
}

/// The page's clock, `performance.now()` in milliseconds (0 where the browser has none).
pub fn now_ms() -> f64 {
    window().performance().map_or(0.0, |p| p.now())
}
