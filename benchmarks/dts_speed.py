"""Seconds per suggestion of a distributed-TS agent on a ring against EGP-TS, at equal
evaluations (what it measures: ``docs/benchmarks/index.md``).

    python -m benchmarks.dts_speed --out benchmarks/results/dts_speed.jsonl
"""

from __future__ import annotations

import argparse
import statistics

from benchmarks.functions import hartmann6
from benchmarks.harness.probes import ModelProbe
from benchmarks.harness.provenance import commit
from benchmarks.harness.results import RESULTS, ResultsFile
from benchmarks.harness.samplers import make_sampler
from benchmarks.harness.studies import H6_BOUNDS, random_study
from benchmarks.speed_timing import ints, quiet, section, timed_asks

SAMPLERS = ("dts-ring", "egp-ts", "gp-ts-matern52-ard")
LEGACY_NAMES = {"gp-ts": "gp-ts-matern52-ard"}  # the sampler names of older rows
CELL = ("sampler", "n_complete", "repeat", "agents", "asks")


def run(name: str, n: int, agents: int, seed: int, asks: int) -> dict:
    """Seconds of each ask (``seconds``), and of the algorithm's ``suggest`` inside it
    (``model_seconds``: the model's fit, draw and optimisation), and ``model_asks``."""
    sampler = make_sampler(name, seed=seed, agent=0, n_agents=agents)
    probe = ModelProbe(sampler)
    study, dists = random_study(sampler, hartmann6, H6_BOUNDS, n, seed=1000 + seed, agents=agents)
    seconds = timed_asks(study, dists, hartmann6, probe, asks)["seconds"]
    return {
        "seconds": seconds,
        "model_seconds": probe.model_seconds,
        "model_asks": probe.model_asks,
    }


def summarise(rows: list[dict]) -> list[str]:
    """Markdown: per n, median cold and warm seconds per suggestion of each sampler and the
    ratio."""
    if not rows:
        return []
    rows = [r for r in rows if r["commit"] == rows[-1]["commit"]]
    rows = [{**r, "sampler": LEGACY_NAMES.get(r["sampler"], r["sampler"])} for r in rows]
    agents = rows[-1]["agents"]
    ring, egp, gp = SAMPLERS
    body = []
    for n in sorted({r["n_complete"] for r in rows}):
        cell = {
            s: [r for r in rows if r["n_complete"] == n and r["sampler"] == s] for s in SAMPLERS
        }
        if not all(cell.values()):
            continue
        cold = {s: statistics.median(r["seconds"][0] for r in c) for s, c in cell.items()}
        warm = {
            s: statistics.median(statistics.mean(r["seconds"][1:]) for r in c)
            for s, c in cell.items()
        }
        model = {
            s: statistics.median(statistics.mean(r["model_seconds"][1:]) for r in c)
            for s, c in cell.items()
            if all("model_seconds" in r for r in c)
        }
        model_cell = (
            f"{model[ring]:.3f} / {model[egp]:.3f} ({model[ring] / model[egp]:.2f})"
            if {ring, egp} <= model.keys()
            else "-"
        )
        body.append(
            [
                str(n),
                " / ".join(f"{cold[s]:.3f}" for s in SAMPLERS),
                " / ".join(f"{warm[s]:.3f}" for s in SAMPLERS),
                f"{warm[ring] / warm[egp]:.2f}",
                f"{warm[ring] / warm[gp]:.2f}",
                model_cell,
            ]
        )
    names = " / ".join(SAMPLERS)
    header = [
        "completed trials",
        f"cold: {names} (s)",
        f"warm: {names} (s)",
        f"warm ratio {ring} / {egp}",
        f"warm ratio {ring} / {gp}",
        f"warm model part: {ring} / {egp} (s)",
    ]
    title = f"## Seconds per suggestion: a distributed-TS agent on a ring of {agents} vs EGP-TS"
    note = (
        f"Medians over {len({r['repeat'] for r in rows})} repeats of the cold ask and of the mean "
        "of asks 2..K (warm); one process."
    )
    return section(title, header, body, rows, note=note)


def main(argv=None) -> None:
    ap = argparse.ArgumentParser(prog="python -m benchmarks.dts_speed", description=__doc__)
    ap.add_argument("--n-complete", default="150,500,900,3000", type=ints)
    ap.add_argument("--agents", type=int, default=16)
    ap.add_argument("--asks", type=int, default=20)
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("--out", default=str(RESULTS / "dts_speed.jsonl"))
    a = ap.parse_args(argv)
    quiet()
    out = ResultsFile(a.out)
    done = out.done(("commit", *CELL))
    base = {"bench": "dts_speed", "agents": a.agents, "asks": a.asks}
    for repeat in range(a.repeats):
        for n in a.n_complete:
            for name in SAMPLERS if repeat % 2 == 0 else SAMPLERS[::-1]:  # interleaved
                cell = {**base, "sampler": name, "n_complete": n, "repeat": repeat}
                if (commit(), *(cell[f] for f in CELL)) not in done:
                    row = out.append({**cell, **run(name, n, a.agents, repeat, a.asks)})
                    print(f"n={n} {name} repeat={repeat}: {[round(s, 3) for s in row['seconds']]}")
    print("\n".join(summarise(out.rows())))


if __name__ == "__main__":
    main()
