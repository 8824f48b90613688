//! Integrity, the stage payloads and boundary maps share: the recorded fixture hash is the
//! verifier's fixture's (`fixture.hash`; a retired fixture is an unsupported case, not a
//! forgery), the recorded manifest hash its pack's meaning (`pack.manifest`), and every
//! hash a document records of itself the canonical hash of what it records. None of these
//! needs the model: a tampered hash is REJECTED before anything is recomputed.

use serde_json::json;

use super::checks::CheckId;
use super::{Counterexample, Verification};
use crate::json_path::JsonPath;
use crate::pack::Pack;

impl Verification<'_> {
    /// `pack.manifest`: the recorded manifest hash is the verifier's pack's.
    pub(super) fn check_manifest_hash(&mut self, recorded: &str, pack: &Pack, what: &str) {
        let ours = pack.manifest().meaning_hash();
        if recorded == ours {
            self.pass(CheckId::PackManifest);
        } else {
            let ce = Counterexample::new(
                CheckId::PackManifest,
                json!(recorded),
                json!(ours),
                json!({ "path": JsonPath::field("pack").key("manifest_hash") }),
            );
            self.fail(
                CheckId::PackManifest,
                format!("the {what} was computed on a pack whose pack.toml gives the fixture another meaning (label, positive class, entity, features or time)"),
                vec![ce],
            );
        }
    }

    /// Check `id`: the hash recorded at `path` is the one computed from what is recorded.
    pub(super) fn check_recorded_hash(
        &mut self,
        id: CheckId,
        recorded: &str,
        computed: &str,
        path: &JsonPath,
        reason: &str,
    ) {
        if recorded == computed {
            self.pass(id);
        } else {
            let ce = Counterexample::new(
                id,
                json!(recorded),
                json!(computed),
                json!({ "path": path }),
            );
            self.fail(id, reason, vec![ce]);
        }
    }

    /// `fixture.hash`, unverifiable, when the recorded fixture hash is one the pack lists
    /// as retired (`[data] retired_blake3`): true, and the caller checks what needs no
    /// fixture (the recorded hashes) and stops. The data it was computed on are gone, so
    /// nothing can be recomputed or checked against this fixture (`before`: the checks
    /// listed ahead of `fixture.hash` that read it, and `pack.manifest`, are skipped), and
    /// a record of an earlier fixture is not taken for a forgery: INCONCLUSIVE, like a
    /// payload of another kernel version.
    pub(super) fn recorded_on_retired_fixture(
        &mut self,
        recorded: &str,
        pack: &Pack,
        what: &str,
        before: &[CheckId],
    ) -> bool {
        if !pack.retired_fixture(recorded) {
            return false;
        }
        let reason =
            format!("not checked: the {what} was recorded on a retired fixture (see fixture.hash)");
        for &id in before.iter().chain(&[CheckId::PackManifest]) {
            self.skip(id, reason.clone());
        }
        self.unverifiable(
            CheckId::FixtureHash,
            format!(
                "unsupported case: the {what} was recorded on an earlier version of pack {:?}'s fixture ({recorded}), retired in its pack.toml; this verifier has {}: run the experiment again on the current fixture",
                pack.id(),
                pack.fixture_hash()
            ),
        );
        true
    }

    /// `fixture.hash`: the recorded fixture hash is the verifier's (`what`: "payload",
    /// "map").
    pub(super) fn check_fixture_hash(&mut self, recorded: &str, pack: &Pack, what: &str) {
        if recorded == pack.fixture_hash() {
            self.pass(CheckId::FixtureHash);
        } else {
            let ce = Counterexample::new(
                CheckId::FixtureHash,
                json!(recorded),
                json!(pack.fixture_hash()),
                json!({ "path": JsonPath::field("pack").key("fixture_blake3") }),
            );
            self.fail(
                CheckId::FixtureHash,
                format!("the {what} was not computed on the verifier's fixture"),
                vec![ce],
            );
        }
    }
}
