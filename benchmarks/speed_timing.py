"""What the sub-commands of ``benchmarks.speed`` share: ``Store`` (where a sub-command's rows go:
ours to ``--out``, the peers' to the peer cache) and the timed studies (``Timed``: a sampler's
study with random completed trials and the records of its asks).
"""

from __future__ import annotations

import argparse
import time

from benchmarks.harness.cache import PeerCache
from benchmarks.harness.probes import ModelProbe
from benchmarks.harness.provenance import commit
from benchmarks.harness.results import ResultsFile
from benchmarks.harness.samplers import is_peer, make_sampler
from benchmarks.harness.studies import random_study

# The peer cache's protocol version: bump it when what a cell measures changes.
PROTOCOL = 1

DEFAULT_SAMPLERS = "egp-auto,bore++,gp"
# The fields that define a cell of each sub-command (with the sampler, and the commit or the
# peer version, they key a run).
CELLS = {
    "dims": ("bench", "function", "d", "n_complete", "asks", "seed", "machine_key"),
    "many": ("bench", "function", "n_complete", "rounds", "batch", "seed", "machine_key"),
    "imports": ("bench", "kind", "runs", "n_startup_trials"),
    "encoding": ("bench", "api", "rows", "runs", "seed"),
}


class Store:
    """Where the rows of one sub-command go: ours to ``out``, the peers' to the peer cache."""

    def __init__(self, a: argparse.Namespace) -> None:
        self.cell = CELLS[a.command]
        self.out, self.cache = ResultsFile(a.out), PeerCache(a.cache, protocol=PROTOCOL)
        self.ours = self.out.done(("sampler", "commit", *self.cell))
        self.peers = self.cache.done()

    def is_done(self, cell: dict) -> bool:
        sampler = cell.get("sampler")
        if sampler is not None and is_peer(sampler):
            fields = {f: cell.get(f) for f in self.cell}
            return self.cache.key(sampler, **fields) in self.peers
        return (sampler, commit(), *(cell.get(f) for f in self.cell)) in self.ours

    def put(self, row: dict) -> None:
        if row.get("sampler") is not None and is_peer(row["sampler"]):
            self.cache.put(row, self.cell)
        else:  # a row of no sampler (encoding, imports) times the default sampler's code
            self.out.append({"config": {"sampler": row.get("sampler") or "egp-auto"}, **row})


# ----------------------------------------------------------------------------- timing
def make_study(name: str, seed: int, f, bounds, n_complete: int, **options):
    """A study with ``n_complete`` random completed trials (the same points for every sampler, by
    seed), the probe on its sampler and its distributions."""
    import optuna

    optuna.logging.set_verbosity(optuna.logging.ERROR)
    sampler = make_sampler(name, seed=seed, **options)
    probe = ModelProbe(sampler)
    study, dists = random_study(sampler, f, bounds, n_complete, seed=seed + 1000)
    return study, probe, dists


class Timed:
    """One sampler's study and its per-ask records for ``rounds`` rounds of ``batch`` asks."""

    def __init__(self, name: str, seed: int, f, bounds, n_complete: int) -> None:
        self.name, self.f, self.d = name, f, len(bounds)
        self.study, self.probe, self.dists = make_study(name, seed, f, bounds, n_complete)
        self.ask: list = []
        self.tell: list = []
        self.relative: list = []
        self.calls: list = []
        self.model: list = []

    def round(self, batch: int) -> None:
        import numpy as np

        asks, relative, calls, model, pending = [], [], [], [], []
        for _ in range(batch):
            self.probe.reset()
            t0 = time.perf_counter()
            trial = self.study.ask(self.dists)  # sample_relative runs here (first _suggest)
            asks.append(time.perf_counter() - t0)
            relative.append(sum(self.probe.relative_seconds))
            calls.append(self.probe.asks)
            model.append(self.probe.model_asks)
            pending.append(trial)
        tells = []
        for trial in pending:
            value = self.f(np.array([trial.params[f"x{i}"] for i in range(self.d)]))  # not timed
            t0 = time.perf_counter()
            self.study.tell(trial, value)
            tells.append(time.perf_counter() - t0)
        for store, values in (
            (self.ask, asks),
            (self.tell, tells),
            (self.relative, relative),
            (self.calls, calls),
            (self.model, model),
        ):
            store.append(values)  # one list per round

    def check(self) -> list[str]:
        problems = []
        if any(c != 1 for r in self.calls for c in r):
            problems.append(
                f"{self.name}: sample_relative calls per ask {self.calls} (expected 1 each)"
            )
        if any(m not in (1, None) for r in self.model for m in r):  # None: a peer, unknown
            problems.append(
                f"{self.name}: model suggestions per ask {self.model} (expected 1 each): not "
                "every suggestion came from the model"
            )
        return problems


def interleave(cells: list[Timed], rounds: int, batch: int, order: str, done) -> None:
    if order == "interleaved":
        for _ in range(rounds):
            for c in cells:
                c.round(batch)
        for c in cells:
            done(c)
    else:
        for c in cells:
            for _ in range(rounds):
                c.round(batch)
            done(c)


def sampler_names(arg: str) -> list[str]:
    names = [s for s in arg.split(",") if s]
    for s in names:  # a bad name fails now, not after minutes of other samplers
        make_sampler(s, seed=0)
    return names
