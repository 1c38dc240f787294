//! The embed: the links between the full app and its compact view (`?embed=1`), and the
//! `<iframe>` snippet the "Copy embed code" button writes.
//!
//! Why here, as plain strings: the snippet is pasted into other people's pages, so the address
//! inside its `src` attribute must be escaped for HTML, and the compact view's "open" link must
//! carry the same view without `embed`. Native tests pin both; the page only adds its address.

use super::url_state::ViewState;

/// The iframe's size in CSS pixels: the compact view is laid out to fit it.
pub const EMBED_WIDTH: u32 = 640;
pub const EMBED_HEIGHT: u32 = 400;
/// The iframe's accessible name.
pub const EMBED_TITLE: &str = "Attention Explorer: causal attention heatmap";

/// The page's address without its query and fragment: `https://x.org/sub/?s=a#b` →
/// `https://x.org/sub/`. Links are built from it, so the app works under any path.
pub fn page_address(href: &str) -> &str {
    let end = href.find(['?', '#']).unwrap_or(href.len());
    &href[..end]
}

/// The address of `view` in the full app (no `embed`), for the compact view's "open" link.
pub fn full_link(page: &str, view: &ViewState) -> String {
    link(page, view, false)
}

/// The address of `view` in the compact view (`embed=1`).
pub fn embed_link(page: &str, view: &ViewState) -> String {
    link(page, view, true)
}

fn link(page: &str, view: &ViewState, embed: bool) -> String {
    let view = ViewState {
        embed,
        ..view.clone()
    };
    format!("{page}?{}", view.to_query())
}

/// `text` made safe inside a double- or single-quoted HTML attribute (and as element text).
pub fn escape_attribute(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            c => out.push(c),
        }
    }
    out
}

/// The `<iframe>` that shows `view`'s compact view from the app at `page`.
pub fn iframe_snippet(page: &str, view: &ViewState) -> String {
    format!(
        "<iframe src=\"{}\" width=\"{EMBED_WIDTH}\" height=\"{EMBED_HEIGHT}\" title=\"{EMBED_TITLE}\" loading=\"lazy\" style=\"border:0\"></iframe>",
        escape_attribute(&embed_link(page, view))
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::url_state::Step;

    /// Undoes [`escape_attribute`] as an HTML parser reads an attribute (only the five
    /// references it writes; written independently of it).
    fn unescape(text: &str) -> String {
        let mut out = String::new();
        let mut rest = text;
        while let Some(at) = rest.find('&') {
            out.push_str(&rest[..at]);
            let end = rest[at..].find(';').expect("a reference ends with ;") + at;
            out.push(match &rest[at..=end] {
                "&amp;" => '&',
                "&quot;" => '"',
                "&#39;" => '\'',
                "&lt;" => '<',
                "&gt;" => '>',
                other => panic!("unexpected reference {other}"),
            });
            rest = &rest[end + 1..];
        }
        out.push_str(rest);
        out
    }

    /// The `src` attribute's raw text.
    fn src_of(snippet: &str) -> &str {
        let start = snippet.find("src=\"").expect("a src attribute") + 5;
        let len = snippet[start..].find('"').expect("a closing quote");
        &snippet[start..start + len]
    }

    fn a_view() -> ViewState {
        ViewState {
            sentence: "Ein \"<b>Test</b>\" & 'x' ?".into(),
            tau: 0.5,
            seed: 7,
            heads: 2,
            head: 1,
            row: 3,
            step: Step::Heads,
            positions: true,
            ..ViewState::default()
        }
    }

    #[test]
    fn page_address_drops_query_and_fragment() {
        for (href, page) in [
            ("https://x.org/sub/?s=a&embed=1#top", "https://x.org/sub/"),
            (
                "https://x.org/sub/index.html#x?y",
                "https://x.org/sub/index.html",
            ),
            ("http://127.0.0.1:8080/", "http://127.0.0.1:8080/"),
            (
                "file:///home/t/dist/index.html?",
                "file:///home/t/dist/index.html",
            ),
        ] {
            assert_eq!(page_address(href), page);
        }
    }

    #[test]
    fn the_links_carry_the_view_with_and_without_embed() {
        let view = a_view();
        let page = "https://x.org/course/attention/";
        let full = full_link(page, &view);
        let embedded = embed_link(
            page,
            &ViewState {
                embed: false,
                ..view.clone()
            },
        );
        for (link, embed) in [(&full, false), (&embedded, true)] {
            let query = link.strip_prefix(page).expect("the page's own address");
            let (read, notices) = ViewState::from_query(query);
            assert!(notices.is_empty(), "{notices:?}");
            assert_eq!(
                read,
                ViewState {
                    embed,
                    ..view.clone()
                }
            );
        }
        assert!(!full.contains("embed"), "{full}");
        assert!(embedded.ends_with("&embed=1"), "{embedded}");
        // From the compact view, the open link drops embed again.
        let (inside, _) = ViewState::from_query(embedded.strip_prefix(page).unwrap());
        assert_eq!(full_link(page, &inside), full);
    }

    #[test]
    fn escaping_covers_the_five_html_specials() {
        assert_eq!(
            escape_attribute(r#"a&b"c'd<e>f ü"#),
            "a&amp;b&quot;c&#39;d&lt;e&gt;f ü"
        );
        assert_eq!(escape_attribute("&amp;"), "&amp;amp;");
    }

    #[test]
    fn the_snippet_is_one_iframe_whose_src_reads_back_as_the_embedded_view() {
        let view = a_view();
        // A quote and an apostrophe in the page's own address must not end the attribute.
        let page = "https://x.org/o'neil/\"q\"/";
        let snippet = iframe_snippet(page, &view);
        assert!(snippet.starts_with("<iframe src=\""), "{snippet}");
        assert!(snippet.ends_with(
            " width=\"640\" height=\"400\" title=\"Attention Explorer: causal attention heatmap\" loading=\"lazy\" style=\"border:0\"></iframe>"
        ), "{snippet}");
        assert_eq!(snippet.matches('<').count(), 2, "{snippet}");
        let raw = src_of(&snippet);
        assert!(!raw.contains(['"', '\'', '<', '>']), "{raw}");
        // Every & in the attribute starts a reference.
        for (i, _) in raw.match_indices('&') {
            assert!(
                ["&amp;", "&quot;", "&#39;", "&lt;", "&gt;"]
                    .iter()
                    .any(|r| raw[i..].starts_with(r)),
                "{raw}"
            );
        }
        let src = unescape(raw);
        let query = src.strip_prefix(page).expect("the page's address first");
        let (read, notices) = ViewState::from_query(query);
        assert!(notices.is_empty(), "{notices:?}");
        assert_eq!(
            read,
            ViewState {
                embed: true,
                ..view
            }
        );
    }

    #[test]
    fn the_default_view_snippet() {
        let snippet = iframe_snippet("http://127.0.0.1:8080/", &ViewState::default());
        assert_eq!(
            snippet,
            "<iframe src=\"http://127.0.0.1:8080/?s=The+cat+sat+on+the+mat+.&amp;tau=1&amp;seed=1337&amp;heads=2&amp;head=1&amp;row=6&amp;step=average&amp;lab_d=16&amp;pos=0&amp;embed=1\" width=\"640\" height=\"400\" title=\"Attention Explorer: causal attention heatmap\" loading=\"lazy\" style=\"border:0\"></iframe>"
        );
    }
}
