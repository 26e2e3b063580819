"""The ablation behind ``EGPTSSampler()``'s defaults: ``VARIANTS`` of ``egp-auto`` (sampler options
and a lengthscale penalty) run on the suite, on a development set and then on held-out seeds and
functions (docs/benchmarks/defaults.md).

    python -m benchmarks.defaults --variants previous,default --seeds 5    # development set
    python -m benchmarks.defaults --variants previous,default --first-seed 5 --seeds 5 \\
        --functions all                                                    # held-out
"""

from __future__ import annotations

import argparse
from dataclasses import dataclass, field
from typing import Any

from benchmarks.harness.fingerprint import lengthscale_penalty
from benchmarks.harness.results import RESULTS, ResultsFile
from benchmarks.harness.runner import run_jobs
from benchmarks.run import SUITE, default_trials, run_suite

# the development set's functions; the held-out runs add the suite's others
DEV_FUNCTIONS = tuple(
    "ackley5 dropwave branin hartmann6 ellipsoid5 rotellipsoid5 sharpridge5".split()
)
# The dictionary of Lu, Polyzos, Li and Giannakis, "Surrogate modeling for Bayesian optimization
# beyond a single Gaussian process" (2023)
PAPER_KERNELS = ("rbf", "rbf-ard", "matern32", "matern52")


@dataclass(frozen=True)
class Variant:
    """``options`` of ``EGPTSSampler`` and the run's ``LENGTHSCALE_PENALTY`` (``None``: shipped)."""

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
    """One suite run of ``job["variant"]`` (the penalty restored after it: jobs also run in the
    calling process)."""
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
    p = argparse.ArgumentParser(prog="python -m benchmarks.defaults", description=__doc__)
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
