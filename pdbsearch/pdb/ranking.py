"""Ranking k-subsets with the combinatorial number system, and ordered
placements (partial permutations) in mixed radix (no unused slots either).

A set ``c_1 < c_2 < ... < c_k`` of indices in ``0..n-1`` has rank
``C(c_1, 1) + C(c_2, 2) + ... + C(c_k, k)``, a bijection onto
``0 .. C(n, k) - 1``.
"""

from __future__ import annotations

import math
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


# -- partial permutations ------------------------------------------------------
#
# k distinct cells ``p_0, ..., p_(k-1)`` out of n (an ordered placement of k
# named tiles) have the mixed-radix rank
# ``r = (...((d_0) (n-1) + d_1) (n-2) + ...) (n-k+1) + d_(k-1)``
# where ``d_i`` is ``p_i`` minus the number of earlier cells below it; a
# bijection onto ``0 .. n!/(n-k)! - 1`` (no unused entries).

_M1 = np.uint64(0x5555555555555555)
_M2 = np.uint64(0x3333333333333333)
_M4 = np.uint64(0x0F0F0F0F0F0F0F0F)
_H01 = np.uint64(0x0101010101010101)


@nb.njit(cache=True, inline="always")
def popcount64(x):
    """Set bits of a uint64 (the SWAR count: no loop, no table)."""
    x = x - ((x >> np.uint64(1)) & _M1)
    x = (x & _M2) + ((x >> np.uint64(2)) & _M2)
    x = (x + (x >> np.uint64(4))) & _M4
    return np.int64((x * _H01) >> np.uint64(56))


def placements(n: int, k: int) -> int:
    """How many ordered placements of k tiles on n cells: n! / (n-k)!."""
    return math.perm(n, k)


@nb.njit(cache=True, inline="always")
def rank_partial(cells, k, n):
    """Rank of the placement ``cells[0 .. k-1]`` (distinct, in 0..n-1)."""
    used = np.uint64(0)
    r = np.int64(0)
    for i in range(k):
        p = cells[i]
        below = popcount64(used & ((np.uint64(1) << np.uint64(p)) - np.uint64(1)))
        r = r * (n - i) + (p - below)
        used |= np.uint64(1) << np.uint64(p)
    return r


@nb.njit(cache=True, inline="always")
def unrank_partial(r, k, n, out):
    """Write the placement of rank ``r`` into ``out[0 .. k-1]``."""
    # digits, last first
    for i in range(k - 1, -1, -1):
        out[i] = r % (n - i)
        r //= n - i
    used = np.uint64(0)
    for i in range(k):
        d = out[i]
        # the d-th cell (0-based) not used yet
        c = 0
        while True:
            if (used >> np.uint64(c)) & np.uint64(1) == 0:
                if d == 0:
                    break
                d -= 1
            c += 1
        out[i] = c
        used |= np.uint64(1) << np.uint64(c)


def rank_partial_py(cells: list[int], n: int) -> int:
    """Plain-Python reference of :func:`rank_partial`."""
    r = 0
    for i, p in enumerate(cells):
        r = r * (n - i) + p - sum(1 for q in cells[:i] if q < p)
    return r


def unrank_partial_py(r: int, k: int, n: int) -> list[int]:
    """Plain-Python reference of :func:`unrank_partial`."""
    digits = []
    for i in range(k - 1, -1, -1):
        digits.append(r % (n - i))
        r //= n - i
    free = list(range(n))
    return [free.pop(d) for d in reversed(digits)]
