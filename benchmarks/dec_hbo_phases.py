"""Where DEC-HBO's seconds go at 20, 50 and 100 parameters: one suggestion of ``DECHBOAlgorithm``
(its defaults: factors of at most six parameters) on stored random trials, split into its phases.

    python -m benchmarks.dec_hbo_phases

Per cell (``d``, ``n`` completed trials of a chain of overlapping 3-parameter factors, uniform
points in the unit cube), a fresh algorithm suggests once (the first suggestion: the structure and
hyperparameters are fitted) and once more with one more trial (between refits). Each call is split
by timers wrapped around the functions that do the phases' work:

* ``structure``: the structure chain and the hyperparameter fits (``_refit``: the chain's start
  fitted, each proposal scored at inherited hyperparameters, the first accepted states and the
  samples refitted warm);
* ``posteriors``: the additive posteriors (one Cholesky factorisation per structure sample at a
  refit, a block append of the new trials between refits);
* ``tables``: the factors' acquisition tables on the grids (one factor prediction per grid point);
* ``max_sum``: message passing over the tables;
* ``polish``: the continuous optimiser started from the max-sum point;
* ``other``: the rest of the call.

For comparison, ``EGPAlgorithm`` (``acquisition="auto"``, its defaults) suggests on the same
trials, first and next (``egp_first``, ``egp_next``: seconds).

One thread per BLAS pool; one process runs the cells one after the other.
"""

from __future__ import annotations

import argparse
import contextlib
import time
from collections import defaultdict

import numpy as np

from benchmarks.harness.results import RESULTS, latest
from benchmarks.harness.runner import run_and_summarise
from benchmarks.harness.samplers import dec_hbo_options
from benchmarks.harness.tables import markdown_table, provenance_line

CELLS = ((20, 100), (50, 300), (100, 500))  # (d, n): the tiers and their study sizes
PHASES = ("structure", "posteriors", "tables", "max_sum", "polish")
CELL = ("sampler", "d", "n", "seed")


def chain_of_factors(X: np.ndarray) -> np.ndarray:
    """``(n,)`` values of a chain of overlapping factors over ``X`` ``(n, d)``: factor ``i``
    couples parameters ``2i``, ``2i + 1`` and ``2i + 2``."""
    d = X.shape[1]
    out = np.zeros(len(X))
    for i in range(0, d - 2, 2):
        out += np.sin(3 * X[:, i]) * np.cos(2 * X[:, i + 1]) + (X[:, i + 2] - 0.3) ** 2
    return out


@contextlib.contextmanager
def _timed_phases(seconds: dict[str, float]):
    """Wrap the phases' functions (module docstring) to add their seconds to ``seconds``."""
    import shared_core.algorithms.dec_hbo as dec_hbo

    targets = [
        ("structure", dec_hbo.DECHBOAlgorithm, "_refit"),
        ("posteriors", dec_hbo, "AdditivePosterior"),  # built at a refit
        ("posteriors", dec_hbo.AdditivePosterior, "condition"),  # extended between refits
        ("tables", dec_hbo, "factor_table"),
        ("max_sum", dec_hbo, "max_sum"),
        ("polish", dec_hbo, "maximize_acquisition"),
    ]
    originals = [getattr(owner, name) for _, owner, name in targets]

    def timer(phase, fn):
        def wrapped(*args, **kwargs):
            start = time.perf_counter()
            try:
                return fn(*args, **kwargs)
            finally:
                seconds[phase] += time.perf_counter() - start

        return wrapped

    try:
        for (phase, owner, name), original in zip(targets, originals):
            setattr(owner, name, timer(phase, original))
        yield
    finally:
        for (_, owner, name), original in zip(targets, originals):
            setattr(owner, name, original)


def _timed_suggestion(algorithm, space, obs, rng) -> dict[str, float]:
    seconds: dict[str, float] = defaultdict(float)
    with _timed_phases(seconds):
        start = time.perf_counter()
        algorithm.suggest(space, obs, 1, rng)
        total = time.perf_counter() - start
    out = {phase: seconds[phase] for phase in PHASES}
    return {**out, "other": total - sum(out.values()), "total": total}


def run_one(job: dict) -> dict:
    from shared_core import DECHBOAlgorithm, EGPAlgorithm, FloatParam, Observations, SearchSpace

    d, n, seed = job["d"], job["n"], job["seed"]
    rng = np.random.default_rng(seed)
    space = SearchSpace({f"x{i}": FloatParam(0.0, 1.0) for i in range(d)})
    X = rng.random((n + 1, d))
    y = chain_of_factors(X)
    options = dec_hbo_options(job["sampler"])
    if options is None:
        raise ValueError(f"not a DEC-HBO sampler name (dec-hbo-mf<k>): {job['sampler']!r}")
    algorithm = DECHBOAlgorithm(**options)
    first = _timed_suggestion(algorithm, space, Observations(X[:n], y[:n]), rng)
    second = _timed_suggestion(algorithm, space, Observations(X, y), rng)
    egp, egp_seconds = EGPAlgorithm(acquisition="auto"), []
    for rows in (slice(0, n), slice(0, n + 1)):  # the same trials, first and next
        start = time.perf_counter()
        egp.suggest(space, Observations(X[rows], y[rows]), 1, rng)
        egp_seconds.append(time.perf_counter() - start)
    return {
        "bench": "dec_hbo_phases",
        **job,
        "first": first,
        "next": second,
        "egp_first": egp_seconds[0],
        "egp_next": egp_seconds[1],
    }


def summarise(rows: list[dict]) -> list[str]:
    """Seconds per phase of the first and the next suggestion, and EGP's total on the same
    trials, medians over seeds: the latest rows of the last run's sampler."""
    if not rows:
        return []
    rows = latest([r for r in rows if r["sampler"] == rows[-1]["sampler"]], CELL)
    body = []
    for d, n in sorted({(r["d"], r["n"]) for r in rows}):
        rs = [r for r in rows if (r["d"], r["n"]) == (d, n)]
        for which in ("first", "next"):
            cells = [
                f"{np.median([r[which][p] for r in rs]):.2f}" for p in (*PHASES, "other", "total")
            ]
            egp = f"{np.median([r[f'egp_{which}'] for r in rs]):.2f}"
            body.append([str(d), str(n), which, *cells, egp, str(len(rs))])
    header = ["d", "n", "suggestion", *PHASES, "other", "total", "EGP total", "seeds"]
    return [*markdown_table(header, body), provenance_line(rows)]


def main(argv=None) -> None:
    p = argparse.ArgumentParser(prog="python -m benchmarks.dec_hbo_phases", description=__doc__)
    p.add_argument("--cells", default=",".join(f"{d}x{n}" for d, n in CELLS), help="dxn, ...")
    p.add_argument("--seeds", type=int, default=1)
    p.add_argument("--out", default=str(RESULTS / "dec_hbo_phases.jsonl"))
    a = p.parse_args(argv)
    cells = [tuple(int(v) for v in c.split("x")) for c in a.cells.split(",") if c]
    jobs = [
        {"sampler": "dec-hbo-mf6", "d": d, "n": n, "seed": seed}
        for seed in range(a.seeds)
        for d, n in cells
    ]
    run_and_summarise(
        jobs,
        run_one,
        out=a.out,
        cell=CELL,
        describe=lambda r: (
            f"d={r['d']} n={r['n']}: {r['first']['total']:.1f} s, then {r['next']['total']:.1f} s"
        ),
        summarise=summarise,
    )


if __name__ == "__main__":
    main()
