"""model_history / plot_model: on a real EGPTSSampler
study, and on hand-written records (exact values)."""

import sys

import numpy as np
import optuna
import pytest
from optuna.distributions import FloatDistribution
from optuna.trial import create_trial

from optuna_egp import EGPTSSampler, model_history, plot_model
from optuna_egp._records import MODEL_KEY, WEIGHTS_KEY

optuna.logging.set_verbosity(optuna.logging.WARNING)

N_STARTUP, N_TRIALS = 5, 25
OFFSET = {"a": 0.0, "b": 0.5, "c": 1.0}


def _objective(trial):
    x = trial.suggest_float("x", -3, 3)  # matters
    trial.suggest_float("y", -3, 3)  # does not
    c = trial.suggest_categorical("c", list(OFFSET))  # 3 one-hot columns, one relevance entry
    return (x - 1.0) ** 2 + OFFSET[c]


@pytest.fixture(scope="module")
def study():
    study = optuna.create_study(
        sampler=EGPTSSampler(
            seed=0, n_startup_trials=N_STARTUP, kernels=["rbf", "rbf-ard"], n_features=64
        )
    )
    study.optimize(_objective, n_trials=N_TRIALS)
    return study


def test_weights_one_row_per_model_based_trial(study):
    history = model_history(study)
    assert history.kernel_names == ["rbf", "rbf-ard"]
    # trials 0..4 are random start-up trials; every later one was suggested by the model
    np.testing.assert_array_equal(history.trial_numbers, np.arange(N_STARTUP, N_TRIALS))
    assert history.weights.shape == (N_TRIALS - N_STARTUP, 2)
    np.testing.assert_allclose(history.weights.sum(axis=1), 1.0, atol=1e-9)
    # row i is trial i's record, in trial order
    expected = [study.trials[n].system_attrs[WEIGHTS_KEY] for n in history.trial_numbers]
    np.testing.assert_allclose(history.weights, expected)
    assert history.refits[0].trial_number == N_STARTUP  # the first fit
    assert [r.trial_number for r in history.refits] == sorted(
        t.number for t in study.trials if MODEL_KEY in t.system_attrs
    )
    # Optuna sorts the relative space by name
    assert history.refits[-1].columns == [
        "c",
        "c",
        "c",
        "x",
        "y",
    ]


def test_relevance_ranks_the_parameter_that_matters_first(study):
    relevance = model_history(study).relevance()
    assert list(relevance) == ["rbf-ard"]  # isotropic kernels say nothing per parameter
    shares = relevance["rbf-ard"]
    assert list(shares) == ["c", "x", "y"]  # the categorical's 3 columns are one entry
    assert sum(shares.values()) == pytest.approx(1.0)
    # y does not enter the objective, so its ARD lengthscale runs long and its inverse is
    # small next to x's; the lengthscale penalty keeps it from running very long (seed 0: x's
    # share 0.83, y's 0.048; without the penalty 0.87 / 0.005). The bounds leave a margin for
    # another BLAS or SciPy version changing the fit a little, while equal shares (1/3 each, a
    # model that ignored the lengthscales) or swapped parameters fail them.
    assert shares["x"] > 0.6
    assert shares["x"] > 8 * shares["y"]


@pytest.mark.slow
def test_plot_model_draws_weights_and_relevance(study):
    matplotlib = pytest.importorskip("matplotlib")
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig = plot_model(study)
    try:
        assert isinstance(fig, matplotlib.figure.Figure)
        ax_w, ax_r = fig.axes
        legend = [t.get_text() for t in ax_w.get_legend().get_texts()]
        final = model_history(study).weights[-1]
        assert legend == [f"rbf ({final[0]:.2g})", f"rbf-ard ({final[1]:.2g})", "refit"]
        assert [t.get_text() for t in ax_r.get_yticklabels()] == ["c", "x", "y"]
        bars = [p.get_width() for p in ax_r.patches]
        assert bars == pytest.approx(list(model_history(study).relevance()["rbf-ard"].values()))
        fig.savefig(__import__("io").BytesIO(), format="png")  # renders without a display
    finally:
        plt.close(fig)
    # into the caller's axes
    fig2, axes = plt.subplots(1, 2)
    try:
        assert plot_model(study, ax=axes) is fig2
        with pytest.raises(ValueError, match="two Axes"):
            plot_model(study, ax=axes[0])
    finally:
        plt.close(fig2)


def test_no_recorded_model_is_a_clear_error():
    study = optuna.create_study(
        study_name="plain",
        sampler=EGPTSSampler(
            seed=0, n_startup_trials=2, kernels=["rbf"], n_features=16, share_model=False
        ),
    )
    study.optimize(lambda t: t.suggest_float("x", 0, 1) ** 2, n_trials=3)
    with pytest.raises(
        ValueError, match=r"no trial of study 'plain' has a recorded model.*share_model=True"
    ):
        model_history(study)


# ----------------------------------------------------------------------------- hand-written records
def _record(kernels, lengthscales, columns, n_at_refit=5):
    hyper = [{"lengthscales": ls, "amplitude": 1.0, "noise": 1e-3} for ls in lengthscales]
    model = {
        "version": 1,
        "kernels": kernels,
        "dim": len(columns),
        "warp_outputs": True,
        "n_at_refit": n_at_refit,
        "transform": {},
        "hyperparameters": hyper,
    }
    return {"space": [], "columns": columns, "model": model}


def _study_with(attrs):
    study = optuna.create_study(study_name="hand")
    for a in attrs:
        study.add_trial(
            create_trial(
                params={"x": 0.5},
                distributions={"x": FloatDistribution(0, 1)},
                value=1.0,
                system_attrs=a,
            )
        )
    return study


def test_relevance_combines_a_categorical_by_max_and_normalises():
    columns = ["x", "c", "c", "c", "y"]
    old = _record(["rbf", "rbf-ard"], [[0.3], [1.0] * 5], columns)
    new = _record(["rbf", "rbf-ard"], [[0.3], [0.5, 2.0, 0.25, 4.0, 1.0]], columns, n_at_refit=8)
    study = _study_with(
        [
            {},  # start-up
            {MODEL_KEY: old, WEIGHTS_KEY: [0.5, 0.5]},
            {MODEL_KEY: old, WEIGHTS_KEY: [0.4, 0.6]},  # the same model recorded again: not a refit
            {WEIGHTS_KEY: [1.0]},  # another kernel count: left out
            {MODEL_KEY: new, WEIGHTS_KEY: [0.25, 0.75]},
        ]
    )
    history = model_history(study)
    np.testing.assert_array_equal(history.trial_numbers, [1, 2, 4])
    np.testing.assert_allclose(history.weights, [[0.5, 0.5], [0.4, 0.6], [0.25, 0.75]])
    assert [r.trial_number for r in history.refits] == [1, 4]
    # inverse lengthscales: x 2, c max(0.5, 4, 0.25) = 4, y 1; normalised by 7
    assert history.relevance() == {"rbf-ard": pytest.approx({"x": 2 / 7, "c": 4 / 7, "y": 1 / 7})}
    assert history.relevance(0) == {"rbf-ard": pytest.approx({"x": 1 / 3, "c": 1 / 3, "y": 1 / 3})}


def test_a_record_that_changed_only_in_another_outcomes_model_is_not_a_refit():
    old = _record(["rbf"], [[0.3]], ["x"])
    constraint_refitted = {**old, "model": {**old["model"], "outcomes": {"constraints": {"0": {}}}}}
    study = _study_with([{MODEL_KEY: old}, {MODEL_KEY: constraint_refitted}])
    assert [r.trial_number for r in model_history(study).refits] == [0]


def test_weights_are_lines_on_a_log_scale_that_show_the_kernels_a_dominant_one_outweighs():
    """Stacked on a linear scale, rbf-ard's weights from the second trial on would fill the
    panel and rbf's (1e-6 down to 0) would not show at all."""
    matplotlib = pytest.importorskip("matplotlib")
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    model = _record(["rbf", "rbf-ard"], [[0.3], [0.5, 2.0]], ["x", "y"])
    weights = [[0.5, 0.5], [1e-6, 1.0 - 1e-6], [1e-12, 1.0], [0.0, 1.0]]
    study = _study_with([{MODEL_KEY: model, WEIGHTS_KEY: w} for w in weights])
    fig = plot_model(study)
    try:
        ax_w = fig.axes[0]
        assert ax_w.get_yscale() == "log"
        lines = [line for line in ax_w.get_lines() if line.get_label() != "refit"]
        assert [line.get_label() for line in lines] == ["rbf (0)", "rbf-ard (1)"]
        np.testing.assert_array_equal(lines[0].get_xdata(), [0, 1, 2, 3])
        # the weight that underflowed to 0 has no logarithm: a gap in the line
        np.testing.assert_allclose(lines[0].get_ydata(), [0.5, 1e-6, 1e-12, np.nan])
        np.testing.assert_allclose(lines[1].get_ydata(), [0.5, 1.0 - 1e-6, 1.0, 1.0])
        bottom, top = ax_w.get_ylim()
        assert bottom < 1e-12 and top >= 1.0  # every positive weight is inside the panel
        assert ax_w.get_ylabel() == "Kernel weight"  # above the floor: nothing left out
        assert ax_w.get_title().endswith(
            "\nrbf-ard holds all the weight (the others' underflowed to 0)"
        )
    finally:
        plt.close(fig)
    # a dominant kernel with the others' weights above 0, one of them below the axis floor
    weights = [[0.5, 0.5], [1e-40, 1.0], [4.2e-18, 1.0 - 4.2e-18]]
    study = _study_with([{MODEL_KEY: model, WEIGHTS_KEY: w} for w in weights])
    fig = plot_model(study)
    try:
        ax_w = fig.axes[0]
        assert ax_w.get_title().endswith("\nrbf-ard holds all but 4.2e-18 of the weight")
        assert ax_w.get_ylim()[0] == 1e-30  # not 1e-40 / 3: 40 decades would flatten the rest
        assert ax_w.get_ylabel() == "Kernel weight (axis floor 1e-30)"
    finally:
        plt.close(fig)
    # no kernel above 0.99: the title names none
    study = _study_with([{MODEL_KEY: model, WEIGHTS_KEY: [0.3, 0.7]}])
    fig = plot_model(study)
    try:
        assert fig.axes[0].get_title() == "Kernel weights (log scale)"
    finally:
        plt.close(fig)


def test_plot_without_ard_kernel_shows_shared_lengthscales():
    matplotlib = pytest.importorskip("matplotlib")
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    study = _study_with(
        [
            {
                MODEL_KEY: _record(["rbf", "matern52"], [[0.3], [0.6]], ["x", "y"]),
                WEIGHTS_KEY: [0.7, 0.3],
            }
        ]
    )
    assert model_history(study).relevance() == {}
    fig = plot_model(study)
    try:
        ax_r = fig.axes[1]
        assert "No ARD kernel" in ax_r.get_title()
        assert [p.get_width() for p in ax_r.patches] == pytest.approx([0.3, 0.6])
    finally:
        plt.close(fig)


def test_plot_model_without_matplotlib_names_the_install(monkeypatch):
    study = _study_with(
        [{MODEL_KEY: _record(["rbf-ard"], [[0.3, 0.6]], ["x", "y"]), WEIGHTS_KEY: [1.0]}]
    )
    monkeypatch.setitem(sys.modules, "matplotlib.pyplot", None)  # import matplotlib.pyplot fails
    with pytest.raises(ImportError, match=r"python -m pip install matplotlib"):
        plot_model(study)
    # no plot needed
    assert model_history(study).relevance() == {"rbf-ard": pytest.approx({"x": 2 / 3, "y": 1 / 3})}
