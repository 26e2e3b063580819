"""OptunaHub package of ``EGPTSSampler`` (ensemble-GP Thompson sampling).

The sampler lives in the egp-samplers distribution (import name ``optuna_egp``); this package
re-exports it, so ``optunahub.load_module("samplers/egp_ts").EGPTSSampler`` is the installed class.
"""

from __future__ import annotations

try:
    from optuna_egp import EGPTSSampler
except ImportError as err:  # the distribution is missing, or broken
    raise ImportError(
        "the OptunaHub package samplers/egp_ts needs the egp-samplers distribution (import name "
        "optuna_egp), which is not on PyPI: install it from a checkout of the egp-samplers "
        f"repository, in its root folder: python -m pip install -e . ({err})"
    ) from err

__all__ = ["EGPTSSampler"]
