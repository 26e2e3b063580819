"""Several objectives: the hypervolume gap to the Pareto front against trials on the problems of
``benchmarks.mo_functions`` (``docs/benchmarks/index.md``).

    python -m benchmarks.multi_objective --mode seq --seeds 10 \\
        --out benchmarks/results/mo_seq.jsonl
    python -m benchmarks.multi_objective --mode async --workers 4 --seeds 5 \\
        --out benchmarks/results/mo_async4.jsonl
    python -m benchmarks.multi_objective --samplers ax-default,ax-egp-auto \\
        --functions branin-currin,zdt3 --seeds 5 --trials 40 --out benchmarks/results/mo_ax.jsonl
"""

from __future__ import annotations

import functools
import pathlib

import numpy as np

from benchmarks.harness.ax import AX_METHODS, ax_client
from benchmarks.harness.plots import pyplot
from benchmarks.harness.samplers import LABELS, ordered
from benchmarks.mo_functions import GAP_FLOOR, PROBLEMS, log10_gaps, max_hypervolume
from benchmarks.problem_report import ProblemPage, lower_on
from benchmarks.problem_runs import ProblemBenchmark, ax_run, optuna_run, row_of
from shared_core.pareto import non_dominated

# The peer cache's protocol version: bump it when what a run measures changes (NSGA-II's
# population too).
PROTOCOL = 1
BENCH = "multi_objective"
SAMPLERS = "egp-auto,bore++,dts-complete,gp,tpe,nsga2"


def run_job(job: dict) -> dict:
    """One run: Optuna (every objective minimised) or an Ax ``Client`` minimising ``f0 ..
    f{m-1}`` with the reference point as objective thresholds."""
    problem = PROBLEMS[job["function"]]
    if job["sampler"] in AX_METHODS:
        names = tuple(f"f{i}" for i in range(problem.n_objectives))
        thresholds = [f"{n} <= {r!r}" for n, r in zip(names, problem.reference_point)]
        client = ax_client(
            job["sampler"], problem.bounds, job["seed"], thresholds, objectives=names
        )

        def tell(params: dict) -> tuple[dict, list]:
            y = problem(np.array([params[f"x{i}"] for i in range(len(problem.bounds))]))
            return dict(zip(names, y)), y

        values, timing = ax_run(job, client, tell)
    else:
        directions = ["minimize"] * problem.n_objectives
        evaluate = lambda trial, x: problem(x)  # noqa: E731
        trials, timing = optuna_run(job, problem.bounds, evaluate, directions=directions)
        values = [t.values for t in trials]
    fields = {
        "values": [list(map(float, v)) for v in values],
        "log10_gap": log10_gaps(job["function"], values),
        "max_hypervolume": max_hypervolume(job["function"]),
    }
    return row_of(job, fields, timing, len(values))


def _describe(row: dict) -> str:
    return f"log10 gap {row['log10_gap'][-1]:.3f}"


BENCHMARK = ProblemBenchmark(BENCH, __doc__, PROBLEMS, SAMPLERS, PROTOCOL, run_job, _describe)
main = BENCHMARK.main


def gaps(row: dict) -> list[float]:
    """The row's log10 hypervolume gap after each trial, computed from its ``values`` with the
    current HV* and floor (the row's own ``log10_gap`` holds those of when it was written)."""
    return _gaps(row["function"], tuple(map(tuple, row["values"])))


@functools.lru_cache(maxsize=4096)
def _gaps(function: str, values: tuple) -> list[float]:
    return log10_gaps(function, values)


def _versus(peer: str, medians: dict, runs: dict) -> str:
    return (
        lower_on(peer, medians)
        + f"; median log10 gap minus {peer}'s: "
        + ", ".join(f"{fn} {a - b:+.2f}" for fn, (a, b) in medians.items())
    )


def front_plot(rows: list[dict], path: pathlib.Path, title: str) -> bool:
    """The non-dominated points found by each sampler in one run (the lowest seed that every
    sampler ran) on each two-objective problem, over the Pareto front (HV*'s sample); ``False``
    (nothing drawn) if no two-objective problem has rows."""
    fns = [fn for fn in PROBLEMS if PROBLEMS[fn].n_objectives == 2]
    fns = [fn for fn in fns if any(r["function"] == fn for r in rows)]
    if not fns:
        return False
    plt = pyplot()
    fig, axes = plt.subplots(1, len(fns), figsize=(4.5 * len(fns), 3.6), squeeze=False)
    for ax, fn in zip(axes[0], fns):
        runs = [r for r in rows if r["function"] == fn]
        seed = min(r["seed"] for r in runs)
        front = PROBLEMS[fn].front()  # (k, 2)
        r = np.asarray(PROBLEMS[fn].reference_point)
        ax.plot(*front.T, ".", color="0.7", markersize=1, label="Pareto front")
        shown = [front]
        for s in ordered({r["sampler"] for r in runs}):
            Y = np.array(next(r for r in runs if r["sampler"] == s and r["seed"] == seed)["values"])
            Y = Y[non_dominated(Y) & np.all(Y < r, axis=1)]  # (k, 2): the front inside the box
            Y = Y[np.argsort(Y[:, 0])]
            ax.plot(*Y.T, "o-", markersize=3, linewidth=0.8, label=LABELS.get(s, s))
            shown.append(Y)
        low, high = np.concatenate(shown).min(axis=0), np.concatenate(shown).max(axis=0)
        pad = 0.05 * (high - low)
        ax.set_xlim(low[0] - pad[0], high[0] + pad[0])
        ax.set_ylim(low[1] - pad[1], high[1] + pad[1])
        ax.set_title(f"{fn}, seed {seed}")
        ax.set_xlabel("f0")
        ax.set_ylabel("f1")
    axes[0][-1].legend(fontsize=7)
    fig.suptitle(title)
    fig.tight_layout()
    path.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(path, dpi=90)
    plt.close(fig)
    return True


def _fronts(rows: list[dict], img, title: str, stem: str) -> list[str]:
    if not front_plot(rows, img(f"{stem}_fronts.png"), f"{title}: fronts found"):
        return []
    return [
        "The non-dominated trials of one run per sampler (the same seed for all), over the "
        "Pareto front:",
        "",
        f"![{title}: fronts](img/{stem}_fronts.png)",
        "",
    ]


PAGE = ProblemPage(
    bench=BENCH,
    problems=PROBLEMS,
    describe=lambda name, p: (
        f"({len(p.bounds)}-D, {p.n_objectives} objectives, reference point "
        f"({', '.join(f'{v:g}' for v in p.reference_point)})): {p.source}"
    ),
    peers=("gp", "tpe", "nsga2"),
    stems=("mo_seq", "mo_async4", "mo_ax"),
    final=lambda row: gaps(row)[-1],
    measure="log10 of the hypervolume gap after the last trial (HV* minus the hypervolume of the "
    f"trials; lower is better, floor log10({GAP_FLOOR:g} HV*))",
    noun="gap",
    versus=_versus,
    plot_rows=lambda rows: [{**r, "regret": [10.0**g for g in gaps(r)]} for r in rows],
    plot_title="hypervolume gap",
    plot_options={"ylabel": "median HV* - HV (IQR)", "yscale": "log"},
    extra_plots=_fronts,
)


if __name__ == "__main__":
    main()
