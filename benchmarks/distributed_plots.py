"""The plots of the distributed Thompson sampling benchmark (``benchmarks.distributed``), for
``benchmarks.report``: the regrets of the reproduction against rounds, and the regret of the
asynchronous runs against evaluations.
"""

from __future__ import annotations

import pathlib
from collections import defaultdict

import numpy as np

from benchmarks.distributed_async import ASYNC_KEY, BENCH_ASYNC
from benchmarks.distributed_report import ASYNC_ORDER, config_order, latest_runs
from benchmarks.distributed_reproduce import (
    BENCH_REPRODUCE,
    REPRODUCE_FUNCTIONS,
    REPRODUCE_KEY,
    SHARED,
)
from benchmarks.functions import FUNCTIONS
from benchmarks.harness.plots import pyplot
from benchmarks.harness.samplers import ordered


def plot(
    reproduce_rows: list[dict], async_rows: list[dict], out_dir: pathlib.Path
) -> list[pathlib.Path]:
    """PNGs: R_A/R_B/R_W against rounds for the star sweep and for the topology comparison
    (median over seeds; one row of panels per function; the setting of the last row), and
    async regret curves."""
    plt = pyplot()
    out_dir.mkdir(parents=True, exist_ok=True)
    written = []
    rows = latest_runs(
        [r for r in reproduce_rows if r.get("bench") == BENCH_REPRODUCE], REPRODUCE_KEY
    )
    if rows:
        last = rows[-1]
        setting = ("rounds", "n_init", "init", "noise")
        rows = [r for r in rows if all(r[k] == last[k] for k in setting)]
        star = [r for r in rows if r["graph"] == "star"]
        m_top = max(
            (r["n_agents"] for r in rows if r["graph"] in ("complete", "disconnected", SHARED)),
            default=None,
        )
        # the reference of the comparison
        single = [r for r in rows if r["n_agents"] == 1 and r["graph"] != SHARED]
        topo = [r for r in rows if m_top is not None and r["n_agents"] == m_top] + (
            single if m_top else []
        )
        for name, subset, label in (
            ("star", star, lambda r: f"{r['n_agents']} agent{'s' * (r['n_agents'] > 1)}"),
            (
                "topology",
                topo,
                lambda r: "1 agent" if r["n_agents"] == 1 else f"{r['graph']} x{r['n_agents']}",
            ),
        ):
            if not subset:
                continue
            path = out_dir / f"dts_reproduce_{name}.png"
            _plot_reproduce(
                plt,
                subset,
                label,
                path,
                f"{name} (T={last['rounds']}, {last['n_init']} initial points, {last['init']})",
            )
            written.append(path)
    arows = latest_runs([r for r in async_rows if r.get("bench") == BENCH_ASYNC], ASYNC_KEY)
    for workers in sorted({r["workers"] for r in arows}):
        path = out_dir / f"dts_async{workers}.png"
        _plot_async(plt, [r for r in arows if r["workers"] == workers], path, workers)
        written.append(path)
    return written


def _plot_reproduce(plt, rows, label, path, title) -> None:
    functions = [fn for fn in REPRODUCE_FUNCTIONS if any(r["function"] == fn for r in rows)]
    fig, axes = plt.subplots(len(functions), 3, figsize=(13, 3.6 * len(functions)), squeeze=False)
    for i, fn in enumerate(functions):
        cells = defaultdict(list)
        for r in rows:
            if r["function"] == fn:
                cells[(config_order(r["graph"], r["n_agents"]), r["surrogate"], label(r))].append(r)
        for j, metric in enumerate(("R_A", "R_W", "R_B")):
            ax = axes[i][j]
            for (_, surrogate, name), rs in sorted(cells.items()):
                curve = np.median(np.array([r[metric] for r in rs]), axis=0)
                suffix = f" [{surrogate}]" if len({s for _, s, _ in cells}) > 1 else ""
                ax.plot(
                    np.arange(1, len(curve) + 1),
                    np.maximum(curve, 1e-8),
                    label=f"{name}{suffix} ({len(rs)})",
                )
            ax.set_yscale("log")
            ax.set_title(f"{fn}: {metric}")
            ax.set_xlabel("round t")
            ax.grid(alpha=0.3)
            if j == 0:
                ax.legend(fontsize=8)
    fig.suptitle(f"Distributed Thompson sampling, {title}; median over seeds")
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)


def _plot_async(plt, rows, path, workers) -> None:
    functions = [fn for fn in FUNCTIONS if any(r["function"] == fn for r in rows)]
    cols = min(3, len(functions))
    nrows = -(-len(functions) // cols)
    fig, axes = plt.subplots(nrows, cols, figsize=(4.5 * cols, 3.5 * nrows), squeeze=False)
    for k, fn in enumerate(functions):
        ax = axes[k // cols][k % cols]
        for s in ordered({r["sampler"] for r in rows if r["function"] == fn}, ASYNC_ORDER):
            curves = np.array(
                [r["regret"] for r in rows if r["function"] == fn and r["sampler"] == s]
            )
            curve = np.median(curves, axis=0)
            ax.plot(
                np.arange(1, len(curve) + 1), np.maximum(curve, 1e-8), label=f"{s} ({len(curves)})"
            )
        ax.set_yscale("log")
        ax.set_title(fn)
        ax.set_xlabel("evaluations")
        ax.grid(alpha=0.3)
        ax.legend(fontsize=7)
    for k in range(len(functions), nrows * cols):
        axes[k // cols][k % cols].axis("off")
    fig.suptitle(f"{workers} asynchronous agents: median regret")
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)
