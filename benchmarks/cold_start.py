"""Cold starts: the first suggestion of a new worker process joining a large study.

A new or restarted worker has no fitted model. With ``share_model=True`` (the default of
``EGPTSSampler``) it builds its posteriors with the hyperparameters and output transform another
worker recorded in the study; with ``share_model=False`` it fits them from scratch. Target: the
first suggestion at 1000 completed trials costs at most 2x a warm one, imports excluded.

Full run (about 3 minutes on 2 cores; run it alone):
    python benchmarks/cold_start.py --out benchmarks/results/cold_start.jsonl
Smoke test:
    python benchmarks/cold_start.py --n-complete 60 --repeats 1 --out /tmp/cold_smoke.jsonl

What runs, for each ``--n-complete`` n (default 1000):
  1. Set-up (not timed): a SQLite study in a temporary folder, minimising Hartmann-6 on [0, 1]^6
     (float parameters x0..x5), with n random completed trials (``study.add_trials``,
     ``default_rng(seed + 1000)``), then one worker process asks once: it fits the model from
     scratch and records it in the study (``share_model=True``). Its trial is told FAIL, so every
     later suggestion sees the same n completed trials and no running trial.
  2. ``--repeats`` R (3) times, for ``share_model`` in (True, False) alternately: a fresh worker
     process (``sys.executable``, ``OMP_NUM_THREADS`` etc. = 1) imports optuna, optuna_egp and the
     SciPy modules the first suggestion needs, runs one model-based suggestion on a separate
     12-trial in-memory study (so lazily imported modules are loaded: imports excluded), loads the
     big study with a new ``EGPTSSampler(seed=seed, share_model=...)``, times Optuna's first read of
     the trials (``study.get_trials()``: ``first_read_seconds``; Optuna's storage keeps finished
     trials cached after it, so any worker pays it once, whatever its sampler) and then ``--asks`` K
     (4) consecutive ``study.ask(fixed_distributions)``, each followed by
     ``study.tell(state=FAIL)``. Ask 1 is the cold one; asks 2..K are warm (same data, model up to
     date, so a warm ask is the cheapest a suggestion gets: no new observation to condition on).
     Each ask's seconds include the storage reads and writes and the whole suggestion (Optuna
     samples the relative parameters inside ``ask``; the script checks ``sample_relative`` ran once
     per ask). ``sample_relative_seconds`` is the part spent in the sampler's ``sample_relative``
     (model and acquisition, without Optuna's search-space intersection, which is slower on the
     first call, and the parameter writes).
  The row records whether the first suggestion built its model from the record (``n_adopted``) or by
  fitting (``n_refits``).

Output: one JSON line per worker run, with ``date`` (UTC) and ``commit``
(``benchmarks/harness/provenance.py``). :func:`summarise` gives, per n and ``share_model``: median
cold seconds, median warm seconds and their ratio.
"""

from __future__ import annotations

import argparse
import json
import os
import pathlib
import platform
import statistics
import subprocess
import sys
import tempfile

HERE = pathlib.Path(__file__).resolve().parent
ROOT = HERE.parent
sys.path.insert(0, str(HERE))
from benchmarks.harness.provenance import commit, utc_now

THREAD_VARS = ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS")

CHILD = r"""
import json, sys, time, warnings
import numpy as np, optuna
import scipy.linalg, scipy.optimize, scipy.special  # imported here: excluded from the timings
sys.path.insert(0, {here!r})
from functions import hartmann6
from optuna_egp import EGPTSSampler
from optuna.distributions import FloatDistribution
from optuna.trial import TrialState

optuna.logging.set_verbosity(optuna.logging.ERROR)
warnings.filterwarnings("ignore")
url, seed, share, asks = sys.argv[1], int(sys.argv[2]), sys.argv[3] == "1", int(sys.argv[4])
DIST = {{f"x{{i}}": FloatDistribution(0, 1) for i in range(6)}}


def objective(t):
    return float(hartmann6(np.array([t.suggest_float(k, 0, 1) for k in DIST])))


warm_up = optuna.create_study(sampler=EGPTSSampler(seed=seed, n_startup_trials=10))
warm_up.optimize(objective, n_trials=12)  # loads what the first suggestion imports lazily

sampler = EGPTSSampler(seed=seed, share_model=share)
calls = []  # seconds of each sample_relative call (the model's part of an ask)
inner = sampler.sample_relative


def timed_sample_relative(*args):
    t0 = time.perf_counter()
    out = inner(*args)
    calls.append(time.perf_counter() - t0)
    return out


sampler.sample_relative = timed_sample_relative
study = optuna.load_study(study_name="s", storage=url, sampler=sampler)
t0 = time.perf_counter()
# Optuna's first read of the trials (its storage caches finished ones)
study.get_trials(deepcopy=False)
first_read = time.perf_counter() - t0
seconds = []
for _ in range(asks):
    t0 = time.perf_counter()
    trial = study.ask(DIST)
    seconds.append(time.perf_counter() - t0)
    study.tell(trial, state=TrialState.FAIL)
    if len(trial.params) != 6:
        raise SystemExit("the suggestion did not come from the model")
model = sampler.algorithm.model
print(json.dumps({{"seconds": seconds, "first_read_seconds": first_read,
                  "sample_relative_calls": len(calls),
                  "sample_relative_seconds": calls,
                  "n_adopted": model.n_adopted,
                  "n_refits": model.n_refits}}))
"""


def _child_env() -> dict:
    return {
        **os.environ,
        **{var: "1" for var in THREAD_VARS},
        "PYTHONPATH": os.pathsep.join([str(ROOT), os.environ.get("PYTHONPATH", "")]),
    }


def build_study(url: str, n: int, seed: int) -> None:
    """The big study: n random completed Hartmann-6
    trials, then one worker that records its model."""
    script = f"""
import sys, numpy as np, optuna
sys.path.insert(0, {str(HERE)!r})
from functions import hartmann6
from optuna.distributions import FloatDistribution
from optuna.trial import create_trial
optuna.logging.set_verbosity(optuna.logging.ERROR)
dist = {{f"x{{i}}": FloatDistribution(0, 1) for i in range(6)}}
X = np.random.default_rng({seed} + 1000).random(({n}, 6))
study = optuna.create_study(study_name="s", storage={url!r})
study.add_trials([create_trial(params=dict(zip(dist, map(float, x))), distributions=dist,
                               value=float(hartmann6(x))) for x in X])
"""
    subprocess.run([sys.executable, "-c", script], check=True, env=_child_env())
    run_worker(url, seed, share=True, asks=1)  # fits from scratch and records the model


def run_worker(url: str, seed: int, share: bool, asks: int) -> dict:
    code = CHILD.format(here=str(HERE))
    out = subprocess.run(
        [sys.executable, "-c", code, url, str(seed), "1" if share else "0", str(asks)],
        check=True,
        env=_child_env(),
        capture_output=True,
        text=True,
    )
    return json.loads(out.stdout.strip().splitlines()[-1])


def summarise(rows: list[dict]) -> list[str]:
    """Markdown: per n and share_model, median cold and warm seconds and their ratio."""
    lines = [
        "| completed trials | share_model | runs | how the first model was built | Optuna's first "
        "read of the trials (s) | cold ask (s) | warm ask (s) | cold / warm | cold "
        "sample_relative (s) | warm sample_relative (s) | cold / warm |",
        "|---|---|---|---|---|---|---|---|---|---|---|",
    ]
    rows = [r for r in rows if "sample_relative_seconds" in r]  # rows of the current format
    if not rows:
        return []
    rows = [r for r in rows if r["commit"] == rows[-1]["commit"]]  # the latest commit's run(s)
    for n in sorted({r["n_complete"] for r in rows}):
        for share in (True, False):
            cell = [r for r in rows if r["n_complete"] == n and r["share_model"] == share]
            if not cell:
                continue
            cold = statistics.median(r["seconds"][0] for r in cell)
            warm = statistics.median(s for r in cell for s in r["seconds"][1:])
            built = (
                "from the record"
                if all(r["n_adopted"] == 1 and r["n_refits"] == 0 for r in cell)
                else ("fitted" if all(r["n_adopted"] == 0 for r in cell) else "mixed")
            )
            read = statistics.median(r["first_read_seconds"] for r in cell)
            cold_s = statistics.median(r["sample_relative_seconds"][0] for r in cell)
            warm_s = statistics.median(s for r in cell for s in r["sample_relative_seconds"][1:])
            lines.append(
                f"| {n} | {share} | {len(cell)} | {built} | {read:.3f} | {cold:.3f} | {warm:.3f} "
                f"| {cold / warm:.2f} | {cold_s:.3f} | {warm_s:.3f} | {cold_s / warm_s:.2f} |"
            )
    commits = sorted({r["commit"] for r in rows})
    dates = sorted(r["date"] for r in rows)
    lines.append("")
    lines.append(
        f"Medians over runs (cold) and over asks 2..K of every run (warm). Measured {dates[0]} to "
        f"{dates[-1]} (UTC) at commit {', '.join(commits)}; one BLAS thread per process, one "
        "process at a time; imports excluded; an ask includes its storage reads and writes; "
        "Optuna's first read of the trials is timed on its own."
    )
    return lines


def main(argv=None) -> None:
    ap = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    ap.add_argument("--n-complete", default="1000", help="comma-separated study sizes")
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("--asks", type=int, default=4)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--out", default=str(HERE / "results" / "cold_start.jsonl"))
    a = ap.parse_args(argv)
    base = {
        "bench": "cold_start",
        "commit": commit(),
        "python": platform.python_version(),
        "cpu_count": os.cpu_count(),
        "threads": 1,
        "asks": a.asks,
        "seed": a.seed,
    }
    rows = []
    for n in [int(v) for v in a.n_complete.split(",")]:
        with tempfile.TemporaryDirectory() as tmp:
            url = f"sqlite:///{tmp}/cold.db"
            build_study(url, n, a.seed)
            for repeat in range(a.repeats):
                for share in (True, False) if repeat % 2 == 0 else (False, True):
                    rec = run_worker(url, a.seed, share, a.asks)
                    row = {
                        **base,
                        "date": utc_now(),
                        "n_complete": n,
                        "share_model": share,
                        "repeat": repeat,
                        **rec,
                    }
                    rows.append(row)
                    with open(a.out, "a") as f:
                        f.write(json.dumps(row) + "\n")
                    print(
                        f"n={n} share_model={share} repeat={repeat}: asks "
                        f"{[round(s, 3) for s in rec['seconds']]} (adopted {rec['n_adopted']}, "
                        f"refits {rec['n_refits']})",
                        flush=True,
                    )
    print("\n".join(summarise(rows)))


if __name__ == "__main__":
    main()
