"""Acquisition functions: small objects with ``value`` and
``value_and_grad``, maximised by ``shared_core.optim``.

* ``analytic.py``: of one posterior: Thompson sampling, log EI, UCB; log EI of a mixture of
  posteriors (DEC-HBO's structure samples)
* ``constrained.py``: under black-box constraints: SCBO's Thompson rule and its exact-penalty
  merit, constrained log EI, log probability of feasibility
* ``multi_objective.py``: of several objectives: random Chebyshev and hypervolume scalarisations,
  the scalarised Thompson draw, TSEMO's sampled hypervolume improvement, qParEGO's log EI
* ``additive_ucb.py``: DEC-HBO's additive UCB, a sum of per-factor UCB terms, and the paper's
  ``beta_t``
"""

from shared_core.acquisition.analytic import (
    LogExpectedImprovement,
    ThompsonSampling,
    UpperConfidenceBound,
    log_h,
)
from shared_core.acquisition.base import Acquisition
from shared_core.acquisition.constrained import (
    ConstrainedLogExpectedImprovement,
    ConstrainedThompsonSampling,
    LogProbabilityOfFeasibility,
    PenalizedThompsonSampling,
)

__all__ = [
    "Acquisition",
    "ConstrainedLogExpectedImprovement",
    "ConstrainedThompsonSampling",
    "LogExpectedImprovement",
    "LogProbabilityOfFeasibility",
    "PenalizedThompsonSampling",
    "ThompsonSampling",
    "UpperConfidenceBound",
    "log_h",
]
