"""Surrogate models: the posterior contract (``surrogate.py``), exact and random-feature
GPs, the additive GP over groups of inputs (``additive.py``), kernels, the ensemble; float64
torch MLPs (``network.py``)."""
