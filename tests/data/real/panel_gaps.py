#!/usr/bin/env python3
"""The random-rows minus grouped out-of-fold ROC AUC gap on males.csv (plm::Males), with
scikit-learn, for context beside counterlab's verdicts (tests/gbdt.rs,
`on_a_real_panel_the_trees_gap_is_supported_where_the_logistic_one_is_not`).

Run from the repository root (needs pandas and scikit-learn):

    OMP_NUM_THREADS=1 python3 tests/data/real/panel_gaps.py

Label `union` (positive `yes`), group `nr`; every other column a feature, the text ones
one-hot (`residence`'s empty cells as a level of their own in the first rows, the column
dropped in the second). One draw each: KFold(5, shuffle=True, random_state=0) against
GroupKFold(5). Models: StandardScaler + LogisticRegression(max_iter=2000);
HistGradientBoostingClassifier(early_stopping=False) with scikit-learn's defaults and with
20 trees of 7 leaves. Output on 2026-12-04 (scikit-learn 1.9.1), columns: residence
dropped, model, X shape, random AUC, grouped AUC, gap:

    False logit (4360, 37) 0.7485 0.7216 0.0269
    False hgb (4360, 37) 0.7991 0.7282 0.0708
    False hgb20x7 (4360, 37) 0.7618 0.7245 0.0373
    True logit (4360, 32) 0.7468 0.7213 0.0255
    True hgb (4360, 32) 0.7856 0.7302 0.0555
    True hgb20x7 (4360, 32) 0.7609 0.7235 0.0374
"""
import pandas as pd, numpy as np
from sklearn.model_selection import KFold, GroupKFold, cross_val_predict
from sklearn.linear_model import LogisticRegression
from sklearn.ensemble import HistGradientBoostingClassifier
from sklearn.preprocessing import StandardScaler
from sklearn.pipeline import make_pipeline
from sklearn.metrics import roc_auc_score
d = pd.read_csv("tests/data/real/males/males.csv", keep_default_na=False)  # "" stays text
y = (d.union == "yes").astype(int).values
g = d.nr.values
for drop_res in [False, True]:
    X = d.drop(columns=["nr", "union"] + (["residence"] if drop_res else []))
    X = pd.get_dummies(X, columns=list(X.select_dtypes(exclude="number").columns), dtype=float)
    for name, m in [("logit", make_pipeline(StandardScaler(), LogisticRegression(max_iter=2000))),
                    ("hgb", HistGradientBoostingClassifier(early_stopping=False)),
                    ("hgb20x7", HistGradientBoostingClassifier(early_stopping=False, max_iter=20, max_leaf_nodes=7))]:
        r = roc_auc_score(y, cross_val_predict(m, X, y, cv=KFold(5, shuffle=True, random_state=0), method="predict_proba")[:, 1])
        gg = roc_auc_score(y, cross_val_predict(m, X, y, cv=GroupKFold(5), groups=g, method="predict_proba")[:, 1])
        print(drop_res, name, X.shape, round(r, 4), round(gg, 4), round(r - gg, 4))
