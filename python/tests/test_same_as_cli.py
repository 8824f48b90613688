"""Python and the CLI are one kernel: every bundled document gives the same report, with
the same hash, from `counterlab.verify` as from `counterlab verify --json`; runs give the
same payloads; maps, transfer, the selector and capsules agree."""

from __future__ import annotations

import json

import pytest

import counterlab
from conftest import PACKS, bundled_capsules, bundled_experiments, bundled_payloads


def test_there_are_bundled_documents():
    # 24 payloads and maps, 8 capsules, 4 packs at the time of writing: a glob that finds
    # nothing must not pass the tests below vacuously.
    assert len(bundled_payloads()) >= 20
    assert len(bundled_capsules()) >= 4


@pytest.mark.parametrize("path", bundled_payloads(), ids=lambda p: f"{p.parent.parent.name}/{p.name}")
def test_every_bundled_payload_has_the_cli_report_hash(path, cli_json):
    # K = 19: the two front ends' sameness does not depend on K (the default K's report
    # hashes are pinned by the Rust suite's golden; test_readme checks one from Python).
    code, expected = cli_json("verify", str(path), "--json", "--permutations", "19")
    report = counterlab.verify(str(path), permutations=19)
    assert report["report_hash"] == expected["report_hash"]
    assert report == expected
    assert report["verdict"] in ("SUPPORTS", "INCONCLUSIVE", "REJECTED")
    assert code == {"SUPPORTS": 0, "REJECTED": 1, "INCONCLUSIVE": 3}[report["verdict"]]


@pytest.mark.parametrize("path", bundled_capsules(), ids=lambda p: f"{p.parent.parent.name}/{p.name}")
def test_every_bundled_capsule_has_the_cli_capsule_report(path, cli_json):
    _, expected = cli_json("verify", str(path), "--json")
    report = counterlab.verify(path)  # a pathlib.Path
    assert report["capsule_report_hash"] == expected["capsule_report_hash"]
    assert report == expected


def test_a_payload_as_path_text_bytes_or_dict_gives_one_report():
    path = PACKS / "entity-leakage" / "payloads" / "random-inflates-auc.json"
    raw = path.read_bytes()
    hashes = {
        counterlab.verify(str(path))["report_hash"],
        counterlab.verify(path)["report_hash"],
        counterlab.verify(raw)["report_hash"],
        counterlab.verify(raw.decode())["report_hash"],
        counterlab.verify(json.loads(raw))["report_hash"],
    }
    assert len(hashes) == 1, hashes


def test_verify_options_reach_the_verifier(cli_json):
    path = str(PACKS / "class-imbalance" / "payloads" / "auc-above-chance.json")
    _, expected = cli_json("verify", path, "--json", "--permutations", "19", "--seed", "7", "--observe")
    report = counterlab.verify(path, permutations=19, seed=7, observe=True, threads=1)
    assert report == expected
    assert report["report_hash"] != counterlab.verify(path)["report_hash"]


@pytest.mark.filterwarnings("ignore::counterlab.PackWarning")
@pytest.mark.parametrize(
    "path",
    [p for p in bundled_experiments() if p.parent.parent.name in ("entity-leakage", "class-imbalance")],
    ids=lambda p: f"{p.parent.parent.name}/{p.name}",
)
def test_run_gives_the_cli_payload(path, cli, tmp_path):
    out = tmp_path / "payload.json"
    code, _, err = cli("run", str(path), "--out", str(out))
    assert code == 0, err
    payload = counterlab.run(path)
    assert payload == json.loads(out.read_text())
    # and the payload from Python verifies as the file does
    assert counterlab.verify(payload, permutations=19)["report_hash"] == counterlab.verify(out, permutations=19)["report_hash"]


def test_boundary_map_from_python_is_the_cli_map_and_verifies(cli_json):
    _, expected = cli_json("boundary", "entity-leakage", "--json")
    made = counterlab.boundary("entity-leakage", threads=2)
    assert made["map_hash"] == expected["map_hash"]
    assert made == expected
    assert counterlab.verify(made)["verdict"] == "SUPPORTS"


def test_transfer_is_the_cli_evaluation(cli_json):
    pack = "temporal-leakage"
    choices = [c["id"] for c in counterlab.transfer(pack, _first_choice(pack))["choices"]]
    for choice in choices:
        code, expected = cli_json("transfer", pack, "--choice", choice, "--json")
        got = counterlab.transfer(pack, choice)
        assert got == expected
        assert code == (0 if got["answer"]["correct"] else 1)


def _first_choice(pack: str) -> str:
    import tomllib

    manifest = tomllib.loads((PACKS / pack / "pack.toml").read_text())
    return manifest["transfer"]["choices"][0]["id"]


def test_an_unknown_transfer_choice_is_an_error_naming_the_choices():
    with pytest.raises(counterlab.Error, match="the choices are"):
        counterlab.transfer("temporal-leakage", "no-such-choice")


def test_select_and_build_capsule_match_the_recorded_capsule(cli_json, tmp_path):
    capsule_path = PACKS / "entity-leakage" / "capsules" / "random-vs-grouped.json"
    recorded = json.loads(capsule_path.read_text())
    prediction = recorded["prediction"]
    selection = counterlab.select(prediction)
    pred_file = tmp_path / "prediction.json"
    pred_file.write_text(json.dumps(prediction))
    _, expected = cli_json("select", "entity-leakage", "--belief", str(pred_file), "--json")
    assert selection == expected
    built = counterlab.build_capsule(pred_file)
    assert counterlab.verify(built)["verdict"] == counterlab.verify(capsule_path)["verdict"]
    assert built["payload_hash"] == recorded["payload_hash"]


def test_verify_revision_is_the_cli_answer(cli_json, tmp_path):
    capsule = json.loads((PACKS / "entity-leakage" / "capsules" / "conclusion-only-revision.json").read_text())
    chain = [capsule["payload"], *[r["payload"] for r in capsule["revisions"]]]
    assert len(chain) >= 2, "the recorded capsule has a revision chain"
    files = []
    for i, payload in enumerate(chain):
        files.append(tmp_path / f"p{i}.json")
        files[-1].write_text(json.dumps(payload))
    _, expected = cli_json("verify-revision", *map(str, files), "--json")
    assert counterlab.verify_revision(chain) == expected
    assert counterlab.verify_revision(files) == expected


def test_a_capsule_is_verified_with_the_options_it_records():
    """Issue 30: a capsule records its verification options; an option given beside it is a
    UsageError (the CLI exits 2), never silently applied or ignored."""
    capsule_path = PACKS / "entity-leakage" / "capsules" / "gap-05-does-not-hold.json"
    recorded = json.loads(capsule_path.read_text())
    assert recorded["options"]["permutations"] == 199
    for option in [{"permutations": 19}, {"alpha": 0.1}, {"seed": 3}, {"max_work": 1000}]:
        with pytest.raises(counterlab.UsageError, match="cannot be given for a Proof Capsule"):
            counterlab.verify(capsule_path, **option)
    report = counterlab.verify(capsule_path, threads=1)
    assert report["options"] == recorded["options"]
    assert report["prediction"]["answer"] == "confirmed"
    assert report["verdict"] == "SUPPORTS"
