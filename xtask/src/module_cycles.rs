//! A guard against import circles between the modules of one library crate: module `a` naming
//! `crate::b::...` while `b` (directly or through others) names `crate::a::...` means neither can
//! be read, tested or moved without the other, which is how core grew into one knot.
//!
//! The unit is a crate's top-level module (`src/x.rs` or `src/x/mod.rs`; a nested module counts as
//! its top-level one). A reference is any `crate::x` path in code (a `use`, a `crate::{x::A, y}`
//! group, a path inside an expression or a type, `$crate::x` in a macro) and `super::x` that reaches
//! the crate root; a name re-exported by `lib.rs` (`pub use x::A;`) counts as module `x`. Comments,
//! strings and `#[cfg(test)]` modules are left out: a test may use what it checks. The parse is
//! textual on purpose (no `syn`, no build), like `portability.rs` beside it.
//!
//! Circles known today are listed in [`KNOWN_CYCLES`]; the test fails when a new circle appears,
//! naming its modules and the lines that close it, and when a listed one has shrunk or gone (so
//! the list only shrinks). It runs with xtask's tests (and so in `cargo xtask ci`).

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

/// Import circles between top-level modules that exist today: the crate's directory under
/// `crates/` and the modules of the circle, sorted. Each is to be broken; remove its line then.
const KNOWN_CYCLES: &[(&str, &[&str])] = &[];

/// One import circle found in a crate.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Cycle {
    /// The crate's directory name under `crates/`.
    pub krate: String,
    /// The modules of the circle (a strongly connected component of the import graph), sorted.
    pub modules: Vec<String>,
    /// One closed path through the circle, each step with the file and line that makes it.
    pub witness: Vec<String>,
}

/// Where a module names another one: `(from, to)` to the first `file:line` seen.
type Edges = BTreeMap<(String, String), String>;

/// The circles between the top-level modules of every library crate under `root/crates`, sorted
/// by crate.
pub fn find_cycles(root: &Path) -> std::io::Result<Vec<Cycle>> {
    let mut dirs: Vec<PathBuf> =
        std::fs::read_dir(root.join("crates"))?.map(|entry| entry.map(|e| e.path())).collect::<Result<_, _>>()?;
    dirs.sort();
    let mut cycles = Vec::new();
    for dir in dirs {
        let src = dir.join("src");
        if !src.join("lib.rs").is_file() {
            continue;
        }
        let krate = dir.file_name().unwrap_or_default().to_string_lossy().into_owned();
        cycles.extend(crate_cycles(root, &krate, &src)?);
    }
    Ok(cycles)
}

/// The circles of the crate whose sources are in `src`.
fn crate_cycles(root: &Path, krate: &str, src: &Path) -> std::io::Result<Vec<Cycle>> {
    let lib = code_only(&std::fs::read_to_string(src.join("lib.rs"))?);
    let modules = declared_modules(&lib);
    let reexports = root_reexports(&lib, &modules);
    let mut files = Vec::new();
    rust_files(src, &mut files)?;
    let mut edges = Edges::new();
    for file in files {
        let rel = file.strip_prefix(src).unwrap_or(&file);
        let Some(path) = module_path(rel) else { continue };
        let Some(top) = path.first().filter(|top| modules.contains(*top)).cloned() else { continue };
        if is_test_file(src, rel)? {
            continue;
        }
        let text = code_only(&std::fs::read_to_string(&file)?);
        let shown = file.strip_prefix(root).unwrap_or(&file).to_string_lossy().replace('\\', "/");
        for (line, target) in references(&text, &path) {
            // The first segment below the root: a module, or an item `lib.rs` defines or re-exports.
            let to = if modules.contains(&target) {
                target
            } else {
                match reexports.get(&target) {
                    Some(module) => module.clone(),
                    None => continue,
                }
            };
            if to != top {
                edges.entry((top.clone(), to)).or_insert_with(|| format!("{shown}:{line}"));
            }
        }
    }
    Ok(components(&modules, &edges)
        .into_iter()
        .map(|modules| {
            let witness = witness(&modules, &edges);
            Cycle { krate: krate.to_string(), modules, witness }
        })
        .collect())
}

fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) -> std::io::Result<()> {
    let mut entries: Vec<PathBuf> =
        std::fs::read_dir(dir)?.map(|entry| entry.map(|e| e.path())).collect::<Result<_, _>>()?;
    entries.sort();
    for path in entries {
        if path.is_dir() {
            rust_files(&path, out)?;
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(path);
        }
    }
    Ok(())
}

/// The module path of the file at `rel` (relative to `src/`): `a/b.rs` and `a/b/mod.rs` are
/// `["a", "b"]`; `lib.rs` and files of other roots (`bin/`, `main.rs`) are `None`.
fn module_path(rel: &Path) -> Option<Vec<String>> {
    let mut parts: Vec<String> = rel.iter().map(|p| p.to_string_lossy().into_owned()).collect();
    let last = parts.pop()?;
    let stem = last.strip_suffix(".rs")?;
    if parts.is_empty() && (stem == "lib" || stem == "main") || parts.first().is_some_and(|p| p == "bin") {
        return None;
    }
    if stem != "mod" {
        parts.push(stem.to_string());
    }
    (!parts.is_empty()).then_some(parts)
}

/// Whether the file at `rel` is a module declared under `#[cfg(test)]` by its parent (`mod tests;`),
/// or lies inside one.
fn is_test_file(src: &Path, rel: &Path) -> std::io::Result<bool> {
    let Some(path) = module_path(rel) else { return Ok(false) };
    for depth in 1..=path.len() {
        let name = &path[depth - 1];
        let parent_dir = src.join(path[..depth - 1].join("/"));
        let parents = if depth == 1 {
            vec![src.join("lib.rs")]
        } else {
            vec![parent_dir.join("mod.rs"), parent_dir.with_extension("rs")]
        };
        for parent in parents.iter().filter(|p| p.is_file()) {
            let text = code_only(&std::fs::read_to_string(parent)?);
            if declarations(&text).any(|(declared, test, _)| test && declared == *name) {
                return Ok(true);
            }
        }
    }
    Ok(false)
}

/// The modules a file declares with `mod x;` or `mod x { ... }` at its top level: the name, whether
/// a `#[cfg(test)]` sits on it, and whether it is inline (`{`).
fn declarations(code: &str) -> impl Iterator<Item = (String, bool, bool)> + '_ {
    let bytes = code.as_bytes();
    let mut depth = 0usize;
    let mut out = Vec::new();
    let mut i = 0;
    while i < bytes.len() {
        match bytes[i] {
            b'{' => depth += 1,
            b'}' => depth = depth.saturating_sub(1),
            b'm' if depth == 0 && word_at(code, i, "mod") => {
                let rest = code[i + 3..].trim_start();
                let name: String = rest.chars().take_while(|c| c.is_alphanumeric() || *c == '_').collect();
                let after = rest[name.len()..].trim_start();
                if !name.is_empty() && (after.starts_with(';') || after.starts_with('{')) {
                    out.push((name, under_cfg_test(code, i), after.starts_with('{')));
                }
            }
            _ => {}
        }
        i += 1;
    }
    out.into_iter()
}

/// Whether the item starting at `at` carries `#[cfg(test)]` among the attributes right before it.
fn under_cfg_test(code: &str, at: usize) -> bool {
    let before = &code[..at];
    let line_start = before.rfind('\n').map_or(0, |n| n + 1);
    let mut head = before[..line_start].lines().rev();
    let same_line = &before[line_start..];
    same_line.contains("cfg(test)")
        || head
            .by_ref()
            .map(str::trim)
            .take_while(|l| l.starts_with("#[") || l.is_empty())
            .any(|l| l.starts_with("#[cfg(test)]"))
}

/// Whether `word` stands at `at` in `code` as a whole word.
fn word_at(code: &str, at: usize, word: &str) -> bool {
    let ident = |c: u8| c.is_ascii_alphanumeric() || c == b'_';
    let bytes = code.as_bytes();
    code[at..].starts_with(word)
        && (at == 0 || !ident(bytes[at - 1]))
        && bytes.get(at + word.len()).is_none_or(|c| !ident(*c))
}

/// The top-level modules `lib.rs` declares (test-only ones left out).
fn declared_modules(lib: &str) -> BTreeSet<String> {
    declarations(lib).filter(|(_, test, _)| !test).map(|(name, _, _)| name).collect()
}

/// Names `lib.rs` re-exports from a module (`pub use x::A;`, `pub use x::{A, B as C};`), to the
/// module that defines them.
fn root_reexports(lib: &str, modules: &BTreeSet<String>) -> BTreeMap<String, String> {
    let mut out = BTreeMap::new();
    for statement in lib.split(';') {
        let statement = statement.trim();
        let Some(at) = statement.find("use ") else { continue };
        if !statement[..at].trim_end().ends_with("pub") && !statement[..at].contains("pub(crate)") {
            continue;
        }
        let tree = statement[at + 4..].trim().trim_start_matches("crate::").trim_start_matches("self::");
        let module: String = tree.chars().take_while(|c| c.is_alphanumeric() || *c == '_').collect();
        if !modules.contains(&module) {
            continue;
        }
        let leaves = tree.replace(['{', '}'], ",");
        for leaf in leaves.split(',') {
            let leaf = leaf.trim();
            let name = leaf.rsplit(" as ").next().unwrap_or(leaf);
            let name = name.rsplit("::").next().unwrap_or(name).trim();
            if !name.is_empty() && name != "*" && name != "self" && name != module {
                out.insert(name.to_string(), module.clone());
            }
        }
    }
    out
}

/// Every path in `code` (of the file with module path `file_module`) that reaches the crate root,
/// with its line and what it names there. `#[cfg(test)]` inline modules are skipped.
fn references(code: &str, file_module: &[String]) -> Vec<(usize, String)> {
    let bytes = code.as_bytes();
    let mut out = Vec::new();
    // The inline modules we are inside: (name, brace depth inside it, is a test module).
    let mut inline: Vec<(String, usize, bool)> = Vec::new();
    let mut depth = 0usize;
    let mut pending: Option<(String, bool)> = None;
    let mut i = 0;
    while i < bytes.len() {
        let c = bytes[i];
        if c == b'{' {
            depth += 1;
            if let Some((name, test)) = pending.take() {
                inline.push((name, depth, test));
            }
        } else if c == b'}' {
            if inline.last().is_some_and(|(_, d, _)| *d == depth) {
                inline.pop();
            }
            depth = depth.saturating_sub(1);
        } else if c == b';' {
            pending = None;
        } else if word_at(code, i, "mod") {
            let rest = code[i + 3..].trim_start();
            let name: String = rest.chars().take_while(|c| c.is_alphanumeric() || *c == '_').collect();
            if !name.is_empty() {
                pending = Some((name, under_cfg_test(code, i)));
            }
        } else if !inline.iter().any(|(_, _, test)| *test)
            && (word_at(code, i, "crate") || word_at(code, i, "super"))
            && code[i..].starts_with("crate::") | code[i..].starts_with("super::")
        {
            let line = code[..i].matches('\n').count() + 1;
            let mut module: Vec<String> = file_module.to_vec();
            module.extend(inline.iter().map(|(name, _, _)| name.clone()));
            let (rest, consumed) = resolve(&code[i..], &module);
            if let Some((base, rest)) = rest {
                for target in targets(&base, rest) {
                    out.push((line, target));
                }
            }
            i += consumed.max(1);
            continue;
        }
        i += 1;
    }
    out
}

/// Resolves the leading `crate::` or `super::super::...` of `text` from inside `module`: the
/// module path it lands on and the text after it, and how many bytes were read.
fn resolve<'a>(text: &'a str, module: &[String]) -> (Option<(Vec<String>, &'a str)>, usize) {
    if let Some(rest) = text.strip_prefix("crate::") {
        return (Some((Vec::new(), rest)), "crate::".len());
    }
    let mut base = module.to_vec();
    let mut rest = text;
    while let Some(after) = rest.strip_prefix("super::") {
        if base.pop().is_none() {
            return (None, text.len() - after.len());
        }
        rest = after.trim_start();
    }
    (Some((base, rest)), text.len() - rest.len())
}

/// What the path `rest`, read from module `base`, names at the crate root: only paths that start
/// at the root (an empty `base`) name another top-level module; a group (`{a::X, b}`) names each of
/// its members.
fn targets(base: &[String], rest: &str) -> Vec<String> {
    if !base.is_empty() {
        return Vec::new();
    }
    let rest = rest.trim_start();
    if let Some(group) = rest.strip_prefix('{') {
        let mut level = 0usize;
        let mut members = Vec::new();
        let mut start = 0;
        for (at, c) in group.char_indices() {
            match c {
                '{' => level += 1,
                '}' if level == 0 => {
                    members.push(&group[start..at]);
                    break;
                }
                '}' => level -= 1,
                ',' if level == 0 => {
                    members.push(&group[start..at]);
                    start = at + 1;
                }
                _ => {}
            }
        }
        return members.into_iter().flat_map(|member| targets(base, member)).collect();
    }
    let name: String = rest.chars().take_while(|c| c.is_alphanumeric() || *c == '_').collect();
    if name.is_empty() || name == "self" { Vec::new() } else { vec![name] }
}

/// `code` with comments, string and character literals blanked out (newlines kept, so line
/// numbers stay right).
fn code_only(code: &str) -> String {
    let chars: Vec<char> = code.chars().collect();
    let mut out = String::with_capacity(code.len());
    let mut i = 0;
    let blank = |c: char| if c == '\n' { '\n' } else { ' ' };
    while i < chars.len() {
        let c = chars[i];
        let next = chars.get(i + 1).copied();
        if c == '/' && next == Some('/') {
            while i < chars.len() && chars[i] != '\n' {
                out.push(' ');
                i += 1;
            }
        } else if c == '/' && next == Some('*') {
            let mut level = 0usize;
            while i < chars.len() {
                if chars[i] == '/' && chars.get(i + 1) == Some(&'*') {
                    level += 1;
                    out.push_str("  ");
                    i += 2;
                } else if chars[i] == '*' && chars.get(i + 1) == Some(&'/') {
                    level -= 1;
                    out.push_str("  ");
                    i += 2;
                    if level == 0 {
                        break;
                    }
                } else {
                    out.push(blank(chars[i]));
                    i += 1;
                }
            }
        } else if (c == 'r' || c == 'b') && raw_string_start(&chars, i).is_some() {
            let (hashes, open) = raw_string_start(&chars, i).unwrap_or((0, i));
            for _ in i..=open {
                out.push(' ');
            }
            i = open + 1;
            while i < chars.len() {
                if chars[i] == '"' && (1..=hashes).all(|h| chars.get(i + h) == Some(&'#')) {
                    for _ in 0..=hashes {
                        out.push(' ');
                    }
                    i += hashes + 1;
                    break;
                }
                out.push(blank(chars[i]));
                i += 1;
            }
        } else if c == '"' {
            out.push(' ');
            i += 1;
            while i < chars.len() && chars[i] != '"' {
                if chars[i] == '\\' {
                    out.push(' ');
                    i += 1;
                }
                if let Some(&inner) = chars.get(i) {
                    out.push(blank(inner));
                }
                i += 1;
            }
            out.push(' ');
            i += 1;
        } else if c == '\'' && is_char_literal(&chars, i) {
            out.push(' ');
            i += 1;
            while i < chars.len() && chars[i] != '\'' {
                if chars[i] == '\\' {
                    out.push(' ');
                    i += 1;
                }
                out.push(' ');
                i += 1;
            }
            out.push(' ');
            i += 1;
        } else {
            out.push(c);
            i += 1;
        }
    }
    out
}

/// At a raw string (`r"`, `r#"`, `br#"`): the number of `#`s and where its opening quote is.
fn raw_string_start(chars: &[char], at: usize) -> Option<(usize, usize)> {
    if at > 0 && (chars[at - 1].is_alphanumeric() || chars[at - 1] == '_') {
        return None;
    }
    let mut i = at;
    if chars[i] == 'b' {
        i += 1;
    }
    if chars.get(i) != Some(&'r') {
        return None;
    }
    i += 1;
    let mut hashes = 0;
    while chars.get(i) == Some(&'#') {
        hashes += 1;
        i += 1;
    }
    (chars.get(i) == Some(&'"')).then_some((hashes, i))
}

/// Whether the `'` at `at` opens a character literal (`'a'`, `'\n'`, `'{'`) rather than a
/// lifetime or label (`'a`, `'static`).
fn is_char_literal(chars: &[char], at: usize) -> bool {
    match chars.get(at + 1) {
        Some('\\') => true,
        Some(_) => chars.get(at + 2) == Some(&'\''),
        None => false,
    }
}

/// The strongly connected components with more than one module of the graph (Tarjan's
/// algorithm), each sorted, in order of their first module.
fn components(modules: &BTreeSet<String>, edges: &Edges) -> Vec<Vec<String>> {
    struct State<'a> {
        edges: &'a Edges,
        index: BTreeMap<&'a str, usize>,
        low: BTreeMap<&'a str, usize>,
        stack: Vec<&'a str>,
        on_stack: BTreeSet<&'a str>,
        found: Vec<Vec<String>>,
    }
    fn visit<'a>(state: &mut State<'a>, node: &'a str) {
        let n = state.index.len();
        state.index.insert(node, n);
        state.low.insert(node, n);
        state.stack.push(node);
        state.on_stack.insert(node);
        let next: Vec<&'a str> =
            state.edges.keys().filter(|(from, _)| from == node).map(|(_, to)| to.as_str()).collect();
        for to in next {
            if !state.index.contains_key(to) {
                visit(state, to);
                let low = state.low[node].min(state.low[to]);
                state.low.insert(node, low);
            } else if state.on_stack.contains(to) {
                let low = state.low[node].min(state.index[to]);
                state.low.insert(node, low);
            }
        }
        if state.low[node] == state.index[node] {
            let mut component = Vec::new();
            while let Some(top) = state.stack.pop() {
                state.on_stack.remove(top);
                component.push(top.to_string());
                if top == node {
                    break;
                }
            }
            if component.len() > 1 {
                component.sort();
                state.found.push(component);
            }
        }
    }
    let mut state = State {
        edges,
        index: BTreeMap::new(),
        low: BTreeMap::new(),
        stack: Vec::new(),
        on_stack: BTreeSet::new(),
        found: Vec::new(),
    };
    for module in modules {
        if !state.index.contains_key(module.as_str()) {
            visit(&mut state, module);
        }
    }
    state.found.sort();
    state.found
}

/// One closed walk through `component` from its first module back to it (a breadth-first search
/// for the shortest way back), each step as `a -> b (file:line)`.
fn witness(component: &[String], edges: &Edges) -> Vec<String> {
    let start = &component[0];
    let inside = |m: &String| component.contains(m);
    let mut came_from: BTreeMap<String, String> = BTreeMap::new();
    let mut queue = std::collections::VecDeque::from([start.clone()]);
    while let Some(node) = queue.pop_front() {
        for (from, to) in edges.keys().filter(|(from, to)| *from == node && inside(to)) {
            if to == start {
                let mut path = vec![from.clone()];
                while let Some(prev) = came_from.get(path.last().unwrap_or(start)) {
                    path.push(prev.clone());
                }
                path.reverse();
                path.push(start.clone());
                return path
                    .windows(2)
                    .map(|w| format!("{} -> {} ({})", w[0], w[1], edges[&(w[0].clone(), w[1].clone())]))
                    .collect();
            }
            if !came_from.contains_key(to) && to != start {
                came_from.insert(to.clone(), from.clone());
                queue.push_back(to.clone());
            }
        }
    }
    Vec::new()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn write(root: &Path, rel: &str, text: &str) {
        let path = root.join(rel);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, text).unwrap();
    }

    #[test]
    fn no_new_import_circle_between_the_modules_of_a_library_crate() {
        let root = crate::util::workspace_root();
        let found = find_cycles(&root).unwrap();
        let known = |cycle: &Cycle| {
            KNOWN_CYCLES.iter().any(|(krate, modules)| *krate == cycle.krate && *modules == cycle.modules.as_slice())
        };
        let new: Vec<String> = found
            .iter()
            .filter(|cycle| !known(cycle))
            .map(|c| format!("crates/{}: {} — {}", c.krate, c.modules.join(", "), c.witness.join("; ")))
            .collect();
        assert!(
            new.is_empty(),
            "import circles between modules (break them: move what both need into a leaf module, or \
             pass it in; if a listed circle only shrank, write its new module list in KNOWN_CYCLES in \
             xtask/src/module_cycles.rs):\n{}",
            new.join("\n")
        );
        let gone: Vec<String> = KNOWN_CYCLES
            .iter()
            .filter(|(krate, modules)| !found.iter().any(|c| c.krate == *krate && c.modules == *modules))
            .map(|(krate, modules)| format!("crates/{krate}: {}", modules.join(", ")))
            .collect();
        assert!(gone.is_empty(), "these circles are broken now: remove them from KNOWN_CYCLES: {gone:?}");
    }

    #[test]
    fn a_circle_through_use_lines_paths_and_groups_is_found_and_named() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        write(root, "crates/demo/src/lib.rs", "mod a;\npub mod b;\nmod c;\nmod leaf;\npub use c::Gamma;\n");
        // a -> b by a `use` group, b -> c by a path in an expression, c -> a through lib's re-export.
        write(root, "crates/demo/src/a.rs", "use crate::{leaf::Leaf, b::{Beta, self}};\n");
        write(root, "crates/demo/src/b.rs", "pub fn f() { let _ = crate::c::make(); }\n");
        write(root, "crates/demo/src/c/mod.rs", "mod inner;\n");
        write(root, "crates/demo/src/c/inner.rs", "use super::super::a::Alpha;\n");
        write(
            root,
            "crates/demo/src/leaf.rs",
            "// crate::a::Alpha is named in a comment only\nconst S: &str = \"crate::b::Beta\";\n",
        );
        let cycles = find_cycles(root).unwrap();
        assert_eq!(cycles.len(), 1, "{cycles:?}");
        assert_eq!(cycles[0].krate, "demo");
        assert_eq!(cycles[0].modules, ["a", "b", "c"]);
        assert_eq!(
            cycles[0].witness,
            [
                "a -> b (crates/demo/src/a.rs:1)",
                "b -> c (crates/demo/src/b.rs:1)",
                "c -> a (crates/demo/src/c/inner.rs:1)"
            ]
        );
    }

    #[test]
    fn test_modules_comments_strings_and_one_way_imports_make_no_circle() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        write(root, "crates/demo/src/lib.rs", "mod a;\nmod b;\n#[cfg(test)]\nmod testutil;\npub use a::Alpha;\n");
        write(root, "crates/demo/src/a.rs", "use crate::b::Beta;\npub struct Alpha;\n");
        write(
            root,
            "crates/demo/src/b.rs",
            "/* crate::a::Alpha */\nlet c = '{';\nlet s = r#\"crate::a\"#;\nfn f<'a>(x: &'a str) {}\n\
             #[cfg(test)]\nmod tests {\n    use crate::a::Alpha;\n    use super::super::Alpha;\n}\n",
        );
        write(root, "crates/demo/src/testutil.rs", "use crate::a::Alpha;\nuse crate::b::Beta;\n");
        assert_eq!(find_cycles(root).unwrap(), []);
        // The same reference outside the test module closes the circle.
        write(root, "crates/demo/src/b.rs", "fn f() -> crate::Alpha { todo!() }\n");
        let cycles = find_cycles(root).unwrap();
        assert_eq!(cycles.iter().map(|c| c.modules.clone()).collect::<Vec<_>>(), [["a", "b"]]);
    }
}
