"""The table of ``benchmarks.threads``, for ``benchmarks.report`` and printed at the end of every
run; the target: the ratio at most ``TARGET_RATIO``."""

from __future__ import annotations

import statistics

from benchmarks.harness.samplers import LABELS, ordered
from benchmarks.harness.tables import provenance_line

TARGET_RATIO = 4.0


def median_text(xs) -> str:
    return f"{statistics.median(xs):.3f}" if xs else "–"


def _latest_run(rows: list[dict]) -> list[dict]:
    """For each (sampler, max_threads), the rows of the latest run that measured it."""
    rows = [r for r in rows if r.get("bench") == "threads"]
    latest: dict = {}
    for r in rows:
        key = (r["sampler"], r["max_threads"])
        latest[key] = max(latest.get(key, ""), r["run_id"])
    return [r for r in rows if r["run_id"] == latest[(r["sampler"], r["max_threads"])]]


def _asks(rows: list[dict], cold: bool) -> list[float]:
    return [s for r in rows for s, c in zip(r["seconds"], r["cold"]) if c == cold]


def summarise(rows: list[dict], target: float = TARGET_RATIO) -> list[str]:
    """Markdown: median cold and warm seconds per suggestion with the fewest and the most processes,
    their ratio, per (sampler, max_threads); the latest run of each; provenance under the table."""
    rows = _latest_run(rows)
    if not rows:
        return []
    procs = sorted({r["processes"] for r in rows})
    lo, hi = procs[0], procs[-1]
    order = ordered(r["sampler"] for r in rows)
    groups = sorted(
        {(r["sampler"], r["max_threads"]) for r in rows},
        key=lambda k: (order.index(k[0]), k[1] is not None, k[1] or 0),
    )

    def p(n):
        return f"{n} proc" + ("s" if n > 1 else "")

    lines = [
        "### Thread oversubscription: concurrent worker processes",
        "",
        "Hartmann-6, random completed trials added with `add_trials` (EGP "
        f"{_values(rows, 'n_complete', 'egp-auto')}, BORE++ "
        f"{_values(rows, 'n_complete', 'bore++')}), then {_values(rows, 'asks')} ask(fixed "
        "distributions) + tell per worker process; each worker a fresh interpreter with default "
        "BLAS threads (no thread variables set), the workers of a cell released together. Cold: "
        "the first ask of a fresh sampler (model fitted from scratch); warm: the later asks. "
        f"Median seconds per ask over workers and {_values(rows, 'repeats')} repeats (cells "
        f"interleaved); ratio = {p(hi)} / {p(lo)}. `benchmarks/threads.py`.",
        "",
        f"| sampler | max_threads | cold, {p(lo)} (s) | cold, {p(hi)} (s) | cold ratio | warm, "
        f"{p(lo)} (s) | warm, {p(hi)} (s) | warm ratio |",
        "|---" * 8 + "|",
    ]
    checks = []
    for sampler, m in groups:
        g = [r for r in rows if (r["sampler"], r["max_threads"]) == (sampler, m)]
        cells = []
        for cold in (True, False):
            a, b = (_asks([r for r in g if r["processes"] == n], cold) for n in (lo, hi))
            ratio = statistics.median(b) / statistics.median(a) if a and b else None
            cells += [median_text(a), median_text(b), f"{ratio:.2f}" if ratio is not None else "–"]
            if ratio is not None and hi > lo:
                checks.append(
                    f"- {LABELS.get(sampler, sampler)}, max_threads={m}, "
                    f"{'cold' if cold else 'warm'}: {p(hi)} / {p(lo)} = {ratio:.2f} (target: at "
                    f"most {target:g}): {'met' if ratio <= target else 'not met'}"
                )
        lines.append(
            f"| {LABELS.get(sampler, sampler)} (`{sampler}`) | {m} | " + " | ".join(cells) + " |"
        )
    checks += _against_no_limit(rows, lo, hi, target)
    lines += ["", *_provenance(rows), ""] + checks
    problems = sorted(
        {
            f"- problem ({r['sampler']}, max_threads={r['max_threads']}, {p(r['processes'])}): {q}"
            for r in rows
            for q in r.get("problems", [])
        }
    )
    return lines + ([""] + problems if problems else []) + [""]


def _against_no_limit(rows: list[dict], lo: int, hi: int, target: float) -> list[str]:
    """Each limit's most-process median against the fewest-process median without a limit (the
    old default)."""
    out = []
    for sampler in ordered(r["sampler"] for r in rows):
        mine = [r for r in rows if r["sampler"] == sampler]
        base = [r for r in mine if r["max_threads"] is None and r["processes"] == lo]
        for m in sorted({r["max_threads"] for r in mine if r["max_threads"] is not None}):
            g = [r for r in mine if r["max_threads"] == m and r["processes"] == hi]
            for cold in (True, False):
                a, b = _asks(base, cold), _asks(g, cold)
                if a and b and hi > lo:
                    ratio = statistics.median(b) / statistics.median(a)
                    out.append(
                        f"- {LABELS.get(sampler, sampler)}, {'cold' if cold else 'warm'}: {hi} "
                        f"processes with max_threads={m} / {lo} without a limit = {ratio:.2f} "
                        f"(at most {target:g}: {'yes' if ratio <= target else 'no'})"
                    )
    return out


def _values(rows: list[dict], field: str, sampler: str | None = None) -> str:
    vals = sorted({r[field] for r in rows if sampler is None or r["sampler"] == sampler})
    return "/".join(map(str, vals)) if vals else "–"


def _cpus(row: dict):
    machine = row.get("machine")  # a dict in rows with provenance, older rows: cpu_count
    return machine["cpu_count"] if isinstance(machine, dict) else row.get("cpu_count")


def _provenance(rows: list[dict]) -> list[str]:
    loads = [r["loadavg_before"][0] for r in rows]
    inside = sorted(
        {f"max_threads={r['max_threads']}: {r['blas_threads_in_sampler']}" for r in rows}, key=str
    )
    cpus = "/".join(map(str, sorted({_cpus(r) for r in rows}, key=str)))
    return [
        f"{cpus} CPUs; BLAS threads per worker before any limit: "
        f"{_values(rows, 'blas_threads')}; inside the sampler: {'; '.join(inside)}; 1-minute load "
        f"average before the cells {min(loads):.2f} to {max(loads):.2f}.",
        "",
        provenance_line(rows),
    ]
