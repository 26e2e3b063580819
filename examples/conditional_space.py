"""A conditional (define-by-run) search space: EGPTSSampler chooses a classifier and then only that
classifier's hyperparameters, with two workers (``n_jobs=2``) on a Journal file.

Run:  python examples/conditional_space.py [seed] [trials]      (defaults 0 and 30)

Needs scikit-learn (``python -m pip install scikit-learn``; the ``ax`` extra brings it).

The objective asks for ``classifier`` (an RBF support-vector machine, logistic regression or
k-nearest neighbours) and then for the hyperparameters of the one chosen: ``svc_c`` and
``svc_gamma``, ``logreg_c``, or ``knn_neighbors`` and ``knn_weights``. It returns the 3-fold
cross-validated accuracy (fixed folds) on scikit-learn's breast cancer data set (569 samples, 30
features, standardised), to be maximised. One model covers every branch: a trial's parameters of
the branches it did not take are inactive, encoded at a fixed value, and ``classifier`` tells the
model which branch a trial is in. A branch's parameters are modelled once they were suggested in
two completed trials; until then they are drawn at random, with one
warning in the study. See docs/conditional.md.

The study lives in a Journal file (an embedded storage: no server) in a temporary folder, removed
at the end. The script prints the best trial and, per classifier, how many trials took it, its best
accuracy and the parameters its trials hold (only those the objective asked for).
"""

from __future__ import annotations

import os
import sys
import tempfile
from collections import Counter

import optuna
from optuna.storages import JournalStorage
from optuna.storages.journal import JournalFileBackend
from sklearn.datasets import load_breast_cancer
from sklearn.linear_model import LogisticRegression
from sklearn.model_selection import StratifiedKFold, cross_val_score
from sklearn.neighbors import KNeighborsClassifier
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import StandardScaler
from sklearn.svm import SVC

from optuna_egp import EGPTSSampler

N_TRIALS = 30
X, Y = load_breast_cancer(return_X_y=True)
FOLDS = StratifiedKFold(n_splits=3, shuffle=True, random_state=0)  # the same folds for every trial


def objective(trial: optuna.Trial) -> float:
    name = trial.suggest_categorical("classifier", ["svc", "logreg", "knn"])
    if name == "svc":
        model = SVC(
            C=trial.suggest_float("svc_c", 1e-2, 1e3, log=True),
            gamma=trial.suggest_float("svc_gamma", 1e-4, 1.0, log=True),
        )
    elif name == "logreg":
        model = LogisticRegression(C=trial.suggest_float("logreg_c", 1e-3, 1e3, log=True))
    else:
        model = KNeighborsClassifier(
            n_neighbors=trial.suggest_int("knn_neighbors", 1, 30),
            weights=trial.suggest_categorical("knn_weights", ["uniform", "distance"]),
        )
    return float(cross_val_score(make_pipeline(StandardScaler(), model), X, Y, cv=FOLDS).mean())


def report(study: optuna.Study) -> None:
    best = study.best_trial
    print(
        f"EGPTSSampler, {len(study.trials)} trials: best 3-fold CV accuracy {best.value:.4f} "
        f"(trial {best.number})"
    )
    print("  " + ", ".join(f"{k} = {_shown(v)}" for k, v in best.params.items()))
    complete = study.get_trials(states=(optuna.trial.TrialState.COMPLETE,))
    counts = Counter(t.params["classifier"] for t in complete)
    print(f"{'classifier':<10} {'trials':>6} {'best accuracy':>13}  parameters its trials hold")
    for name, count in counts.most_common():
        trials = [t for t in complete if t.params["classifier"] == name]
        held = sorted({k for t in trials for k in t.params})
        best_value = max(t.value for t in trials)
        print(f"{name:<10} {count:>6} {best_value:>13.4f}  {', '.join(held)}")


def _shown(value: object) -> str:
    return f"{value:.4g}" if isinstance(value, float) else str(value)


def main() -> None:
    optuna.logging.set_verbosity(optuna.logging.WARNING)
    seed = int(sys.argv[1]) if len(sys.argv) > 1 else 0
    n_trials = int(sys.argv[2]) if len(sys.argv) > 2 else N_TRIALS
    with tempfile.TemporaryDirectory() as folder:  # the journal file goes with the folder
        storage = JournalStorage(JournalFileBackend(os.path.join(folder, "study.log")))
        study = optuna.create_study(
            study_name="conditional",
            storage=storage,
            direction="maximize",
            sampler=EGPTSSampler(seed=seed),
        )
        study.optimize(objective, n_trials=n_trials, n_jobs=2)  # two worker threads
        report(study)


if __name__ == "__main__":
    main()
