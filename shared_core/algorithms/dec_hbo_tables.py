"""DEC-HBO's grids and factor tables (:mod:`shared_core.algorithms.dec_hbo`, step 4): each
parameter's grid of values and a factor's acquisition on the product grid of its parameters, the
table max-sum passes messages over."""

from __future__ import annotations

import numpy as np

from shared_core.acquisition.additive_ucb import AdditiveUCB
from shared_core.encoding import decode_block, encode_block
from shared_core.parameters import CategoricalParam
from shared_core.search_space import SearchSpace

__all__ = ["factor_table", "parameter_grids"]

CHUNK_ENTRIES = 2_000_000  # a table's chunk: 16 MB per (chunk, n) float64 temporary


def parameter_grids(
    space: SearchSpace, size: int, incumbent: np.ndarray, rng: np.random.Generator
) -> list[np.ndarray]:
    """Each parameter's grid ``(m, width)`` of encoded values: a categorical's one-hot choices;
    a float's or int's ``size - 1`` points ``(i + u) / (size - 1)`` (one shift ``u ~ U[0, 1)``
    per parameter) and the incumbent's value, snapped to valid values and deduplicated."""
    out = []
    for name in space.names:
        p, columns = space.params[name], space.columns[name]
        if isinstance(p, CategoricalParam):
            out.append(np.eye(len(p.choices)))
            continue
        regular = (np.arange(size - 1) + rng.random()) / (size - 1)  # (size - 1,)
        u = np.append(regular, incumbent[columns])  # (size,)
        snapped = encode_block(p, decode_block(p, u[:, None]))  # (size, 1)
        out.append(np.unique(snapped, axis=0))
    return out


def factor_table(
    acq: AdditiveUCB, i: int, grids: list[np.ndarray], params: tuple[int, ...]
) -> np.ndarray:
    """Term ``i`` of ``acq`` on the product grid of ``params`` ``(prod m,)``, in chunks whose
    cross-kernel with the observations (chunk x n) holds at most ``CHUNK_ENTRIES`` numbers."""
    product = _product(grids, params)  # (prod m, sum width)
    rows = max(256, CHUNK_ENTRIES // max(acq.n_observations, 1))
    return np.concatenate(
        [acq.term_value(i, product[j : j + rows]) for j in range(0, len(product), rows)]
    )


def _product(grids: list[np.ndarray], params: tuple[int, ...]) -> np.ndarray:
    """The product grid of ``params``' grids, ``(prod m, sum width)``, the first parameter
    varying slowest (C order, as the factor table's axes)."""
    index = np.indices([len(grids[p]) for p in params]).reshape(len(params), -1)  # (k, prod m)
    return np.hstack([grids[p][index[j]] for j, p in enumerate(params)])
