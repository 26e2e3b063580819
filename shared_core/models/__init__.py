"""Surrogate models: the posterior contract (``surrogate.py``), exact and random-feature
GPs, kernels, the ensemble; float64 torch MLPs (``network.py``)."""
