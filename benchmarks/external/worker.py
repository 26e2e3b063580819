"""The external peers' worker: one suite cell of HEBO or SMAC3, run in the peers' environment.

    .venv-peers/bin/python -m benchmarks.external.worker run '<job JSON>'   # prints the row
    .venv-peers/bin/python -m benchmarks.external.worker versions DIST ...   # {dist: version}

An adapter is the peer behind ``ask() -> (x, handle, model)`` (a point of the box, what ``tell``
takes back, whether the peer's model chose it) and ``tell(handle, value)``; :func:`drive` runs it
through ``harness.asktell.ask_tell`` with ``benchmarks.run``'s completion order, and the row has
``benchmarks.run``'s fields, the timing fields, ``peer_threads`` and the adapter's ``extra``.
"""

from __future__ import annotations

import argparse
import json
import logging
import pathlib
import tempfile
import time
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from benchmarks import functions, ill_conditioned
from benchmarks.external import MODES
from benchmarks.harness.asktell import ask_tell, timing_fields
from benchmarks.harness.provenance import versions
from benchmarks.harness.suite_row import pending_spread, regret_fields
from benchmarks.harness.threads import pin_torch, thread_settings

FUNCTIONS = {**functions.FUNCTIONS, **ill_conditioned.FUNCTIONS}  # benchmarks.run's


def _names(bounds: np.ndarray) -> list[str]:
    return [f"x{i}" for i in range(len(bounds))]


class HEBOPeer:
    """HEBO (``hebo.optimizers.hebo.HEBO``) with its defaults: a GP (Matérn-3/2 with ARD) of the
    power-transformed values (Box-Cox or Yeo-Johnson), the MACE acquisition (the Pareto front of
    EI, PI and UCB) optimised by NSGA-II, and a scrambled-Sobol start of ``d + 1`` points.

    Pending trials: HEBO has none. Its own mechanism for parallel evaluations is the batch,
    ``suggest(n_suggestions=q)``: ``q`` points of the MACE Pareto front (the winning entry of the
    NeurIPS 2020 challenge ran batches of 8 so). With ``workers`` slots, the adapter asks HEBO for
    ``workers`` points whenever its queue is empty and gives each freed slot the next queued point,
    as Ray Tune's ``HEBOSearch`` does with ``max_concurrent``. Ray Tune also holds new trials back
    until a whole batch has completed; the ``async`` protocol asks as soon as a slot is free, so
    here the next batch is asked then, from the trials completed so far (so a batch asked before
    ``d + 1`` trials completed is Sobol points too: with 4 pending on Branin, the first 8).
    Sequentially (``workers=1``) every ask is ``suggest(n_suggestions=1)`` on all completed trials.

    Args:
        opt: the ``HEBO`` optimiser (``suggest``, ``observe``, ``X``, ``rand_sample``).
        names: its parameters' names, in the order of the box's dimensions.
        batch: the points asked of HEBO at once.
    """

    def __init__(self, opt: Any, names: Sequence[str], batch: int) -> None:
        self.opt, self.names, self.batch = opt, list(names), batch
        self.extra: dict = {}  # fields for the row
        self._queue: list[tuple[Any, bool]] = []

    @classmethod
    def create(cls, bounds: np.ndarray, *, seed: int, n_trials: int, workers: int) -> HEBOPeer:
        """Seeded: numpy's global generator (HEBO's choice among the Pareto front, pymoo's
        NSGA-II), torch's (the GP's fit) and the Sobol scrambling."""
        import torch
        from hebo.design_space.design_space import DesignSpace
        from hebo.optimizers.hebo import HEBO
        from pymoo.util.function_loader import is_compiled

        pin_torch()
        np.random.seed(seed)  # noqa: NPY002 - HEBO and pymoo draw from the global generator
        torch.manual_seed(seed)
        names = _names(bounds)
        space = DesignSpace().parse(
            [
                {"name": n, "type": "num", "lb": float(lo), "ub": float(hi)}
                for n, (lo, hi) in zip(names, bounds)
            ]
        )
        peer = cls(HEBO(space, scramble_seed=seed), names, workers)
        peer.extra = {"pymoo_compiled": is_compiled()}  # else its NSGA-II runs slower
        return peer

    def ask(self) -> tuple[np.ndarray, Any, bool]:
        if not self._queue:
            model = len(self.opt.X) >= self.opt.rand_sample  # else HEBO draws Sobol points
            batch = self.opt.suggest(n_suggestions=self.batch)
            self._queue = [(batch.iloc[[i]], model) for i in range(len(batch))]
        rec, model = self._queue.pop(0)
        return rec[self.names].to_numpy(dtype=float)[0], rec, model

    def tell(self, rec: Any, value: float) -> None:
        self.opt.observe(rec, np.array([[value]]))


class SMACPeer:
    """SMAC3's ``BlackBoxFacade``, the facade SMAC recommends for black-box functions of continuous
    parameters: a GP (Matérn 5/2 with ARD), expected improvement maximised by local and random
    search, a Sobol initial design (8 points per dimension, at most a quarter of the trials) and 8%
    random configurations interleaved. ``Scenario(deterministic=True)``: the suite's functions
    are deterministic, so no configuration is evaluated again on other seeds. ``Scenario.seed``
    seeds it.

    Pending trials: SMAC's own handling, that of its parallel (Dask) runner: ``ask()`` while other
    trials run; the model is fitted on the completed trials, and a configuration already asked
    (running or completed) is never suggested again.

    Args:
        smac: the facade (``ask``, ``tell``).
        names: its parameters' names, in the order of the box's dimensions.
    """

    def __init__(self, smac: Any, names: Sequence[str]) -> None:
        self.smac, self.names = smac, list(names)
        self.output: Any = None  # SMAC's output folder, removed with the adapter

    @classmethod
    def create(cls, bounds: np.ndarray, *, seed: int, n_trials: int, workers: int) -> SMACPeer:
        from ConfigSpace import ConfigurationSpace, Float
        from smac import BlackBoxFacade, Scenario

        names = _names(bounds)
        space = ConfigurationSpace(seed=seed)
        space.add([Float(n, (float(lo), float(hi))) for n, (lo, hi) in zip(names, bounds)])
        output = tempfile.TemporaryDirectory(prefix="smac-")  # SMAC saves its run history there
        scenario = Scenario(
            space,
            deterministic=True,
            n_trials=n_trials,
            seed=seed,
            output_directory=pathlib.Path(output.name) / "run",
        )
        peer = cls(BlackBoxFacade(scenario, logging_level=logging.ERROR, overwrite=True), names)
        peer.output = output
        return peer

    def ask(self) -> tuple[np.ndarray, Any, bool]:
        info = self.smac.ask()
        origin = info.config.origin or ""
        model = bool(origin) and not origin.lower().startswith("initial design")
        return np.array([info.config[n] for n in self.names], dtype=float), info, model

    def tell(self, info: Any, value: float) -> None:
        from smac.runhistory.dataclasses import TrialValue

        self.smac.tell(info, TrialValue(cost=value))


# Name -> the adapter's factory ``(bounds, *, seed, n_trials, workers) -> adapter``.
ADAPTERS: dict[str, Callable[..., Any]] = {"hebo": HEBOPeer.create, "smac": SMACPeer.create}


def drive(
    peer: Any,
    bounds: np.ndarray,
    f: Callable[[np.ndarray], float],
    *,
    n_trials: int,
    workers: int,
    rng: np.random.Generator,
) -> dict:
    """Run ``n_trials`` trials of ``f`` asked of the adapter ``peer``, ``workers`` pending at once,
    the next to complete drawn by ``rng`` (``harness.asktell.ask_tell``).

    Returns:
        ``values`` (each trial's value, in the order asked), ``ask_seconds`` and
        ``ask_cpu_seconds`` (wall and process CPU seconds of each ask), ``model_at_ask``,
        ``spreads`` (``harness.suite_row.pending_spread`` of the points pending at each ask) and
        ``told`` (the trials' indices in the order they completed).
    """
    out: dict[str, list] = {
        k: [] for k in ("ask_seconds", "ask_cpu_seconds", "model_at_ask", "spreads", "told")
    }
    values = [float("nan")] * n_trials

    def ask(slot: int) -> tuple[int, np.ndarray, Any]:
        t0, cpu0 = time.perf_counter(), time.process_time()
        x, handle, model = peer.ask()
        out["ask_seconds"].append(time.perf_counter() - t0)
        out["ask_cpu_seconds"].append(time.process_time() - cpu0)
        out["model_at_ask"].append(bool(model))
        return len(out["ask_seconds"]) - 1, np.asarray(x, dtype=float), handle

    def tell(slot: int, asked: tuple[int, np.ndarray, Any]) -> None:
        i, x, handle = asked
        values[i] = f(x)
        peer.tell(handle, values[i])
        out["told"].append(i)

    def on_pending(pending: list) -> None:
        out["spreads"].append(pending_spread([x for _, x, _ in pending], bounds))

    ask_tell(n_trials, workers, rng, ask, tell, on_pending=on_pending)
    return {"values": values, **out}


def run(job: dict, adapters: dict[str, Callable[..., Any]] = ADAPTERS) -> dict:
    """The row of one suite cell (``benchmarks.run``'s job) of the peer ``job["sampler"]``."""
    if job["mode"] not in MODES:
        raise ValueError(f"external peers run in modes {', '.join(MODES)}, not {job['mode']!r}")
    bounds, f, f_min = FUNCTIONS[job["function"]]
    workers = job["workers"] if job["mode"] == "async" else 1
    n_trials, seed = job["n_trials"], job["seed"]
    peer = adapters[job["sampler"]](bounds, seed=seed, n_trials=n_trials, workers=workers)
    t0 = time.perf_counter()
    ran = drive(
        peer, bounds, f, n_trials=n_trials, workers=workers, rng=np.random.default_rng(seed + 1000)
    )
    seconds = time.perf_counter() - t0
    timing = (ran["ask_seconds"], ran["ask_cpu_seconds"], ran["model_at_ask"], seconds)
    return {
        **job,
        **regret_fields(ran["values"], f_min, seconds, ran["spreads"]),
        **timing_fields(*timing, ours=False),
        "peer_threads": thread_settings(),
        **getattr(peer, "extra", {}),
    }


def main(argv=None) -> None:
    p = argparse.ArgumentParser(prog="python -m benchmarks.external.worker", description=__doc__)
    sub = p.add_subparsers(dest="command", required=True)
    sub.add_parser("run", help="one suite cell: prints its row").add_argument("job")
    sub.add_parser("versions", help="installed versions").add_argument("dists", nargs="+")
    a = p.parse_args(argv)
    print(json.dumps(run(json.loads(a.job)) if a.command == "run" else versions(tuple(a.dists))))


if __name__ == "__main__":
    main()
