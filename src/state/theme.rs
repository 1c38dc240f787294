//! The colour theme as its own narrow context: the charts need only this, not the whole state.

use crate::charts::colors::Theme;
use crate::web::theme::{on_color_scheme_change, prefers_dark};
use leptos::prelude::*;

/// The page's theme, following the system's light or dark preference.
#[derive(Clone, Copy)]
struct ThemeContext(RwSignal<Theme>);

/// Provides the theme to every component below, and keeps it in step with the system setting.
pub fn provide_theme() {
    let theme = RwSignal::new(Theme::for_dark_mode(prefers_dark()));
    on_color_scheme_change(move |dark| theme.set(Theme::for_dark_mode(dark)));
    provide_context(ThemeContext(theme));
}

/// The current theme (the light theme where none was provided, e.g. a component tested alone).
pub fn use_theme() -> Signal<Theme> {
    match use_context::<ThemeContext>() {
        Some(ThemeContext(theme)) => theme.into(),
        None => Signal::stored(Theme::for_dark_mode(false)),
    }
}
