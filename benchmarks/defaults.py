"""The ablation behind ``EGPTSSampler()``'s defaults: variants of the default sampler (``egp-auto``)
on the suite, each a change of one or two settings, decided on a development set and confirmed on
held-out seeds and functions.

Development set: seeds 0-4 of ``DEV_FUNCTIONS`` (classic and ill-conditioned functions of the
suite). Confirmation: seeds 5-9 of every suite function, including those the development set
leaves out (``zakharov2``, ``eggholder`` and the two 10-D ellipsoids), and the 4-worker setting.

Each variant is sampler options (as ``EGPTSSampler``'s keywords) and a lengthscale penalty (the
module constant ``shared_core.models.gp.LENGTHSCALE_PENALTY``, set for the run and restored after
it: ``None`` keeps the shipped weight).
Rows go to ``--out`` (default ``results/defaults.jsonl``) keyed by variant, cell and commit; runs
already done are skipped. ``benchmarks.report`` writes the tables to
``docs/benchmarks/defaults.md``.

Usage::

    python -m benchmarks.defaults --variants previous,default --seeds 5    # development set
    python -m benchmarks.defaults --variants previous,default --first-seed 5 --seeds 5 \\
        --functions all                                                    # confirmation
"""

from __future__ import annotations

import argparse
from dataclasses import dataclass, field
from typing import Any

from benchmarks.harness.fingerprint import lengthscale_penalty
from benchmarks.harness.results import RESULTS, ResultsFile
from benchmarks.harness.runner import run_jobs
from benchmarks.run import SUITE, default_trials, run_suite

__all__ = ["DEV_FUNCTIONS", "VARIANTS", "Variant", "run_job", "variant_config"]

DEV_FUNCTIONS = (
    "ackley5",
    "dropwave",
    "branin",
    "hartmann6",
    "ellipsoid5",
    "rotellipsoid5",
    "sharpridge5",
)
# The dictionary of Lu, Polyzos, Li and Giannakis, "Surrogate modeling for Bayesian optimization
# beyond a single Gaussian process" (2023)
PAPER_KERNELS = ("rbf", "rbf-ard", "matern32", "matern52")


@dataclass(frozen=True)
class Variant:
    """``options`` for ``EGPTSSampler`` and the ``LENGTHSCALE_PENALTY`` of the run (``None``:
    the shipped one)."""

    description: str
    options: dict[str, Any] = field(default_factory=dict)
    penalty: float | None = None


VARIANTS = {
    "default": Variant("`EGPTSSampler()`: the defaults"),
    "previous": Variant(
        "the defaults before this ablation: the paper's four kernels, no lengthscale penalty",
        {"kernels": PAPER_KERNELS},
        0.0,
    ),
    "no-penalty": Variant("default without the lengthscale penalty", penalty=0.0),
    "paper-kernels": Variant(
        "default with the paper's four kernels (no Matérn-5/2 ARD)", {"kernels": PAPER_KERNELS}
    ),
    "penalty-0.03": Variant("default with penalty weight 0.03", penalty=0.03),
    "penalty-0.3": Variant("default with penalty weight 0.3", penalty=0.3),
    "no-warp": Variant("default without output warping", {"warp_outputs": False}),
    "ei": Variant('default with `acquisition="ei"` throughout', {"acquisition": "ei"}),
    "ts": Variant('default with `acquisition="ts"` throughout', {"acquisition": "ts"}),
    "raw-2048": Variant("default with 2048 random candidates (`n_raw`)", {"n_raw": 2048}),
    "starts-20": Variant("default with 20 L-BFGS-B starts (`n_starts`)", {"n_starts": 20}),
}


def run_job(job: dict) -> dict:
    """One suite run of ``job["variant"]`` (the pool's entry point; jobs also run in the calling
    process, so the penalty is restored after the run)."""
    variant = VARIANTS[job["variant"]]
    with lengthscale_penalty(variant.penalty):
        row = run_suite({**job, "options": dict(variant.options)})
    row.pop("options")  # the row's config holds them
    return {**row, "config": variant_config(job["variant"])}


def variant_config(name: str) -> dict:
    """The sampler configuration of variant ``name`` (``fingerprint.Config``'s fields)."""
    variant = VARIANTS[name]
    return {"sampler": "egp-auto", "options": dict(variant.options), "penalty": variant.penalty}


CELL = ("variant", "function", "seed", "mode", "workers", "n_trials")


def jobs(a: argparse.Namespace) -> list[dict]:
    functions = SUITE if a.functions == "all" else a.functions.split(",")
    return [
        {
            "bench": "defaults",
            "variant": v,
            "sampler": "egp-auto",
            "function": fn,
            "seed": seed,
            "mode": a.mode,
            "workers": a.workers if a.mode == "async" else 1,
            "n_trials": a.trials or default_trials(fn),
        }
        for seed in range(a.first_seed, a.first_seed + a.seeds)
        for fn in functions
        for v in a.variants.split(",")
    ]


def main(argv=None) -> None:
    p = argparse.ArgumentParser(
        prog="python -m benchmarks.defaults",
        description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    p.add_argument("--variants", default=",".join(VARIANTS))
    p.add_argument("--functions", default=",".join(DEV_FUNCTIONS), help="names or 'all'")
    p.add_argument("--seeds", type=int, default=5)
    p.add_argument("--first-seed", type=int, default=0)
    p.add_argument("--trials", type=int, default=None, help="default: the suite's per function")
    p.add_argument("--mode", choices=("seq", "async"), default="seq")
    p.add_argument("--workers", type=int, default=4, help="pending trials in the async mode")
    p.add_argument("--procs", type=int, default=2, help="runs in parallel processes")
    p.add_argument("--out", default=str(RESULTS / "defaults.jsonl"))
    a = p.parse_args(argv)
    unknown = set(a.variants.split(",")) - set(VARIANTS)
    if unknown:
        raise SystemExit(f"unknown variants {sorted(unknown)}; known: {', '.join(VARIANTS)}")
    run_jobs(
        jobs(a),
        run_job,
        out=ResultsFile(a.out),
        cell=CELL,
        procs=a.procs,
        describe=lambda row: (
            f"{row['variant']} {row['function']} seed={row['seed']} -> {row['regret'][-1]:.4g}"
        ),
    )


if __name__ == "__main__":
    main()
