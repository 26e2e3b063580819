"""Optuna Dashboard: a study run by each named sampler (with constraint values and two
objectives where the sampler models them, and a space with a branch) opens in optuna-dashboard's
WSGI app, queried over HTTP, with every trial, its parameters, values and user attributes, and the
study's user attributes."""

from __future__ import annotations

import json
import threading
import urllib.request
from wsgiref.simple_server import WSGIRequestHandler, make_server

import optuna
import pytest

from tests.engines.checks import N_STARTUP, SAMPLERS
from tests.engines.problem import define_space, loss

optuna_dashboard = pytest.importorskip("optuna_dashboard")  # the dashboard extra

N_TRIALS = N_STARTUP + 3
# the samplers that model constraint values and several objectives (the others refuse them)
FULL = ("EGPTSSampler", "BORESampler", "DistributedTSSampler")


def _constrained_two_objectives(trial: optuna.Trial) -> tuple[float, float]:
    define_space(trial)
    trial.set_user_attr("branch", trial.params["kind"])  # the user's own attributes
    trial.set_constraint("x_below_2", trial.params["x"] - 2.0)
    return loss(trial.params), abs(trial.params["x"])


def _single(trial: optuna.Trial) -> float:
    define_space(trial)
    trial.set_user_attr("branch", trial.params["kind"])
    return loss(trial.params)


class _Quiet(WSGIRequestHandler):
    def log_message(self, *args) -> None:  # no line per request on stderr
        pass


@pytest.fixture(scope="module")
def storage():
    storage = optuna.storages.InMemoryStorage()
    for name, make in SAMPLERS.items():
        full = name in FULL
        study = optuna.create_study(
            storage=storage,
            study_name=name,
            sampler=make(0, 1),
            directions=["minimize", "minimize"] if full else ["minimize"],
        )
        study.set_user_attr("dataset", "demo")
        study.optimize(_constrained_two_objectives if full else _single, n_trials=N_TRIALS)
    return storage


@pytest.fixture(scope="module")
def dashboard(storage):
    server = make_server("127.0.0.1", 0, optuna_dashboard.wsgi(storage), handler_class=_Quiet)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{server.server_port}"
    server.shutdown()
    thread.join(timeout=10)


def _get(url: str) -> dict:
    with urllib.request.urlopen(url, timeout=30) as response:
        assert response.status == 200
        return json.load(response)


def _attrs(serialised: list[dict]) -> dict[str, str]:
    return {a["key"]: a["value"] for a in serialised}


def _shown(value) -> str:
    """How the dashboard shows an attribute's value (a string; JSON for anything else)."""
    return value if isinstance(value, str) else json.dumps(value)


@pytest.mark.slow
@pytest.mark.parametrize("name", SAMPLERS)
def test_the_study_opens_in_the_dashboard_with_every_trial_and_attribute(storage, dashboard, name):
    study = optuna.load_study(study_name=name, storage=storage)
    summaries = _get(f"{dashboard}/api/studies")["study_summaries"]
    (summary,) = [s for s in summaries if s["study_name"] == name]
    assert len(summary["directions"]) == len(study.directions)
    detail = _get(f"{dashboard}/api/studies/{summary['study_id']}")
    assert _attrs(detail["user_attrs"]) == {k: _shown(v) for k, v in study.user_attrs.items()}
    assert _attrs(detail["user_attrs"])["dataset"] == "demo"
    trials = study.get_trials()
    assert [t["number"] for t in detail["trials"]] == [t.number for t in trials]
    for shown, trial in zip(detail["trials"], trials):
        assert shown["state"] == "Complete"
        assert shown["values"] == pytest.approx(trial.values)
        params = {p["name"]: p["param_external_value"] for p in shown["params"]}
        assert params == {k: str(v) for k, v in trial.params.items()}  # the branch's only
        assert _attrs(shown["user_attrs"]) == {k: _shown(v) for k, v in trial.user_attrs.items()}
        assert _attrs(shown["user_attrs"])["branch"] == trial.params["kind"]
    if name == "DistributedTSSampler":  # the attributes it writes are there to see
        assert "egp_samplers:graph" in _attrs(detail["user_attrs"])
        assert all("agent_id" in _attrs(t["user_attrs"]) for t in detail["trials"])
