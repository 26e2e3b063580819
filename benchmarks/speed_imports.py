"""``python -m benchmarks.speed imports``: import cost and the first model-based suggestion, each in
fresh interpreters (``speed worker``). This module imports nothing heavy at module level.
"""

from __future__ import annotations

import statistics
import sys
import time

from benchmarks.harness.studies import H6_BOUNDS
from benchmarks.harness.workers import run_worker
from benchmarks.speed_timing import make_study, sampler_names, timed_asks

HEAVY_MODULES = (
    "scipy",
    "scipy.stats",
    "scipy.optimize",
    "scipy.linalg",
    "torch",
    "sklearn",
    "pandas",
)
MEDIANS = (
    "import_optuna",
    "import_optuna_egp_extra",
    "ask1",
    "ask1_relative",
    "ask2",
    "ask2_relative",
)


def imports_worker(kind: str, n_startup: int) -> dict:
    """In a fresh interpreter: the seconds of ``import optuna``, then (unless ``kind ==
    "optuna"``) of ``import optuna_egp``, then (``kind == "first:<sampler>"``) of the sampler's
    first two model-based suggestions; and the heavy modules loaded after each step."""

    def mods():
        return [m for m in HEAVY_MODULES if m in sys.modules]

    rec: dict = {}
    t0 = time.perf_counter()
    import optuna  # noqa: F401

    rec["import_optuna"] = time.perf_counter() - t0
    rec["modules_after_optuna"] = mods()
    if kind != "optuna":
        t0 = time.perf_counter()
        import optuna_egp  # noqa: F401

        rec["import_optuna_egp_extra"] = time.perf_counter() - t0
        rec["modules_after_optuna_egp"] = mods()
    if kind.startswith("first:"):
        from benchmarks.functions import hartmann6

        rec["modules_before_first_ask"] = mods()
        name = kind[len("first:") :]
        study, probe, dists = make_study(
            name, 0, hartmann6, H6_BOUNDS, n_startup, n_startup_trials=n_startup
        )
        for i in (1, 2):
            ask = timed_asks(study, dists, hartmann6, probe, 1)
            rec[f"ask{i}"], rec[f"ask{i}_relative"] = ask["seconds"][0], ask["relative_seconds"][0]
            rec[f"ask{i}_model_asks"] = ask["model_asks"][0]
            # the parameters the model suggested (all or none)
            rec[f"ask{i}_relative_params"] = len(dists) if ask["model_asks"][0] else 0
            rec[f"modules_after_ask{i}"] = mods()
    return rec


def _imports_run(kind: str, n_startup: int) -> dict:
    t0 = time.perf_counter()
    rec = run_worker("speed", "worker", kind, str(n_startup), timeout=600)
    return {**rec, "process_seconds": time.perf_counter() - t0}


def cmd_imports(a, store) -> None:
    kinds = [k for k in a.kinds.split(",") if k]
    for k in kinds:
        if k not in ("optuna", "optuna+optuna_egp") and not k.startswith("first:"):
            raise SystemExit(f"unknown kind {k!r}: optuna, optuna+optuna_egp or first:<sampler>")
        if k.startswith("first:"):
            sampler_names(k[len("first:") :])
    base = {"bench": "imports", "runs": a.runs, "n_startup_trials": a.n_startup}
    base["warm_ups"] = a.warm_ups
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
        fields = [f for f in (*MEDIANS, "process_seconds") if f in rs[0]]
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
