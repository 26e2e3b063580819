"""Speed benchmarks: seconds per suggestion by dimension and by study size, import cost, encoding.

Every measurement is appended as one JSON line to ``--out`` with ``date`` (UTC), ``commit``
(``git rev-parse --short HEAD``, ``+dirty`` if files outside ``benchmarks/results/`` differ from
it), ``python``, the thread settings and the raw timings. Runs are resumable: a cell already in the
file for the same commit, settings and threads is skipped (``--force`` measures it again).
``benchmarks/report.py`` turns the files into tables (the latest row of each cell is shown).

Sub-commands (full runs; see benchmarks/README.md):
    python benchmarks/speed.py dims --out benchmarks/results/speed_dims.jsonl
    python benchmarks/speed.py many --out benchmarks/results/speed_many.jsonl
    python benchmarks/speed.py imports --out benchmarks/results/speed_imports.jsonl
    python benchmarks/speed.py encoding --out benchmarks/results/speed_encoding.jsonl

dims      Levy function on [-5, 5]^d (d = 20, 50, 100; float parameters x0..x{d-1}), 200 random
          completed trials added with ``study.add_trials``, then 20 consecutive ask+tell per
          sampler. Each ask is ``study.ask(fixed_distributions)``: Optuna computes the trial's
          relative parameters (``infer_relative_search_space`` + ``sample_relative``, i.e. the model
          refit and the acquisition) on the first ``_suggest`` inside ``ask``, so the timed region
          contains the whole suggestion; the script wraps ``sampler.sample_relative`` to check it
          ran once per ask and returned all d parameters, and records the seconds spent in it.
          Samplers are interleaved: ask i of every sampler runs before ask i + 1 of any, so load
          drift on a shared machine hits all of them alike (``--order sequence`` runs them one after
          the other).
many      Hartmann-6 (d = 6), 1000 and 1100 random completed trials, then 5 rounds of 4 concurrent
          asks (4 asks before any tell, then 4 tells); records every ask's seconds. Samplers
          interleaved round by round. ``--samplers egp-auto,bore++`` leaves out GPSampler (~7
          s/ask).
imports   Fresh interpreters (median of 7, after one discarded warm-up): ``import optuna`` alone;
          ``import optuna`` then ``import optuna_egp`` (the extra seconds); and the first
          model-based suggestion (10 completed trials added, ``n_startup_trials=10``, the 11th ask;
          the 12th for comparison), with the heavy modules present before and after each step.
encoding  Encode + decode of 512 rows of a 100-parameter ``shared_core.SearchSpace`` (70 float:
          10 log, 20 stepped; 20 int: 5 log, 5 stepped; 10 categorical with 3-5 choices of mixed
          types), median of 20: ``encode_columns`` + ``decode_columns`` if the space has them, else
          ``encode_many`` + ``[decode(x) for x in X]``; the row says which API was used and whether
          the round trip returned the input values.

Samplers (``--samplers``): ``egp-auto`` = ``EGPTSSampler(seed=seed)`` (the default, acquisition
"auto"), ``bore++`` = ``BORESampler(seed=seed)``, ``gp`` = ``optuna.samplers.GPSampler(seed=seed)``;
any other name of ``harness/samplers.py`` (``egp-ts``, ``egp-ei``, ``bore``, ...) also works.
Threads: ``OMP_NUM_THREADS``, ``OPENBLAS_NUM_THREADS``, ``MKL_NUM_THREADS`` are set to ``--threads``
(default 1) before numpy is imported, and ``torch.set_num_threads(--threads)``, for every sampler.
"""

from __future__ import annotations

import argparse
import os
import sys

_THREAD_VARS = ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS")


def _early_threads(argv) -> int:
    """``--threads`` must take effect before numpy (and its BLAS) is imported."""
    early = argparse.ArgumentParser(add_help=False)
    early.add_argument("--threads", type=int, default=1)
    n = early.parse_known_args(argv)[0].threads
    for var in _THREAD_VARS:
        os.environ[var] = str(n)
    return n


_THREADS = _early_threads(sys.argv[1:])

import json
import math
import pathlib
import platform
import statistics
import subprocess
import time
import warnings

import numpy as np
import optuna

HERE = pathlib.Path(__file__).resolve().parent
ROOT = HERE.parent
sys.path.insert(0, str(HERE))
from functions import hartmann6, levy

from benchmarks.harness.probes import RelativeProbe
from benchmarks.harness.provenance import commit, utc_now

optuna.logging.set_verbosity(optuna.logging.ERROR)
warnings.filterwarnings("ignore", category=optuna.exceptions.ExperimentalWarning)

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


# ----------------------------------------------------------------------------- provenance
_COMMIT = commit()  # once, before this run appends anything


def thread_settings() -> dict:
    out = {"threads": _THREADS, **{var: os.environ.get(var) for var in _THREAD_VARS}}
    out["torch_num_threads"] = (
        sys.modules["torch"].get_num_threads() if "torch" in sys.modules else None
    )
    try:
        from threadpoolctl import threadpool_info

        out["threadpools"] = sorted(
            {f"{p['internal_api']}={p['num_threads']}" for p in threadpool_info()}
        )
    except ImportError:
        pass
    return out


def header(bench: str) -> dict:
    import optuna_egp

    versions = {"optuna": optuna.__version__, "numpy": np.__version__}
    if "torch" in sys.modules:
        versions["torch"] = sys.modules["torch"].__version__
    return {
        "bench": bench,
        "date": utc_now(),
        "commit": _COMMIT,
        "python": platform.python_version(),
        "machine": platform.machine(),
        "cpu_count": os.cpu_count(),
        "thread_settings": thread_settings(),
        "versions": versions,
        "egp_path": str(pathlib.Path(optuna_egp.__file__).resolve().parent.parent),
    }


def _set_torch_threads(needed: bool) -> None:
    """Same torch threads for every sampler (GPSampler needs torch; imported up front when used)."""
    try:
        import torch
    except ImportError:
        if needed:
            raise
        return
    torch.set_num_threads(_THREADS)


class Output:
    """Append-only JSONL with resumption: ``key(row)`` identifies a cell."""

    KEY_FIELDS = (
        "bench",
        "commit",
        "sampler",
        "d",
        "n_complete",
        "asks",
        "rounds",
        "batch",
        "seed",
        "kind",
        "runs",
        "rows",
        "api",
        "function",
        "n_startup_trials",
    )

    def __init__(self, path: str, force: bool) -> None:
        self.path = pathlib.Path(path)
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self.done: set = set()
        if self.path.exists() and not force:
            for line in self.path.read_text().splitlines():
                if line.strip():
                    self.done.add(self.key(json.loads(line)))

    def key(self, row: dict) -> tuple:
        return tuple(json.dumps(row.get(k)) for k in self.KEY_FIELDS) + (
            row.get("thread_settings", {}).get("threads"),
        )

    def is_done(self, row: dict) -> bool:
        return (
            self.key({"commit": _COMMIT, "thread_settings": {"threads": _THREADS}, **row})
            in self.done
        )

    def write(self, row: dict) -> None:
        with self.path.open("a") as fh:
            fh.write(json.dumps(row) + "\n")
        self.done.add(self.key(row))


# ----------------------------------------------------------------------------- samplers and timing
def make_sampler(name: str, seed: int, n_startup_trials: int = 10):
    from optuna_egp import BORESampler, EGPTSSampler

    if name == "egp-auto":
        return EGPTSSampler(seed=seed, n_startup_trials=n_startup_trials)
    if name == "bore++":
        return BORESampler(seed=seed, n_startup_trials=n_startup_trials)
    if name == "gp":
        return optuna.samplers.GPSampler(seed=seed, n_startup_trials=n_startup_trials)
    from benchmarks.harness.samplers import make_sampler as harness_sampler  # the other names

    return harness_sampler(name, seed=seed)


def make_study(name: str, seed: int, f, bounds: np.ndarray, n_complete: int):
    """Study with ``n_complete`` random completed
    trials (same points for every sampler, by seed)."""
    sampler = make_sampler(name, seed)
    probe = RelativeProbe(sampler)
    study = optuna.create_study(sampler=sampler)
    dists = {
        f"x{i}": optuna.distributions.FloatDistribution(float(lo), float(hi))
        for i, (lo, hi) in enumerate(bounds)
    }
    X = np.random.default_rng(seed + 1000).uniform(
        bounds[:, 0], bounds[:, 1], (n_complete, len(bounds))
    )
    study.add_trials(
        [
            optuna.trial.create_trial(
                params={f"x{i}": float(v) for i, v in enumerate(x)}, distributions=dists, value=f(x)
            )
            for x in X
        ]
    )
    return study, probe, dists


class Timed:
    """One sampler's study and its per-ask records for ``rounds`` rounds of ``batch`` asks."""

    def __init__(self, name: str, seed: int, f, bounds, n_complete: int) -> None:
        self.name, self.f, self.d = name, f, len(bounds)
        self.study, self.probe, self.dists = make_study(name, seed, f, bounds, n_complete)
        self.ask, self.tell, self.relative, self.calls, self.n_params = [], [], [], [], []

    def round(self, batch: int) -> None:
        asks, relative, calls, n_params, pending = [], [], [], [], []
        for _ in range(batch):
            self.probe.reset()
            t0 = time.perf_counter()
            trial = self.study.ask(self.dists)  # sample_relative runs here (first _suggest)
            asks.append(time.perf_counter() - t0)
            relative.append(self.probe.seconds)
            calls.append(self.probe.calls)
            n_params.append(self.probe.n_params)
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
            (self.n_params, n_params),
        ):
            store.append(values)  # one list per round

    def check(self) -> list[str]:
        problems = []
        if any(c != 1 for r in self.calls for c in r):
            problems.append(
                f"{self.name}: sample_relative calls per ask {self.calls} (expected 1 each)"
            )
        if any(n != self.d for r in self.n_params for n in r):
            problems.append(
                f"{self.name}: sample_relative returned {self.n_params} params (expected "
                f"{self.d}): not every parameter came from the model"
            )
        return problems


def _interleave(cells: list[Timed], rounds: int, batch: int, order: str, done_cb) -> None:
    if order == "interleaved":
        for _ in range(rounds):
            for c in cells:
                c.round(batch)
        for c in cells:
            done_cb(c)
    else:
        for c in cells:
            for _ in range(rounds):
                c.round(batch)
            done_cb(c)


def _samplers(arg: str) -> list[str]:
    names = [s for s in arg.split(",") if s]
    for s in names:  # a bad name fails now, not after minutes of other samplers
        make_sampler(s, 0)
    return names


# ----------------------------------------------------------------------------- dims
def cmd_dims(a) -> None:
    out = Output(a.out, a.force)
    names = _samplers(a.samplers)
    _set_torch_threads("gp" in names)
    for d in map(int, a.dims.split(",")):
        base = {
            "bench": "dims",
            "d": d,
            "n_complete": a.n_complete,
            "asks": a.asks,
            "seed": a.seed,
            "function": "levy",
        }
        todo = [s for s in names if not out.is_done({**base, "sampler": s})]
        if not todo:
            print(f"dims d={d}: done already in {out.path}", flush=True)
            continue
        bounds = np.array([[-5.0, 5.0]] * d)
        print(f"dims d={d}: {', '.join(todo)} ({a.order})", flush=True)
        cells = [Timed(s, a.seed, levy, bounds, a.n_complete) for s in todo]

        def done(c: Timed, base: dict = base, d: int = d) -> None:
            ask, tell, relative = ([r[0] for r in rounds] for rounds in (c.ask, c.tell, c.relative))
            total = [x + y for x, y in zip(ask, tell)]
            problems = c.check()
            row = {
                **header("dims"),
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
                "relative_params": [r[0] for r in c.n_params],
                "mean": float(np.mean(total)),
                "first": total[0],
                "median": float(np.median(total)),
                "problems": problems,
            }
            out.write(row)
            print(
                f"  {c.name:10s} d={d}: mean {row['mean']:.3f} s, first {row['first']:.3f} s, "
                f"in sample_relative {np.mean(relative):.3f} s"
                + (f"  PROBLEMS: {problems}" if problems else ""),
                flush=True,
            )

        _interleave(cells, a.asks, 1, a.order, done)


# ----------------------------------------------------------------------------- many
def cmd_many(a) -> None:
    out = Output(a.out, a.force)
    names = _samplers(a.samplers)
    _set_torch_threads("gp" in names)
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
        }
        todo = [s for s in names if not out.is_done({**base, "sampler": s})]
        if not todo:
            print(f"many n={n}: done already in {out.path}", flush=True)
            continue
        print(f"many n={n}: {', '.join(todo)} ({a.order})", flush=True)
        cells = [Timed(s, a.seed, hartmann6, bounds, n) for s in todo]

        def done(c: Timed, base: dict = base, n: int = n) -> None:
            flat = [x for r in c.ask for x in r]
            later = [x for r in c.ask for x in r[1:]]
            problems = c.check()
            row = {
                **header("many"),
                **base,
                "sampler": c.name,
                "sampler_class": type(c.study.sampler).__name__,
                "order": a.order,
                "ask_seconds": c.ask,
                "tell_seconds": c.tell,
                "relative_seconds": c.relative,
                "relative_calls": c.calls,
                "relative_params": c.n_params,
                "mean": float(np.mean(flat)),
                "first": flat[0],
                "later_median": float(np.median(later)) if later else None,
                "later_max": float(np.max(later)) if later else None,
                "problems": problems,
            }
            out.write(row)
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
_CHILD = r"""
import json, sys, time
HEAVY = {heavy!r}
def mods():
    return [m for m in HEAVY if m in sys.modules]
rec = {{}}
t0 = time.perf_counter()
import optuna
rec["import_optuna"] = time.perf_counter() - t0
rec["modules_after_optuna"] = mods()
kind = {kind!r}
if kind != "optuna":
    t0 = time.perf_counter()
    import optuna_egp
    rec["import_optuna_egp_extra"] = time.perf_counter() - t0
    rec["modules_after_optuna_egp"] = mods()
if kind.startswith("first:"):
    import numpy as np
    from functions import hartmann6
    import speed
    optuna.logging.set_verbosity(optuna.logging.ERROR)
    rec["modules_before_first_ask"] = mods()
    study, probe, dists = speed.make_study(
        kind[len("first:"):], 0, hartmann6, np.array([[0.0, 1.0]] * 6), {n_startup}
    )
    for i in (1, 2):
        probe.reset()
        t0 = time.perf_counter()
        trial = study.ask(dists)
        rec[f"ask{{i}}"] = time.perf_counter() - t0
        rec[f"ask{{i}}_relative"] = probe.seconds
        rec[f"ask{{i}}_relative_params"] = probe.n_params
        study.tell(trial, hartmann6(np.array([trial.params[f"x{{j}}"] for j in range(6)])))
        rec[f"modules_after_ask{{i}}"] = mods()
print("RESULT " + json.dumps(rec))
"""


def _child(kind: str, n_startup: int) -> dict:
    code = _CHILD.format(heavy=HEAVY_MODULES, kind=kind, n_startup=n_startup)
    env = {**os.environ, **{var: str(_THREADS) for var in _THREAD_VARS}}
    t0 = time.perf_counter()
    # cwd = benchmarks/ so that `functions` and `speed` import and the repository root does not
    # shadow the installed packages (or a PYTHONPATH snapshot).
    res = subprocess.run(
        [sys.executable, "-c", code], cwd=HERE, env=env, capture_output=True, text=True, timeout=600
    )
    wall = time.perf_counter() - t0
    lines = [ln for ln in res.stdout.splitlines() if ln.startswith("RESULT ")]
    if res.returncode != 0 or not lines:
        raise RuntimeError(f"child {kind!r} failed ({res.returncode}):\n{res.stderr[-3000:]}")
    return {**json.loads(lines[-1][len("RESULT ") :]), "process_seconds": wall}


def cmd_imports(a) -> None:
    out = Output(a.out, a.force)
    kinds = ["optuna", "optuna+optuna_egp"] + [f"first:{s}" for s in _samplers(a.samplers)]
    todo = [
        k
        for k in kinds
        if not out.is_done(
            {"bench": "imports", "kind": k, "runs": a.runs, "n_startup_trials": a.n_startup}
        )
    ]
    if not todo:
        print(f"imports: done already in {out.path}", flush=True)
        return
    for k in todo:  # warm-up (bytecode and file caches), discarded
        _child(k, a.n_startup)
    runs = {k: [] for k in todo}
    for i in range(a.runs):  # interleaved, so load drift hits every kind alike
        for k in todo:
            runs[k].append(_child(k, a.n_startup))
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
            **header("imports"),
            "bench": "imports",
            "kind": k,
            "runs": a.runs,
            "n_startup_trials": a.n_startup,
            "median": median,
            "raw": rs,
            "modules": {f: rs[0][f] for f in rs[0] if f.startswith("modules_")},
        }
        out.write(row)
        print(f"  {k}: " + ", ".join(f"{f} {v:.3f} s" for f, v in median.items()), flush=True)
        print(f"    modules: {row['modules']}", flush=True)


# ----------------------------------------------------------------------------- encoding
def encoding_space():
    """100 parameters: 70 float (10 log, 20 stepped), 20 int (5 log, 5 stepped), 10 categorical."""
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
    return v.item() if isinstance(v, np.generic) else v


def cmd_encoding(a) -> None:
    out = Output(a.out, a.force)
    space = encoding_space()
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
        if out.is_done(base):
            print(f"encoding {api}: done already in {out.path}", flush=True)
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
            **header("encoding"),
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
        out.write(row)
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
    common.add_argument("--out", required=True, help="JSONL file the rows are appended to")
    common.add_argument(
        "--threads",
        type=int,
        default=1,
        help="OMP/OPENBLAS/MKL_NUM_THREADS and torch.set_num_threads (default 1)",
    )
    common.add_argument("--seed", type=int, default=0)
    common.add_argument("--force", action="store_true", help="measure again cells already in --out")
    p = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
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
    i.add_argument(
        "--samplers", default="egp-auto", help="samplers whose first suggestion is timed"
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
    a = p.parse_args(argv)
    assert a.threads == _THREADS  # parsed early, before numpy
    {"dims": cmd_dims, "many": cmd_many, "imports": cmd_imports, "encoding": cmd_encoding}[
        a.command
    ](a)


if __name__ == "__main__":
    main()
