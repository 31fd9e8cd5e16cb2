//! The layering Cargo cannot see. Cargo keeps the crates one way (a crate cannot use
//! one that uses it); inside each crate of the workspace (`crates/*/src/`, and the
//! binding's `ext/ruby_llm_file_store/src/`) this reads the source as a graph of which
//! module uses which: no two modules use each other, however indirectly, and no file
//! reaches the size the style splits at. A circle makes two modules one in all but
//! name; a new one fails here with the modules on it. It lives with `base`, the crate
//! every other builds on, and reads the whole workspace.
//!
//! A module "uses" another when one of its paths names it: a `use` line, or a
//! `crate::`, `super::`, `self::` or child-module path in the code (a `mod`
//! line only declares). Paths are resolved to the deepest module they name, so
//! `crate::pdf::font::Font` is a use of `pdf::font`, and an item re-exported by a
//! parent and reached through it is a use of the parent. Comments are left out; an
//! inline `mod tests { .. }` is counted as part of its file.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

use regex::Regex;

/// The workspace's root, two folders above this crate.
fn workspace() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// The source folder of each crate: `crates/*/src` and the binding's.
fn crate_sources() -> Vec<PathBuf> {
    let mut sources: Vec<PathBuf> = std::fs::read_dir(workspace().join("crates"))
        .unwrap()
        .map(|entry| entry.unwrap().path().join("src"))
        .filter(|src| src.is_dir())
        .collect();
    sources.sort();
    sources.push(workspace().join("ext/ruby_llm_file_store/src"));
    sources
}

/// Every `.rs` file under `dir`.
fn rust_files(dir: &Path) -> Vec<PathBuf> {
    let mut files = Vec::new();
    for entry in std::fs::read_dir(dir).unwrap_or_else(|e| panic!("{}: {e}", dir.display())) {
        let path = entry.unwrap().path();
        if path.is_dir() {
            files.extend(rust_files(&path));
        } else if path.extension().is_some_and(|e| e == "rs") {
            files.push(path);
        }
    }
    files.sort();
    files
}

/// The module a file of the crate at `base` holds: `src/convert/pdf/font.rs` is
/// `convert::pdf::font`, `src/convert/pdf/mod.rs` is `convert::pdf`, `src/lib.rs`
/// the crate itself.
fn module_of(base: &Path, file: &Path) -> Vec<String> {
    let relative = file.strip_prefix(base).unwrap().with_extension("");
    let mut module: Vec<String> = relative
        .components()
        .map(|c| c.as_os_str().to_string_lossy().into_owned())
        .collect();
    if module.last().is_some_and(|last| last == "mod") || module == ["lib"] {
        module.pop();
    }
    module
}

/// The paths a `use` tree names: `a::{b, c::{d, self}}` is `a::b`, `a::c::d`, `a::c`.
fn expand(tree: &str) -> Vec<String> {
    let tree = tree.trim();
    let Some(open) = tree.find('{') else {
        let path = tree.split(" as ").next().unwrap().trim();
        return vec![path.trim_end_matches("::*").to_string()];
    };
    let prefix = tree[..open].trim_end_matches("::");
    let inner = &tree[open + 1..tree.rfind('}').unwrap()];
    let (mut parts, mut depth, mut start) = (Vec::new(), 0, 0);
    for (i, c) in inner.char_indices() {
        match c {
            '{' => depth += 1,
            '}' => depth -= 1,
            ',' if depth == 0 => {
                parts.push(&inner[start..i]);
                start = i + 1;
            }
            _ => {}
        }
    }
    parts.push(&inner[start..]);
    parts
        .into_iter()
        .filter(|part| !part.trim().is_empty())
        .flat_map(expand)
        .map(|path| match path.as_str() {
            "self" | "*" => prefix.to_string(),
            _ => format!("{prefix}::{path}"),
        })
        .collect()
}

/// The deepest known module `path`, written in module `from`, names; None for
/// a path outside `modules` (the standard library, another crate, `crate::cancel`).
fn resolve(from: &[String], path: &str, modules: &BTreeSet<Vec<String>>) -> Option<Vec<String>> {
    let mut segments = path.split("::").map(str::to_string).peekable();
    let mut full: Vec<String> = match segments.peek()?.as_str() {
        "crate" => {
            segments.next();
            Vec::new()
        }
        "self" => {
            segments.next();
            from.to_vec()
        }
        "super" => {
            let mut base = from.to_vec();
            while segments.peek().is_some_and(|s| s == "super") {
                segments.next();
                base.pop();
            }
            base
        }
        child => {
            let mut nested = from.to_vec();
            nested.push(child.to_string());
            if !modules.contains(&nested) {
                return None;
            }
            from.to_vec()
        }
    };
    full.extend(segments);
    (1..=full.len())
        .rev()
        .map(|len| full[..len].to_vec())
        .find(|prefix| modules.contains(prefix))
}

/// Module -> the modules it uses, for every file under `base/<root>`.
fn uses(base: &Path, root: &str) -> BTreeMap<String, BTreeSet<String>> {
    let files = rust_files(&base.join(root));
    let mut modules: BTreeSet<Vec<String>> = files.iter().map(|f| module_of(base, f)).collect();
    let inline = Regex::new(r"^(?:pub(?:\([^)]*\))? )?mod (\w+) \{").unwrap();
    let use_start = Regex::new(r"^\s*(?:pub(?:\([^)]*\))? )?use\s").unwrap();
    let use_tree = Regex::new(r"\buse\s+([^;]*);").unwrap();
    let path = Regex::new(r"\b[A-Za-z_]\w*(?:::[A-Za-z_]\w*)+").unwrap();
    let mut sources = Vec::new();
    let mut inline_modules = BTreeSet::new();
    for file in &files {
        let module = module_of(base, file);
        let text = std::fs::read_to_string(file).unwrap();
        // Code only: a doc link names a module without using it.
        let code: Vec<&str> = text
            .lines()
            .filter(|line| !line.trim_start().starts_with("//"))
            .collect();
        for line in &code {
            if let Some(name) = inline.captures(line) {
                inline_modules.insert([module.clone(), vec![name[1].to_string()]].concat());
            }
        }
        sources.push((module, code.join("\n")));
    }
    modules.extend(inline_modules.iter().cloned());
    let mut graph = BTreeMap::new();
    for (module, code) in &sources {
        let mut used = BTreeSet::new();
        let mut within = module.clone();
        let mut statement = String::new();
        for line in code.lines() {
            // Inline modules (`mod tests {`) come last in a file: what follows
            // one is read as written in it, where `super::` is the file.
            if let Some(name) = inline.captures(line) {
                within = [module.clone(), vec![name[1].to_string()]].concat();
            }
            // A `use` may run over several lines: gather it up to its `;`.
            if !statement.is_empty() || use_start.is_match(line) {
                statement.push_str(line);
                statement.push(' ');
                if !line.contains(';') {
                    continue;
                }
                let tree = use_tree.captures(&statement).map(|c| c[1].to_string());
                statement.clear();
                let paths = tree.map(|tree| expand(&tree)).unwrap_or_default();
                used.extend(paths.iter().filter_map(|p| resolve(&within, p, &modules)));
                continue;
            }
            used.extend(
                path.find_iter(line)
                    .filter_map(|p| resolve(&within, p.as_str(), &modules)),
            );
        }
        // A file's use of itself (its inline tests' `super::*`) is no edge; a
        // parent's use of its child, or a child's of its parent, is one.
        used.retain(|target| {
            target != module && !(inline_modules.contains(target) && target.starts_with(module))
        });
        let used = used.iter().map(|m| m.join("::")).collect();
        graph.insert(module.join("::"), used);
    }
    graph
}

/// The circles in `graph`: each group of modules that reach one another.
fn circles(graph: &BTreeMap<String, BTreeSet<String>>) -> Vec<BTreeSet<String>> {
    let reaches = |from: &str| {
        let mut seen = BTreeSet::new();
        let mut next = vec![from.to_string()];
        while let Some(module) = next.pop() {
            for used in graph.get(&module).into_iter().flatten() {
                if seen.insert(used.clone()) {
                    next.push(used.clone());
                }
            }
        }
        seen
    };
    let mut found: Vec<BTreeSet<String>> = Vec::new();
    for module in graph.keys() {
        let from = reaches(module);
        if !from.contains(module) || found.iter().any(|c| c.contains(module)) {
            continue;
        }
        let circle = from
            .into_iter()
            .filter(|other| reaches(other).contains(module))
            .collect();
        found.push(circle);
    }
    found
}

/// Prints `graph` and fails on a circle in it, or when it has fewer than `least` modules.
fn assert_one_way(graph: &BTreeMap<String, BTreeSet<String>>, least: usize) {
    for (module, used) in graph {
        let used: Vec<&str> = used.iter().map(String::as_str).collect();
        println!("{module} -> {}", used.join(", "));
    }
    assert!(
        graph.len() >= least,
        "the modules were not found: {graph:?}"
    );
    let circles = circles(graph);
    assert!(
        circles.is_empty(),
        "modules that use each other: {circles:?}"
    );
}

#[test]
fn each_crates_modules_use_one_another_one_way() {
    let sources = crate_sources();
    assert!(sources.len() >= 7, "the crates were not found: {sources:?}");
    for src in sources {
        println!("{}:", src.display());
        assert_one_way(&uses(&src, ""), 1);
    }
}

#[test]
fn the_graph_sees_a_circle_through_a_parent_and_its_child() {
    let modules: BTreeSet<Vec<String>> = [vec!["a"], vec!["a", "b"], vec!["a", "c"]]
        .into_iter()
        .map(|m| m.into_iter().map(String::from).collect())
        .collect();
    let a = vec!["a".to_string()];
    let b = vec!["a".to_string(), "b".to_string()];
    assert_eq!(resolve(&b, "super::Refusal", &modules), Some(a.clone()));
    assert_eq!(
        resolve(&b, "super::c::Out", &modules),
        Some(modules.last().unwrap().clone())
    );
    assert_eq!(resolve(&a, "b::thing", &modules), Some(b.clone()));
    assert_eq!(resolve(&a, "std::rc::Rc", &modules), None);
    assert_eq!(
        expand("super::{a, b::{c, self}, d as e, f::*}"),
        [
            "super::a",
            "super::b::c",
            "super::b",
            "super::d",
            "super::f"
        ]
    );
    let graph = BTreeMap::from([
        ("a".to_string(), BTreeSet::from(["a::b".to_string()])),
        ("a::b".to_string(), BTreeSet::from(["a".to_string()])),
        ("a::c".to_string(), BTreeSet::new()),
    ]);
    assert_eq!(
        circles(&graph),
        [BTreeSet::from(["a".into(), "a::b".into()])]
    );
}

#[test]
fn source_and_test_files_stay_under_500_lines() {
    let root = workspace();
    let long: Vec<String> = [
        rust_files(&root.join("crates")),
        rust_files(&root.join("ext/ruby_llm_file_store/src")),
    ]
    .concat()
    .into_iter()
    .filter_map(|file| {
        let lines = std::fs::read_to_string(&file).unwrap().lines().count();
        (lines >= 500).then(|| format!("{}: {lines} lines", file.display()))
    })
    .collect();
    assert!(long.is_empty(), "split these: {long:?}");
}
