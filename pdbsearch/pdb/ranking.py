"""Ranking k-subsets with the combinatorial number system (no unused slots).

A set ``c_1 < c_2 < ... < c_k`` of indices in ``0..n-1`` has rank
``C(c_1, 1) + C(c_2, 2) + ... + C(c_k, k)``, a bijection onto
``0 .. C(n, k) - 1``.
"""

from __future__ import annotations

from math import comb

import numba as nb
import numpy as np


def binomial_table(n: int, k: int) -> np.ndarray:
    """``table[i, j] = C(i, j)`` for i <= n, j <= k, as int64."""
    table = np.zeros((n + 1, k + 1), dtype=np.int64)
    for i in range(n + 1):
        for j in range(min(i, k) + 1):
            table[i, j] = comb(i, j)
    return table


@nb.njit(cache=True)
def rank_subset(binom, members):
    """Rank of the sorted index array ``members``."""
    r = 0
    for i in range(members.shape[0]):
        r += binom[members[i], i + 1]
    return r


@nb.njit(cache=True)
def unrank_subset(binom, n, r, out):
    """Write the sorted members of the subset of rank ``r`` into ``out``."""
    k = out.shape[0]
    c = n - 1
    for i in range(k, 0, -1):
        while binom[c, i] > r:
            c -= 1
        out[i - 1] = c
        r -= binom[c, i]
        c -= 1


def rank_subset_py(members: list[int]) -> int:
    """Plain-Python reference of :func:`rank_subset`."""
    return sum(comb(c, i + 1) for i, c in enumerate(sorted(members)))


def unrank_subset_py(n: int, k: int, r: int) -> list[int]:
    """Plain-Python reference of :func:`unrank_subset`."""
    out = []
    c = n - 1
    for i in range(k, 0, -1):
        while comb(c, i) > r:
            c -= 1
        out.append(c)
        r -= comb(c, i)
        c -= 1
    return out[::-1]
