"""The ``model-choice`` problem's objective: the 3-fold cross-validated error of a scikit-learn
classifier on ``load_breast_cancer`` (``benchmarks.conditional_functions``)."""

from __future__ import annotations

import functools
from typing import Any

import numpy as np

CV_SPLIT_SEED = 0
# Histogram bins of the boosting classifier (default 255): with 16 leaves at most and 63 bins,
# its slowest setting (50 iterations) stays within about 0.4 s of CPU per 3-fold evaluation.
HGB_BINS = 63


@functools.cache
def _breast_cancer() -> tuple[np.ndarray, np.ndarray]:
    from sklearn.datasets import load_breast_cancer

    X, y = load_breast_cancer(return_X_y=True)
    return X, y


def _classifier(p: dict[str, Any]):
    from sklearn.ensemble import HistGradientBoostingClassifier
    from sklearn.linear_model import LogisticRegression
    from sklearn.pipeline import make_pipeline
    from sklearn.preprocessing import StandardScaler
    from sklearn.svm import SVC

    kind = p["classifier"]
    if kind == "svc":
        return make_pipeline(StandardScaler(), SVC(C=p["svc_C"], gamma=p["svc_gamma"]))
    if kind == "logreg":
        l1 = 1.0 if p["logreg_penalty"] == "l1" else 0.0
        model = LogisticRegression(C=p["logreg_C"], l1_ratio=l1, solver="liblinear")
        return make_pipeline(StandardScaler(), model)
    return HistGradientBoostingClassifier(  # trees: scaling changes nothing
        learning_rate=p["hgb_learning_rate"],
        max_iter=p["hgb_max_iter"],
        max_leaf_nodes=p["hgb_max_leaf_nodes"],
        min_samples_leaf=p["hgb_min_samples_leaf"],
        max_bins=HGB_BINS,
        early_stopping=False,
        random_state=0,
    )


def cv_error(p: dict[str, Any]) -> float:
    """1 - mean accuracy of the classifier ``p`` over the fixed 3-fold split."""
    from sklearn.model_selection import StratifiedKFold, cross_val_score

    X, y = _breast_cancer()
    folds = StratifiedKFold(3, shuffle=True, random_state=CV_SPLIT_SEED)
    return 1.0 - float(cross_val_score(_classifier(p), X, y, cv=folds).mean())
