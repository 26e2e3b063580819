"""DistributedTSSampler: agents, trial tags, neighbourhoods
from the storage, per-agent model records."""

import os
import subprocess
import sys
import textwrap

import optuna
import pytest
from optuna.trial import TrialState

from optuna_egp import DistributedTSSampler
from optuna_egp._observations import observations
from optuna_egp._records import MODEL_KEY, VIEW_KEY
from optuna_egp._storage import write_user_attr
from optuna_egp.distributed import AGENT_ATTR, AGENT_ENV
from shared_core.models.refit import RefitSchedule

optuna.logging.set_verbosity(optuna.logging.WARNING)


def _objective(trial):
    x, y = trial.suggest_float("x", -2, 2), trial.suggest_float("y", -2, 2)
    return (x - 0.5) ** 2 + 0.1 * y**2


def _run(study_kwargs, agents, n_trials_each, **sampler_kwargs):
    """Agents take turns on one study (one sampler per agent, as one process per agent would)."""
    samplers = {
        a: DistributedTSSampler(agent_id=a, seed=a, n_startup_trials=3, **sampler_kwargs)
        for a in agents
    }
    study = optuna.create_study(**study_kwargs)
    for _ in range(n_trials_each):
        for a in agents:
            optuna.load_study(
                study_name=study.study_name, storage=study._storage, sampler=samplers[a]
            ).optimize(_objective, n_trials=1)
    return study, samplers


def test_private_trial_user_attr_writer():
    """The one private Optuna call also writes user attributes (the agent tag)."""
    study = optuna.create_study()
    study.ask()
    write_user_attr(study, study.get_trials(deepcopy=False)[0], "agent_id", 3)
    assert study.trials[0].user_attrs == {"agent_id": 3}


def test_every_trial_records_its_agent_and_shows_it_in_the_dataframe():
    study, _ = _run({}, [0, 1, 2], 4, graph="ring", n_agents=3)
    assert [t.user_attrs[AGENT_ATTR] for t in study.trials] == [0, 1, 2] * 4
    pytest.importorskip("pandas")  # Optuna's dataframe (pandas comes with Ax in the test extra)
    assert study.trials_dataframe()["user_attrs_agent_id"].tolist() == [0, 1, 2] * 4


def test_an_agent_conditions_on_its_neighbourhood_only_as_recorded_in_the_storage():
    study, samplers = _run({}, [0, 1, 2, 3], 5, graph="line", n_agents=4)  # 0-1-2-3
    for t in study.trials:
        view = t.system_attrs.get(VIEW_KEY)
        if view is None:
            continue  # start-up trials
        agent = t.user_attrs[AGENT_ATTR]
        assert view["agent"] == agent
        assert set(view["sources"]) <= {agent - 1, agent, agent + 1}
        earlier = [
            u
            for u in study.trials[: t.number]
            if u.state == TrialState.COMPLETE and abs(u.user_attrs[AGENT_ATTR] - agent) <= 1
        ]
        assert view["n_observed"] == len(earlier)
    last = [
        t for t in study.trials if t.user_attrs[AGENT_ATTR] == 0 and VIEW_KEY in t.system_attrs
    ][-1]
    assert (
        samplers[0].algorithm._models[0].model.n
        == last.system_attrs[VIEW_KEY]["n_observed"]
        == len([u for u in study.trials[: last.number] if u.user_attrs[AGENT_ATTR] in (0, 1)])
    )


def test_trials_without_an_agent_are_seen_by_every_agent():
    study = optuna.create_study()
    study.enqueue_trial({"x": 0.5, "y": 0.0})
    study.optimize(_objective, n_trials=1)  # no DistributedTSSampler: no agent tag
    sampler = DistributedTSSampler(agent_id=1, graph="disconnected", n_agents=2, n_startup_trials=1)
    study.sampler = sampler
    study.optimize(_objective, n_trials=1)
    assert study.trials[1].system_attrs[VIEW_KEY]["sources"] == [-1]


def test_the_agent_comes_from_the_environment_variable(monkeypatch):
    monkeypatch.setenv(AGENT_ENV, "2")
    assert DistributedTSSampler(graph="star", n_agents=3).agent_id == 2
    monkeypatch.setenv(AGENT_ENV, "two")
    with pytest.raises(ValueError, match="two"):
        DistributedTSSampler(graph="star", n_agents=3)


def test_without_an_agent_the_error_names_both_ways(monkeypatch):
    monkeypatch.delenv(AGENT_ENV, raising=False)
    with pytest.raises(ValueError, match=f"agent_id=.*{AGENT_ENV}"):
        DistributedTSSampler(graph="ring", n_agents=4)


@pytest.mark.parametrize(
    "kwargs, match",
    [
        (dict(agent_id=5, graph="ring", n_agents=4), "agent_id"),
        (dict(agent_id=0, graph="hypercube", n_agents=4), "hypercube"),
        (dict(agent_id=0, graph=[(0, 1), (1, 5)], n_agents=3), "n_agents"),
    ],
)
def test_bad_configuration_is_a_value_error(kwargs, match):
    with pytest.raises(ValueError, match=match):
        DistributedTSSampler(**kwargs)


def test_a_disconnected_graph_is_allowed_with_a_warning(optuna_log):
    DistributedTSSampler(agent_id=0, graph="disconnected", n_agents=3)
    assert len(optuna_log.messages("disconnected")) == 1


@pytest.mark.slow
def test_a_new_worker_adopts_only_its_own_agents_model_records(tmp_path):
    """After 12 trials agent 0's newest record (refit at 10) is due for a refit, agent 1's
    (refit at 11) is not: a new agent-1 worker adopts its own record; a new agent-0 worker
    must fit, although agent 1's newer record would do."""
    models = {}
    for agent in (0, 1):  # each on its own copy of the study, both at 12 trials
        storage = f"sqlite:///{tmp_path / f'{agent}.db'}"
        _run(dict(study_name="s", storage=storage), [0, 1], 6, graph="complete", n_agents=2)
        study = optuna.load_study(study_name="s", storage=storage)
        own = {
            a: [
                t.system_attrs[MODEL_KEY]
                for t in study.trials
                if MODEL_KEY in t.system_attrs and t.user_attrs[AGENT_ATTR] == a
            ][-1]
            for a in (0, 1)
        }
        assert [RefitSchedule().due(own[a]["model"]["n_at_refit"], 12) for a in (0, 1)] == [
            True,
            False,
        ]
        sampler = DistributedTSSampler(
            agent_id=agent, graph="complete", n_agents=2, n_startup_trials=3
        )
        optuna.load_study(study_name="s", storage=storage, sampler=sampler).optimize(
            _objective, n_trials=1
        )
        models[agent] = sampler.algorithm._models[agent].model
    assert (models[0].n_adopted, models[0].n_refits) == (0, 1)
    assert (models[1].n_adopted, models[1].n_refits) == (1, 0)
    assert [h["lengthscales"] for h in own[1]["model"]["hyperparameters"]] == [
        m.hyper.ls.tolist() for m in models[1].members
    ]


def test_failed_and_pruned_trials_and_nan_values_do_not_break_an_agent():
    sampler = DistributedTSSampler(agent_id=0, graph="ring", n_agents=3, n_startup_trials=2, seed=0)
    study = optuna.create_study(sampler=sampler)

    def objective(trial):
        x = trial.suggest_float("x", 0, 1)
        if trial.number % 4 == 1:
            raise optuna.TrialPruned()
        if trial.number % 4 == 2:
            return float("nan")
        return x

    study.optimize(objective, n_trials=12)
    assert [t.state for t in study.trials].count(TrialState.COMPLETE) == 6


def test_a_retried_trial_does_not_carry_the_dead_agents_records():
    """Optuna's retry callbacks copy a dead trial's attributes into the retry; the agent
    that runs it must not inherit (or later adopt) the dead agent's model."""
    study, _ = _run({}, [0], 6, graph="disconnected", n_agents=2)
    donor = [t for t in study.trials if MODEL_KEY in t.system_attrs][-1]
    copied = optuna.trial.FrozenTrial(
        number=0,
        state=TrialState.WAITING,
        value=None,
        datetime_start=None,
        datetime_complete=None,
        params={},
        distributions={},
        user_attrs=dict(donor.user_attrs),
        system_attrs=dict(donor.system_attrs),
        intermediate_values={},
        trial_id=0,
    )
    study.add_trial(copied)
    agent1 = DistributedTSSampler(agent_id=1, graph="disconnected", n_agents=2, n_startup_trials=3)
    study.sampler = agent1
    study.optimize(_objective, n_trials=1)  # agent 1 runs the retry
    retry = study.trials[-1]
    assert retry.user_attrs[AGENT_ATTR] == 1
    view = retry.system_attrs.get(VIEW_KEY)
    assert view is None or view["agent"] == 1
    recorded = retry.system_attrs.get(MODEL_KEY)
    assert recorded is None or recorded["source"] == 1
    fresh = DistributedTSSampler(agent_id=1, graph="disconnected", n_agents=2, n_startup_trials=1)
    study.sampler = fresh
    study.optimize(_objective, n_trials=1)
    assert fresh.algorithm._models[1].model.n_adopted == 0  # agent 0's records are not agent 1's


def test_every_agent_of_a_study_must_use_the_same_graph():
    study, _ = _run({}, [0, 1], 1, graph="ring", n_agents=4)
    assert study.user_attrs["egp_samplers:graph"]["n_agents"] == 4
    study.sampler = DistributedTSSampler(agent_id=2, graph="line", n_agents=4)
    with pytest.raises(ValueError, match="same graph"):
        study.optimize(_objective, n_trials=1)


def test_a_random_topology_is_the_same_in_every_process_by_default():
    graphs = [
        DistributedTSSampler(agent_id=a, graph="erdos_renyi:0.3", n_agents=8).graph
        for a in range(3)
    ]
    assert graphs[0] == graphs[1] == graphs[2]


def test_agents_given_the_same_seed_draw_different_start_up_points():
    firsts = []
    for agent in (0, 1):
        study = optuna.create_study(
            sampler=DistributedTSSampler(agent_id=agent, graph="ring", n_agents=3, seed=0)
        )
        study.optimize(_objective, n_trials=1)
        firsts.append(study.trials[0].params)
    assert firsts[0] != firsts[1]


def test_the_start_up_phase_counts_the_neighbourhoods_trials_only():
    """Agent 1 of a disconnected pair with 3 start-up trials: agent 0's 5 completed trials
    do not end its start-up; its model starts after its own 3."""
    study, _ = _run({}, [0], 5, graph="disconnected", n_agents=2)
    study.sampler = DistributedTSSampler(
        agent_id=1, graph="disconnected", n_agents=2, n_startup_trials=3
    )
    study.optimize(_objective, n_trials=4)
    agent1 = [t for t in study.trials if t.user_attrs[AGENT_ATTR] == 1]
    assert [VIEW_KEY in t.system_attrs for t in agent1] == [False, False, False, True]
    assert agent1[-1].system_attrs[VIEW_KEY]["n_observed"] == 3


def test_n_jobs_threads_are_one_agent_and_the_sampler_pickles():
    import pickle

    sampler = DistributedTSSampler(agent_id=2, graph="star", n_agents=3, n_startup_trials=3, seed=0)
    study = optuna.create_study(sampler=pickle.loads(pickle.dumps(sampler)))
    study.optimize(_objective, n_trials=8, n_jobs=2)
    assert {t.user_attrs[AGENT_ATTR] for t in study.trials} == {2}


WORKER = textwrap.dedent(
    """
    import sys, optuna
    from optuna_egp import DistributedTSSampler
    optuna.logging.set_verbosity(optuna.logging.WARNING)
    url, n_trials = sys.argv[1], int(sys.argv[2])
    # the agent id comes from the environment
    sampler = DistributedTSSampler(graph="ring", n_agents=4, seed=0, n_startup_trials=2)
    study = optuna.load_study(study_name="dts", storage=url, sampler=sampler)
    study.optimize(
        lambda t: (t.suggest_float("x", -2, 2) - 0.5) ** 2 + t.suggest_float("y", -1, 1) ** 2,
        n_trials=n_trials,
    )
    """
)


@pytest.mark.slow
@pytest.mark.postgres
def test_four_agent_processes_on_postgresql(tmp_path, postgres_study):
    url = postgres_study("dts")
    script = tmp_path / "agent.py"
    script.write_text(WORKER)
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)}
    procs = [
        subprocess.Popen([sys.executable, str(script), url, "6"], env={**env, AGENT_ENV: str(a)})
        for a in range(4)
    ]
    assert [p.wait(timeout=300) for p in procs] == [0, 0, 0, 0]
    study = optuna.load_study(study_name="dts", storage=url)
    assert len(study.trials) == 24
    assert sorted(t.user_attrs[AGENT_ATTR] for t in study.trials) == sorted(list(range(4)) * 6)
    neighbours = {a: {a, (a - 1) % 4, (a + 1) % 4} for a in range(4)}
    views = [t for t in study.trials if VIEW_KEY in t.system_attrs]
    assert len(views) >= 8
    for t in views:
        view = t.system_attrs[VIEW_KEY]
        assert view["agent"] == t.user_attrs[AGENT_ATTR]
        # never the opposite agent of the ring
        assert set(view["sources"]) <= neighbours[view["agent"]]


def test_an_agent_learns_only_from_its_neighbourhoods_failed_trials(monkeypatch):
    # two disconnected agents: agent 0's trials fail where x > 0.5, agent 1's never do
    from optuna_egp import core_sampler

    seen = []

    def recording(study, algorithm, *args):
        obs = observations(study, algorithm, *args)
        seen.append((algorithm.agent_id, obs.n_failed))
        return obs

    monkeypatch.setattr(core_sampler, "observations", recording)

    def objective_of(agent):
        def objective(trial):
            x, y = trial.suggest_float("x", -2, 2), trial.suggest_float("y", -2, 2)
            if agent == 0 and x > 0.5:
                raise ValueError("fails")
            return (x - 0.5) ** 2 + 0.1 * y**2

        return objective

    samplers = {
        a: DistributedTSSampler(
            agent_id=a, seed=a, n_startup_trials=3, graph="disconnected", n_agents=2
        )
        for a in (0, 1)
    }
    study = optuna.create_study()
    for _ in range(8):
        for a in (0, 1):
            optuna.load_study(
                study_name=study.study_name, storage=study._storage, sampler=samplers[a]
            ).optimize(objective_of(a), n_trials=1, catch=(ValueError,))
    assert any(t.state == TrialState.FAIL for t in study.trials)
    assert max(n for agent, n in seen if agent == 0) > 0
    assert all(n == 0 for agent, n in seen if agent == 1)
