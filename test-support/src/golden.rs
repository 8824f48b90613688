//! Golden files under `tests/golden/`: compared, or rewritten when blessing.
//!
//! Bless only when a change is *meant* to change what a golden records, and say why in the
//! commit: `COUNTERLAB_BLESS=1 cargo test --release --test lib <test>`.

use std::path::PathBuf;

use serde_json::Value;

/// Whether this run rewrites goldens (`COUNTERLAB_BLESS` is set).
pub fn blessing() -> bool {
    std::env::var_os("COUNTERLAB_BLESS").is_some()
}

/// `tests/golden/<name>`.
pub fn path(name: &str) -> PathBuf {
    crate::bundled::crate_root().join("tests/golden").join(name)
}

/// With `COUNTERLAB_BLESS` set, writes `value` to `tests/golden/<name>` (pretty JSON);
/// otherwise asserts it equals the committed file, naming the file and how to bless.
pub fn check_json(name: &str, value: &Value) {
    let path = path(name);
    if blessing() {
        std::fs::write(
            &path,
            serde_json::to_string_pretty(value).expect("JSON") + "\n",
        )
        .unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        return;
    }
    let text = std::fs::read_to_string(&path)
        .unwrap_or_else(|e| panic!("{}: {e} (bless with COUNTERLAB_BLESS=1)", path.display()));
    let golden: Value =
        serde_json::from_str(&text).unwrap_or_else(|e| panic!("{}: not JSON: {e}", path.display()));
    assert_eq!(
        value,
        &golden,
        "{} drifted; if intended, regenerate with COUNTERLAB_BLESS=1 and say why in the commit",
        path.display()
    );
}
