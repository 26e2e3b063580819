"""The tables of the conditional benchmark (``benchmarks.conditional``), for ``benchmarks.report``:
per mode, the final regret (the best CV error for ``model-choice``), the seconds per suggestion
and how our samplers compare with the peers, differences below a problem's tie tolerance
(``conditional_functions.Problem.tie_tolerance``) counting as ties."""

from __future__ import annotations

from benchmarks.conditional_functions import PROBLEMS
from benchmarks.constrained_report import by_cell, median_seconds, quantile, span, speed_table
from benchmarks.harness.regret import compare
from benchmarks.harness.samplers import LABELS, is_peer, ordered
from benchmarks.harness.tables import fmt, markdown_table, provenance_line

__all__ = ["compare", "final_regrets", "plot_rows", "regret", "summarise"]


def regret(row: dict) -> list[float]:
    """The row's regret after each trial, from its ``best_values`` (as stored; ``values`` as made)
    with the problem's current optimum (the best value itself where the optimum is unknown)."""
    return PROBLEMS[row["function"]].regret(row.get("best_values", row.get("values")))


def final_regrets(runs: list[dict]) -> list[float]:
    return [regret(r)[-1] for r in runs]


def _cell(finals: list[float], *, bold: bool) -> str:
    """``median (first quartile – third quartile)``, the median bold if ``bold``."""
    median = fmt(quantile(finals, 0.5))
    quartiles = f"{fmt(quantile(finals, 0.25))} – {fmt(quantile(finals, 0.75))}"
    return f"{f'**{median}**' if bold else median} ({quartiles})"


def summarise(rows: list[dict], title: str) -> list[str]:
    """The tables of one mode: final regret, seconds per suggestion, and how each of ours
    compares with the peers."""
    if not rows:
        return []
    cells = by_cell(rows)
    samplers = ordered({r["sampler"] for r in rows})
    header = ["problem", "trials", *(LABELS.get(s, s) for s in samplers)]
    body = []
    for fn in _in_order(cells):
        runs, tolerance = cells[fn], PROBLEMS[fn].tie_tolerance
        finals = {s: final_regrets(runs[s]) for s in samplers if runs.get(s)}
        medians = {s: quantile(v, 0.5) for s, v in finals.items()}
        best = min(medians.values())
        n_trials = next(iter(runs.values()))[0]["n_trials"]
        body.append(
            [fn, n_trials]
            + [
                _cell(finals[s], bold=medians[s] <= best + tolerance) if s in finals else "–"
                for s in samplers
            ]
        )
    seeds = sorted({len(v) for c in cells.values() for v in c.values()})
    limits = sorted({r["wall_limit"] for r in rows if r.get("wall_limit")})
    stopped = sum("stopped_at" in r for r in rows)
    tolerances = ", ".join(f"{fn} {fmt(PROBLEMS[fn].tie_tolerance)}" for fn in _in_order(cells))
    return [
        f"## {title}",
        "",
        "Best value after the last trial minus the problem's minimum (regret; for `model-choice`, "
        "whose minimum is unknown, the best CV error itself; lower is better): median over "
        f"{span(seeds)} seed{'s' * (seeds[-1] > 1)} per problem (the seeds every sampler ran), "
        "quartiles in brackets. Bold: the best median and those within the problem's tie "
        f"tolerance of it ({tolerances})."
        + (
            f" Runs were stopped after {', '.join(f'{v:g}' for v in limits)} s of wall time "
            f"({stopped} of {len(rows)} stopped early; their regret is that of the trials they "
            "ran)."
            if limits
            else ""
        ),
        "",
        *markdown_table(header, body),
        *speed_table(cells, samplers, list(PROBLEMS), rows[0]["workers"], suggest="suggest_*"),
        *comparisons(cells, samplers),
        provenance_line(rows),
        "",
    ]


def comparisons(cells: dict, samplers: list[str]) -> list[str]:
    """For each of ours against each peer of ``samplers``: the problems where its median final
    regret is lower, tied (within the tie tolerance) and higher, and its CPU seconds per
    suggestion over the peer's per problem."""
    out = []
    peers = [p for p in samplers if is_peer(p)]
    for s in (s for s in samplers if not is_peer(s)):
        for p in peers:
            both = [fn for fn in _in_order(cells) if cells[fn].get(s) and cells[fn].get(p)]
            if not both:
                continue
            medians = {
                fn: (
                    quantile(final_regrets(cells[fn][s]), 0.5),
                    quantile(final_regrets(cells[fn][p]), 0.5),
                )
                for fn in both
            }
            outcome = {fn: compare(*medians[fn], PROBLEMS[fn].tie_tolerance) for fn in both}
            ratios = [
                median_seconds(cells[fn][s]) / median_seconds(cells[fn][p])
                for fn in both
                if median_seconds(cells[fn][s]) and median_seconds(cells[fn][p])
            ]
            ours, peer = LABELS.get(s, s), LABELS.get(p, p)
            counts = [sum(o == k for o in outcome.values()) for k in (-1, 0, 1)]
            out.append(
                f"- {ours} against {peer}: lower median on {counts[0]}, tied on {counts[1]}, "
                f"higher on {counts[2]} of {len(both)} problems; median regret minus {peer}'s: "
                + ", ".join(f"{fn} {a - b:+.3g}" for fn, (a, b) in medians.items())
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
    """``rows`` with ``regret`` as :func:`regret` gives it, for ``plots.regret_plot``."""
    return [{**r, "regret": regret(r)} for r in rows]
