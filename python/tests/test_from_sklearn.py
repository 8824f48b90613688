"""counterlab.from_sklearn: a scikit-learn / imbalanced-learn pipeline as an arm's model and
preparation, every unsupported step or parameter refused by name, and the pooled
out-of-fold ROC AUC of the arm it makes equal to scikit-learn's own cross_val_predict of
the same pipeline (the independent oracle) on a bundled pack."""

import csv

import numpy as np
import pytest
from imblearn.over_sampling import SMOTE, RandomOverSampler
from imblearn.pipeline import Pipeline as ImbPipeline
from sklearn.compose import ColumnTransformer
from sklearn.ensemble import HistGradientBoostingClassifier
from sklearn.feature_selection import SelectKBest, chi2, f_classif
from sklearn.impute import SimpleImputer
from sklearn.linear_model import LogisticRegression
from sklearn.metrics import roc_auc_score
from sklearn.model_selection import KFold, cross_val_predict
from sklearn.pipeline import Pipeline
from sklearn.preprocessing import MinMaxScaler, StandardScaler, TargetEncoder

import counterlab

from conftest import PACKS


def test_a_pipeline_of_every_supported_step_maps_to_its_prepare_and_model():
    pipeline = ImbPipeline([
        ("impute", SimpleImputer(strategy="median")),
        ("clinic", ColumnTransformer([("te", TargetEncoder(smooth=2.0), ["clinic"])], remainder="passthrough")),
        ("select", SelectKBest(f_classif, k=4)),
        ("smote", SMOTE(k_neighbors=3)),
        ("scale", StandardScaler()),
        ("lr", LogisticRegression(C=0.5)),
    ])
    assert counterlab.from_sklearn(pipeline) == {
        "model": {"kind": "logistic", "c": 0.5},
        "prepare": [
            {"step": "impute", "strategy": "median"},
            {"step": "target_encode", "column": "clinic", "smooth": 2.0},
            {"step": "select_k_best", "k": 4},
            {"step": "oversample", "method": "smote", "k_neighbors": 3},
        ],
    }
    trees = ImbPipeline([
        ("scale", StandardScaler()),
        ("ros", RandomOverSampler()),
        ("gbdt", HistGradientBoostingClassifier(early_stopping=False, max_iter=30, max_leaf_nodes=15)),
    ])
    assert counterlab.from_sklearn(trees) == {
        "model": {"kind": "gbdt", "learning_rate": 0.1, "max_iter": 30, "max_leaf_nodes": 15,
                  "min_samples_leaf": 20, "l2_regularization": 0.0, "max_bins": 255},
        "prepare": [{"step": "standardize"}, {"step": "oversample", "method": "random"}],
    }


@pytest.mark.parametrize("estimator, words", [
    (Pipeline([("lr", LogisticRegression())]), "put a StandardScaler right before"),
    (Pipeline([("s", StandardScaler()), ("lr", LogisticRegression(class_weight="balanced"))]), "class_weight='balanced'"),
    (Pipeline([("m", MinMaxScaler()), ("s", StandardScaler()), ("lr", LogisticRegression())]), "step 0 (m): MinMaxScaler"),
    (Pipeline([("k", SelectKBest(chi2, k=3)), ("s", StandardScaler()), ("lr", LogisticRegression())]), "score_func='chi2'"),
    (Pipeline([("i", SimpleImputer(strategy="constant")), ("g", HistGradientBoostingClassifier(early_stopping=False))]), "strategy='constant'"),
    (Pipeline([("t", ColumnTransformer([("te", TargetEncoder(), ["c"])], remainder="passthrough")),
               ("g", HistGradientBoostingClassifier(early_stopping=False))]), "smooth='auto'"),
    (HistGradientBoostingClassifier(), "early_stopping='auto'"),
    (HistGradientBoostingClassifier(early_stopping=False, max_depth=3), "max_depth=3"),
    (ImbPipeline([("r", RandomOverSampler(sampling_strategy=0.5)), ("g", HistGradientBoostingClassifier(early_stopping=False))]),
     "sampling_strategy=0.5"),
])
def test_an_unsupported_step_or_parameter_is_refused_by_name(estimator, words):
    with pytest.raises(counterlab.Error) as caught:
        counterlab.from_sklearn(estimator)
    assert words in str(caught.value)


def test_the_arm_scores_what_cross_val_predict_scores_on_a_bundled_pack():
    # selection-leakage: 100 tumours in file order (canonical: T001 … T100), 1,000 probes.
    path = PACKS / "selection-leakage" / "tumour_expression.csv"
    with open(path, newline="") as handle:
        rows = list(csv.DictReader(handle))
    probes = [c for c in rows[0] if c.startswith("probe_")]
    x = np.array([[float(r[c]) for c in probes] for r in rows])
    y = np.array([int(r["relapse"]) for r in rows])
    pipeline = Pipeline([
        ("select", SelectKBest(f_classif, k=20)),
        ("scale", StandardScaler()),
        ("lr", LogisticRegression(C=1.0, tol=1e-10, max_iter=10000)),
    ])
    cv = KFold(5, shuffle=True, random_state=7)
    oof = cross_val_predict(pipeline, x, y, cv=cv, method="predict_proba")[:, 1]
    expected = roc_auc_score(y, oof)
    arm = counterlab.from_sklearn(pipeline)
    experiment = {
        "format": "counterlab.experiment/1", "pack": "selection-leakage", "seed": 7,
        "model": arm["model"],
        "arms": [{"name": "cv", "split": {"kind": "k_fold", "folds": 5, "assignment": "sklearn"},
                  "prepare": arm["prepare"]}],
        "metrics": ["roc_auc"],
    }
    payload = counterlab.run(experiment)
    assert abs(payload["results"]["cv"]["metrics"]["roc_auc"] - expected) <= 1e-9
