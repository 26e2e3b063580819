"""Instruments shared by the benchmark scripts (no import-time side effects, unlike the scripts)."""

from __future__ import annotations

import time


class RelativeProbe:
    """Wraps ``sampler.sample_relative`` (public API) to
    count calls, time them and count returned params."""

    def __init__(self, sampler) -> None:
        self.calls, self.seconds, self.n_params = 0, 0.0, 0
        inner = sampler.sample_relative

        def sample_relative(study, trial, search_space):
            t0 = time.perf_counter()
            params = inner(study, trial, search_space)
            self.seconds += time.perf_counter() - t0
            self.calls += 1
            self.n_params = len(params)
            return params

        sampler.sample_relative = sample_relative

    def reset(self) -> None:
        self.calls, self.seconds, self.n_params = 0, 0.0, 0
