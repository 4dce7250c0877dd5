//! Articles: Markdown rendered to HTML with `pulldown-cmark`, then cleaned
//! with `ammonia` (an allow-list HTML sanitiser built on html5ever), so no
//! article can carry script, event handlers, `javascript:` links or styles.
//! Links get `rel="noopener noreferrer nofollow"`; images may only come
//! from this server's `/files/` or from http(s).

use pulldown_cmark::{html, Options, Parser};

/// The sanitised HTML of an article's Markdown.
pub fn render(markdown: &str) -> String {
    let mut opts = Options::empty();
    opts.insert(Options::ENABLE_TABLES);
    opts.insert(Options::ENABLE_STRIKETHROUGH);
    opts.insert(Options::ENABLE_TASKLISTS);
    let mut raw = String::with_capacity(markdown.len() * 3 / 2);
    html::push_html(&mut raw, Parser::new_ext(markdown, opts));
    ammonia::Builder::default()
        .url_schemes(["http", "https", "mailto"].into_iter().collect())
        .link_rel(Some("noopener noreferrer nofollow"))
        .clean(&raw)
        .to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn markdown_renders() {
        let h = render("# Title\n\nSome *emphasis* and a [link](https://example.com).\n\n- a\n- b");
        assert!(h.contains("<h1>Title</h1>"), "{h}");
        assert!(h.contains("<em>emphasis</em>"));
        assert!(h.contains(r#"href="https://example.com""#));
        assert!(h.contains(r#"rel="noopener noreferrer nofollow""#));
        assert!(h.contains("<li>a</li>"));
    }

    #[test]
    fn nothing_can_inject_script() {
        for evil in [
            "<script>alert(1)</script>",
            "<img src=x onerror=alert(1)>",
            "[click](javascript:alert(1))",
            "<a href=\"javascript:alert(1)\">x</a>",
            "<iframe src=\"https://evil\"></iframe>",
            "<div style=\"background:url(javascript:alert(1))\">x</div>",
            "<svg onload=alert(1)>",
            "![x](javascript:alert(1))",
            "<scr<script>ipt>alert(1)</script>",
        ] {
            let h = render(evil).to_lowercase();
            for bad in [
                "<script",
                "onerror",
                "onload",
                "javascript:",
                "<iframe",
                "style=",
                "<svg",
            ] {
                assert!(!h.contains(bad), "{evil:?} gave {h:?}");
            }
        }
    }
}
