"""Seconds per suggestion of a distributed-TS agent on a ring against EGPTSSampler, at equal
evaluations.

Full run (about two minutes; one process, run it alone):
    python -m benchmarks.dts_speed --out benchmarks/results/dts_speed.jsonl

For each study size n (``--n-complete``, default 150,500,900,3000: the first three below EGP's
exact-GP limit of 1000, so no ask crosses it; at 3000 EGP-TS's GPs are random-feature posteriors,
while the ring agent's ~3n/M trials still get an exact GP) and ``--repeats`` R (3): an in-memory
study minimising Hartmann-6 (x0..x5 in [0, 1]) with n random completed trials (``default_rng(1000 +
repeat)``), trial i tagged as agent ``i mod M`` (user attribute ``agent_id``, M = ``--agents``, 16),
is copied once per sampler; each sampler, fresh, then runs ``--asks`` K (20) ``ask(fixed
distributions)`` + ``tell`` of the true value. Samplers: ``dts-ring`` =
``DistributedTSSampler(agent_id=0, graph="ring", n_agents=M, seed=repeat)`` (one Matérn-5/2 GP;
agent 0 conditions on agents M-1, 0, 1: about 3n/M trials), ``egp-ts`` = ``EGPTSSampler(seed=repeat,
acquisition="ts")`` (the 4-kernel ensemble on all n) and ``gp-ts-matern52-ard`` = the same with
``kernels=["matern52-ard"]`` (``gp-ts`` in older rows) (one GP on all n: the ring agent's model on
all the data, which separates the data size from the kernel count). The first ask fits a model from
scratch (cold); asks 2..K update it and include the scheduled refits (warm: their mean). The model
part is the time inside the algorithm's ``suggest`` (fit or update, Thompson draw, acquisition
optimisation); the rest of an ask is the adapter (reading and encoding trials) and Optuna. One BLAS
thread (``benchmarks`` pins it). Target: the ring agent's warm seconds per suggestion at most half
of EGP-TS's.
"""

from __future__ import annotations

import argparse
import statistics
import time
import warnings

import numpy as np
import optuna

from benchmarks.functions import hartmann6
from benchmarks.harness.probes import ModelProbe
from benchmarks.harness.provenance import commit
from benchmarks.harness.results import RESULTS, ResultsFile
from benchmarks.harness.samplers import make_sampler
from benchmarks.harness.studies import H6_BOUNDS, random_study
from benchmarks.harness.tables import markdown_table, provenance_line, threads_line

SAMPLERS = ("dts-ring", "egp-ts", "gp-ts-matern52-ard")
LEGACY_NAMES = {"gp-ts": "gp-ts-matern52-ard"}  # the sampler names of older rows
CELL = ("sampler", "n_complete", "repeat", "agents", "asks")


def run(name: str, n: int, agents: int, seed: int, asks: int) -> dict:
    """Seconds of each ask (``seconds``), and of the algorithm's ``suggest`` inside it
    (``model_seconds``: the model's fit, draw and optimisation), and ``model_asks``."""
    sampler = make_sampler(name, seed=seed, agent=0, n_agents=agents)
    probe = ModelProbe(sampler)
    study, dists = random_study(sampler, hartmann6, H6_BOUNDS, n, seed=1000 + seed, agents=agents)
    seconds = []
    for _ in range(asks):
        t0 = time.perf_counter()
        trial = study.ask(dists)
        seconds.append(time.perf_counter() - t0)
        study.tell(trial, float(hartmann6(np.array([trial.params[k] for k in dists]))))
    return {
        "seconds": seconds,
        "model_seconds": probe.model_seconds,
        "model_asks": probe.model_asks,
    }


def summarise(rows: list[dict]) -> list[str]:
    """Markdown: per n, median cold and warm seconds
    per suggestion of each sampler and the ratio."""
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
    return [
        f"## Seconds per suggestion: a distributed-TS agent on a ring of {agents} vs EGP-TS",
        "",
        *markdown_table(header, body),
        f"Medians over {len({r['repeat'] for r in rows})} repeats of the cold ask and of the mean "
        "of asks 2..K (warm); one process. "
        f"{provenance_line(rows)} {threads_line(rows, legacy=1)}".strip(),
        "",
    ]


def main(argv=None) -> None:
    ap = argparse.ArgumentParser(
        prog="python -m benchmarks.dts_speed",
        description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    ap.add_argument("--n-complete", default="150,500,900,3000")
    ap.add_argument("--agents", type=int, default=16)
    ap.add_argument("--asks", type=int, default=20)
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("--out", default=str(RESULTS / "dts_speed.jsonl"))
    a = ap.parse_args(argv)
    optuna.logging.set_verbosity(optuna.logging.ERROR)
    warnings.filterwarnings("ignore", category=optuna.exceptions.ExperimentalWarning)
    out = ResultsFile(a.out)
    done = out.done(("commit", *CELL))
    base = {"bench": "dts_speed", "agents": a.agents, "asks": a.asks}
    for repeat in range(a.repeats):
        for n in [int(v) for v in a.n_complete.split(",")]:
            for name in SAMPLERS if repeat % 2 == 0 else SAMPLERS[::-1]:  # interleaved
                cell = {**base, "sampler": name, "n_complete": n, "repeat": repeat}
                if (commit(), *(cell[f] for f in CELL)) in done:
                    continue
                row = out.append({**cell, **run(name, n, a.agents, repeat, a.asks)})
                print(
                    f"n={n} {name} repeat={repeat}: {[round(s, 3) for s in row['seconds']]}",
                    flush=True,
                )
    print("\n".join(summarise(out.rows())))


if __name__ == "__main__":
    main()
