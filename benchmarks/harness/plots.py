"""Regret plots (PNG, matplotlib with the Agg backend, imported when a plot is drawn)."""

from __future__ import annotations

import pathlib
import warnings
from collections import defaultdict

import numpy as np


def pyplot():
    """``matplotlib.pyplot`` on the Agg backend (files only, no display)."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    return plt


def _padded(curves: list[list[float]]) -> np.ndarray:
    """``(n, longest)`` curves, a shorter one (a run stopped by its wall-time limit) padded with
    NaN: the statistics at a trial are those of the runs that reached it."""
    out = np.full((len(curves), max(len(c) for c in curves)), np.nan)
    for i, c in enumerate(curves):
        out[i, : len(c)] = c
    return out


def regret_plot(
    rows: list[dict],
    path: pathlib.Path,
    title: str,
    *,
    ylabel: str = "median regret (IQR shaded)",
    linthresh: float = 1e-3,
    yscale: str = "symlog",
) -> None:
    """Median regret vs trials (IQR shaded), one panel per function, one line per sampler; an
    infinite regret (nothing found yet) is off the plot. The y axis (``yscale="symlog"``) is
    logarithmic above ``linthresh``, linear below (down to 0); ``"log"``: logarithmic (regrets
    all positive)."""
    if not rows:
        return
    plt = pyplot()
    fns = sorted({r["function"] for r in rows})
    ncol = min(3, len(fns))
    nrow = -(-len(fns) // ncol)
    fig, axes = plt.subplots(nrow, ncol, figsize=(4.5 * ncol, 3.4 * nrow), squeeze=False)
    for ax in axes.flat[len(fns) :]:
        ax.axis("off")
    for ax, fn in zip(axes.flat, fns):
        curves = defaultdict(list)
        for r in rows:
            if r["function"] == fn:
                curves[r["sampler"]].append(r["regret"])
        for s, cs in sorted(curves.items()):
            c = _padded(cs)  # (n_seeds, n_trials)
            x = np.arange(1, c.shape[1] + 1)
            with np.errstate(invalid="ignore"), warnings.catch_warnings():
                warnings.simplefilter("ignore", RuntimeWarning)  # a trial no run reached
                # inf - inf: NaN, a gap in the band
                median = np.nanmedian(c, axis=0)
                low, high = np.nanquantile(c, 0.25, 0), np.nanquantile(c, 0.75, 0)
            ax.plot(x, median, label=s)
            ax.fill_between(x, low, high, alpha=0.15)
        ax.set_yscale(yscale, **({"linthresh": linthresh} if yscale == "symlog" else {}))
        ax.set_title(fn)
        ax.set_xlabel("trials")
    for row in axes:
        row[0].set_ylabel(ylabel)
    axes.flat[len(fns) - 1].legend(fontsize=7)
    fig.suptitle(title)
    fig.tight_layout()
    path.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(path, dpi=90)
    plt.close(fig)


def cumulative_regret_plot(curves: dict, panels: list[str], path: pathlib.Path, title) -> None:
    """Mean cumulative regret (95 % CI shaded); ``curves[panel][sampler]``: list of curves;
    ``title(panel)`` names a panel."""
    plt = pyplot()
    fig, axes = plt.subplots(1, len(panels), figsize=(4.2 * len(panels), 3.3), squeeze=False)
    for ax, panel in zip(axes[0], panels):
        for s, cs in sorted(curves[panel].items()):
            c = np.array(cs)  # (n_seeds, n_evaluations)
            mean = c.mean(0)
            half = 1.96 * c.std(0, ddof=1) / np.sqrt(len(c)) if len(c) > 1 else np.zeros_like(mean)
            x = np.arange(1, len(mean) + 1)
            ax.plot(x, mean, label=s)
            ax.fill_between(x, mean - half, mean + half, alpha=0.2)
        ax.set_title(title(panel))
        ax.set_xlabel("evaluations")
        ax.set_yscale("log")
    axes[0][0].set_ylabel("cumulative regret (mean, 95% CI)")
    axes[0][-1].legend()
    fig.tight_layout()
    path.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(path, dpi=90)
    plt.close(fig)
