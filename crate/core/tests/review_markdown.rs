//! The review document rendered by a real Markdown renderer (pulldown-cmark, with GitHub's
//! tables): names from the store with `<script>`, `<img onerror>`, `](javascript:`, backticks,
//! pipes and newlines stay text. No HTML, link or image comes from the data, and every table
//! keeps its columns.
#![cfg(not(target_arch = "wasm32"))]

use crate::common;

use common::store::Store;
use pulldown_cmark::{html, Event, Options, Parser, Tag, TagEnd};
use spate_planner_core::{
    analyse, compose,
    review::{Review, SweepRequest},
    sweep::Axis,
    ReviewRequest, Scenario,
};

const HOSTILE: [&str; 6] = [
    "<script>alert(1)</script>",
    "<img src=x onerror=alert(2)>",
    "x](javascript:alert(3))",
    "tick`` `` ```",
    "pi|pe",
    "two\nlines <b>",
];

/// Members, a leader, a recently departed instance and splits, every one named from HOSTILE.
fn hostile_store() -> Store {
    let leader = HOSTILE[4];
    let mut s = Store::new().leader(leader);
    for (i, m) in HOSTILE.iter().enumerate() {
        s = s.presence(m, Some(2 + i as u32));
    }
    let gone = "[gone](javascript:alert(4)) <img src=y onerror=alert(5)>";
    for (i, id) in HOSTILE.iter().enumerate() {
        let id = format!("{id}-{i}");
        s = s.split(&id, 10 + i as u64, Some(gone), 1, 0);
    }
    let ids: Vec<String> = HOSTILE
        .iter()
        .enumerate()
        .map(|(i, id)| format!("{id}-{i}"))
        .collect();
    let refs: Vec<&str> = ids.iter().map(String::as_str).collect();
    s.assign(gone, 1, &refs)
}

const LINK: &str = "https://planner.example/#m=<img src=x onerror=alert(7)> [x](javascript:alert(8))";

fn document() -> Review {
    document_linked(LINK)
}

fn document_linked(link: &str) -> Review {
    // The earlier state has none of the members: the comparison names each as joined.
    let before = Store::new().split("<svg onload=alert(6)>", 7, None, 0, 0).fleet();
    let fleet = hostile_store()
        .split("<svg onload=alert(6)>", 7, None, 0, 0)
        .fleet();
    let scenario = Scenario::default();
    let analysis = analyse(&fleet, &scenario).unwrap();
    compose(&ReviewRequest {
        fleet: &fleet,
        analysis: &analysis,
        sweep: Some(SweepRequest {
            axis: Axis::AddMembers { cap: None },
            range: 0..=1,
            targets: None,
            crash: None,
        }),
        before: Some(&before),
        compare_rules: false,
        version: "test",
        // a link of the page's own making, with what a hostile fragment could hold
        link: Some(link),
    })
    .unwrap()
}

fn options() -> Options {
    Options::ENABLE_TABLES
}

#[test]
fn no_tag_link_or_image_comes_from_the_data() {
    let r = document();
    let images: Vec<&str> = r.images.iter().map(|i| i.name.as_str()).collect();
    for md in [r.markdown.clone(), r.inlined()] {
        for event in Parser::new_ext(&md, options()) {
            match event {
                Event::Html(h) | Event::InlineHtml(h) => panic!("HTML from the data: {h:?}\n{md}"),
                // the one link is the view's own address, whole but for what would end it early
                Event::Start(Tag::Link { dest_url, .. }) => assert_eq!(
                    dest_url.as_ref(),
                    "https://planner.example/#m=imgsrc=xonerror=alert(7)[x](javascript:alert(8))"
                ),
                Event::Start(Tag::Image { dest_url, .. }) => assert!(
                    images.contains(&dest_url.as_ref()) || dest_url.starts_with("data:image/svg+xml;base64,"),
                    "an image not of the report: {dest_url:?}"
                ),
                _ => {}
            }
        }
        let mut out = String::new();
        html::push_html(&mut out, Parser::new_ext(&md, options()));
        for tag in ["<script", "<img src=x", "<img src=y", "<svg", "<b>"] {
            assert!(!out.contains(tag), "{tag} in the HTML:\n{out}");
        }
        // one anchor: the view's link
        assert_eq!(out.matches("<a ").count(), 1, "{out}");
        assert!(out.contains("<a href=\"https://planner.example/#m="), "{out}");
        // The names are shown, as text.
        assert!(out.contains("&lt;script&gt;alert(1)&lt;/script&gt;"), "{out}");
        assert!(
            out.contains("onerror=alert(5)"),
            "the departed instance is named: {out}"
        );
    }
}

/// A `|` in a name does not split its table cell, and no backtick run ends its code span: the
/// cell still holds the whole name, and each joined member is one code span holding its name.
#[test]
fn names_stay_whole_in_cells_and_code_spans() {
    let md = document().markdown;
    let (mut in_cell, mut cell, mut cells) = (false, String::new(), Vec::new());
    let mut spans = Vec::new();
    for event in Parser::new_ext(&md, options()) {
        match event {
            Event::Start(Tag::TableCell) => (in_cell, cell) = (true, String::new()),
            Event::End(TagEnd::TableCell) => {
                in_cell = false;
                cells.push(std::mem::take(&mut cell));
            }
            Event::Text(t) | Event::Code(t) if in_cell => cell.push_str(&t),
            Event::Code(t) => spans.push(t.to_string()),
            _ => {}
        }
    }
    assert!(
        cells.iter().any(|c| c.contains("pi|pe")),
        "the leader's name, whole, in the default cap's cell: {cells:?}"
    );
    for name in HOSTILE {
        let want = name.replace('\n', " ");
        assert!(spans.contains(&want), "{want:?} as one code span among {spans:?}");
    }
}

/// A link that is not an http(s) address is shown as text: no `javascript:` link reaches a
/// reader who clicks the report's head.
#[test]
fn only_a_web_address_becomes_the_views_link() {
    for link in [
        "javascript:alert(9)",
        "JavaScript:alert(9)//https://x",
        "data:text/html,<b>x</b>",
    ] {
        let md = document_linked(link).markdown;
        for event in Parser::new_ext(&md, options()) {
            if let Event::Start(Tag::Link { dest_url, .. }) = event {
                panic!("{link:?} became a link to {dest_url:?}");
            }
        }
        assert!(md.contains(&format!("Link to this view: `{link}`")), "{md}");
    }
}
