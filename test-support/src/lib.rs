//! What counterlab's tests, fuzz targets and benches share, in one place: JSON paths and
//! edits of payloads ([`json_path`]), golden files and blessing ([`golden`]), the bundled
//! packs, experiments and payloads ([`bundled`]), the rule that tells a no-op edit of a
//! payload from a real one ([`noop`]), the null-pack generator ([`null_pack`]) and hostile
//! CSVs through init, pack check and audit ([`byod`]), and whether a bench runs in
//! criterion's test mode ([`bench_mode`]).
//!
//! A dev-only crate: it depends on counterlab, and counterlab's integration tests,
//! benches and the fuzz crate depend on it.

pub mod bench_mode;
pub mod bundled;
pub mod byod;
pub mod golden;
pub mod json_path;
pub mod noop;
pub mod rewrite;
#[path = "../../fixtures/generate/null_pack.rs"]
pub mod null_pack;
