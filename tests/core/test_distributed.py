"""Distributed Thompson sampling (core): what an agent conditions on, one surrogate per agent."""

import numpy as np
import pytest

from shared_core.algorithms.distributed import DistributedTSAlgorithm
from shared_core.interface import Observations
from shared_core.models.kernels import default_dictionary
from shared_core.search_space import FloatParam, SearchSpace

SPACE = SearchSpace({"a": FloatParam(0.0, 1.0), "b": FloatParam(0.0, 1.0)})


def _obs(n_agents=4, per_agent=6, seed=0):
    """``per_agent`` rows from each agent, plus 2 rows of
    unknown source (-1) and one pending point each."""
    rng = np.random.default_rng(seed)
    source = np.concatenate([np.repeat(np.arange(n_agents), per_agent), [-1, -1]])
    X = rng.random((len(source), 2))
    y = ((X - 0.3) ** 2).sum(1)
    pending_source = np.arange(n_agents)
    return Observations(
        X, y, rng.random((n_agents, 2)), source=source, pending_source=pending_source
    )


def test_an_agent_sees_its_neighbourhood_and_rows_of_unknown_source_only():
    algo = DistributedTSAlgorithm(graph="ring", n_agents=4, agent_id=0)
    visible = algo.visible(_obs())
    assert sorted(set(visible.source.tolist())) == [-1, 0, 1, 3]  # ring: 0's neighbours are 1 and 3
    assert len(visible.y) == 3 * 6 + 2
    assert sorted(visible.pending_source.tolist()) == [0, 1, 3]
    np.testing.assert_array_equal(visible.X_pending, _obs().X_pending[[0, 1, 3]])


def test_a_suggestion_conditions_only_on_the_neighbourhood():
    # a leaf: sees itself and the centre 0
    algo = DistributedTSAlgorithm(graph="star", n_agents=4, agent_id=2)
    x = algo.suggest(SPACE, _obs(), 1, np.random.default_rng(0))
    assert x.shape == (1, 2) and np.all((0 <= x) & (x <= 1))
    assert algo._models[2].model.n == 2 * 6 + 2
    assert algo.last_view == {"agent": 2, "sources": [-1, 0, 2], "n_observed": 14, "n_pending": 2}


def test_each_agent_keeps_its_own_surrogate():
    algo = DistributedTSAlgorithm(graph="line", n_agents=4, agent_id=0)
    algo.suggest(SPACE, _obs(), 1, np.random.default_rng(0))
    algo.agent_id = 3
    algo.suggest(SPACE, _obs(), 1, np.random.default_rng(0))
    assert algo._models[0].model.n == 2 * 6 + 2 and algo._models[3].model.n == 2 * 6 + 2
    assert algo._models[0].model is not algo._models[3].model


def test_disconnected_agents_see_only_their_own_rows():
    algo = DistributedTSAlgorithm(graph="disconnected", n_agents=4, agent_id=1)
    assert sorted(set(algo.visible(_obs()).source.tolist())) == [-1, 1]


def test_the_paper_surrogate_is_one_matern52_gp_and_egp_is_the_ensemble():
    gp = DistributedTSAlgorithm(graph="complete", n_agents=2)
    egp = DistributedTSAlgorithm(graph="complete", n_agents=2, surrogate="egp")
    for algo in (gp, egp):
        algo.suggest(SPACE, _obs(2), 1, np.random.default_rng(0))
    assert [k.name for k in gp._models[0].model.kernels] == ["matern52-ard"]
    assert egp._models[0].model.kernels == default_dictionary()
    assert gp._models[0].acquisition == "ts"


@pytest.mark.parametrize(
    "kwargs, match",
    [
        (dict(graph="ring", n_agents=4, agent_id=4), "agent_id"),
        (dict(graph="ring", n_agents=4, agent_id=-1), "agent_id"),
        (dict(graph="ring", n_agents=4, surrogate="bnn"), "surrogate"),
        (dict(graph="ring", n_agents=4, kernels=["rbf"]), "kernels"),
        (dict(graph="moebius", n_agents=4), "moebius"),
    ],
)
def test_bad_configuration_is_a_value_error_naming_the_value(kwargs, match):
    with pytest.raises(ValueError, match=match):
        DistributedTSAlgorithm(**kwargs)


def test_known_sources_are_the_neighbourhood_and_unknown():
    algorithm = DistributedTSAlgorithm(graph="ring", n_agents=16, agent_id=0)
    assert algorithm.known_sources() == {15, 0, 1, -1}
    assert algorithm.known_sources(5) == {4, 5, 6, -1}
