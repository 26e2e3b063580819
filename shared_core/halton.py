"""Scrambled Halton points: the low-discrepancy starts of :meth:`SearchSpace.sample
<shared_core.search_space.SearchSpace.sample>`, framework-free and seeded only by the caller's
generator."""

from __future__ import annotations

import functools
import math

import numpy as np

__all__ = ["scrambled_halton"]


def scrambled_halton(rng: np.random.Generator, n: int, dim: int) -> np.ndarray:
    """``(n, dim)`` scrambled Halton points in ``[0, 1]``, each one uniformly distributed.

    Column ``j`` uses the ``j``-th prime base ``b``. The first ``m`` base-``b`` digits of the point
    index (``b**m >= n``; the radical inverse reverses them) each go through their own random
    permutation of ``0..b-1`` and select one of ``b**m`` equal cells; a uniform offset places the
    point inside its cell. The permutations break the correlations between large bases that plain
    Halton points show in high dimension; every random number comes from ``rng``.
    """
    index = np.arange(n)  # (n,)
    U = rng.random((n, dim))  # (n, dim) offsets inside the cells
    for j, base in enumerate(_first_primes(dim)):
        n_digits = _digits_to_count(n, base)
        # (n_digits, base)
        permutations = rng.permuted(np.tile(np.arange(base), (n_digits, 1)), axis=1)
        cell, rest = np.zeros(n, dtype=np.int64), index
        # the index's k-th least significant digit is the cell's k-th most significant
        for k in range(n_digits):
            rest, digit = np.divmod(rest, base)
            cell = cell * base + permutations[k, digit]
        U[:, j] = (cell + U[:, j]) / float(base) ** n_digits
    return U


def _digits_to_count(n: int, base: int) -> int:
    """Smallest ``m >= 1`` with ``base**m >= n``: the index digits that vary among ``n`` points."""
    m = 1
    while base**m < n:
        m += 1
    return m


@functools.cache
def _first_primes(k: int) -> tuple[int, ...]:
    """The ``k`` smallest primes (sieve up to Rosser's
    bound ``k (ln k + ln ln k)`` for ``k >= 6``)."""
    bound = 15 if k < 6 else int(k * (math.log(k) + math.log(math.log(k)))) + 1
    is_prime = np.ones(bound + 1, dtype=bool)
    is_prime[:2] = False
    for i in range(2, math.isqrt(bound) + 1):
        if is_prime[i]:
            is_prime[i * i :: i] = False
    return tuple(int(p) for p in np.flatnonzero(is_prime)[:k])
