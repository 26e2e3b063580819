"""Which additive structure DEC-HBO learns on the high-dimensional problems whose structure is
known: how many of the truly interacting pairs of parameters its structure samples group
together, and how many of the pairs they group are not truly interacting.

    python -m benchmarks.dec_hbo_structure

Per cell (problem of :mod:`benchmarks.high_dim_functions`, seed), ``DECHBOAlgorithm`` as
``dec-hbo-mf6`` configures it (the default: factors of at most six parameters, three structure
samples) runs ask/tell in one process on the unit cube from ``STARTUP_TRIALS`` uniform points.
At each checkpoint ``n`` (completed trials) the row records the structure samples that suggested
the last trial, with their weights (a partition the chain drew twice counts twice), the trials
they were learned from (``learned_at``: the chain runs on a schedule, not at every trial) and,
per sample, the fraction of the true pairs it groups (``recovered``), the fraction of its grouped
pairs that are false (``false``) and what a random partition with the same group sizes scores in
expectation: ``chance``, as a given pair shares a group with probability
``sum_g s_g (s_g - 1) / (d (d - 1))``, and ``false_chance``, ``1 - |true| / (d (d - 1) / 2)``.

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
CELL = ("sampler", "problem", "seed", "checkpoints")

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
    """``recovered`` and ``false`` of one partition, and what a random partition with its group
    sizes scores in expectation (``chance``, ``false_chance``: module docstring)."""
    grouped = grouped_pairs(partition)
    sizes = np.array([len(g) for g in partition], dtype=float)
    return {
        "recovered": len(grouped & true) / len(true),
        "false": len(grouped - true) / len(grouped) if grouped else 0.0,
        "chance": float(np.sum(sizes * (sizes - 1)) / (d * (d - 1))),
        "false_chance": 1.0 - len(true) / (d * (d - 1) / 2),
    }


def run_one(job: dict) -> dict:
    from shared_core import DECHBOAlgorithm, FloatParam, Observations, SearchSpace

    problem = PROBLEMS[job["problem"]]
    d, rng = problem.d, np.random.default_rng(job["seed"])
    space = SearchSpace({f"x{i}": FloatParam(0.0, 1.0) for i in range(d)})
    true = true_pairs(job["problem"], d)
    checkpoints = checkpoint_list(job["checkpoints"])
    X = rng.random((STARTUP_TRIALS, d))  # (n, d)
    y = np.array([problem.objective(x) for x in X])  # (n,)
    options = dec_hbo_options(job["sampler"])
    if options is None:
        raise ValueError(f"not a DEC-HBO sampler name (dec-hbo-mf<k>): {job['sampler']!r}")
    algorithm, at, learned_at = DECHBOAlgorithm(**options), [], 0
    while len(y) < max(checkpoints):
        before = algorithm.partitions
        x = algorithm.suggest(space, Observations(X, y), 1, rng)[0]
        if algorithm.partitions is not before:  # the chain ran: a new list of samples
            learned_at = len(y)
        X, y = np.vstack([X, x]), np.append(y, problem.objective(x))
        if len(y) in checkpoints:  # the samples that suggested the last trial
            samples = [scores(p, true, d) for p in algorithm.partitions]
            at.append(
                {
                    "n": len(y),
                    "learned_at": learned_at,
                    "samples": samples,
                    "weights": list(algorithm.weights),
                }
            )
    return {"bench": "dec_hbo_structure", **job, "d": d, "at": at}


def checkpoint_list(text: str) -> tuple[int, ...]:
    """``"100,240"`` as ``(100, 240)``: each after the start-up trials."""
    checkpoints = tuple(int(n) for n in text.split(",") if n)
    if not checkpoints or min(checkpoints) <= STARTUP_TRIALS:
        raise ValueError(
            f"checkpoints must be trial counts above the {STARTUP_TRIALS} start-up trials: {text!r}"
        )
    return checkpoints


def _mean(checkpoint: dict, key: str) -> float:
    """The structure samples' mean of ``key``, a sample the chain drew twice counting twice."""
    return float(np.average([s[key] for s in checkpoint["samples"]], weights=checkpoint["weights"]))


SUMMARY = ("recovered", "chance", "false", "false_chance")


def summarise(rows: list[dict]) -> list[str]:
    """Per problem and checkpoint, medians over seeds of the samples' weighted mean fractions
    and of the trials the samples were learned from: the latest rows of the last run's sampler."""
    if not rows:
        return []
    rows = latest([r for r in rows if r["sampler"] == rows[-1]["sampler"]], CELL)
    body = []
    for problem in dict.fromkeys(r["problem"] for r in rows):
        rs = [r for r in rows if r["problem"] == problem]
        for n in sorted({c["n"] for r in rs for c in r["at"]}):
            at = [c for r in rs for c in r["at"] if c["n"] == n]
            learned = f"{np.median([c['learned_at'] for c in at]):g}"
            cells = [f"{np.median([_mean(c, k) for c in at]):.2f}" for k in SUMMARY]
            body.append([f"`{problem}`", str(n), learned, *cells, str(len(at))])
    header = [
        "problem",
        "trials",
        "learned from",
        "true pairs grouped",
        "by chance",
        "grouped pairs false",
        "by chance",
        "seeds",
    ]
    return [*markdown_table(header, body), provenance_line(rows)] if body else []


def main(argv=None) -> None:
    p = argparse.ArgumentParser(prog="python -m benchmarks.dec_hbo_structure", description=__doc__)
    p.add_argument("--problems", default=",".join(CHECKPOINTS))
    p.add_argument("--seeds", type=int, default=3)
    p.add_argument("--first-seed", type=int, default=0)
    p.add_argument("--checkpoints", default="", help="n,...: instead of each problem's")
    p.add_argument("--out", default=str(RESULTS / "dec_hbo_structure.jsonl"))
    a = p.parse_args(argv)
    problems = a.problems.split(",")
    for problem in problems:
        if problem not in PROBLEMS:
            raise ValueError(f"unknown problem {problem!r}: one of {', '.join(CHECKPOINTS)}")
        true_pairs(problem, PROBLEMS[problem].d)  # of known structure, or a ValueError naming it
        if not a.checkpoints and problem not in CHECKPOINTS:
            raise ValueError(f"no default checkpoints for {problem!r}: pass --checkpoints")
    if a.checkpoints:
        checkpoint_list(a.checkpoints)  # a ValueError naming them before any run
    jobs = [
        {
            "sampler": "dec-hbo-mf6",  # the default's name: rows carry its behaviour fingerprint
            "problem": problem,
            "seed": seed,
            "checkpoints": a.checkpoints or ",".join(map(str, CHECKPOINTS[problem])),
        }
        for seed in range(a.first_seed, a.first_seed + a.seeds)
        for problem in problems
    ]
    run_and_summarise(
        jobs,
        run_one,
        out=a.out,
        cell=CELL,
        describe=lambda r: (
            f"{r['problem']} seed {r['seed']}: "
            + ", ".join(
                f"n={c['n']} (learned from {c['learned_at']}) recovered {_mean(c, 'recovered'):.2f}"
                for c in r["at"]
            )
        ),
        summarise=summarise,
    )


if __name__ == "__main__":
    main()
