//! The docs describe today's tree: every `src/…` path that the docs, the README and the
//! comments of the code and its tests cite exists, every file under `src/` is named in
//! docs/ARCHITECTURE.md, and nothing cites a document outside the repository.

use std::path::{Path, PathBuf};

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// Where cited paths must hold: docs, the README, and the code, tests, benches, fuzz
/// targets, test helpers and mutation catalogue with their comments. `benches/records/`
/// is left out of the path check only: a dated record describes the tree of its date.
const SCANNED: [&str; 9] = [
    "docs",
    "README.md",
    "src",
    "tests",
    "benches",
    "fuzz",
    "test-support",
    "mutations",
    "clippy.toml",
];

/// Text files under `path` (recursively), build output and fuzz corpora skipped.
fn text_files(path: &Path, out: &mut Vec<PathBuf>) {
    if path.is_dir() {
        let name = path.file_name().and_then(|n| n.to_str()).unwrap_or("");
        if matches!(name, "target" | "corpus" | "artifacts" | "coverage") {
            return;
        }
        let mut entries: Vec<PathBuf> = std::fs::read_dir(path)
            .unwrap()
            .map(|e| e.unwrap().path())
            .collect();
        entries.sort();
        for entry in entries {
            text_files(&entry, out);
        }
    } else if path
        .extension()
        .and_then(|e| e.to_str())
        .is_some_and(|e| matches!(e, "rs" | "md" | "toml" | "py" | "sh" | "txt"))
    {
        out.push(path.to_owned());
    }
}

fn scanned_files() -> Vec<PathBuf> {
    let mut files = Vec::new();
    for part in SCANNED {
        text_files(&root().join(part), &mut files);
    }
    files
}

fn relative(path: &Path) -> String {
    path.strip_prefix(root())
        .unwrap()
        .display()
        .to_string()
        .replace('\\', "/")
}

fn is_path_char(c: char) -> bool {
    c.is_ascii_alphanumeric() || matches!(c, '_' | '-' | '.' | '/')
}

/// Every `src/…` path in `line`, with whatever path leads to it (`test-support/src/…`,
/// `python/src/…`), trailing sentence punctuation cut; URLs left out.
fn cited_src_paths(line: &str) -> Vec<String> {
    let mut found = Vec::new();
    let mut from = 0;
    while let Some(at) = line[from..].find("src/") {
        let at = from + at;
        let start = line[..at]
            .char_indices()
            .rev()
            .take_while(|&(_, c)| is_path_char(c))
            .last()
            .map_or(at, |(i, _)| i);
        let end = line[at..]
            .char_indices()
            .find(|&(_, c)| !is_path_char(c))
            .map_or(line.len(), |(i, _)| at + i);
        from = end;
        let token = line[start..end].trim_end_matches(['.', ',']);
        // A URL (`https://…/src/…`), an absolute path, or a word that merely ends in
        // "src" (`websrc/`).
        if line[..start].ends_with(':')
            || token.starts_with('/')
            || !(token.starts_with("src/") || token.contains("/src/"))
        {
            continue;
        }
        found.push(token.trim_start_matches("./").to_owned());
    }
    found
}

#[test]
fn the_scanner_finds_what_it_should() {
    assert_eq!(
        cited_src_paths("see `src/verify/mod.rs`, then src/model/."),
        ["src/verify/mod.rs", "src/model/"]
    );
    assert_eq!(
        cited_src_paths("python/src/lib.rs and test-support/src/noop.rs"),
        ["python/src/lib.rs", "test-support/src/noop.rs"]
    );
    assert!(cited_src_paths("https://github.com/o/r/blob/main/src/lib.rs").is_empty());
    assert!(cited_src_paths("resources/websrc/x.rs").is_empty());
    assert!(cited_src_paths("/tmp/src/x.rs").is_empty());
}

#[test]
fn every_cited_src_path_exists() {
    let records = root().join("benches/records");
    let mut missing = Vec::new();
    for file in scanned_files() {
        if file.starts_with(&records) {
            continue;
        }
        let text = std::fs::read_to_string(&file).unwrap();
        for (i, line) in text.lines().enumerate() {
            for cited in cited_src_paths(line) {
                if !root().join(&cited).exists() {
                    missing.push(format!("{}:{}: {cited}", relative(&file), i + 1));
                }
            }
        }
    }
    assert!(
        missing.is_empty(),
        "paths cited that do not exist (fix the citation, or the docs):\n{}",
        missing.join("\n")
    );
}

/// What cites the design notes, style guide or sketches that live beside the repository
/// and not in it (spelled in pieces, so that this file does not cite them itself).
fn outside_citations() -> [String; 6] {
    [
        ["DESIGN", " §"].concat(),
        ["DESIGN", ".md"].concat(),
        ["..", "/shared"].concat(),
        ["REFERENCE", ".md"].concat(),
        ["STYLE", ".md"].concat(),
        ["ENGINE", "-SKETCH"].concat(),
    ]
}

#[test]
fn nothing_cites_a_document_outside_the_repository() {
    let mut files = scanned_files();
    for part in ["python", "fixtures", ".ci", "Cargo.toml"] {
        text_files(&root().join(part), &mut files);
    }
    let needles = outside_citations();
    let mut found = Vec::new();
    for file in files {
        let Ok(text) = std::fs::read_to_string(&file) else {
            continue;
        };
        for (i, line) in text.lines().enumerate() {
            for needle in &needles {
                if line.contains(needle.as_str()) {
                    found.push(format!("{}:{}: {needle}", relative(&file), i + 1));
                }
            }
        }
    }
    assert!(
        found.is_empty(),
        "citations of documents outside the repository (cite docs/ instead, and move what \
         the code relies on there):\n{}",
        found.join("\n")
    );
}

/// docs/ARCHITECTURE.md's tree names every file under `src/`: a top-level file by its
/// name, a file in a folder by its name and its folder's.
#[test]
fn the_architecture_names_every_source_file() {
    let architecture = std::fs::read_to_string(root().join("docs/ARCHITECTURE.md")).unwrap();
    let mut files = Vec::new();
    text_files(&root().join("src"), &mut files);
    let mut unnamed = Vec::new();
    for file in files {
        let path = relative(&file);
        let inside = path.trim_start_matches("src/");
        let (folder, name) = inside.rsplit_once('/').unwrap_or(("", inside));
        let folder_named = folder.is_empty()
            || architecture.contains(&format!("{folder}/"))
            || architecture.contains(&format!("{}/", folder.rsplit('/').next().unwrap()));
        if !(folder_named && architecture.contains(name)) {
            unnamed.push(path);
        }
    }
    assert!(
        unnamed.is_empty(),
        "files docs/ARCHITECTURE.md does not name:\n{}",
        unnamed.join("\n")
    );
}
