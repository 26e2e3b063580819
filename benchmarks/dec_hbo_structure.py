"""Which additive structure DEC-HBO learns on the high-dimensional problems whose structure is
known: how many of the truly interacting pairs of parameters its structure samples group
together, and how many of the pairs they group are not truly interacting.

    python -m benchmarks.dec_hbo_structure

Per cell (problem of :mod:`benchmarks.high_dim_functions`, seed), ``DECHBOAlgorithm`` as
``dec-hbo-mf6`` configures it (the default: factors of at most six parameters, three structure
samples) runs ask/tell in one
process on the unit cube from ``STARTUP_TRIALS`` uniform points. At each checkpoint ``n``
(completed trials) the row records, per structure sample, the fraction of the true pairs it
groups (``recovered``), the fraction of its grouped pairs that are false (``false``) and what a
random partition with the same group sizes would score (``chance``: a given pair shares a group
with probability ``sum_g s_g (s_g - 1) / (d (d - 1))``).

True pairs: the parameters of one Hartmann-6 block (``hartmann6-blocks-*``), the neighbours of the
Branin chain (``branin-chain-*``, whose overlapping factors no partition holds whole).

One thread per BLAS pool; one process runs the cells one after the other.
"""

from __future__ import annotations

import argparse
from collections.abc import Sequence

import numpy as np

from benchmarks.harness.regret import STARTUP_TRIALS
from benchmarks.harness.results import RESULTS, latest
from benchmarks.harness.runner import run_and_summarise
from benchmarks.harness.samplers import dec_hbo_options
from benchmarks.harness.tables import markdown_table, provenance_line
from benchmarks.high_dim_functions import PROBLEMS

# problem: the checkpoints (completed trials); tier 50 stops at 300, the speed cell's study size
CHECKPOINTS = {
    "hartmann6-blocks-24": (100, 240),
    "branin-chain-24": (100, 240),
    "hartmann6-blocks-60": (100, 300),
    "branin-chain-60": (100, 300),
}
CELL = ("sampler", "problem", "seed")

Pair = tuple[int, int]


def true_pairs(problem: str, d: int) -> set[Pair]:
    """The truly interacting pairs of ``problem``'s ``d`` parameters."""
    if problem.startswith("hartmann6-blocks"):
        return grouped_pairs([range(i, i + 6) for i in range(0, d, 6)])
    if problem.startswith("branin-chain"):
        return {(i, i + 1) for i in range(d - 1)}
    raise ValueError(f"no known structure for problem {problem!r}")


def grouped_pairs(partition: Sequence[Sequence[int]]) -> set[Pair]:
    """The pairs of parameters that share a group of ``partition``."""
    return {(a, b) for group in partition for a in group for b in group if a < b}


def scores(partition: Sequence[Sequence[int]], true: set[Pair], d: int) -> dict[str, float]:
    """``recovered``, ``false`` and ``chance`` of one partition (module docstring)."""
    grouped = grouped_pairs(partition)
    sizes = np.array([len(g) for g in partition], dtype=float)
    return {
        "recovered": len(grouped & true) / len(true),
        "false": len(grouped - true) / len(grouped) if grouped else 0.0,
        "chance": float(np.sum(sizes * (sizes - 1)) / (d * (d - 1))),
    }


def run_one(job: dict) -> dict:
    from shared_core import DECHBOAlgorithm, FloatParam, Observations, SearchSpace

    problem = PROBLEMS[job["problem"]]
    d, rng = problem.d, np.random.default_rng(job["seed"])
    space = SearchSpace({f"x{i}": FloatParam(0.0, 1.0) for i in range(d)})
    true = true_pairs(job["problem"], d)
    X = rng.random((STARTUP_TRIALS, d))  # (n, d)
    y = np.array([problem.objective(x) for x in X])  # (n,)
    options = dec_hbo_options(job["sampler"])
    if options is None:
        raise ValueError(f"not a DEC-HBO sampler name (dec-hbo-mf<k>): {job['sampler']!r}")
    algorithm, checkpoints = DECHBOAlgorithm(**options), []
    while len(y) < max(job["checkpoints"]):
        x = algorithm.suggest(space, Observations(X, y), 1, rng)[0]
        X, y = np.vstack([X, x]), np.append(y, problem.objective(x))
        if len(y) in job["checkpoints"]:
            # the samples that suggested the last trial: fitted on the first len(y) - 1
            samples = [scores(p, true, d) for p in algorithm.partitions]
            checkpoints.append({"n": len(y), "samples": samples, "weights": algorithm.weights})
    return {"bench": "dec_hbo_structure", **job, "d": d, "at": checkpoints}


def summarise(rows: list[dict]) -> list[str]:
    """Per problem and checkpoint, medians over seeds of the samples' mean fractions."""
    rows = latest(rows, CELL)
    body = []
    for problem in [p for p in CHECKPOINTS if any(r["problem"] == p for r in rows)]:
        rs = [r for r in rows if r["problem"] == problem]
        for n in sorted({c["n"] for r in rs for c in r["at"]}):
            at = [c for r in rs for c in r["at"] if c["n"] == n]
            cells = [
                f"{np.median([np.mean([s[k] for s in c['samples']]) for c in at]):.2f}"
                for k in ("recovered", "chance", "false")
            ]
            body.append([f"`{problem}`", str(n), *cells, str(len(at))])
    header = ["problem", "trials", "true pairs grouped", "by chance", "grouped false", "seeds"]
    return [*markdown_table(header, body), provenance_line(rows)] if body else []


def main(argv=None) -> None:
    p = argparse.ArgumentParser(prog="python -m benchmarks.dec_hbo_structure", description=__doc__)
    p.add_argument("--problems", default=",".join(CHECKPOINTS))
    p.add_argument("--seeds", type=int, default=3)
    p.add_argument("--first-seed", type=int, default=0)
    p.add_argument("--checkpoints", default="", help="n, ...: instead of each problem's")
    p.add_argument("--out", default=str(RESULTS / "dec_hbo_structure.jsonl"))
    a = p.parse_args(argv)
    own = tuple(int(n) for n in a.checkpoints.split(",") if n)
    jobs = [
        {
            "sampler": "dec-hbo-mf6",  # the default's name: rows carry its behaviour fingerprint
            "problem": problem,
            "seed": seed,
            "checkpoints": own or CHECKPOINTS[problem],
        }
        for seed in range(a.first_seed, a.first_seed + a.seeds)
        for problem in a.problems.split(",")
    ]
    run_and_summarise(
        jobs,
        run_one,
        out=a.out,
        cell=CELL,
        describe=lambda r: (
            f"{r['problem']} seed {r['seed']}: "
            + ", ".join(
                f"n={c['n']} recovered {np.mean([s['recovered'] for s in c['samples']]):.2f}"
                for c in r["at"]
            )
        ),
        summarise=summarise,
    )


if __name__ == "__main__":
    main()
