"""counterlab.metrics on arrays: ROC AUC equal to scikit-learn's within 1e-15 on tie-heavy
data, and every number equal to `counterlab metrics --json` on the same rows as a CSV."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from sklearn.metrics import roc_auc_score

import counterlab


def tie_heavy(n: int, seed: int, levels: int = 7):
    """Scores on a few levels (every level shared by many rows of both classes)."""
    rng = np.random.default_rng(seed)
    y = (rng.random(n) < 0.3).astype(np.int64)
    y[:2] = [0, 1]
    score = np.round(rng.random(n) * (levels - 1) + 0.8 * y) / (levels - 1)
    return y, score


@pytest.mark.parametrize("n", [10, 1_000, 100_000, 1_000_000])
@pytest.mark.parametrize("seed", [0, 1, 2])
def test_roc_auc_equals_sklearn_within_1e_15_on_tie_heavy_data(n, seed):
    y, score = tie_heavy(n, seed)
    assert len(np.unique(score)) <= 8  # ties everywhere
    ours = counterlab.metrics(y, score)["roc_auc"]
    theirs = roc_auc_score(y, score)
    assert abs(ours - theirs) <= 1e-15, (ours, theirs)


def test_all_tied_and_integer_and_bool_inputs():
    y = np.array([0, 1, 0, 1, 1, 0])
    assert counterlab.metrics(y, np.full(6, 0.3))["roc_auc"] == 0.5 == roc_auc_score(y, np.full(6, 0.3))
    for labels in (y.astype(bool), y.tolist(), pd.Series(y)):
        positive = True if getattr(labels, "dtype", None) == bool else 1
        got = counterlab.metrics(labels, pd.Series([1, 5, 2, 7, 5, 2]), positive=positive)
        assert abs(got["roc_auc"] - roc_auc_score(y, [1, 5, 2, 7, 5, 2])) <= 1e-15


def test_text_labels_with_a_positive_level():
    y = np.array(["no", "yes", "no", "yes"])
    got = counterlab.metrics(y, [0.1, 0.8, 0.4, 0.35], positive="yes")
    assert got["roc_auc"] == roc_auc_score(y == "yes", [0.1, 0.8, 0.4, 0.35])


def _cli_metrics(cli_json, tmp_path, frame: pd.DataFrame, *extra: str):
    path = tmp_path / "predictions.csv"
    frame.to_csv(path, index=False)
    code, out = cli_json("metrics", str(path), "--label", "y", "--score", "p", "--json", *extra)
    assert code == 0
    return out


def test_same_numbers_as_the_cli_plain_clustered_and_paired(cli_json, tmp_path):
    rng = np.random.default_rng(11)
    n = 600
    entity = rng.integers(0, 80, n)
    y = (rng.random(n) < 0.4).astype(int)
    p = np.round(rng.random(n) * 0.6 + 0.4 * y, 2)
    p_old = np.round(rng.random(n) * 0.8 + 0.2 * y, 2)
    frame = pd.DataFrame({"y": y, "p": p, "p_old": p_old, "patient": [f"P{e:03d}" for e in entity]})

    assert counterlab.metrics(y, p) == _cli_metrics(cli_json, tmp_path, frame)
    assert counterlab.metrics(y, p, threshold=0.3) == _cli_metrics(
        cli_json, tmp_path, frame, "--threshold", "0.3"
    )
    clustered = counterlab.metrics(y, p, entity=frame["patient"])
    assert clustered == _cli_metrics(cli_json, tmp_path, frame, "--entity", "patient")
    assert clustered["roc_auc_interval"] != "delong"
    paired = counterlab.metrics(y, p, entity=frame["patient"], y_score2=p_old)
    assert paired == _cli_metrics(cli_json, tmp_path, frame, "--entity", "patient", "--score2", "p_old")
    assert set(paired["paired"]) >= {"difference", "ci", "z", "p_value", "interval"}
    assert paired["paired"]["conditional_on"] == "given_scores"
    unclustered = counterlab.metrics(y, p, y_score2=p_old)
    assert unclustered == _cli_metrics(cli_json, tmp_path, frame, "--score2", "p_old")


def test_look_alike_entities_are_reported_as_the_cli_does(cli_json, tmp_path):
    # Issue 42: 40 patients, two of them also written a second way (P007 / p7, and P012 /
    # P012 with a trailing space); the CLI and Python report the same two groups.
    rng = np.random.default_rng(5)
    ids = [f"P{e:03d}" for e in range(40)] + ["p7", "P012 "]
    patient = [ids[i % len(ids)] for i in range(252)]
    y = (rng.random(252) < 0.5).astype(int)
    p = np.round(rng.random(252) * 0.7 + 0.3 * y, 2)
    frame = pd.DataFrame({"y": y, "p": p, "patient": patient})
    got = counterlab.metrics(y, p, entity=frame["patient"])
    assert got == _cli_metrics(cli_json, tmp_path, frame, "--entity", "patient")
    assert got["n_entities"] == 42
    assert got["entity_collisions"] == {"count": 2, "first": [["P007", "p7"], ["P012", "P012 "]]}
    # Distinct ids: none reported; without entity, no key.
    honest = counterlab.metrics(y, p, entity=[f"P{i % 40:03d}" for i in range(252)])
    assert honest["entity_collisions"] == {"count": 0, "first": []}
    assert "entity_collisions" not in counterlab.metrics(y, p)


def test_one_class_gives_undefined_auc_not_an_error():
    got = counterlab.metrics([1, 1, 1], [0.2, 0.4, 0.9])
    assert got["roc_auc"] is None and "undefined" in got


def test_a_third_class_is_an_error_unless_one_vs_rest(cli_json, tmp_path):
    """Three classes are not silently positive-against-the-rest; with one_vs_rest they are,
    with the CLI's numbers (``--one-vs-rest``). 1.0 and 1 are one class here (compared
    with ==), two label texts in a CSV."""
    y = [2, 0, 1, 2, 0, 1]
    score = [0.9, 0.2, 0.8, 0.3, 0.1, 0.6]
    with pytest.raises(counterlab.DataError, match=r"more than two classes .* values seen: 0, 1, 2\. Pass one_vs_rest=True") as info:
        counterlab.metrics(y, score)
    assert info.value.column == "y_true"
    with pytest.raises(counterlab.DataError, match="more than two classes"):
        counterlab.metrics(pd.Series(["a", "b", "c"]), [0.1, 0.2, 0.3], positive="a")
    assert counterlab.metrics([1.0, 0, 1, 0], [0.9, 0.2, 0.8, 0.3])["n_pos"] == 2
    with pytest.raises(counterlab.UsageError, match="one_vs_rest: expected True or False"):
        counterlab.metrics(y, score, one_vs_rest="yes")

    got = counterlab.metrics(y, score, positive=2, one_vs_rest=True)
    path = tmp_path / "three.csv"
    pd.DataFrame({"y": y, "s": score}).to_csv(path, index=False)
    code, expected = cli_json("metrics", str(path), "--label", "y", "--score", "s", "--positive", "2", "--one-vs-rest", "--json")
    assert code == 0 and got == expected
    assert (got["n_pos"], got["n_neg"]) == (2, 4)
    assert counterlab.metrics(y, score, positive=2, one_vs_rest=np.True_) == got
    # A third class far down the column is named in the message.
    late = np.array([0, 1] * 60_000 + [2])
    with pytest.raises(counterlab.DataError, match=r"values seen: 0, 1, 2\."):
        counterlab.metrics(late, np.linspace(0, 1, len(late)))


def test_bad_inputs_are_counterlab_errors_that_say_what():
    with pytest.raises(counterlab.UsageError, match="y_score has 2 rows but y_true has 3"):
        counterlab.metrics([0, 1, 1], [0.2, 0.4])
    with pytest.raises(counterlab.UsageError, match=r"y_score\[1\] is NaN"):
        counterlab.metrics([0, 1, 1], [0.2, np.nan, 0.3])
    with pytest.raises(counterlab.UsageError, match=r"y_score2\[0\] is inf"):
        counterlab.metrics([0, 1], [0.2, 0.4], y_score2=[np.inf, 0.1])
    with pytest.raises(counterlab.DataError, match="no value equals positive=1; the values seen: 'no', 'yes'"):
        counterlab.metrics(["yes", "no"], [0.2, 0.4])
    with pytest.raises(counterlab.UsageError, match="y_score: expected numbers"):
        counterlab.metrics([0, 1], ["a", "b"])
    with pytest.raises(counterlab.UsageError, match="1-D"):
        counterlab.metrics(np.zeros((2, 2)), [0.1, 0.2])
    with pytest.raises(counterlab.UsageError, match="threshold must be a finite number"):
        counterlab.metrics([0, 1], [0.1, 0.2], threshold=float("nan"))


def test_missing_labels_and_entities_are_data_errors_not_negatives():
    p = [0.1, 0.2, 0.3, 0.4, 0.5]
    for y in (
        [0, 1, None, 1, 0],
        [0.0, 1.0, np.nan, 1.0, 0.0],
        pd.Series([False, True, None, True, False], dtype="boolean"),
        pd.Series([0, 1, None, 1, 0], dtype="Int64"),
        pd.Series(["n", "y", None, "y", "n"], dtype="string"),
    ):
        with pytest.raises(counterlab.DataError, match=r"y_true\[2\] is missing") as info:
            counterlab.metrics(y, p, positive=True if str(getattr(y, "dtype", "")) == "boolean" else 1)
        assert (info.value.row, info.value.column) == (3, "y_true")
    with pytest.raises(counterlab.DataError, match=r"entity\[4\] is missing"):
        counterlab.metrics([0, 1, 0, 1, 0], p, entity=["a", "b", "c", "d", np.nan])
