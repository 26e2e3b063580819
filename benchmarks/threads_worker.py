"""A worker process of ``benchmarks.threads`` (``python -m benchmarks.threads worker SPEC``): its
set-up (untimed), the barrier, then the timed asks."""

from __future__ import annotations

import json
import os
import pathlib
import sys
import time

from benchmarks.functions import hartmann6
from benchmarks.harness.probes import ModelProbe
from benchmarks.harness.samplers import make_sampler
from benchmarks.harness.studies import H6_BOUNDS, random_study
from benchmarks.harness.threads import THREAD_VARS
from benchmarks.speed_timing import timed_asks

D = 6


def _pools() -> list[dict]:
    from threadpoolctl import threadpool_info

    return [
        {
            "user_api": p["user_api"],
            "internal_api": p["internal_api"],
            "file": os.path.basename(p["filepath"]),
            "num_threads": p["num_threads"],
        }
        for p in threadpool_info()
    ]


def _pool_strings(pools: list[dict]) -> list[str]:
    """``internal_api/library file=threads`` per pool (numpy and scipy each ship their own
    OpenBLAS)."""
    return sorted(f"{p['internal_api']}/{p['file']}={p['num_threads']}" for p in pools)


def _random_study(sampler, n: int, seed: int):
    """In-memory study with ``n`` random completed Hartmann-6 trials (as ``speed``'s)."""
    return random_study(sampler, hartmann6, H6_BOUNDS, n, seed=seed + 1000)


def _warm_up(spec: dict) -> dict:
    """One model-based ask on a 12-trial study (lazy imports), reading the pools inside the
    sampler."""
    sampler = make_sampler(spec["sampler"], seed=spec["seed"], max_threads=spec["max_threads"])
    seen: list[list[dict]] = []
    # in the model's suggest, i.e. inside the sampler's thread limit
    probe = ModelProbe(sampler, in_model=lambda: seen.append(_pools()))
    study, dists = _random_study(sampler, 12, spec["seed"] + 1)
    timed_asks(study, dists, hartmann6, probe, 1)
    return {
        "threadpools_in_sampler": _pool_strings(seen[0]) if seen else None,
        "blas_threads_in_sampler": _blas_threads(seen[0]) if seen else None,
        "threadpools_after": _pool_strings(_pools()),
    }


def _blas_threads(pools: list[dict]) -> int | None:
    counts = [p["num_threads"] for p in pools if p["user_api"] == "blas"]
    return max(counts) if counts else None


def _wait_for(path: pathlib.Path, timeout: float) -> None:
    deadline = time.monotonic() + timeout
    while not path.exists():
        if time.monotonic() > deadline:
            raise TimeoutError(f"no {path} after {timeout} s")
        time.sleep(0.002)


def worker(spec: dict) -> None:
    """One worker process: set up (untimed), wait at the barrier, time ``asks`` ask+tell; print
    its record as one JSON line."""
    t0 = time.perf_counter()
    import optuna
    import scipy.optimize  # noqa: F401  (imported before the timed asks, as the samplers do)
    import threadpoolctl  # noqa: F401

    import optuna_egp  # noqa: F401

    optuna.logging.set_verbosity(optuna.logging.ERROR)
    rec: dict = {"import_seconds": time.perf_counter() - t0, "pid": os.getpid()}
    pools = _pools()  # before any limit
    torch = sys.modules.get("torch")
    rec.update(
        blas_threads=_blas_threads(pools),
        threadpools=_pool_strings(pools),
        torch_threads=torch.get_num_threads() if torch is not None else None,
        thread_env={var: os.environ.get(var) for var in THREAD_VARS},
    )
    t0 = time.perf_counter()
    rec.update(_warm_up(spec))
    rec["warm_up_seconds"] = time.perf_counter() - t0
    t0 = time.perf_counter()
    sampler = make_sampler(spec["sampler"], seed=spec["seed"], max_threads=spec["max_threads"])
    probe = ModelProbe(sampler)
    study, dists = _random_study(sampler, spec["n_complete"], spec["seed"])
    rec["setup_seconds"] = time.perf_counter() - t0

    barrier = pathlib.Path(spec["barrier"])
    (barrier / f"ready.{spec['index']}").touch()
    _wait_for(barrier / "go", spec["timeout"])
    rec["go_lag"] = time.time() - float((barrier / "go").read_text())
    asks = timed_asks(study, dists, hartmann6, probe, spec["asks"])
    windows = asks.pop("windows")
    rec.update(asks, cold=[i == 0 for i in range(spec["asks"])], ask_windows=windows)
    print(json.dumps(rec), flush=True)
