//! The README and `docs/` as a reader follows them: every relative link names a file that
//! exists (the README moved into `docs/` pages, issue 56; a page renamed or moved must not leave
//! a dead link behind).

use std::path::{Path, PathBuf};

/// The Markdown files a reader opens: the README and every page under `docs/`.
fn pages(root: &Path) -> Vec<PathBuf> {
    let mut out = vec![root.join("README.md")];
    let mut dirs = vec![root.join("docs")];
    while let Some(dir) = dirs.pop() {
        for entry in std::fs::read_dir(&dir).unwrap() {
            let path = entry.unwrap().path();
            if path.is_dir() {
                dirs.push(path);
            } else if path.extension().is_some_and(|e| e == "md") {
                out.push(path);
            }
        }
    }
    out
}

/// The targets of `[text](target)` links in `text`, anchors dropped.
fn links(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut rest = text;
    while let Some(at) = rest.find("](") {
        rest = &rest[at + 2..];
        let Some(end) = rest.find(')') else { break };
        let target = rest[..end].split('#').next().unwrap_or("");
        if !target.is_empty() && !target.contains("://") && !target.contains(' ') {
            out.push(target.to_string());
        }
        rest = &rest[end..];
    }
    out
}

#[test]
fn every_link_in_the_readme_and_the_docs_names_a_file_that_exists() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut dead = Vec::new();
    let mut seen = 0;
    for page in pages(root) {
        let text = std::fs::read_to_string(&page).unwrap();
        for target in links(&text) {
            seen += 1;
            if !page.parent().unwrap().join(&target).exists() {
                dead.push(format!("{}: {target}", page.strip_prefix(root).unwrap().display()));
            }
        }
    }
    assert!(seen > 20, "only {seen} links found: the parser missed them");
    assert!(dead.is_empty(), "dead links:\n{}", dead.join("\n"));
}

#[test]
fn the_readme_fits_on_a_few_screens() {
    // Issue 56: the README is the front door (what Shoal is, the two commands, one example per
    // way in, the models); everything else lives in docs/.
    let text = std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("README.md")).unwrap();
    let lines = text.lines().count();
    assert!(lines <= 250, "the README has {lines} lines; move the detail into docs/");
}
