"""What the timing benchmarks share (``speed``, ``scale``, ``dts_speed``, ``cold_start``,
``threads``): where their rows go (``Store``), the timed asks of a study (``ask_round``,
``timed_asks``, ``Timed``), the order of their cells and the sections of the speed page. It
imports nothing heavy at module level (no scipy, optuna or torch), so that the worker of
``speed imports`` times the imports from a clean start."""

from __future__ import annotations

import time

from benchmarks.harness.cache import PeerCache
from benchmarks.harness.probes import ModelProbe
from benchmarks.harness.provenance import commit
from benchmarks.harness.results import ResultsFile
from benchmarks.harness.samplers import LABELS, is_peer, make_sampler
from benchmarks.harness.studies import random_study

# The peer cache's protocol version: bump it when what a cell measures changes.
PROTOCOL = 1


class Store:
    """Rows of our samplers go to ``out`` (a ``cell`` already there at the current commit is
    done; ``config``: with the ``config`` of their sampler, ``egp-auto`` for a row of none), the
    peers' to the peer cache (keyed by ``peer_cell``, default ``cell``)."""

    def __init__(
        self, out, cache, cell: tuple, peer_cell=None, config: bool = False, protocol=PROTOCOL
    ) -> None:
        self.cell, self.peer_cell, self.config = cell, peer_cell or cell, config
        self.out, self.cache = ResultsFile(out), PeerCache(cache, protocol=protocol)
        self.ours = self.out.done(("sampler", "commit", *self.cell))
        self.peers = self.cache.done()

    def is_done(self, cell: dict) -> bool:
        sampler = cell.get("sampler")
        if sampler is not None and is_peer(sampler):
            fields = {f: cell.get(f) for f in self.peer_cell}
            return self.cache.key(sampler, **fields) in self.peers
        return (sampler, commit(), *(cell.get(f) for f in self.cell)) in self.ours

    def put(self, row: dict) -> dict:
        if row.get("sampler") is not None and is_peer(row["sampler"]):
            return self.cache.put(row, self.peer_cell)
        if self.config:  # a row of no sampler (encoding, imports) times the default sampler's code
            row = {"config": {"sampler": row.get("sampler") or "egp-auto"}, **row}
        return self.out.append(row)


def sampler_names(arg: str) -> list[str]:
    names = [s for s in arg.split(",") if s]
    for s in names:  # a bad name fails now, not after minutes of other samplers
        make_sampler(s, seed=0)
    return names


def ints(arg: str) -> list[int]:
    return [int(v) for v in arg.split(",") if v]


def alternate(repeats: int, cells: list) -> list[tuple[int, object]]:
    """``(repeat, cell)``, the cells reversed on every other repeat (A B C C B A ...), so that slow
    drift of the machine's load hits all cells alike."""
    return [(r, c) for r in range(repeats) for c in (cells if r % 2 == 0 else cells[::-1])]


def quiet() -> None:
    import warnings

    import optuna

    optuna.logging.set_verbosity(optuna.logging.ERROR)
    warnings.filterwarnings("ignore", category=optuna.exceptions.ExperimentalWarning)


# ----------------------------------------------------------------------------- timed asks
def ask_round(study, dists, f, probe: ModelProbe, batch: int = 1) -> dict[str, list]:
    """``batch`` timed asks before any tell, then their timed tells of ``f``'s value (untimed;
    ``f=None``: told FAIL). Per ask: ``seconds``, ``tell_seconds``, the probe's
    ``relative_seconds``, ``relative_calls`` and ``model_asks``, and its wall-clock ``windows``."""
    import numpy as np
    from optuna.trial import TrialState

    rec: dict[str, list] = {k: [] for k in (*Timed.FIELDS, "windows")}
    pending = []
    for _ in range(batch):
        calls, model, n_relative = probe.asks, probe.model_asks, len(probe.relative_seconds)
        start, t0 = time.time(), time.perf_counter()
        pending.append(study.ask(dists))  # sample_relative runs here (first _suggest)
        rec["seconds"].append(time.perf_counter() - t0)
        rec["windows"].append([start, start + rec["seconds"][-1]])
        rec["relative_seconds"].append(sum(probe.relative_seconds[n_relative:]))
        rec["relative_calls"].append(probe.asks - calls)
        rec["model_asks"].append(None if model is None else probe.model_asks - model)
    for trial in pending:
        if f is None:
            t0 = time.perf_counter()
            study.tell(trial, state=TrialState.FAIL)
        else:
            value = float(f(np.array([trial.params[k] for k in dists])))  # not timed
            t0 = time.perf_counter()
            study.tell(trial, value)
        rec["tell_seconds"].append(time.perf_counter() - t0)
    return rec


def timed_asks(study, dists, f, probe: ModelProbe, asks: int) -> dict[str, list]:
    """``asks`` consecutive timed ask + tell (:func:`ask_round` of one ask each), flattened."""
    rounds = [ask_round(study, dists, f, probe) for _ in range(asks)]
    return {k: [x for r in rounds for x in r[k]] for k in rounds[0]} if rounds else {}


def make_study(name: str, seed: int, f, bounds, n_complete: int, **options):
    """A study with ``n_complete`` random completed trials (the same points for every sampler, by
    seed), the probe on its sampler and its distributions."""
    quiet()
    sampler = make_sampler(name, seed=seed, **options)
    probe = ModelProbe(sampler)
    study, dists = random_study(sampler, f, bounds, n_complete, seed=seed + 1000)
    return study, probe, dists


class Timed:
    """One sampler's study and its records, one list per round of asks."""

    FIELDS = ("seconds", "tell_seconds", "relative_seconds", "relative_calls", "model_asks")

    def __init__(self, name: str, seed: int, f, bounds, n_complete: int) -> None:
        self.name, self.f = name, f
        self.study, self.probe, self.dists = make_study(name, seed, f, bounds, n_complete)
        self.rounds: dict[str, list] = {k: [] for k in self.FIELDS}

    def round(self, batch: int) -> None:
        rec = ask_round(self.study, self.dists, self.f, self.probe, batch)
        for k in self.FIELDS:
            self.rounds[k].append(rec[k])

    def check(self) -> list[str]:
        calls, model = self.rounds["relative_calls"], self.rounds["model_asks"]
        problems = []
        if any(c != 1 for r in calls for c in r):
            problems.append(f"{self.name}: sample_relative calls per ask {calls} (expected 1 each)")
        if any(m not in (1, None) for r in model for m in r):  # None: a peer, unknown
            problems.append(
                f"{self.name}: model suggestions per ask {model} (expected 1 each): not "
                "every suggestion came from the model"
            )
        return problems


def interleave(studies: list[Timed], rounds: int, batch: int, order: str):
    """Run ``rounds`` rounds of ``batch`` asks on every study, round by round across the studies
    (``interleaved``) or one study after the other; yield each study once it is done."""
    if order == "interleaved":
        for _ in range(rounds):
            for t in studies:
                t.round(batch)
        yield from studies
    else:
        for t in studies:
            for _ in range(rounds):
                t.round(batch)
            yield t


# ----------------------------------------------------------------------------- the page
def label(s: str) -> str:
    return f"{LABELS[s]} (`{s}`)" if s in LABELS else f"`{s}`"


def provenance(rows, note: str = "") -> str:
    from benchmarks.harness.tables import provenance_line, threads_line  # scipy: not at import

    return f"{note} {provenance_line(rows)} {threads_line(rows, legacy=1)}".strip()


def section(title: str, header, body, rows, *, intro="", note="", checks=(), after=()):
    """A section of the speed page: the title, ``intro``, the table, ``checks`` (before the
    provenance line, which starts with ``note``) and ``after``."""
    from benchmarks.harness.tables import markdown_table

    lines = [title, ""] + ([intro, ""] if intro else [])
    lines += markdown_table(header, body) + list(checks) + ([""] if checks else [])
    return lines + [provenance(rows, note), "", *after]
