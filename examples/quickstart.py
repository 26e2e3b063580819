"""Quickstart: EGPTSSampler versus Optuna's TPESampler on Hartmann-6, over several seeds.

Run:  python examples/quickstart.py [first seed] [seeds]      (defaults 0 and 4: seeds 0-3)

Each sampler, at its default settings, runs one study of N_TRIALS trials per seed. A study's best
value is the lowest objective value it found (lower is better). All the studies live in one
Journal file (an embedded storage: no server) and are run by a pool of worker processes, one per
CPU core this process may use (at most one per study), which load their study from the file by
name; the studies' results are read back from the file at the end. A study's trials run one after
another in one process, so its values depend on its seed only, not on timing; the run time is
about that of one EGPTSSampler study times the studies per core. The script prints each seed's
best value per sampler, the medians, how many seeds each sampler won, and which sampler these
numbers favour. The journal file is written to a temporary folder and removed.
"""

from __future__ import annotations

import math
import os
import statistics
import sys
import tempfile
import time
from concurrent.futures import ProcessPoolExecutor

import optuna
from optuna.storages import JournalStorage
from optuna.storages.journal import JournalFileBackend

from optuna_egp import EGPTSSampler

N_TRIALS, N_SEEDS = 40, 4
SAMPLERS = ("EGPTSSampler", "TPESampler")
H6_A = [
    [10, 3, 17, 3.5, 1.7, 8],
    [0.05, 10, 17, 0.1, 8, 14],
    [3, 3.5, 1.7, 10, 17, 8],
    [17, 8, 0.05, 10, 0.1, 14],
]
H6_P = [
    [0.1312, 0.1696, 0.5569, 0.0124, 0.8283, 0.5886],
    [0.2329, 0.4135, 0.8307, 0.3736, 0.1004, 0.9991],
    [0.2348, 0.1451, 0.3522, 0.2883, 0.3047, 0.6650],
    [0.4047, 0.8828, 0.8732, 0.5743, 0.1091, 0.0381],
]
H6_MIN = -3.32237


def objective(trial: optuna.Trial) -> float:
    """Hartmann-6 on [0, 1]^6 (minimum -3.32237)."""
    x = [trial.suggest_float(f"x{i}", 0.0, 1.0) for i in range(6)]
    return -sum(
        a * math.exp(-sum(A[j] * (x[j] - P[j]) ** 2 for j in range(6)))
        for a, A, P in zip([1.0, 1.2, 3.0, 3.2], H6_A, H6_P)
    )


def make_sampler(name: str, seed: int) -> optuna.samplers.BaseSampler:
    if name == "EGPTSSampler":
        return EGPTSSampler(seed=seed)
    return optuna.samplers.TPESampler(seed=seed)


def study_name(sampler: str, seed: int) -> str:
    return f"{sampler}-seed{seed}"


def worker(path: str, sampler: str, seed: int) -> None:
    """One worker process's task: load the study from the journal file and run its trials."""
    optuna.logging.set_verbosity(optuna.logging.WARNING)
    storage = JournalStorage(JournalFileBackend(path))
    study = optuna.load_study(
        study_name=study_name(sampler, seed), storage=storage, sampler=make_sampler(sampler, seed)
    )
    study.optimize(objective, n_trials=N_TRIALS)


def run_all(path: str, seeds: list[int], n_workers: int) -> dict[str, list[float]]:
    """Every (sampler, seed) study on the journal file at ``path``, run by ``n_workers`` worker
    processes; best values per sampler."""
    storage = JournalStorage(JournalFileBackend(path))
    tasks = [(sampler, seed) for seed in seeds for sampler in SAMPLERS]
    for sampler, seed in tasks:
        optuna.create_study(study_name=study_name(sampler, seed), storage=storage)
    with ProcessPoolExecutor(max_workers=n_workers) as pool:
        for done in [pool.submit(worker, path, sampler, seed) for sampler, seed in tasks]:
            done.result()  # re-raises a worker's exception
    storage = JournalStorage(JournalFileBackend(path))  # reads what the workers wrote
    return {
        sampler: [
            optuna.load_study(study_name=study_name(sampler, seed), storage=storage).best_value
            for seed in seeds
        ]
        for sampler in SAMPLERS
    }


def report(seeds: list[int], best: dict[str, list[float]]) -> None:
    """Per-seed best values, medians and wins, and the conclusion they support."""
    egp, tpe = best["EGPTSSampler"], best["TPESampler"]
    print(f"{'seed':>4}  {'EGPTSSampler':>12}  {'TPESampler':>10}  lower")
    for seed, e, t in zip(seeds, egp, tpe):
        lower = "EGPTSSampler" if e < t else "TPESampler" if t < e else "tie"
        print(f"{seed:>4}  {e:>12.4f}  {t:>10.4f}  {lower}")
    medians = {name: statistics.median(values) for name, values in best.items()}
    wins = {
        "EGPTSSampler": sum(e < t for e, t in zip(egp, tpe)),
        "TPESampler": sum(t < e for e, t in zip(egp, tpe)),
    }
    n = f"{len(seeds)} seed" + ("" if len(seeds) == 1 else "s")
    for name in SAMPLERS:
        print(
            f"{name}: median best value {medians[name]:.4f} (regret "
            f"{medians[name] - H6_MIN:.4f}), the lower best value on {wins[name]} of {n}"
        )
    if medians["EGPTSSampler"] == medians["TPESampler"]:
        print(f"Over {n} the two samplers reached the same median best value.")
        return
    leader = min(SAMPLERS, key=lambda name: medians[name])
    other = next(name for name in SAMPLERS if name != leader)
    print(
        f"Over {n} {leader} reached the lower median best value, and the lower best value on "
        f"{wins[leader]} of them ({other}: {wins[other]})."
    )


def parse_args(args: list[str]) -> tuple[int, int]:
    """``[first seed] [seeds]`` -> (first seed, number of seeds); ValueError naming a bad value."""
    if len(args) > 2:
        raise ValueError(f"at most 2 arguments (first seed, seeds), got {len(args)}: {args}")
    values = []
    for name, text, lowest in zip(("first seed", "seeds"), args, (0, 1)):
        try:
            value = int(text)
        except ValueError:
            raise ValueError(f"{name} must be an integer, got {text!r}") from None
        if value < lowest:
            raise ValueError(f"{name} must be at least {lowest}, got {value}")
        values.append(value)
    first_seed, n_seeds = values + [0, N_SEEDS][len(values) :]  # the defaults for the rest
    if first_seed + n_seeds > 2**32:  # TPESampler takes seeds below 2**32
        raise ValueError(f"seeds must stay below 2**32, got {first_seed} + {n_seeds}")
    return first_seed, n_seeds


def usable_cpus() -> int:
    """The CPU cores this process may run on (its affinity, e.g. under a batch scheduler)."""
    if hasattr(os, "sched_getaffinity"):
        return len(os.sched_getaffinity(0))
    return os.cpu_count() or 1


def main() -> None:
    optuna.logging.set_verbosity(optuna.logging.WARNING)
    try:
        first_seed, n_seeds = parse_args(sys.argv[1:])
    except ValueError as err:
        sys.exit(f"{err}\nusage: python examples/quickstart.py [first seed] [seeds]")
    seeds = list(range(first_seed, first_seed + n_seeds))
    n_studies = len(SAMPLERS) * n_seeds
    n_workers = min(n_studies, usable_cpus())
    print(
        f"Hartmann-6 (6 continuous parameters, minimised; minimum {H6_MIN}), {N_TRIALS} trials per "
        f"study, seeds {seeds[0]}-{seeds[-1]}: {n_studies} studies (one per sampler and seed) on "
        f"one Journal file, run by {n_workers} worker processes"
    )
    print(
        f"best value = the lowest objective value a study found in its {N_TRIALS} trials (lower is "
        "better); both samplers at their default settings"
    )
    start = time.perf_counter()
    with tempfile.TemporaryDirectory() as folder:
        best = run_all(os.path.join(folder, "quickstart.log"), seeds, n_workers)
    report(seeds, best)
    print(f"({time.perf_counter() - start:.1f} s)")


if __name__ == "__main__":
    main()
