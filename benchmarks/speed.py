"""Speed: seconds per suggestion by dimension (``dims``) and by study size (``many``), import cost
(``imports``, in ``speed_imports``), search-space encoding (``encoding``, in ``speed_encoding``).
What each measures: ``docs/benchmarks/index.md``; the tables: ``speed_report``.

    python -m benchmarks.speed dims|many|imports|encoding --out benchmarks/results/speed_<cmd>.jsonl
"""

from __future__ import annotations

import argparse
import json

from benchmarks.harness.cache import machine_key
from benchmarks.harness.results import RESULTS
from benchmarks.speed_encoding import cmd_encoding
from benchmarks.speed_imports import cmd_imports, imports_worker
from benchmarks.speed_timing import Store, Timed, interleave, ints, quiet, sampler_names

DEFAULT_SAMPLERS = "egp-auto,bore++,gp"
# The fields that define a cell of each sub-command (with the sampler, and the commit or the
# peer version, they key a run).
CELLS = {
    "dims": ("bench", "function", "d", "n_complete", "asks", "seed", "machine_key"),
    "many": ("bench", "function", "n_complete", "rounds", "batch", "seed", "machine_key"),
    "imports": ("bench", "kind", "runs", "n_startup_trials"),
    "encoding": ("bench", "api", "rows", "runs", "seed"),
}


def dims_row(t: Timed) -> dict:
    """``dims``: one ask per round."""
    import numpy as np

    ask, tell, relative = ([r[0] for r in t.rounds[k]] for k in Timed.FIELDS[:3])
    total = [x + y for x, y in zip(ask, tell)]
    return {
        "bounds": [-5.0, 5.0],
        "seconds": total,
        "ask_seconds": ask,
        "tell_seconds": tell,
        "relative_seconds": relative,
        "relative_calls": [r[0] for r in t.rounds["relative_calls"]],
        "model_asks": [r[0] for r in t.rounds["model_asks"]],
        "mean": float(np.mean(total)),
        "first": total[0],
        "median": float(np.median(total)),
    }


def many_row(t: Timed) -> dict:
    """``many``: rounds of ``batch`` asks, every list per round."""
    import numpy as np

    asks = t.rounds["seconds"]
    flat, later = [x for r in asks for x in r], [x for r in asks for x in r[1:]]
    return {
        "ask_seconds": asks,
        "tell_seconds": t.rounds["tell_seconds"],
        "relative_seconds": t.rounds["relative_seconds"],
        "relative_calls": t.rounds["relative_calls"],
        "model_asks": t.rounds["model_asks"],
        "mean": float(np.mean(flat)),
        "first": flat[0],
        "later_median": float(np.median(later)) if later else None,
        "later_max": float(np.max(later)) if later else None,
    }


def cmd_timed(a, store: Store) -> None:
    """``dims`` (Levy on [-5, 5]^d, one ask per round) and ``many`` (Hartmann-6, rounds of
    ``batch`` concurrent asks): every sampler's study of each size, asked round by round."""
    import numpy as np

    from benchmarks import functions

    names = sampler_names(a.samplers)
    if a.command == "dims":
        function, rounds, batch, row_of = "levy", a.asks, 1, dims_row
        cells = [
            ({"d": d, "n_complete": a.n_complete, "asks": a.asks}, (-5.0, 5.0)) for d in a.dims
        ]
    else:
        function, rounds, batch, row_of = "hartmann6", a.rounds, a.batch, many_row
        settings = {"rounds": a.rounds, "batch": a.batch}
        cells = [({"d": 6, "n_complete": n, **settings}, (0.0, 1.0)) for n in a.n_complete]
    for cell, bound in cells:
        base = {"bench": a.command, **cell, "seed": a.seed, "function": function}
        base["machine_key"] = machine_key()
        size = f"d={cell['d']}" if a.command == "dims" else f"n={cell['n_complete']}"
        todo = [s for s in names if not store.is_done({**base, "sampler": s})]
        print(f"{a.command} {size}: {', '.join(todo) or 'done already'} ({a.order})", flush=True)
        bounds = np.array([bound] * cell["d"])
        f = getattr(functions, function)
        studies = [Timed(s, a.seed, f, bounds, cell["n_complete"]) for s in todo]
        for t in interleave(studies, rounds, batch, a.order):
            problems = t.check()
            row = store.put(
                {
                    **base,
                    "sampler": t.name,
                    "sampler_class": type(t.study.sampler).__name__,
                    "order": a.order,
                    **row_of(t),
                    "problems": problems,
                }
            )
            print(f"  {t.name:10s} {size}: mean {row['mean']:.3f} s {problems or ''}", flush=True)


def main(argv=None) -> None:
    common = argparse.ArgumentParser(add_help=False)
    common.add_argument("--out", required=True, help="JSONL file of our samplers' rows")
    common.add_argument("--cache", default=str(RESULTS / "peers.jsonl"), help="the peer cache")
    common.add_argument("--seed", type=int, default=0)
    timed = argparse.ArgumentParser(add_help=False, parents=[common])
    timed.add_argument("--samplers", default=DEFAULT_SAMPLERS, help="drop gp: no GPSampler")
    timed.add_argument("--order", choices=["interleaved", "sequence"], default="interleaved")
    p = argparse.ArgumentParser(prog="python -m benchmarks.speed", description=__doc__)
    sub = p.add_subparsers(dest="command", required=True)
    d = sub.add_parser("dims", parents=[timed], help="seconds per suggestion at d = 20, 50, 100")
    d.add_argument("--dims", default="20,50,100", type=ints)
    d.add_argument("--n-complete", type=int, default=200, help="random completed trials first")
    d.add_argument("--asks", type=int, default=20, help="consecutive ask+tell per sampler")
    m = sub.add_parser("many", parents=[timed], help="rounds of concurrent asks, large studies")
    m.add_argument("--n-complete", default="1000,1100", type=ints, help="study sizes")
    m.add_argument("--rounds", type=int, default=5)
    m.add_argument("--batch", type=int, default=4, help="asks per round before any tell")
    i = sub.add_parser("imports", parents=[common], help="import cost, first suggestion")
    i.add_argument("--runs", type=int, default=7)
    i.add_argument("--warm-ups", type=int, default=1, help="discarded runs of every kind first")
    i.add_argument(
        "--kinds",
        default="optuna,optuna+optuna_egp,first:egp-auto",
        help="what a fresh process times: optuna, optuna+optuna_egp, first:<sampler>",
    )
    i.add_argument("--n-startup", type=int, default=10, help="completed trials = n_startup")
    e = sub.add_parser("encoding", parents=[common], help="encode+decode, 512 x 100 parameters")
    e.add_argument("--rows", type=int, default=512)
    e.add_argument("--runs", type=int, default=20)
    e.add_argument("--api", choices=["auto", "columns", "rows", "both"], default="auto")
    w = sub.add_parser("worker", help="imports: one fresh process (prints one JSON line)")
    w.add_argument("kind")
    w.add_argument("n_startup", type=int)
    a = p.parse_args(argv)
    if a.command == "worker":
        print(json.dumps(imports_worker(a.kind, a.n_startup)))
        return
    quiet()
    commands = {"dims": cmd_timed, "many": cmd_timed, "imports": cmd_imports}
    commands.get(a.command, cmd_encoding)(a, Store(a.out, a.cache, CELLS[a.command], config=True))


if __name__ == "__main__":
    main()
