//! The README and `docs/` as a reader follows them: every relative link names a file that
//! exists (the README moved into `docs/` pages, issue 56; a page renamed or moved must not leave
//! a dead link behind), every `shoal` command in a code block runs as written (checked with
//! `--dry-run`), and the command line's synopsis names every flag the CLI takes and no other.

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

/// The lines of `text`'s fenced code blocks that start with `shoal `, each without its comment.
fn shoal_commands(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut fenced = false;
    for line in text.lines() {
        if line.trim_start().starts_with("```") {
            fenced = !fenced;
            continue;
        }
        let command = line.split(" #").next().unwrap_or("").trim();
        if fenced && command.starts_with("shoal ") {
            out.push(command.to_string());
        }
    }
    out
}

#[test]
fn every_shoal_command_in_the_readme_and_the_docs_runs_as_written() {
    // What a reader copies: each `shoal` line of a code block whose files are the repository's
    // (a placeholder such as `my_scene.toml` or `sweep.toml` is the reader's own, and a synopsis
    // with `[OPTIONS]` is checked below). A run is checked with `--dry-run` (the scene and every
    // flag parsed and validated, nothing written), the others run whole.
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let (mut ran, mut skipped) = (Vec::new(), Vec::new());
    for page in pages(root) {
        let text = std::fs::read_to_string(&page).unwrap();
        for command in shoal_commands(&text) {
            let args: Vec<&str> = command.split_whitespace().skip(1).collect();
            let files_here = args
                .iter()
                .filter(|a| a.ends_with(".toml") || a.ends_with(".tif"))
                .all(|a| root.join(a).exists());
            let placeholder = args
                .iter()
                .any(|a| a.chars().all(|c| c.is_ascii_uppercase() || c == '_'));
            if command.contains('[') || command.contains('|') || placeholder || !files_here {
                skipped.push(command);
                continue;
            }
            let mut args = args.clone();
            if args[0] == "run" {
                args.push("--dry-run");
            }
            let (ok, _, err) = crate::cli::shoal(&args, root);
            let page = page.strip_prefix(root).unwrap().display().to_string();
            assert!(ok, "{page}: `{command}` failed: {err}");
            ran.push(command);
        }
    }
    eprintln!(
        "ran {} commands; skipped (the reader's own files, synopses): {skipped:?}",
        ran.len()
    );
    assert!(ran.len() >= 3, "only {ran:?} ran: the parser missed the code blocks");
}

/// The `--flags` of `text`.
fn flags(text: &str) -> std::collections::BTreeSet<String> {
    text.split(|c: char| c.is_whitespace() || "[]|,=".contains(c))
        .filter(|w| w.starts_with("--") && w.len() > 2)
        .map(|w| {
            w.trim_end_matches(|c: char| !c.is_alphanumeric() && c != '-')
                .to_string()
        })
        .collect()
}

#[test]
fn the_synopsis_names_every_flag_the_command_line_takes() {
    // docs/cli.md's synopsis is where a reader looks first: a flag missing there is a flag they
    // never find (issue 56: it lacked --geotiff and --exr), one the CLI no longer takes fails.
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let page = std::fs::read_to_string(root.join("docs/cli.md")).unwrap();
    let synopsis = page.split("```").nth(1).expect("docs/cli.md opens with its synopsis");
    for command in ["run", "resume", "batch", "validate", "info"] {
        let lines: String = synopsis
            .split("\nshoal ")
            .filter(|block| {
                block
                    .trim_start_matches("sh\n")
                    .trim_start_matches("shoal ")
                    .starts_with(command)
            })
            .collect();
        let (ok, help, err) = crate::cli::shoal(&[command, "--help"], root);
        assert!(ok, "{command} --help: {err}");
        let named = flags(&lines);
        // `--threads` is every command's (`shoal --help`): named only where it matters.
        let (ok, top, err) = crate::cli::shoal(&["--help"], root);
        assert!(ok, "--help: {err}");
        let global = flags(&top);
        let mut takes = flags(&help);
        takes.retain(|f| f != "--help" && (!global.contains(f) || named.contains(f)));
        assert_eq!(
            named, takes,
            "docs/cli.md's `shoal {command}` against `shoal {command} --help`"
        );
    }
}
