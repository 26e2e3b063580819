"""Studies run by ask and tell: sequential, or with trials pending that complete in a random order
(:func:`ask_tell`, the benchmarks' ``async`` mode). :func:`timed_ask_tell` runs it on one
in-memory study with every ask timed (wall and process CPU seconds of ``study.ask()`` and its
``suggest_*`` calls) and whether the model answered; :func:`timing_fields` makes a row's fields.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from benchmarks.harness.probes import ModelProbe


@dataclass
class TimedRun:
    """What :func:`timed_ask_tell` measured.

    Attributes:
        trials: the study's trials in trial order (completed, or still running if the wall
            limit stopped the run).
        ask_seconds: wall seconds of each ask.
        ask_cpu_seconds: process CPU seconds of each ask.
        model_at_ask: did the model answer each ask.
        seconds: wall seconds of the whole run.
    """

    trials: list
    ask_seconds: list[float]
    ask_cpu_seconds: list[float]
    model_at_ask: list[bool]
    seconds: float


def ask_tell(
    n_trials: int,
    workers: int,
    rng: np.random.Generator,
    ask: Callable[[int], Any],
    tell: Callable[[int, Any], None],
    *,
    on_pending: Callable[[list], None] | None = None,
) -> None:
    """The ``async`` mode's loop: ``workers`` trials pending (fewer once ``n_trials`` are asked)
    until ``n_trials`` are told, completing in a random order.

    Args:
        n_trials: trials in all.
        workers: worker slots, each with one trial pending.
        rng: draws the pending trial to complete next (uniformly, in the order asked).
        ask: ``ask(slot)`` starts a trial in worker slot ``slot`` (``0 .. workers - 1``) and
            returns it; the slot of a completed trial asks the next one.
        tell: ``tell(slot, trial)`` completes ``trial``, asked by ``slot``.
        on_pending: called with the pending trials after the first ``workers`` asks and after
            each later ask.
    """
    pending = [(slot, ask(slot)) for slot in range(min(workers, n_trials))]
    if on_pending is not None:
        on_pending([t for _, t in pending])
    asked, told = len(pending), 0
    while told < n_trials:
        slot, trial = pending.pop(int(rng.integers(len(pending))))
        tell(slot, trial)
        told += 1
        if asked < n_trials:
            pending.append((slot, ask(slot)))
            if on_pending is not None:
                on_pending([t for _, t in pending])
            asked += 1


def timed_ask_tell(
    samplers: Sequence[Any],
    bounds: np.ndarray | None,
    evaluate: Callable[[Any, np.ndarray], Any],
    *,
    n_trials: int,
    workers: int,
    rng: np.random.Generator,
    startup: int,
    wall_limit: float | None = None,
    directions: Sequence[str] | None = None,
    suggest: Callable[[Any], Any] | None = None,
) -> TimedRun:
    """Run a new in-memory study of ``n_trials`` trials.

    Args:
        samplers: the sampler of each worker slot (``len(samplers) >= workers``; one object may
            serve several slots); ``study.sampler`` is set to the slot's before each ask and to
            the asking slot's before each tell.
        bounds: ``(d, 2)``: trial parameters ``x0 .. x{d-1}`` are floats on these ranges
            (``None`` with ``suggest``).
        evaluate: ``evaluate(trial, x)`` returns what ``study.tell`` takes (a value, or a list of
            values with several ``directions``); it may set the trial's constraints first.
        n_trials: trials in all.
        workers: trials pending at once (1: sequential).
        rng: draws the pending trial to complete next.
        startup: completed trials from which a peer's asks count as the model's.
        wall_limit: seconds after which no slot asks again (the pending trials still complete).
        directions: the study's directions (``None``: one minimised objective).
        suggest: ``suggest(trial) -> x``, the ``trial.suggest_*`` calls of each ask in place of
            the floats of ``bounds`` (e.g. a define-by-run walk of a conditional space).
    """
    import optuna

    # one probe per distinct sampler: a sampler shared by the slots is wrapped once
    probes = {id(s): ModelProbe(s) for s in {id(s): s for s in samplers}.values()}
    create = {"directions": list(directions)} if directions else {}
    study = optuna.create_study(sampler=samplers[0], **create)
    wall: list[float] = []
    cpu: list[float] = []
    model_at_ask: list[bool] = []
    told = 0
    t_start = time.perf_counter()

    def ask(slot: int):
        if wall_limit is not None and time.perf_counter() - t_start > wall_limit:
            return None  # past the wall-time limit: the slot stops
        study.sampler = samplers[slot]
        probe = probes[id(samplers[slot])]
        probe.reset()
        t0, cpu0 = time.perf_counter(), time.process_time()
        trial = study.ask()
        x = suggest(trial) if suggest is not None else _floats(trial, bounds)
        wall.append(time.perf_counter() - t0)
        cpu.append(time.process_time() - cpu0)
        model_at_ask.append(
            bool(probe.model_asks) if probe.model_asks is not None else told >= startup
        )
        return trial, x

    def tell(slot: int, asked) -> None:
        nonlocal told
        if asked is None:
            return
        trial, x = asked
        study.sampler = samplers[slot]  # after_trial of the agent that asked it
        study.tell(trial, evaluate(trial, x))
        told += 1

    ask_tell(n_trials, workers, rng, ask, tell)
    seconds = time.perf_counter() - t_start
    trials = sorted(study.trials, key=lambda t: t.number)
    return TimedRun(trials, wall, cpu, model_at_ask, seconds)


def _floats(trial, bounds: np.ndarray) -> np.ndarray:
    return np.array([trial.suggest_float(f"x{i}", lo, hi) for i, (lo, hi) in enumerate(bounds)])


def timing_fields(
    ask_seconds: Sequence[float],
    ask_cpu_seconds: Sequence[float],
    model_at_ask: Sequence[bool],
    seconds: float,
    *,
    ours: bool,
) -> dict:
    """A row's timing fields: the lists, ``seconds_per_suggestion`` and
    ``cpu_seconds_per_suggestion`` (means over the model's asks; ``None`` if it answered none),
    ``seconds`` and, for ``ours``, ``model_asks``."""
    model = np.array(model_at_ask, dtype=bool)
    wall, cpu = np.array(ask_seconds, dtype=float), np.array(ask_cpu_seconds, dtype=float)
    return {
        "ask_seconds": wall.tolist(),
        "ask_cpu_seconds": cpu.tolist(),
        "model_at_ask": model.tolist(),
        "seconds_per_suggestion": float(wall[model].mean()) if model.any() else None,
        "cpu_seconds_per_suggestion": float(cpu[model].mean()) if model.any() else None,
        "seconds": seconds,
        **({"model_asks": int(model.sum())} if ours else {}),
    }
