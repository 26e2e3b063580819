"""Cold starts: the first suggestion of a new worker process joining a large study, with and
without ``share_model`` (what it measures: ``docs/benchmarks/index.md``). Run it alone:

    python -m benchmarks.cold_start run --out benchmarks/results/cold_start.jsonl
"""

from __future__ import annotations

import argparse
import json
import statistics
import tempfile
import time

import optuna
from optuna.trial import TrialState

from benchmarks.functions import hartmann6
from benchmarks.harness.probes import ModelProbe
from benchmarks.harness.provenance import commit
from benchmarks.harness.results import RESULTS, ResultsFile
from benchmarks.harness.samplers import make_sampler
from benchmarks.harness.studies import H6_BOUNDS, distributions, random_study
from benchmarks.harness.workers import run_worker
from benchmarks.speed_timing import alternate, ints, quiet, section, timed_asks

DIST = distributions(H6_BOUNDS)
CELL = ("n_complete", "share_model", "repeat", "asks", "seed")


def build_study(url: str, n: int, seed: int) -> None:
    """The big study: n random completed Hartmann-6 trials, then one sampler that records its
    model (its trial told FAIL)."""
    quiet()
    random_study(None, hartmann6, H6_BOUNDS, n, seed=seed + 1000, study_name="s", storage=url)
    recorder = optuna.load_study(
        study_name="s",
        storage=url,
        sampler=make_sampler("egp-auto", seed=seed, share_model=True, model_failures=False),
    )
    recorder.tell(recorder.ask(DIST), state=TrialState.FAIL)


def _objective(t) -> float:
    import numpy as np

    return float(hartmann6(np.array([t.suggest_float(k, 0, 1) for k in DIST])))


def worker(url: str, seed: int, share: bool, asks: int) -> dict:
    """A fresh worker process joining the study at ``url``: imports and a warm-up first, then its
    first read of the trials and ``asks`` timed asks (docs/benchmarks/index.md, "Timing
    benchmarks")."""
    # imported here: excluded from the timings
    import scipy.linalg
    import scipy.optimize
    import scipy.special  # noqa: F401

    quiet()
    warm_up = optuna.create_study(sampler=make_sampler("egp-auto", seed=seed, n_startup_trials=10))
    warm_up.optimize(_objective, n_trials=12)  # loads what the first suggestion imports lazily

    # the timed trials are told FAIL to leave the study as it was: not failures to learn from
    sampler = make_sampler("egp-auto", seed=seed, share_model=share, model_failures=False)
    probe = ModelProbe(sampler)  # sample_relative: the model's part of an ask
    study = optuna.load_study(study_name="s", storage=url, sampler=sampler)
    t0 = time.perf_counter()
    study.get_trials(deepcopy=False)  # Optuna's first read of the trials (then cached)
    first_read = time.perf_counter() - t0
    seconds = timed_asks(study, DIST, None, probe, asks)["seconds"]
    if probe.asks != asks or probe.model_asks != asks:
        raise RuntimeError(
            f"{probe.model_asks} of {asks} asks came from the model ({probe.asks} "
            "sample_relative calls)"
        )
    model = sampler.algorithm.model
    return {
        "seconds": seconds,
        "first_read_seconds": first_read,
        "sample_relative_calls": probe.asks,
        "sample_relative_seconds": probe.relative_seconds,
        "model_asks": probe.model_asks,
        "n_adopted": model.n_adopted,
        "n_refits": model.n_refits,
    }


def summarise(rows: list[dict]) -> list[str]:
    """Markdown: per n and share_model, median cold and warm seconds and their ratio."""
    rows = [r for r in rows if "sample_relative_seconds" in r]  # rows of the current format
    if not rows:
        return []
    rows = [r for r in rows if r["commit"] == rows[-1]["commit"]]  # the latest commit's run(s)
    body = []
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
            body.append(
                [str(n), str(share), str(len(cell)), built]
                + [f"{v:.3f}" for v in (read, cold, warm)]
                + [f"{cold / warm:.2f}", f"{cold_s:.3f}", f"{warm_s:.3f}", f"{cold_s / warm_s:.2f}"]
            )
    header = [
        "completed trials",
        "share_model",
        "runs",
        "how the first model was built",
        "Optuna's first read of the trials (s)",
        "cold ask (s)",
        "warm ask (s)",
        "cold / warm",
        "cold sample_relative (s)",
        "warm sample_relative (s)",
        "cold / warm",
    ]
    note = (
        "Medians over runs (cold) and over asks 2..K of every run (warm); one process at a time; "
        "imports excluded; an ask includes its storage reads and writes; Optuna's first read of "
        "the trials is timed on its own."
    )
    title = "## Cold starts: a new worker's first suggestion"
    return section(title, header, body, rows, note=note)[:-1]


def run(a: argparse.Namespace) -> None:
    out = ResultsFile(a.out)
    done = out.done(("commit", *CELL))
    base = {"bench": "cold_start", "asks": a.asks, "seed": a.seed}
    shares = [{"true": True, "false": False}[v] for v in a.share_model.split(",")]
    for n in a.n_complete:
        cells = [
            {**base, "n_complete": n, "share_model": share, "repeat": repeat}
            for repeat, share in alternate(a.repeats, shares)
        ]
        cells = [c for c in cells if (commit(), *(c[f] for f in CELL)) not in done]
        if not cells:
            continue
        with tempfile.TemporaryDirectory() as tmp:
            url = f"sqlite:///{tmp}/cold.db"
            build_study(url, n, a.seed)
            for cell in cells:
                share = "1" if cell["share_model"] else "0"
                rec = run_worker("cold_start", "worker", url, str(a.seed), share, str(a.asks))
                options = {"share_model": cell["share_model"], "model_failures": False}
                config = {"sampler": "egp-auto", "options": options}
                out.append({**cell, **rec, "config": config})
                print(cell, [round(s, 3) for s in rec["seconds"]], flush=True)
    print("\n".join(summarise(out.rows())))


def main(argv=None) -> None:
    ap = argparse.ArgumentParser(prog="python -m benchmarks.cold_start", description=__doc__)
    sub = ap.add_subparsers(dest="command", required=True)
    r = sub.add_parser("run", help="the benchmark")
    r.add_argument("--n-complete", default="1000", type=ints, help="comma-separated study sizes")
    r.add_argument("--repeats", type=int, default=3)
    r.add_argument("--asks", type=int, default=4)
    r.add_argument("--seed", type=int, default=0)
    r.add_argument(
        "--share-model", default="true,false", help="share_model values, alternated by repeat"
    )
    r.add_argument("--out", default=str(RESULTS / "cold_start.jsonl"))
    w = sub.add_parser("worker", help="one worker process (prints one JSON line)")
    w.add_argument("url")
    w.add_argument("seed", type=int)
    w.add_argument("share", choices=["0", "1"])
    w.add_argument("asks", type=int)
    a = ap.parse_args(argv)
    if a.command == "worker":
        print(json.dumps(worker(a.url, a.seed, a.share == "1", a.asks)))
    else:
        run(a)


if __name__ == "__main__":
    main()
