"""Which suggestions came from a sampler's model, and how long the model took.

What ``sample_relative`` returns does not tell: a ``CoreSampler`` (our samplers) draws its
start-up points inside ``sample_relative`` too, so it returns every parameter from the first
ask on. The model is the sampler's core algorithm (``sampler.algorithm``, public): its
``suggest`` runs only once the start-up is over. :class:`ModelProbe` wraps it, and
``sample_relative`` (once per ask) to tell the asks apart.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from typing import Any


class ModelProbe:
    """Counts and times a sampler's asks and its model's suggestions.

    Args:
        sampler: an Optuna sampler; ``sample_relative`` and, if it has one (``CoreSampler``),
            ``sampler.algorithm.suggest`` are wrapped in place.
        on_ask: called with the study at the start of every ``sample_relative`` call.
        in_model: called at the start of every ``algorithm.suggest`` call (inside the
            sampler's thread limit, e.g. to read the thread pools there).

    Attributes (:meth:`reset` zeroes them):
        asks: ``sample_relative`` calls (one per ask).
        model_asks: asks in which the model suggested (``None`` for a sampler without a core
            algorithm, e.g. Optuna's: unknown).
        relative_seconds: seconds of each ``sample_relative`` call.
        model_seconds: seconds of each ``algorithm.suggest`` call (fit or update, draw,
            acquisition); more than one per ask if a point taken concurrently is drawn again.
    """

    def __init__(
        self,
        sampler: Any,
        *,
        on_ask: Callable[[Any], None] | None = None,
        in_model: Callable[[], None] | None = None,
    ) -> None:
        self._algorithm = getattr(sampler, "algorithm", None)
        self._thread = threading.local()  # did the model suggest in this thread's ask?
        self._lock = threading.Lock()  # the counts (asks of ``n_jobs`` threads)
        self.reset()
        relative = sampler.sample_relative

        def sample_relative(study, trial, search_space):
            if on_ask is not None:
                on_ask(study)
            self._thread.modelled = False
            t0 = time.perf_counter()
            try:
                return relative(study, trial, search_space)
            finally:
                with self._lock:
                    self.relative_seconds.append(time.perf_counter() - t0)
                    self.asks += 1
                    if self.model_asks is not None and self._thread.modelled:
                        self.model_asks += 1

        sampler.sample_relative = sample_relative
        if self._algorithm is None:
            return
        suggest = self._algorithm.suggest

        def model_suggest(*args, **kwargs):
            if in_model is not None:
                in_model()
            self._thread.modelled = True
            t0 = time.perf_counter()
            try:
                return suggest(*args, **kwargs)
            finally:
                with self._lock:
                    self.model_seconds.append(time.perf_counter() - t0)

        self._algorithm.suggest = model_suggest

    def reset(self) -> None:
        self.asks = 0
        self.model_asks: int | None = 0 if self._algorithm is not None else None
        self.relative_seconds: list[float] = []
        self.model_seconds: list[float] = []
