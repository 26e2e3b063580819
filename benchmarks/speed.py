"""Speed: seconds per suggestion by dimension and by study size, import cost, encoding.

    python -m benchmarks.speed dims --out benchmarks/results/speed_dims.jsonl
    python -m benchmarks.speed many --out benchmarks/results/speed_many.jsonl
    python -m benchmarks.speed imports --out benchmarks/results/speed_imports.jsonl
    python -m benchmarks.speed encoding --out benchmarks/results/speed_encoding.jsonl

dims      Levy function on [-5, 5]^d (d = 20, 50, 100; float parameters x0..x{d-1}), 200 random
          completed trials added with ``study.add_trials``, then 20 consecutive ask+tell per
          sampler. Each ask is ``study.ask(fixed_distributions)``: Optuna computes the trial's
          relative parameters (``infer_relative_search_space`` + ``sample_relative``, i.e. the model
          refit and the acquisition) on the first ``_suggest`` inside ``ask``, so the timed region
          contains the whole suggestion; ``harness.probes.ModelProbe`` checks that
          ``sample_relative`` ran once per ask and that the model made the suggestion
          (``model_asks``, per ask), and records their seconds.
          Samplers are interleaved: ask i of every sampler runs before ask i + 1 of any, so load
          drift on a shared machine hits all of them alike (``--order sequence`` runs them one after
          the other).
many      Hartmann-6 (d = 6), 1000 and 1100 random completed trials, then 5 rounds of 4 concurrent
          asks (4 asks before any tell, then 4 tells); records every ask's seconds. Samplers
          interleaved round by round. ``--samplers egp-auto,bore++`` leaves out GPSampler (~7
          s/ask).
imports   Fresh interpreters (``worker`` sub-command; median of 7, after one discarded warm-up):
          ``import optuna`` alone; ``import optuna`` then ``import optuna_egp`` (the extra
          seconds); and the first model-based suggestion (10 completed trials added,
          ``n_startup_trials=10``, the 11th ask; the 12th for comparison; ``ask<i>_model_asks``:
          1 if the model made it, and ``ask<i>_relative_params``: the parameters it suggested),
          with the heavy modules present before and after each step. This module and those of
          the sub-commands import nothing heavy at module level, so a worker starts without
          scipy or optuna (numpy comes with the harness's results files).
encoding  Encode + decode of 512 rows of a 100-parameter ``shared_core.SearchSpace`` (70 float:
          10 log, 20 stepped; 20 int: 5 log, 5 stepped; 10 categorical with 3-5 choices of mixed
          types), median of 20: ``encode_columns`` + ``decode_columns`` if the space has them, else
          ``encode_many`` + ``[decode(x) for x in X]``; the row says which API was used and whether
          the round trip returned the input values.

Samplers (``--samplers``): names of ``harness.samplers`` (``egp-auto`` = ``EGPTSSampler``'s
defaults, ``bore++``, ``gp`` = Optuna's ``GPSampler``, ...). Our samplers' rows go to ``--out``
(a cell already there at the current commit is skipped); GPSampler's (a peer) go to the peer
cache (``--cache``), keyed by the kind of machine too (``machine_key``: timings of another machine
are no reference). The tables: ``benchmarks.speed_report``. The code: ``dims`` and ``many`` here,
``imports`` in ``speed_imports``, ``encoding`` in ``speed_encoding``, what they share (where the
rows go, the timed studies) in ``speed_timing``.
"""

from __future__ import annotations

import argparse
import json

from benchmarks.harness.cache import machine_key
from benchmarks.harness.results import RESULTS
from benchmarks.speed_encoding import cmd_encoding
from benchmarks.speed_imports import cmd_imports, imports_worker
from benchmarks.speed_timing import DEFAULT_SAMPLERS, Store, Timed, interleave, sampler_names


# ----------------------------------------------------------------------------- dims
def cmd_dims(a) -> None:
    import numpy as np

    from benchmarks.functions import levy

    store, names = Store(a), sampler_names(a.samplers)
    for d in map(int, a.dims.split(",")):
        base = {
            "bench": "dims",
            "d": d,
            "n_complete": a.n_complete,
            "asks": a.asks,
            "seed": a.seed,
            "function": "levy",
            "machine_key": machine_key(),
        }
        todo = [s for s in names if not store.is_done({**base, "sampler": s})]
        if not todo:
            print(f"dims d={d}: done already", flush=True)
            continue
        bounds = np.array([[-5.0, 5.0]] * d)
        print(f"dims d={d}: {', '.join(todo)} ({a.order})", flush=True)
        cells = [Timed(s, a.seed, levy, bounds, a.n_complete) for s in todo]

        def done(c: Timed, base: dict = base, d: int = d) -> None:
            ask, tell, relative = ([r[0] for r in rounds] for rounds in (c.ask, c.tell, c.relative))
            total = [x + y for x, y in zip(ask, tell)]
            problems = c.check()
            row = {
                **base,
                "sampler": c.name,
                "sampler_class": type(c.study.sampler).__name__,
                "bounds": [-5.0, 5.0],
                "order": a.order,
                "seconds": total,
                "ask_seconds": ask,
                "tell_seconds": tell,
                "relative_seconds": relative,
                "relative_calls": [r[0] for r in c.calls],
                "model_asks": [r[0] for r in c.model],
                "mean": float(np.mean(total)),
                "first": total[0],
                "median": float(np.median(total)),
                "problems": problems,
            }
            store.put(row)
            print(
                f"  {c.name:10s} d={d}: mean {row['mean']:.3f} s, first {row['first']:.3f} s, "
                f"in sample_relative {np.mean(relative):.3f} s"
                + (f"  PROBLEMS: {problems}" if problems else ""),
                flush=True,
            )

        interleave(cells, a.asks, 1, a.order, done)


# ----------------------------------------------------------------------------- many
def cmd_many(a) -> None:
    import numpy as np

    from benchmarks.functions import hartmann6

    store, names = Store(a), sampler_names(a.samplers)
    bounds = np.array([[0.0, 1.0]] * 6)
    for n in map(int, a.n_complete.split(",")):
        base = {
            "bench": "many",
            "d": 6,
            "n_complete": n,
            "rounds": a.rounds,
            "batch": a.batch,
            "seed": a.seed,
            "function": "hartmann6",
            "machine_key": machine_key(),
        }
        todo = [s for s in names if not store.is_done({**base, "sampler": s})]
        if not todo:
            print(f"many n={n}: done already", flush=True)
            continue
        print(f"many n={n}: {', '.join(todo)} ({a.order})", flush=True)
        cells = [Timed(s, a.seed, hartmann6, bounds, n) for s in todo]

        def done(c: Timed, base: dict = base, n: int = n) -> None:
            flat = [x for r in c.ask for x in r]
            later = [x for r in c.ask for x in r[1:]]
            problems = c.check()
            row = {
                **base,
                "sampler": c.name,
                "sampler_class": type(c.study.sampler).__name__,
                "order": a.order,
                "ask_seconds": c.ask,
                "tell_seconds": c.tell,
                "relative_seconds": c.relative,
                "relative_calls": c.calls,
                "model_asks": c.model,
                "mean": float(np.mean(flat)),
                "first": flat[0],
                "later_median": float(np.median(later)) if later else None,
                "later_max": float(np.max(later)) if later else None,
                "problems": problems,
            }
            store.put(row)
            tail = (
                f", asks 2-{a.batch} median {row['later_median']:.3f} s, max "
                f"{row['later_max']:.3f} s"
                if later
                else ""
            )
            print(
                f"  {c.name:10s} n={n}: mean {row['mean']:.3f} s{tail}"
                + (f"  PROBLEMS: {problems}" if problems else ""),
                flush=True,
            )

        interleave(cells, a.rounds, a.batch, a.order, done)


# ----------------------------------------------------------------------------- main
def main(argv=None) -> None:
    common = argparse.ArgumentParser(add_help=False)
    common.add_argument("--out", required=True, help="JSONL file of our samplers' rows")
    common.add_argument(
        "--cache",
        default=str(RESULTS / "peers.jsonl"),
        help="the peer cache (GPSampler's rows)",
    )
    common.add_argument("--seed", type=int, default=0)
    p = argparse.ArgumentParser(
        prog="python -m benchmarks.speed",
        description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    sub = p.add_subparsers(dest="command", required=True)
    d = sub.add_parser("dims", parents=[common], help="seconds per suggestion at d = 20, 50, 100")
    d.add_argument("--dims", default="20,50,100")
    d.add_argument("--samplers", default=DEFAULT_SAMPLERS)
    d.add_argument(
        "--n-complete", type=int, default=200, help="random completed trials added first"
    )
    d.add_argument("--asks", type=int, default=20, help="consecutive ask+tell timed per sampler")
    d.add_argument("--order", choices=["interleaved", "sequence"], default="interleaved")
    m = sub.add_parser(
        "many", parents=[common], help="1000/1100 completed trials, rounds of 4 concurrent asks"
    )
    m.add_argument("--n-complete", default="1000,1100", help="comma-separated study sizes")
    m.add_argument(
        "--samplers", default=DEFAULT_SAMPLERS, help="drop gp to skip GPSampler (~7 s/ask)"
    )
    m.add_argument("--rounds", type=int, default=5)
    m.add_argument("--batch", type=int, default=4, help="asks per round before any tell")
    m.add_argument("--order", choices=["interleaved", "sequence"], default="interleaved")
    i = sub.add_parser(
        "imports", parents=[common], help="import cost and first suggestion, fresh processes"
    )
    i.add_argument("--runs", type=int, default=7)
    i.add_argument("--warm-ups", type=int, default=1, help="discarded runs of every kind first")
    i.add_argument(
        "--kinds",
        default="optuna,optuna+optuna_egp,first:egp-auto",
        help="what a fresh process times: optuna, optuna+optuna_egp, first:<sampler>",
    )
    i.add_argument(
        "--n-startup", type=int, default=10, help="completed trials added = n_startup_trials"
    )
    e = sub.add_parser("encoding", parents=[common], help="encode+decode of 512 x 100 parameters")
    e.add_argument("--rows", type=int, default=512)
    e.add_argument("--runs", type=int, default=20)
    e.add_argument(
        "--api",
        choices=["auto", "columns", "rows", "both"],
        default="auto",
        help="auto: encode_columns/decode_columns if present, else encode_many/decode",
    )
    w = sub.add_parser("worker", help="imports: one fresh process (prints one JSON line)")
    w.add_argument("kind")
    w.add_argument("n_startup", type=int)
    a = p.parse_args(argv)
    if a.command == "worker":
        print(json.dumps(imports_worker(a.kind, a.n_startup)))
        return
    import warnings

    import optuna

    optuna.logging.set_verbosity(optuna.logging.ERROR)
    warnings.filterwarnings("ignore", category=optuna.exceptions.ExperimentalWarning)
    {"dims": cmd_dims, "many": cmd_many, "imports": cmd_imports, "encoding": cmd_encoding}[
        a.command
    ](a)


if __name__ == "__main__":
    main()
