//! A visible banner instead of a dead page if the app ever panics.
//!
//! The hook writes to the DOM directly (not through Leptos): after a panic the reactive system
//! cannot be trusted, and with `panic = "abort"` nothing runs after the hook returns.

use wasm_bindgen::JsCast;

fn show_banner(message: &str) -> Option<()> {
    let document = web_sys::window()?.document()?;
    if document.get_element_by_id("panic-banner").is_some() {
        return Some(());
    }
    let banner = document.create_element("div").ok()?;
    banner.set_id("panic-banner");
    banner.set_attribute("role", "alert").ok()?;
    let title = document.create_element("strong").ok()?;
    title.set_text_content(Some("Something went wrong — reload or reset the view."));
    let detail = document.create_element("p").ok()?;
    // Text content, never HTML: the message may quote user input.
    detail.set_text_content(Some(message));
    let reload = document
        .create_element("a")
        .ok()?
        .dyn_into::<web_sys::HtmlAnchorElement>()
        .ok()?;
    reload.set_href(&web_sys::window()?.location().href().ok()?);
    reload.set_text_content(Some("Reload"));
    let reset = document
        .create_element("a")
        .ok()?
        .dyn_into::<web_sys::HtmlAnchorElement>()
        .ok()?;
    reset.set_href(&web_sys::window()?.location().pathname().ok()?);
    reset.set_text_content(Some("Reset view"));
    for child in [
        title.as_ref(),
        detail.as_ref(),
        reload.as_ref(),
        reset.as_ref(),
    ] {
        banner.append_child(child).ok()?;
    }
    document.body()?.prepend_with_node_1(&banner).ok()
}

/// Installs the hook: log the panic to the console, then show the banner.
pub fn install() {
    std::panic::set_hook(Box::new(|info| {
        // "panicked at file:line:col:\nmessage". (A JavaScript stack trace, as the
        // console_error_panic_hook crate adds, names only wasm function indices in a release build.)
        web_sys::console::error_1(&info.to_string().into());
        let message = match info.payload().downcast_ref::<&str>() {
            Some(s) => (*s).to_string(),
            None => info
                .payload()
                .downcast_ref::<String>()
                .cloned()
                .unwrap_or_else(|| "unknown error".into()),
        };
        let _ = show_banner(&message);
    }));
}
