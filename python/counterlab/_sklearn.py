"""``counterlab.from_sklearn``: a scikit-learn (or imbalanced-learn) pipeline as the
``model`` and ``prepare`` of an experiment arm (docs/PREPARE.md, docs/PYTHON.md).

The estimator is read, never fitted, and never imported from: the classes are recognised
by their module and name, so counterlab does not depend on scikit-learn. Every parameter
is compared with what counterlab computes; one that would make the kernel compute
something else raises :class:`counterlab.Error` naming the step and the parameter.
"""

from __future__ import annotations

import math
from typing import Any, Dict, List, Tuple

from ._native import Error

# scikit-learn's defaults of the parameters counterlab's models and steps do not take:
# any other value changes what is computed, so it is refused by name.
_LOGISTIC_FIXED = {
    "penalty": ("l2", "deprecated"),
    "fit_intercept": (True,),
    "class_weight": (None,),
    "l1_ratio": (None, 0, 0.0),
    "intercept_scaling": (1, 1.0),
}
_GBDT_TAKEN = ("learning_rate", "max_iter", "max_leaf_nodes", "min_samples_leaf", "l2_regularization", "max_bins")
_GBDT_FIXED = {
    "loss": ("log_loss",),
    "early_stopping": (False,),
    "max_depth": (None,),
    "max_features": (1.0, 1),
    "class_weight": (None,),
    "monotonic_cst": (None,),
    "interaction_cst": (None,),
}


def _name(step: Any) -> Tuple[str, str]:
    cls = type(step)
    return cls.__module__.split(".")[0], cls.__name__


def _params(step: Any) -> Dict[str, Any]:
    get = getattr(step, "get_params", None)
    if get is None:
        raise Error(f"{type(step).__name__} is not a scikit-learn estimator (no get_params)")
    return get(deep=False)


def _fixed(where: str, params: Dict[str, Any], fixed: Dict[str, tuple]) -> None:
    for key, allowed in fixed.items():
        if key in params and not any(params[key] is a or params[key] == a for a in allowed):
            raise Error(
                f"{where}: {key}={params[key]!r} is not supported: counterlab computes "
                f"{key}={allowed[0]!r} (docs/PREPARE.md, docs/MODELS.md)"
            )


def _number(where: str, key: str, value: Any) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value):
        raise Error(f"{where}: {key}={value!r} is not supported: counterlab takes a finite number")
    return float(value)


def _whole(where: str, key: str, value: Any) -> int:
    if isinstance(value, bool) or not isinstance(value, int):
        raise Error(f"{where}: {key}={value!r} is not supported: counterlab takes a whole number")
    return value


def _model(where: str, step: Any, scaled: bool) -> Dict[str, Any]:
    library, cls = _name(step)
    params = _params(step)
    if library == "sklearn" and cls == "LogisticRegression":
        if not scaled:
            raise Error(
                f"{where}: counterlab's logistic model standardises its inputs on the training rows "
                "(StandardScaler then LogisticRegression): put a StandardScaler right before "
                "LogisticRegression, or the two would not compute the same model"
            )
        _fixed(where, params, _LOGISTIC_FIXED)
        return {"kind": "logistic", "c": _number(where, "C", params.get("C", 1.0))}
    if library == "sklearn" and cls == "HistGradientBoostingClassifier":
        _fixed(where, params, _GBDT_FIXED)
        if params.get("categorical_features") not in (None, "from_dtype"):
            raise Error(f"{where}: categorical_features is not supported: counterlab one-hot encodes a pack's categorical features")
        model: Dict[str, Any] = {"kind": "gbdt"}
        for key in _GBDT_TAKEN:
            value = params[key]
            if key in ("learning_rate", "l2_regularization"):
                model[key] = _number(where, key, value)
            elif value is None:
                raise Error(f"{where}: {key}=None is not supported: counterlab takes a whole number")
            else:
                model[key] = _whole(where, key, value)
        return model
    raise Error(
        f"{where}: {cls} ({library}) is not a model counterlab computes: use LogisticRegression "
        "(after a StandardScaler) or HistGradientBoostingClassifier"
    )


def _step(where: str, step: Any) -> Dict[str, Any]:
    library, cls = _name(step)
    params = _params(step)
    if library == "sklearn" and cls == "StandardScaler":
        _fixed(where, params, {"with_mean": (True,), "with_std": (True,)})
        return {"step": "standardize"}
    if library == "sklearn" and cls == "SimpleImputer":
        strategy = params.get("strategy")
        if strategy not in ("mean", "median", "most_frequent"):
            raise Error(f"{where}: strategy={strategy!r} is not supported: counterlab imputes the mean, median or most_frequent")
        missing = params.get("missing_values")
        if not (isinstance(missing, float) and math.isnan(missing)):
            raise Error(f"{where}: missing_values={missing!r} is not supported: a pack's missing value is an empty cell (NaN)")
        _fixed(where, params, {"add_indicator": (False,), "keep_empty_features": (False,)})
        return {"step": "impute", "strategy": strategy}
    if library == "sklearn" and cls == "SelectKBest":
        func = params.get("score_func")
        if getattr(func, "__name__", None) != "f_classif":
            raise Error(f"{where}: score_func={getattr(func, '__name__', func)!r} is not supported: counterlab selects by f_classif")
        k = params.get("k")
        if k == "all":
            raise Error(f"{where}: k='all' is not supported: it selects nothing; leave the step out")
        return {"step": "select_k_best", "k": _whole(where, "k", k)}
    if library == "imblearn" and cls in ("RandomOverSampler", "SMOTE"):
        if params.get("sampling_strategy") != "auto":
            raise Error(f"{where}: sampling_strategy={params.get('sampling_strategy')!r} is not supported: counterlab brings the minority class up to the majority's count ('auto')")
        if cls == "RandomOverSampler":
            _fixed(where, params, {"shrinkage": (None,)})
            return {"step": "oversample", "method": "random"}
        k = params.get("k_neighbors")
        return {"step": "oversample", "method": "smote", "k_neighbors": _whole(where, "k_neighbors", k)}
    if library == "sklearn" and cls == "ColumnTransformer":
        return _target_encoder_in_columns(where, step, params)
    if library == "sklearn" and cls == "TargetEncoder":
        raise Error(
            f"{where}: TargetEncoder on every column is not supported: counterlab encodes one "
            "categorical feature; wrap it as ColumnTransformer([(name, TargetEncoder(smooth=m), "
            "[column])], remainder='passthrough')"
        )
    raise Error(
        f"{where}: {cls} ({library}) is not a step counterlab computes: StandardScaler, "
        "SimpleImputer, ColumnTransformer with one TargetEncoder, SelectKBest(f_classif), "
        "RandomOverSampler, SMOTE"
    )


def _target_encoder_in_columns(where: str, step: Any, params: Dict[str, Any]) -> Dict[str, Any]:
    transformers = params.get("transformers") or []
    if len(transformers) != 1 or params.get("remainder") != "passthrough":
        raise Error(f"{where}: a ColumnTransformer is supported only as one TargetEncoder on one column with remainder='passthrough'")
    name, encoder, columns = transformers[0]
    library, cls = _name(encoder)
    if (library, cls) != ("sklearn", "TargetEncoder"):
        raise Error(f"{where}: {cls} inside a ColumnTransformer is not supported: only TargetEncoder")
    if not isinstance(columns, (list, tuple)) or len(columns) != 1 or not isinstance(columns[0], str):
        raise Error(f"{where}: TargetEncoder must encode exactly one column, named (a pack feature's name), found {columns!r}")
    encoder_params = _params(encoder)
    inner = f"{where} > {name}"
    smooth = encoder_params.get("smooth")
    if smooth == "auto":
        raise Error(f"{inner}: smooth='auto' is not supported: give the smoothing m as a number")
    if encoder_params.get("target_type") not in ("auto", "binary"):
        raise Error(f"{inner}: target_type={encoder_params.get('target_type')!r} is not supported: the label is binary")
    if encoder_params.get("categories") != "auto":
        raise Error(f"{inner}: categories is not supported: a pack records its categorical levels")
    return {"step": "target_encode", "column": columns[0], "smooth": _number(inner, "smooth", smooth)}


def from_sklearn(estimator: Any) -> Dict[str, Any]:
    """The ``{"model": …, "prepare": […]}`` of an experiment arm that computes what
    ``estimator`` computes: a scikit-learn ``Pipeline`` (or imbalanced-learn's) of supported
    steps ending in a model, or a model alone.

    - Steps: ``StandardScaler``, ``SimpleImputer`` (mean, median, most_frequent),
      ``ColumnTransformer([(name, TargetEncoder(smooth=m), [column])],
      remainder="passthrough")``, ``SelectKBest(f_classif, k)``, imbalanced-learn's
      ``RandomOverSampler`` and ``SMOTE``. Each becomes a step fitted on the training rows
      (the right way); write ``"fit_on": "all_rows"`` on a copy for the wrong way.
    - Models: ``LogisticRegression`` right after a ``StandardScaler`` (counterlab's
      logistic model standardises its inputs; that scaler is the model's, not a step), or
      ``HistGradientBoostingClassifier(early_stopping=False)``.
    - counterlab's ``target_encode`` is ``fit`` then ``transform``; inside a ``Pipeline``
      scikit-learn's ``TargetEncoder.fit_transform`` cross-fits the training rows instead,
      so the two differ on the training rows' encodings (docs/PREPARE.md).
    - Samplers draw from the experiment's ``seed`` (their ``random_state`` is not read).

    An unsupported step, model or parameter raises :class:`counterlab.Error` naming it.
    """
    steps = getattr(estimator, "steps", None)
    if steps is None:
        return {"model": _model(type(estimator).__name__, estimator, scaled=False), "prepare": []}
    pairs: List[Tuple[str, Any]] = list(steps)
    if not pairs:
        raise Error("the pipeline has no steps")
    prepare: List[Dict[str, Any]] = []
    *before, (last_name, last) = pairs
    last_library, last_cls = _name(last)
    scaled = False
    if (last_library, last_cls) == ("sklearn", "LogisticRegression") and before:
        library, cls = _name(before[-1][1])
        if (library, cls) == ("sklearn", "StandardScaler"):
            _step(f"step {len(before) - 1} ({before[-1][0]})", before[-1][1])
            before = before[:-1]
            scaled = True
    for i, (name, step) in enumerate(before):
        if step is None or step == "passthrough":
            continue
        prepare.append(_step(f"step {i} ({name})", step))
    model = _model(f"step {len(pairs) - 1} ({last_name})", last, scaled)
    return {"model": model, "prepare": prepare}
