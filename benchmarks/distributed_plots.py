"""The plots of the distributed Thompson sampling benchmark (``benchmarks.distributed``): the
reproduction's regrets against rounds, the asynchronous runs' regret against evaluations."""

from __future__ import annotations

import pathlib
from collections import defaultdict

import numpy as np

from benchmarks.distributed_async import ASYNC_CELL, BENCH_ASYNC
from benchmarks.distributed_report import config_order
from benchmarks.distributed_reproduce import (
    BENCH_REPRODUCE,
    REPRODUCE_CELL,
    REPRODUCE_FUNCTIONS,
    SETTING,
    SHARED,
)
from benchmarks.harness.plots import pyplot, regret_plot
from benchmarks.harness.results import latest, same_setting


def plot(
    reproduce_rows: list[dict], async_rows: list[dict], out_dir: pathlib.Path
) -> list[pathlib.Path]:
    """PNGs: R_A/R_W/R_B against rounds for the star sweep and for the topology comparison
    (median over seeds; one row of panels per function; the setting of the last row), and
    async regret curves."""
    out_dir.mkdir(parents=True, exist_ok=True)
    written = []
    rows = latest([r for r in reproduce_rows if r.get("bench") == BENCH_REPRODUCE], REPRODUCE_CELL)
    rows = same_setting(rows, SETTING)
    if rows:
        last = rows[-1]
        m_top = max(
            (r["n_agents"] for r in rows if r["graph"] in ("complete", "disconnected", SHARED)),
            default=None,
        )
        # one agent: the reference of the topology comparison
        single = [r for r in rows if r["n_agents"] == 1 and r["graph"] != SHARED]
        topo = [r for r in rows if r["n_agents"] == m_top] + (single if m_top else [])
        for name, subset, label in (
            ("star", [r for r in rows if r["graph"] == "star"], _agents),
            ("topology", topo, _topology),
        ):
            if subset:
                path = out_dir / f"dts_reproduce_{name}.png"
                setting = f"T={last['rounds']}, {last['n_init']} initial points, {last['init']}"
                _plot_reproduce(subset, label, path, f"{name} ({setting})")
                written.append(path)
    arows = latest(
        [r for r in async_rows if r.get("bench") == BENCH_ASYNC], (*ASYNC_CELL, "sampler")
    )
    for workers in sorted({r["workers"] for r in arows}):
        path = out_dir / f"dts_async{workers}.png"
        title = f"{workers} asynchronous agents: median regret"
        regret_plot([r for r in arows if r["workers"] == workers], path, title)
        written.append(path)
    return written


def _agents(row: dict) -> str:
    return f"{row['n_agents']} agent{'s' * (row['n_agents'] > 1)}"


def _topology(row: dict) -> str:
    return "1 agent" if row["n_agents"] == 1 else f"{row['graph']} x{row['n_agents']}"


def _plot_reproduce(rows, label, path, title) -> None:
    plt = pyplot()
    functions = [fn for fn in REPRODUCE_FUNCTIONS if any(r["function"] == fn for r in rows)]
    fig, axes = plt.subplots(len(functions), 3, figsize=(13, 3.6 * len(functions)), squeeze=False)
    for i, fn in enumerate(functions):
        cells = defaultdict(list)
        for r in rows:
            if r["function"] == fn:
                cells[(config_order(r["graph"], r["n_agents"]), r["surrogate"], label(r))].append(r)
        several = len({s for _, s, _ in cells}) > 1  # surrogates
        for j, metric in enumerate(("R_A", "R_W", "R_B")):
            ax = axes[i][j]
            for (_, surrogate, name), rs in sorted(cells.items()):
                curve = np.median(np.array([r[metric] for r in rs]), axis=0)
                suffix = f" [{surrogate}]" if several else ""
                x = np.arange(1, len(curve) + 1)
                ax.plot(x, np.maximum(curve, 1e-8), label=f"{name}{suffix} ({len(rs)})")
            ax.set_yscale("log")
            ax.set_title(f"{fn}: {metric}")
            ax.set_xlabel("round t")
            ax.grid(alpha=0.3)
        axes[i][0].legend(fontsize=8)
    fig.suptitle(f"Distributed Thompson sampling, {title}; median over seeds")
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)
