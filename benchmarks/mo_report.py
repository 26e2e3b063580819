"""The tables and plots of the multi-objective benchmark (``benchmarks.multi_objective``), for
``benchmarks.report``: per mode, the log10 hypervolume gap after the last trial, the seconds per
suggestion and how our samplers compare with the peers; the gap against trials, and the fronts
found on the two-objective problems."""

from __future__ import annotations

import functools
import pathlib

import numpy as np

from benchmarks.constrained_report import by_cell, median_seconds, quantile, span, speed_table
from benchmarks.harness.plots import pyplot
from benchmarks.harness.samplers import LABELS, is_peer, ordered
from benchmarks.harness.tables import fmt, markdown_table, provenance_line
from benchmarks.mo_functions import GAP_FLOOR, PROBLEMS, log10_gaps
from shared_core.pareto import non_dominated

__all__ = ["front_plot", "gaps", "plot_rows", "summarise"]


def gaps(row: dict) -> list[float]:
    """The row's log10 hypervolume gap after each trial, computed from its ``values`` with the
    current HV* and floor (``mo_functions.log10_gaps``; the row's own ``log10_gap`` holds those of
    when it was written)."""
    return _gaps(row["function"], tuple(map(tuple, row["values"])))


@functools.lru_cache(maxsize=4096)
def _gaps(function: str, values: tuple) -> list[float]:
    return log10_gaps(function, values)


def _cell(finals: list[float], *, bold: bool) -> str:
    """``median (first quartile – third quartile)``, the median bold if ``bold``."""
    median = fmt(quantile(finals, 0.5))
    quartiles = f"{fmt(quantile(finals, 0.25))} – {fmt(quantile(finals, 0.75))}"
    return f"{f'**{median}**' if bold else median} ({quartiles})"


def summarise(rows: list[dict], title: str) -> list[str]:
    """The tables of one mode: final log10 hypervolume gap, seconds per suggestion, and how each
    of ours compares with the peers."""
    if not rows:
        return []
    cells = by_cell(rows)
    samplers = ordered({r["sampler"] for r in rows})
    header = ["problem", "trials", *(LABELS.get(s, s) for s in samplers)]
    body = []
    for fn in _in_order(cells):
        runs = cells[fn]
        finals = {s: [gaps(r)[-1] for r in runs[s]] for s in samplers if runs.get(s)}
        medians = {s: quantile(v, 0.5) for s, v in finals.items()}
        best = min(medians.values())
        n_trials = next(iter(runs.values()))[0]["n_trials"]
        body.append(
            [fn, n_trials]
            + [_cell(finals[s], bold=medians[s] == best) if s in finals else "–" for s in samplers]
        )
    seeds = sorted({len(v) for c in cells.values() for v in c.values()})
    limits = sorted({r["wall_limit"] for r in rows if r.get("wall_limit")})
    stopped = sum("stopped_at" in r for r in rows)
    return [
        f"## {title}",
        "",
        "log10 of the hypervolume gap after the last trial (HV* minus the hypervolume of the "
        f"trials; lower is better, floor log10({GAP_FLOOR:g} HV*)): median over {span(seeds)} "
        f"seed{'s' * (seeds[-1] > 1)} per problem (the seeds every sampler ran), quartiles in "
        "brackets. Bold: best median."
        + (
            f" Runs were stopped after {', '.join(f'{v:g}' for v in limits)} s of wall time "
            f"({stopped} of {len(rows)} stopped early; their gap is that of the trials they ran)."
            if limits
            else ""
        ),
        "",
        *markdown_table(header, body),
        *speed_table(cells, samplers, list(PROBLEMS), rows[0]["workers"]),
        *comparisons(cells, samplers),
        provenance_line(rows),
        "",
    ]


def comparisons(cells: dict, samplers: list[str]) -> list[str]:
    """For each of ours against each peer of ``samplers``: the problems where its median final
    log10 gap is lower, and its CPU seconds per suggestion over the peer's per problem."""
    out = []
    peers = [p for p in samplers if is_peer(p)]
    for s in (s for s in samplers if not is_peer(s)):
        for p in peers:
            both = [fn for fn in cells if cells[fn].get(s) and cells[fn].get(p)]
            if not both:
                continue
            diffs = {
                fn: quantile([gaps(r)[-1] for r in cells[fn][s]], 0.5)
                - quantile([gaps(r)[-1] for r in cells[fn][p]], 0.5)
                for fn in both
            }
            wins = [fn for fn in both if diffs[fn] < 0]
            ratios = [
                median_seconds(cells[fn][s]) / median_seconds(cells[fn][p])
                for fn in both
                if median_seconds(cells[fn][s]) and median_seconds(cells[fn][p])
            ]
            ours, peer = LABELS.get(s, s), LABELS.get(p, p)
            out.append(
                f"- {ours} has a lower median than {peer} on {len(wins)} of {len(both)} problems"
                + f"; median log10 gap minus {peer}'s: "
                + ", ".join(f"{fn} {diffs[fn]:+.2f}" for fn in _in_order(both))
                + (
                    f"; CPU seconds per suggestion / {peer}'s: "
                    + ", ".join(f"{v:.2f}" for v in ratios)
                    if ratios
                    else ""
                )
            )
    return out + [""] if out else []


def _in_order(problems) -> list[str]:
    return sorted(problems, key=list(PROBLEMS).index)


def plot_rows(rows: list[dict]) -> list[dict]:
    """``rows`` with ``regret`` the hypervolume gap after each trial, for ``plots.regret_plot``."""
    return [{**r, "regret": [10.0**g for g in gaps(r)]} for r in rows]


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
