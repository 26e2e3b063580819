"""The external peers (HEBO, SMAC3) of the suite: the worker's driver loop, run with a fake adapter
(the peers' environment does not exist here), the HEBO adapter's batches, the rows they make, how
``benchmarks.run`` stores them, and the errors their names give where they cannot go."""

from __future__ import annotations

import json
import pathlib
import subprocess
import sys

import numpy as np
import pandas as pd
import pytest

from benchmarks import external, run
from benchmarks.external import worker
from benchmarks.harness import peer_env
from benchmarks.harness.provenance import ROOT, versions
from benchmarks.harness.results import read_rows
from benchmarks.harness.samplers import PEERS, make_sampler, peer_version

BRANIN = worker.FUNCTIONS["branin"]


class FakePeer:
    """An adapter like ``HEBOPeer`` and ``SMACPeer``: seeded uniform points, the first ``startup``
    of them not the model's; it logs every ask and tell."""

    def __init__(self, bounds, *, seed, n_trials, workers, startup=3):
        self.bounds, self.rng, self.startup = bounds, np.random.default_rng(seed), startup
        self.log: list[tuple[str, int]] = []  # ("ask" | "tell", trial index)
        self.told: dict[int, float] = {}
        self.asked = 0

    def ask(self):
        x = self.rng.uniform(self.bounds[:, 0], self.bounds[:, 1])
        i, self.asked = self.asked, self.asked + 1
        self.log.append(("ask", i))
        return x, i, i >= self.startup

    def tell(self, i, value):
        self.log.append(("tell", i))
        self.told[i] = value


def _run(mode: str, workers: int, n_trials: int, seed: int = 0):
    """The worker's row of a fake-peer cell on branin, and the fake peer."""
    peers: list[FakePeer] = []

    def make(bounds, **kw):
        peers.append(FakePeer(bounds, **kw))
        return peers[-1]

    job = {
        "bench": "suite",
        "function": "branin",
        "seed": seed,
        "mode": mode,
        "workers": workers,
        "n_trials": n_trials,
        "sampler": "fake",
    }
    return worker.run(job, adapters={"fake": make}), peers[0]


def _completion_order(n_trials: int, workers: int, seed: int) -> list[int]:
    """The protocol's completion order: ``workers`` trials pending (in the order asked), the next
    to complete drawn uniformly by ``default_rng(seed + 1000)``, its slot asking the next trial."""
    rng = np.random.default_rng(seed + 1000)
    pending, order, asked = list(range(min(workers, n_trials))), [], min(workers, n_trials)
    while pending:
        order.append(pending.pop(int(rng.integers(len(pending)))))
        if asked < n_trials:
            pending.append(asked)
            asked += 1
    return order


def test_sequential_run_alternates_ask_and_tell_and_traces_the_best_value_so_far():
    row, peer = _run("seq", workers=4, n_trials=12)  # workers count only in async mode
    assert peer.log == [(e, i) for i in range(12) for e in ("ask", "tell")]
    _, f, f_min = BRANIN
    values = np.array([peer.told[i] for i in range(12)])
    np.testing.assert_allclose(row["instant_regret"], values - f_min)
    np.testing.assert_allclose(row["regret"], np.minimum.accumulate(values) - f_min)
    assert row["regret"][-1] < row["regret"][0]  # the trace goes down: the seeded points differ
    assert row["pending_spread"] is None  # never two points pending
    assert row["model_at_ask"] == [False] * 3 + [True] * 9
    assert len(row["ask_seconds"]) == 12


def test_told_values_are_the_function_at_the_asked_points():
    row, peer = _run("async", workers=3, n_trials=9)
    bounds, f, f_min = BRANIN
    xs = np.random.default_rng(0).uniform(bounds[:, 0], bounds[:, 1], size=(9, 2))  # FakePeer's
    np.testing.assert_allclose([peer.told[i] for i in range(9)], [f(x) for x in xs])
    np.testing.assert_allclose(row["instant_regret"], [f(x) - f_min for x in xs])


@pytest.mark.parametrize("seed", [0, 3])
def test_async_run_asks_with_workers_minus_one_pending_and_completes_in_the_seeded_order(seed):
    n_trials, workers = 20, 4
    row, peer = _run("async", workers=workers, n_trials=n_trials, seed=seed)
    told = [i for e, i in peer.log if e == "tell"]
    assert told == _completion_order(n_trials, workers, seed)
    assert told != sorted(told)  # a random order, not first in first out
    running = 0
    pending_at_ask = []
    for event, _ in peer.log:
        if event == "ask":
            pending_at_ask.append(running)
            running += 1
        else:
            running -= 1
    # the first `workers` asks fill the slots; every later ask has `workers - 1` trials running
    assert pending_at_ask == list(range(workers)) + [workers - 1] * (n_trials - workers)
    assert row["pending_spread"] > 0


def test_a_row_has_the_fields_of_the_optuna_peers_rows():
    job = {
        "bench": "suite",
        "function": "branin",
        "seed": 0,
        "mode": "async",
        "workers": 2,
        "n_trials": 6,
        "sampler": "random",
    }
    optuna_row = run.run_suite(job)
    row, _ = _run("async", workers=2, n_trials=6)
    assert set(optuna_row) <= set(row)
    for field in ("regret", "instant_regret"):
        assert len(row[field]) == len(optuna_row[field]) == 6
    for field in ("seconds_per_trial", "pending_spread"):
        assert type(row[field]) is type(optuna_row[field]) is float
    json.dumps(row)  # the worker prints it as JSON


class FakeHEBO:
    """``HEBO``'s interface: ``suggest(n_suggestions)`` (a DataFrame of numbered points),
    ``observe(X, y)``, ``X`` and ``rand_sample``."""

    def __init__(self, rand_sample: int = 2):
        self.X = pd.DataFrame(columns=["x0", "x1"])
        self.rand_sample, self.calls, self.observed, self.made = rand_sample, [], [], 0

    def suggest(self, n_suggestions=1):
        self.calls.append(n_suggestions)
        k = np.arange(self.made, self.made + n_suggestions, dtype=float)
        self.made += n_suggestions
        return pd.DataFrame({"x0": k, "x1": -k}, index=np.arange(n_suggestions) + 100)

    def observe(self, X, y):
        self.observed.append((X, y))
        self.X = pd.concat([self.X, X], ignore_index=True)


def test_hebo_adapter_asks_hebo_for_a_batch_of_workers_points_and_hands_them_out_in_order():
    hebo = FakeHEBO(rand_sample=2)
    peer = worker.HEBOPeer(hebo, ["x0", "x1"], batch=4)
    asked = [peer.ask() for _ in range(4)]
    assert hebo.calls == [4]  # one batch for the first four slots
    assert [list(x) for x, _, _ in asked] == [[k, -k] for k in range(4)]
    assert [model for _, _, model in asked] == [False] * 4  # no trial completed: HEBO's Sobol
    peer.tell(asked[2][1], 7.0)
    peer.tell(asked[0][1], 5.0)
    X, y = hebo.observed[0]
    assert list(X.iloc[0]) == [2.0, -2.0] and y.tolist() == [[7.0]]
    x, _, model = peer.ask()  # the queue is empty: a new batch, fitted on 2 completed trials
    assert hebo.calls == [4, 4] and list(x) == [4.0, -4.0] and model
    peer.ask()
    assert hebo.calls == [4, 4]  # the next slot takes the batch's next point


def test_external_peers_are_registered_but_are_not_optuna_samplers():
    assert {"hebo", "smac"} <= set(PEERS)
    for name in ("hebo", "smac"):
        with pytest.raises(ValueError, match="not an Optuna sampler.*benchmarks.external"):
            make_sampler(name, seed=0)


def _main(tmp_path, *args: str) -> None:
    run.main(
        [
            "suite",
            "--functions",
            "branin",
            "--seeds",
            "1",
            "--trials",
            "6",
            "--procs",
            "1",
            "--out",
            str(tmp_path / "ours.jsonl"),
            "--cache",
            str(tmp_path / "peers.jsonl"),
            *args,
        ]
    )


def test_run_refuses_other_modes_and_a_missing_environment_with_the_way_out(tmp_path, monkeypatch):
    monkeypatch.setattr(peer_env, "VENV", tmp_path / "no-venv")
    for mode in ("threads", "batch"):
        with pytest.raises(ValueError, match="runs in modes seq, async only"):
            _main(tmp_path, "--samplers", "smac", "--mode", mode)
    with pytest.raises(RuntimeError, match="python -m benchmarks.external setup"):
        _main(tmp_path, "--samplers", "hebo")
    with pytest.raises(RuntimeError, match="python -m benchmarks.external setup"):
        peer_version("smac")
    assert not (tmp_path / "peers.jsonl").exists()


def test_run_stores_external_rows_in_the_peer_cache_keyed_by_the_environments_versions(
    tmp_path, monkeypatch, capsys
):
    # This interpreter stands for the peers' environment, with a "hebo" distribution that only the
    # worker processes see (on their PYTHONPATH): the versions come from a real worker process
    # started on it. The cell runs the fake peer in this process.
    site = tmp_path / "site" / "hebo-0.0.1.dist-info"
    site.mkdir(parents=True)
    (site / "METADATA").write_text("Metadata-Version: 2.1\nName: hebo\nVersion: 0.0.1\n")
    monkeypatch.setenv("PYTHONPATH", str(site.parent))
    monkeypatch.setattr(peer_env, "python", lambda venv=None: pathlib.Path(sys.executable))
    monkeypatch.setattr(
        external, "run_cell", lambda job: worker.run(job, adapters={"hebo": FakePeer})
    )
    _main(tmp_path, "--samplers", "hebo", "--mode", "async", "--workers", "2")
    (row,) = read_rows(tmp_path / "peers.jsonl")
    assert row["sampler"] == "hebo" and row["mode"] == "async" and row["workers"] == 2
    assert "hebo" not in versions(("hebo",))  # not in this process
    assert row["peer_version"] == {**versions(PEERS["hebo"]), "hebo": "0.0.1"}
    assert row["cache_cell"] == list(run.SUITE_CELL) and len(row["regret"]) == 6
    assert not (tmp_path / "ours.jsonl").exists()
    capsys.readouterr()
    _main(tmp_path, "--samplers", "hebo", "--mode", "async", "--workers", "2")
    assert "0 runs to do" in capsys.readouterr().out  # the cached cell is not run again


def test_the_worker_imports_neither_our_package_nor_optuna_torch_or_scipy():
    heavy = ("optuna", "optuna_egp", "shared_core", "ax", "torch", "scipy", "pandas")
    code = (
        f"import sys, benchmarks.external.worker; print([m for m in {heavy!r} if m in sys.modules])"
    )
    done = subprocess.run(
        [sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, check=True
    )
    assert done.stdout.strip() == "[]"
