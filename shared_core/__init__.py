"""Framework-free numerics of the egp-samplers suite (never imports optuna or ax).

Module map (BoTorch-style: one folder per role):

* ``interface.py``: the adapter/algorithm boundary: the ``Algorithm`` protocol and
  ``OneAtATimeAlgorithm`` (the shared suggest loop); every name of the contract is importable
  from it
* ``observations.py``: ``Observations`` (rows, values, constraint values, pending points, per-row
  source labels)
* ``capabilities.py``: the optional capabilities (``SharesModelState``, ``ReadsSources``,
  ``MultiAgent``), what an algorithm declares it models (``ModelsConstraints``,
  ``MultiObjective``) and the one message refusing what it does not
* ``search_space.py``: ``SearchSpace``: named parameters and their column-wise encoding to the
  unit cube
* ``parameters.py``: the parameter types (``FloatParam``, ``IntParam``, ``CategoricalParam``),
  ``LinearConstraint`` and the ``Condition`` of a conditional parameter
* ``conditions.py``: conditional spaces: which parameters are active at a point, and the fixed
  encoding of inactive ones
* ``encoding.py``: the encoding of one parameter's columns (grids, log scales, one-hot)
* ``pareto.py``: Pareto dominance, non-dominated sorting, hypervolume, its contributions and
  improvements, and the (inferred) hypervolume reference point of several objectives
* ``halton.py``: scrambled Halton points for ``SearchSpace.sample``
* ``registry.py``: named algorithms for the adapters (``make_algorithm("egp-ts")``)
* ``validation.py``: argument checks shared by every constructor
* ``graphs/``: communication graphs of distributed algorithms: ``CommunicationGraph``
  (``graph.py``), ``make_graph`` from names, edge lists, adjacency matrices or networkx
  (``specs.py``), clique numbers (``cliques.py``), edge checks (``edges.py``)
* ``threads.py``: bounded BLAS/OpenMP/PyTorch threads while a sampler computes
* ``models/surrogate.py``: the surrogate contract (``Posterior``, ``FunctionSample``)
* ``models/gp.py``: exact GP: MAP hyperparameters, ``ExactPosterior``, pathwise samples
* ``models/features.py``: random-feature GP (Bayesian linear regression, for large data)
* ``models/kernels.py``: kernels, spectral densities, random Fourier features, kernel names
* ``models/ensemble.py``: the ensemble of GPs (weights, incremental updates, refits)
* ``models/constraint_models.py``: one GP ensemble per constraint of a constrained study, and per
  further objective of a study with several objectives
* ``models/output_transform.py``: the ensemble's output warping (shift, Yeo-Johnson,
  standardise)
* ``models/refit.py``: when to refit hyperparameters, and on which points
* ``models/network.py``: float64 torch MLPs seeded by a numpy generator (torch imported lazily),
  and STO-BNTS's network in the NTK parameterisation (flat parameters, features, linearisation)
* ``models/bore_classifiers.py``: BORE++'s least-squares classifier and BORE's network
  classifier
* ``models/additive.py``: the additive GP over disjoint groups of columns (DEC-HBO's surrogate):
  posterior, per-factor moments and path samples; ``models/additive_fit.py``: its MAP
  hyperparameters and evidence
* ``models/structure.py``: partitions of the parameters into factors and their samples by MCMC on
  the additive GP's evidence
* ``acquisition/``: acquisition objects (``value``/``value_and_grad``): TS, log EI, UCB, and under
  constraints SCBO's Thompson rule (with its penalty merit), constrained log EI, and for several
  objectives random scalarisations, TSEMO's hypervolume improvement rule and qParEGO's log EI;
  DEC-HBO's additive UCB (``additive_ucb.py``)
* ``optim/``: the acquisition maximiser (mixed spaces, constraints), SVGD, and max-sum message
  passing over discrete grids (``max_sum.py``; its factor graph and messages in
  ``max_sum_messages.py``)
* ``algorithms/``: EGP-TS/EI (``egp.py``; its acquisition with several objectives in
  ``egp_multi_objective.py``), BORE/BORE++ (``bore.py``; its labels, with
  constraints and several objectives, in ``bore_labels.py``), distributed TS (``distributed.py``),
  DEC-HBO (``dec_hbo.py``), STO-BNTS (``stobnts.py``)
"""

__version__ = "0.1.0"  # the package version (pyproject.toml reads it from here)

from shared_core.algorithms.bore import BOREAlgorithm
from shared_core.algorithms.dec_hbo import DECHBOAlgorithm
from shared_core.algorithms.distributed import DistributedTSAlgorithm
from shared_core.algorithms.egp import EGPAlgorithm
from shared_core.algorithms.stobnts import STOBNTSAlgorithm
from shared_core.interface import Algorithm, Observations, clean_targets
from shared_core.models.kernels import KernelSpec, default_dictionary, lengthscale_grid_dictionary
from shared_core.search_space import (
    CategoricalParam,
    Condition,
    FloatParam,
    IntParam,
    SearchSpace,
)

__all__ = [
    "__version__",
    "Algorithm",
    "BOREAlgorithm",
    "DECHBOAlgorithm",
    "DistributedTSAlgorithm",
    "CategoricalParam",
    "Condition",
    "EGPAlgorithm",
    "FloatParam",
    "IntParam",
    "KernelSpec",
    "Observations",
    "SearchSpace",
    "STOBNTSAlgorithm",
    "clean_targets",
    "default_dictionary",
    "lengthscale_grid_dictionary",
]
