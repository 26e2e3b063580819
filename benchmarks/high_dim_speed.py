"""Seconds per suggestion at 20, 50 and 100 parameters: DEC-HBO (its default, factors of up to six
parameters; ``--samplers dec-hbo-mf3-ucb`` the paper's MF3) against EGPTSSampler and
GPSampler on the same stored trials, one fresh process per (sampler, d, n), measured as the scale
benchmark measures (:func:`benchmarks.scale.measure`: ``n`` uniform random completed trials of
Levy on ``[-10, 10]^d``, the same points for every sampler; the cold ask, three more asks left
running, then ``asks`` timed ask-and-tell with 4 trials running).

    python -m benchmarks.high_dim_speed run
    python -m benchmarks.high_dim_speed run --samplers gp      (GPSampler: rows to the peer cache)
"""

from __future__ import annotations

import argparse
import statistics

from benchmarks.harness.cache import machine_key
from benchmarks.harness.results import RESULTS, latest, same_setting
from benchmarks.harness.samplers import LABELS, dec_hbo_options, is_peer, ordered
from benchmarks.scale import worker_row
from benchmarks.speed_timing import Store, section

SAMPLERS = ("dec-hbo-mf6", "egp-ts", "gp")
CELLS = ((20, 100), (50, 300), (100, 500))  # (d, n): the tiers and their study sizes
BENCH = "high_dim_speed"
CELL = ("bench", "n", "d", "asks")
PEER_CELL = (*CELL, "machine_key")  # a peer's seconds hold on the machine that measured them
PROTOCOL = 1
TARGET_GP_FRACTION = 0.2  # DEC-HBO's warm ask at d >= 50: at most 1/5 of GPSampler's


def run(a: argparse.Namespace) -> None:
    # ours done on this machine at this commit (a row of another machine is measured again here)
    store = Store(a.out, a.cache, (*CELL, "machine_key"), peer_cell=PEER_CELL, protocol=PROTOCOL)
    here = machine_key()
    for d, n in a.cells:
        for name in a.samplers:
            cell = {"bench": BENCH, "n": n, "d": d, "asks": a.asks}
            if store.is_done({**cell, "sampler": name, "machine_key": here}):
                continue
            # every row names its machine: the summary compares rows of one machine only
            row = {**cell, **worker_row(name, n, d, a.asks, a.timeout), "machine_key": here}
            store.put(row)
            print(name, d, n, {k: v for k, v in row.items() if k != "seconds"}, flush=True)


def _warm(r: dict) -> float:
    return statistics.median(r["seconds"])


def summarise(rows: list[dict]) -> list[str]:
    """Markdown: cold and warm seconds per sampler and cell, DEC-HBO's warm ask as a fraction of
    each peer's, and the targets, on the machine that measured our samplers last (seconds of two
    machines do not compare)."""
    rows = sorted(rows, key=lambda r: r.get("date", ""))  # the last row: the latest measured
    ours = [r for r in rows if not is_peer(r["sampler"])] or rows
    machine = ours[-1].get("machine_key") if ours else None
    rows = [r for r in rows if r.get("machine_key") == machine]
    rows = latest(same_setting(rows, ("asks",)), ("sampler", "d", "n"))  # the last run's asks
    if not rows:
        return []
    by = {(r["sampler"], r["d"], r["n"]): r for r in rows}
    body = []
    for d, n in sorted({(r["d"], r["n"]) for r in rows}):
        for name in ordered({r["sampler"] for r in rows}):
            r = by.get((name, d, n))
            if r is None:
                continue
            if r.get("timed_out"):
                cells = [f"timed out (> {r['timeout']:.0f} s in all)", "", ""]
            else:
                cells = [f"{r['cold_seconds']:.2f}", f"{_warm(r):.3f}", f"{r['peak_rss_mb']:.0f}"]
            body.append([str(d), str(n), name, *cells])
    header = ["d", "trials", "sampler", "cold ask (s)", "warm ask (s)", "peak RSS (MB)"]
    intro = (
        f"Levy on [-10, 10]^d, the same random completed trials for every sampler; 4 trials "
        f"running during each of the {rows[0]['asks']} timed asks (warm = their median); the cold "
        "ask fits every model; one process per row, one thread per BLAS pool"
        + (f"; measured on {machine}." if machine else ".")
    )
    title = "### Seconds per suggestion on the same stored trials"
    return section(title, header, body, rows, intro=intro, checks=_checks(by))


def _checks(by: dict) -> list[str]:
    out = []
    order = ordered({name for name, _, _ in by})
    for (name, d, n), r in sorted(by.items(), key=lambda kv: (kv[0][1], order.index(kv[0][0]))):
        if not name.startswith("dec-hbo") or d < 50 or "seconds" not in r:
            continue
        ours, parts = _warm(r), []
        gp, egp = by.get(("gp", d, n)), by.get(("egp-ts", d, n))
        met = True
        if gp is not None and "seconds" in gp:
            met &= ours <= TARGET_GP_FRACTION * _warm(gp)
            parts.append(f"{ours / _warm(gp):.2f} of GPSampler's")
        if egp is not None and "seconds" in egp:
            met &= ours <= _warm(egp)
            parts.append(f"{ours / _warm(egp):.1f}x EGPTSSampler's")
        if parts:
            out.append(
                f"- Target at d = {d} (n = {n}): {LABELS.get(name, name)}'s warm ask at most 1/5 "
                f"of GPSampler's and at most EGPTSSampler's: {', '.join(parts)}: "
                f"**{'met' if met else 'not met'}**."
            )
    return out


def _cells(arg: str) -> list[tuple[int, int]]:
    return [tuple(int(v) for v in c.split("x")) for c in arg.split(",") if c]  # type: ignore[misc]


def main(argv=None) -> None:
    ap = argparse.ArgumentParser(prog="python -m benchmarks.high_dim_speed", description=__doc__)
    sub = ap.add_subparsers(dest="command", required=True)
    rp = sub.add_parser("run", help="the benchmark")
    rp.add_argument("--samplers", default=",".join(SAMPLERS), type=lambda s: s.split(","))
    rp.add_argument("--cells", default=",".join(f"{d}x{n}" for d, n in CELLS), type=_cells)
    rp.add_argument("--asks", type=int, default=5)
    rp.add_argument("--timeout", type=float, default=3600.0, help="seconds per (sampler, cell)")
    rp.add_argument("--out", default=str(RESULTS / f"{BENCH}.jsonl"))
    rp.add_argument("--cache", default=str(RESULTS / "peers.jsonl"), help="the peer cache")
    a = ap.parse_args(argv)
    unknown = {s for s in a.samplers if s not in SAMPLERS and dec_hbo_options(s) is None}
    if unknown:
        ap.error(f"unknown samplers {sorted(unknown)}; known: {SAMPLERS} and dec-hbo-mf<k>")
    run(a)


if __name__ == "__main__":
    main()
