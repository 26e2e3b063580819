"""Samplers pickled by an earlier version (0.1.0 at commit a90c3d6, before the adapter was split
by role: ``data/samplers_a90c3d6.pkl``, three samplers after six trials of a conditional
objective) load, keep what they had learned and warned about, and continue a study."""

import pathlib
import pickle

import numpy as np
import optuna
import pytest

from optuna_egp import BORESampler, DistributedTSSampler, EGPTSSampler

OLD = pathlib.Path(__file__).with_name("data") / "samplers_a90c3d6.pkl"
# numpy 1 cannot read arrays pickled by numpy 2 (they name numpy._core), which wrote the file.
pytestmark = pytest.mark.skipif(
    np.lib.NumpyVersion(np.__version__) < "2.0.0", reason="the stored pickle holds numpy 2 arrays"
)


def _objective(trial):
    kind = trial.suggest_categorical("k", ["a", "b"])
    return (
        trial.suggest_float("x", 0, 1) ** 2 + (kind == "a") + trial.suggest_float(f"c_{kind}", 0, 1)
    )


@pytest.fixture(scope="module")
def old():
    return pickle.loads(OLD.read_bytes())


def test_old_pickles_load_as_todays_samplers(old):
    assert isinstance(old["egp"], EGPTSSampler) and isinstance(old["bore++"], BORESampler)
    assert isinstance(old["dts"], DistributedTSSampler) and old["dts"].agent_id == 1
    assert old["egp"]._records.last_written  # the model record it had written is not written again


def test_old_pickles_keep_the_warnings_they_gave(old, optuna_log):
    """The old samplers had warned about c_a and/or c_b (one warning per parameter then): their
    topics load, and a new study gets at most one independent-sampling warning per sampler."""
    assert {"independent:c_a", "independent:c_b"} & old["egp"]._warnings.topics
    for sampler in old.values():
        optuna.create_study(sampler=sampler).optimize(_objective, n_trials=5)
    assert len(optuna_log.messages("sampled independently")) <= len(old)


def test_old_pickles_continue_a_study(old):
    for sampler in old.values():
        study = optuna.create_study(sampler=pickle.loads(pickle.dumps(sampler)))
        study.optimize(_objective, n_trials=5)
        assert len(study.trials) == 5 and all(t.value is not None for t in study.trials)
