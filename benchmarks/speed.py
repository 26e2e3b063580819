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
          with the heavy modules present before and after each step. This module imports
          nothing heavy at module level, so a worker starts without numpy, scipy or optuna.
encoding  Encode + decode of 512 rows of a 100-parameter ``shared_core.SearchSpace`` (70 float:
          10 log, 20 stepped; 20 int: 5 log, 5 stepped; 10 categorical with 3-5 choices of mixed
          types), median of 20: ``encode_columns`` + ``decode_columns`` if the space has them, else
          ``encode_many`` + ``[decode(x) for x in X]``; the row says which API was used and whether
          the round trip returned the input values.

Samplers (``--samplers``): names of ``harness.samplers`` (``egp-auto`` = ``EGPTSSampler``'s
defaults, ``bore++``, ``gp`` = Optuna's ``GPSampler``, ...). Our samplers' rows go to ``--out``
(a cell already there at the current commit is skipped); GPSampler's (a peer) go to the peer
cache (``--cache``), keyed by the kind of machine too (``machine_key``: timings of another machine
are no reference). The tables: ``benchmarks.speed_report``.
"""

from __future__ import annotations

import argparse
import json
import math
import statistics
import sys
import time

from benchmarks.harness.cache import PeerCache, machine_key
from benchmarks.harness.probes import ModelProbe
from benchmarks.harness.provenance import commit
from benchmarks.harness.results import RESULTS, ResultsFile
from benchmarks.harness.samplers import is_peer, make_sampler
from benchmarks.harness.studies import H6_BOUNDS, random_study
from benchmarks.harness.workers import run_worker

# The peer cache's protocol version: bump it when what a cell measures changes.
PROTOCOL = 1

DEFAULT_SAMPLERS = "egp-auto,bore++,gp"
HEAVY_MODULES = (
    "scipy",
    "scipy.stats",
    "scipy.optimize",
    "scipy.linalg",
    "torch",
    "sklearn",
    "pandas",
)
# The fields that define a cell of each sub-command (with the sampler, and the commit or the
# peer version, they key a run).
CELLS = {
    "dims": ("bench", "function", "d", "n_complete", "asks", "seed", "machine_key"),
    "many": ("bench", "function", "n_complete", "rounds", "batch", "seed", "machine_key"),
    "imports": ("bench", "kind", "runs", "n_startup_trials"),
    "encoding": ("bench", "api", "rows", "runs", "seed"),
}


class Store:
    """Where the rows of one sub-command go: ours to ``out``, the peers' to the peer cache."""

    def __init__(self, a: argparse.Namespace) -> None:
        self.cell = CELLS[a.command]
        self.out, self.cache = ResultsFile(a.out), PeerCache(a.cache, protocol=PROTOCOL)
        self.ours = self.out.done(("sampler", "commit", *self.cell))
        self.peers = self.cache.done()

    def is_done(self, cell: dict) -> bool:
        sampler = cell.get("sampler")
        if sampler is not None and is_peer(sampler):
            fields = {f: cell.get(f) for f in self.cell}
            return self.cache.key(sampler, **fields) in self.peers
        return (sampler, commit(), *(cell.get(f) for f in self.cell)) in self.ours

    def put(self, row: dict) -> None:
        if row.get("sampler") is not None and is_peer(row["sampler"]):
            self.cache.put(row, self.cell)
        else:
            self.out.append(row)


# ----------------------------------------------------------------------------- timing
def make_study(name: str, seed: int, f, bounds, n_complete: int, **options):
    """A study with ``n_complete`` random completed trials (the same points for every sampler, by
    seed), the probe on its sampler and its distributions."""
    import optuna

    optuna.logging.set_verbosity(optuna.logging.ERROR)
    sampler = make_sampler(name, seed=seed, **options)
    probe = ModelProbe(sampler)
    study, dists = random_study(sampler, f, bounds, n_complete, seed=seed + 1000)
    return study, probe, dists


class Timed:
    """One sampler's study and its per-ask records for ``rounds`` rounds of ``batch`` asks."""

    def __init__(self, name: str, seed: int, f, bounds, n_complete: int) -> None:
        self.name, self.f, self.d = name, f, len(bounds)
        self.study, self.probe, self.dists = make_study(name, seed, f, bounds, n_complete)
        self.ask: list = []
        self.tell: list = []
        self.relative: list = []
        self.calls: list = []
        self.model: list = []

    def round(self, batch: int) -> None:
        import numpy as np

        asks, relative, calls, model, pending = [], [], [], [], []
        for _ in range(batch):
            self.probe.reset()
            t0 = time.perf_counter()
            trial = self.study.ask(self.dists)  # sample_relative runs here (first _suggest)
            asks.append(time.perf_counter() - t0)
            relative.append(sum(self.probe.relative_seconds))
            calls.append(self.probe.asks)
            model.append(self.probe.model_asks)
            pending.append(trial)
        tells = []
        for trial in pending:
            value = self.f(np.array([trial.params[f"x{i}"] for i in range(self.d)]))  # not timed
            t0 = time.perf_counter()
            self.study.tell(trial, value)
            tells.append(time.perf_counter() - t0)
        for store, values in (
            (self.ask, asks),
            (self.tell, tells),
            (self.relative, relative),
            (self.calls, calls),
            (self.model, model),
        ):
            store.append(values)  # one list per round

    def check(self) -> list[str]:
        problems = []
        if any(c != 1 for r in self.calls for c in r):
            problems.append(
                f"{self.name}: sample_relative calls per ask {self.calls} (expected 1 each)"
            )
        if any(m not in (1, None) for r in self.model for m in r):  # None: a peer, unknown
            problems.append(
                f"{self.name}: model suggestions per ask {self.model} (expected 1 each): not "
                "every suggestion came from the model"
            )
        return problems


def _interleave(cells: list[Timed], rounds: int, batch: int, order: str, done) -> None:
    if order == "interleaved":
        for _ in range(rounds):
            for c in cells:
                c.round(batch)
        for c in cells:
            done(c)
    else:
        for c in cells:
            for _ in range(rounds):
                c.round(batch)
            done(c)


def _samplers(arg: str) -> list[str]:
    names = [s for s in arg.split(",") if s]
    for s in names:  # a bad name fails now, not after minutes of other samplers
        make_sampler(s, seed=0)
    return names


# ----------------------------------------------------------------------------- dims
def cmd_dims(a) -> None:
    import numpy as np

    from benchmarks.functions import levy

    store, names = Store(a), _samplers(a.samplers)
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

        _interleave(cells, a.asks, 1, a.order, done)


# ----------------------------------------------------------------------------- many
def cmd_many(a) -> None:
    import numpy as np

    from benchmarks.functions import hartmann6

    store, names = Store(a), _samplers(a.samplers)
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

        _interleave(cells, a.rounds, a.batch, a.order, done)


# ----------------------------------------------------------------------------- imports
def imports_worker(kind: str, n_startup: int) -> dict:
    """In a fresh interpreter (``worker`` sub-command): the seconds of ``import optuna``, then
    (unless ``kind == "optuna"``) of ``import optuna_egp``, then (``kind == "first:<sampler>"``)
    of the sampler's first two model-based suggestions; and the heavy modules loaded after each
    step."""

    def mods():
        return [m for m in HEAVY_MODULES if m in sys.modules]

    rec: dict = {}
    t0 = time.perf_counter()
    import optuna

    rec["import_optuna"] = time.perf_counter() - t0
    rec["modules_after_optuna"] = mods()
    if kind != "optuna":
        t0 = time.perf_counter()
        import optuna_egp  # noqa: F401

        rec["import_optuna_egp_extra"] = time.perf_counter() - t0
        rec["modules_after_optuna_egp"] = mods()
    if kind.startswith("first:"):
        import numpy as np

        from benchmarks.functions import hartmann6

        optuna.logging.set_verbosity(optuna.logging.ERROR)
        rec["modules_before_first_ask"] = mods()
        name = kind[len("first:") :]
        study, probe, dists = make_study(
            name, 0, hartmann6, H6_BOUNDS, n_startup, n_startup_trials=n_startup
        )
        for i in (1, 2):
            probe.reset()
            t0 = time.perf_counter()
            trial = study.ask(dists)
            rec[f"ask{i}"] = time.perf_counter() - t0
            rec[f"ask{i}_relative"] = sum(probe.relative_seconds)
            rec[f"ask{i}_model_asks"] = probe.model_asks
            # the parameters the model suggested (all or none)
            rec[f"ask{i}_relative_params"] = len(dists) if probe.model_asks else 0
            study.tell(trial, hartmann6(np.array([trial.params[f"x{j}"] for j in range(6)])))
            rec[f"modules_after_ask{i}"] = mods()
    return rec


def _imports_run(kind: str, n_startup: int) -> dict:
    t0 = time.perf_counter()
    rec = run_worker("speed", "worker", kind, str(n_startup), timeout=600)
    return {**rec, "process_seconds": time.perf_counter() - t0}


def cmd_imports(a) -> None:
    store = Store(a)
    kinds = [k for k in a.kinds.split(",") if k]
    for k in kinds:
        if k not in ("optuna", "optuna+optuna_egp") and not k.startswith("first:"):
            raise SystemExit(f"unknown kind {k!r}: optuna, optuna+optuna_egp or first:<sampler>")
        if k.startswith("first:"):
            _samplers(k[len("first:") :])
    base = {
        "bench": "imports",
        "runs": a.runs,
        "n_startup_trials": a.n_startup,
        "warm_ups": a.warm_ups,
    }
    todo = [k for k in kinds if not store.is_done({**base, "kind": k})]
    if not todo:
        print("imports: done already", flush=True)
        return
    for _ in range(a.warm_ups):  # bytecode and file caches; discarded
        for k in todo:
            _imports_run(k, a.n_startup)
    runs: dict[str, list] = {k: [] for k in todo}
    for i in range(a.runs):  # interleaved, so load drift hits every kind alike
        for k in todo:
            runs[k].append(_imports_run(k, a.n_startup))
        print(f"imports: run {i + 1}/{a.runs}", flush=True)
    for k in todo:
        rs = runs[k]
        fields = [
            f
            for f in (
                "import_optuna",
                "import_optuna_egp_extra",
                "ask1",
                "ask1_relative",
                "ask2",
                "ask2_relative",
                "process_seconds",
            )
            if f in rs[0]
        ]
        median = {f: statistics.median(r[f] for r in rs) for f in fields}
        row = {
            **base,
            "kind": k,
            "median": median,
            "raw": rs,
            "modules": {f: rs[0][f] for f in rs[0] if f.startswith("modules_")},
        }
        store.put(row)
        print(f"  {k}: " + ", ".join(f"{f} {v:.3f} s" for f, v in median.items()), flush=True)
        print(f"    modules: {row['modules']}", flush=True)


# ----------------------------------------------------------------------------- encoding
def encoding_space():
    """100 parameters: 70 float (10 log, 20 stepped), 20 int (5 log, 5 stepped), 10 categorical."""
    import numpy as np

    from shared_core import CategoricalParam, FloatParam, IntParam, SearchSpace

    params = {}
    for i in range(70):
        if i % 7 == 0:
            params[f"f{i:02d}"] = FloatParam(1e-5, 1.0, log=True)
        elif i % 7 in (1, 2):
            params[f"f{i:02d}"] = (
                FloatParam(0.0, 10.0, step=0.5) if i % 7 == 1 else FloatParam(-3.0, 3.0, step=0.25)
            )
        else:
            params[f"f{i:02d}"] = FloatParam(-5.0, 5.0)
    for i in range(20):
        params[f"i{i:02d}"] = (
            IntParam(1, 1024, log=True)
            if i % 4 == 0
            else IntParam(0, 100, step=5)
            if i % 4 == 1
            else IntParam(-10, 10)
        )
    choices = [
        ("relu", "tanh", "gelu"),
        (1, 2, 4, 8),
        (0.1, "auto", None),
        (True, False, "both"),
        ("sgd", 0, 0.5, None, True),
        ("a", "b", "c", "d"),
        (16, 32, 64),
        (None, 1.5, "x", 3, False),
        ("adam", "adamw", "sgd", "rmsprop"),
        (0, 1, "two"),
    ]
    for i, c in enumerate(choices):
        params[f"c{i}"] = CategoricalParam(c)
    order = np.random.default_rng(0).permutation(list(params))  # mix the kinds in column order
    return SearchSpace({name: params[name] for name in order})


def _same(a, b) -> bool:
    if isinstance(a, float) or isinstance(b, float):
        return type(a) is type(b) and math.isclose(a, b, rel_tol=1e-9, abs_tol=1e-12)
    return type(a) is type(b) and a == b


def _plain(v):
    """numpy scalars from a columnar decode -> Python values, for the round-trip comparison."""
    return v.item() if type(v).__module__ == "numpy" else v


def cmd_encoding(a) -> None:
    import numpy as np

    store, space = Store(a), encoding_space()
    has_columns = hasattr(space, "encode_columns") and hasattr(space, "decode_columns")
    if a.api == "auto":
        apis = ["columns" if has_columns else "rows"]
    elif a.api == "both":
        apis = ["columns", "rows"] if has_columns else ["rows"]
    else:
        apis = [a.api]
    if "columns" in apis and not has_columns:
        raise SystemExit("SearchSpace has no encode_columns/decode_columns in this tree")
    rng = np.random.default_rng(a.seed)
    rows = [space.decode(x) for x in space.sample(rng, a.rows)]
    columns = {name: [r[name] for r in rows] for name in space.names}
    X_rows = space.encode_many(rows)
    for api in apis:
        base = {"bench": "encoding", "api": api, "rows": a.rows, "runs": a.runs, "seed": a.seed}
        if store.is_done(base):
            print(f"encoding {api}: done already", flush=True)
            continue
        enc, dec, total = [], [], []
        for _ in range(a.runs + 1):  # the first is a discarded warm-up
            t0 = time.perf_counter()
            if api == "columns":
                X = space.encode_columns(columns)
                t1 = time.perf_counter()
                back = space.decode_columns(X)
            else:
                X = space.encode_many(rows)
                t1 = time.perf_counter()
                back = [space.decode(x) for x in X]
            t2 = time.perf_counter()
            enc.append(t1 - t0)
            dec.append(t2 - t1)
            total.append(t2 - t0)
        enc, dec, total = enc[1:], dec[1:], total[1:]
        if api == "columns":
            decoded = [{name: _plain(back[name][i]) for name in space.names} for i in range(a.rows)]
        else:
            decoded = back
        mismatches = sum(
            not _same(r[name], s[name]) for r, s in zip(rows, decoded) for name in space.names
        )
        X = np.asarray(X, dtype=float)
        row = {
            **base,
            "n_params": len(space.params),
            "encoded_dim": space.dim,
            "kinds": {
                "float": 70,
                "float_log": 10,
                "float_step": 20,
                "int": 20,
                "int_log": 5,
                "int_step": 5,
                "categorical": 10,
            },
            "seconds": total,
            "encode_seconds": enc,
            "decode_seconds": dec,
            "median": statistics.median(total),
            "encode_median": statistics.median(enc),
            "decode_median": statistics.median(dec),
            "roundtrip_mismatches": int(mismatches),
            "roundtrip_ok": mismatches == 0,
            "max_abs_diff_vs_encode_many": float(np.max(np.abs(X - X_rows)))
            if X.shape == X_rows.shape
            else None,
        }
        store.put(row)
        print(
            f"encoding {api}: round trip median {row['median'] * 1e3:.2f} ms (encode "
            f"{row['encode_median'] * 1e3:.2f}, decode {row['decode_median'] * 1e3:.2f}); round "
            f"trip ok: {row['roundtrip_ok']} ({mismatches} mismatches); |X - encode_many| max "
            f"{row['max_abs_diff_vs_encode_many']}",
            flush=True,
        )


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
