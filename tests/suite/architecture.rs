//! The house's rules, read off the source: no module reaches a module that reaches back to it
//! (the import graph has no circles), and no GPU pass imports a CPU twin (a model's state lives
//! in its room's `state.rs`, shared by both backends).

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

/// Every module of the crate (`engine::gpu::state`, `models::pipes::cpu::pipes`…) and its file.
fn modules() -> BTreeMap<String, PathBuf> {
    fn walk(dir: &Path, out: &mut Vec<PathBuf>) {
        for p in std::fs::read_dir(dir).unwrap().map(|e| e.unwrap().path()) {
            if p.is_dir() {
                walk(&p, out);
            } else if p.extension().is_some_and(|e| e == "rs") {
                out.push(p);
            }
        }
    }
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut files = Vec::new();
    walk(&src, &mut files);
    files
        .into_iter()
        .filter(|p| !p.starts_with(src.join("bin")))
        .map(|p| {
            let rel = p.strip_prefix(&src).unwrap().with_extension("");
            let mut parts: Vec<String> = rel.iter().map(|s| s.to_string_lossy().into_owned()).collect();
            if parts.last().is_some_and(|l| l == "mod" || l == "lib") {
                parts.pop();
            }
            // `#[path]` files: scene/validate_forcing.rs is scene::validate::forcing.
            if let Some(last) = parts.last_mut() {
                if let Some(rest) = last.strip_prefix("validate_") {
                    *last = format!("validate::{rest}");
                }
            }
            (parts.join("::"), p)
        })
        .collect()
}

/// The code of `text` outside comments and the test modules.
fn code(text: &str) -> String {
    let text = text.split("#[cfg(test)]\nmod tests").next().unwrap();
    text.lines()
        .map(|l| l.split("//").next().unwrap())
        .collect::<Vec<_>>()
        .join("\n")
}

/// The modules `module` names: `crate::a::b…` paths, `super::x` and its own children's `x::`, each
/// taken at its longest prefix that is a module. A child naming its parent is not an edge (it
/// reads its parent's re-exports or items).
fn edges(module: &str, text: &str, all: &BTreeMap<String, PathBuf>) -> BTreeSet<String> {
    let mut out = BTreeSet::new();
    let mut add = |path: &str| {
        let parts: Vec<&str> = path.split("::").collect();
        for k in (1..=parts.len()).rev() {
            let cand = parts[..k].join("::");
            if all.contains_key(&cand) {
                let parent_of_me = module.starts_with(&format!("{cand}::"));
                if cand != module && !parent_of_me {
                    out.insert(cand);
                }
                return;
            }
        }
    };
    let ident = |c: char| c.is_ascii_alphanumeric() || c == '_';
    let bytes: Vec<char> = text.chars().collect();
    let path_at = |mut i: usize| {
        let mut s = String::new();
        while i < bytes.len() && (ident(bytes[i]) || (bytes[i] == ':' && bytes.get(i + 1) == Some(&':'))) {
            if bytes[i] == ':' {
                s.push_str("::");
                i += 2;
            } else {
                s.push(bytes[i]);
                i += 1;
            }
        }
        (s, i)
    };
    let parent = module.rsplit_once("::").map_or("", |(p, _)| p);
    let mut i = 0;
    while i < bytes.len() {
        if i > 0 && (ident(bytes[i - 1]) || bytes[i - 1] == ':') || !ident(bytes[i]) {
            i += 1;
            continue;
        }
        let (path, end) = path_at(i);
        let base = |p: &str| p.trim_end_matches("::").to_string();
        if let Some(rest) = path.strip_prefix("crate::") {
            add(&base(rest));
            // A group: crate::a::{b, c::d}.
            if path.ends_with("::") && bytes.get(end) == Some(&'{') {
                let close = (end..bytes.len()).find(|&j| bytes[j] == '}').unwrap_or(end);
                let group: String = bytes[end + 1..close].iter().collect();
                for item in group.split(',') {
                    let item = item.trim().split(" as ").next().unwrap().trim();
                    if !item.is_empty() && item.chars().all(|c| ident(c) || c == ':') {
                        add(&format!("{}{item}", path.strip_prefix("crate::").unwrap()));
                    }
                }
            }
        } else if let Some(rest) = path.strip_prefix("super::") {
            let sibling = if parent.is_empty() {
                base(rest)
            } else {
                format!("{parent}::{}", base(rest))
            };
            add(&sibling);
        } else if path.contains("::") && !module.is_empty() {
            let child = format!("{module}::{}", path.split("::").next().unwrap());
            if all.contains_key(&child) {
                add(&format!("{module}::{}", base(&path)));
            }
        }
        i = end.max(i + 1);
    }
    out
}

#[test]
fn the_module_graph_has_no_circles() {
    let all = modules();
    let graph: BTreeMap<String, BTreeSet<String>> = all
        .iter()
        .map(|(m, p)| (m.clone(), edges(m, &code(&std::fs::read_to_string(p).unwrap()), &all)))
        .collect();
    assert!(
        graph.len() > 100 && graph.values().map(BTreeSet::len).sum::<usize>() > 400,
        "read too little"
    );
    // Tarjan's strongly connected components.
    struct Walk<'a> {
        graph: &'a BTreeMap<String, BTreeSet<String>>,
        index: BTreeMap<&'a str, usize>,
        low: BTreeMap<&'a str, usize>,
        stack: Vec<&'a str>,
        circles: Vec<Vec<&'a str>>,
    }
    fn visit<'a>(w: &mut Walk<'a>, v: &'a str) {
        let n = w.index.len();
        w.index.insert(v, n);
        w.low.insert(v, n);
        w.stack.push(v);
        for u in &w.graph[v] {
            let u = u.as_str();
            if !w.index.contains_key(u) {
                visit(w, u);
                let low = w.low[v].min(w.low[u]);
                w.low.insert(v, low);
            } else if w.stack.contains(&u) {
                let low = w.low[v].min(w.index[u]);
                w.low.insert(v, low);
            }
        }
        if w.low[v] == w.index[v] {
            let at = w.stack.iter().position(|&x| x == v).unwrap();
            let component = w.stack.split_off(at);
            if component.len() > 1 {
                w.circles.push(component);
            }
        }
    }
    let mut walk = Walk {
        graph: &graph,
        index: BTreeMap::new(),
        low: BTreeMap::new(),
        stack: Vec::new(),
        circles: Vec::new(),
    };
    for v in graph.keys() {
        if !walk.index.contains_key(v.as_str()) {
            visit(&mut walk, v);
        }
    }
    assert!(
        walk.circles.is_empty(),
        "modules that reach each other: {:?}",
        walk.circles
    );
}

#[test]
fn no_gpu_pass_imports_a_cpu_twin() {
    for (module, path) in modules() {
        if !module.split("::").any(|p| p == "gpu") {
            continue;
        }
        let text = code(&std::fs::read_to_string(&path).unwrap());
        assert!(
            !text.contains("::cpu::"),
            "{module} ({}) names a CPU twin",
            path.display()
        );
    }
}
