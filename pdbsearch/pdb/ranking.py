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
from llvmlite import ir
from numba.core import types
from numba.extending import intrinsic


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

@intrinsic
def _ctpop(typingctx, x):
    """LLVM's population count of a uint64 (one instruction where the CPU has it)."""
    if x != types.uint64:
        return None

    def codegen(context, builder, signature, args):
        return builder.ctpop(args[0])
    return types.uint64(types.uint64), codegen


@intrinsic
def _cttz(typingctx, x):
    """LLVM's count of trailing zeros of a uint64 (64 for zero)."""
    if x != types.uint64:
        return None

    def codegen(context, builder, signature, args):
        return builder.cttz(args[0], ir.Constant(ir.IntType(1), 0))
    return types.uint64(types.uint64), codegen


@nb.njit(cache=True, inline="always")
def popcount64(x):
    """Set bits of a uint64, as an int64."""
    return np.int64(_ctpop(np.uint64(x)))


@nb.njit(cache=True, inline="always")
def lowest_bit(x):
    """Index of the lowest set bit of a non-zero uint64, as an int64."""
    return np.int64(_cttz(np.uint64(x)))


@nb.njit(cache=True, inline="always")
def select_bit(mask, d):
    """Index of the ``d``-th (0-based) set bit of ``mask``, which has more
    than ``d`` set bits: a binary search on the population counts of the
    low halves, without branches (a loop of ``d`` steps mispredicts its
    exit about once a call, which cost more than the whole search)."""
    m = np.uint64(mask)
    left = np.uint64(d)
    pos = np.uint64(0)
    for width in (32, 16, 8, 4, 2, 1):
        low = _ctpop(m & ((np.uint64(1) << np.uint64(width)) - np.uint64(1)))
        take = np.uint64(left >= low)
        left -= take * low
        m >>= take * np.uint64(width)
        pos += take * np.uint64(width)
    return np.int64(pos)


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
    # each digit is read before its cell overwrites it: one array serves both
    unrank_digits(r, k, n, out, out)


@nb.njit(cache=True, inline="always")
def next_placement(cells, k, n):
    """Step ``cells[0 .. k-1]`` to the placement of the next rank (the
    mixed-radix counter's last digit up, with carries); returns False past
    the last.  Iterating a table in rank order this way costs a cell or two
    a step instead of a whole unranking."""
    one = np.uint64(1)
    full = (one << np.uint64(n)) - one if n < 64 else ~np.uint64(0)
    used = np.uint64(0)
    for i in range(k):
        used |= one << np.uint64(cells[i])
    i = k - 1
    while i >= 0:
        used &= ~(one << np.uint64(cells[i]))
        # the next free cell above the current one, if any
        above = full & ~used & ~((one << np.uint64(cells[i] + 1)) - one) \
            if cells[i] + 1 < 64 else np.uint64(0)
        if above:
            cells[i] = lowest_bit(above)
            used |= one << np.uint64(cells[i])
            # the later tiles restart on the lowest free cells
            for j in range(i + 1, k):
                c = lowest_bit(full & ~used)
                cells[j] = c
                used |= one << np.uint64(c)
            return True
        i -= 1
    return False


@nb.njit(cache=True, inline="always")
def advance_placement(digits, cells, k, n, steps):
    """Move the placement ``cells[0 .. k-1]``, whose mixed-radix digits are
    ``digits`` (see :func:`rank_partial`), ``steps`` ranks on: add to the
    last digit, carry, and find the cells again only from the first digit
    that changed (a short step changes one or two).  The rank must stay
    below ``n! / (n - k)!``."""
    one = np.uint64(1)
    i = k - 1
    d = digits[i] + steps
    while d >= n - i:
        carry = d // (n - i)
        digits[i] = d - carry * (n - i)
        i -= 1
        d = digits[i] + carry
    digits[i] = d
    used = np.uint64(0)
    for j in range(i):
        used |= one << np.uint64(cells[j])
    free = ((one << np.uint64(n)) - one if n < 64 else ~np.uint64(0)) & ~used
    for j in range(i, k):
        c = select_bit(free, digits[j])
        cells[j] = c
        free &= ~(one << np.uint64(c))


@nb.njit(cache=True, inline="always")
def unrank_digits(r, k, n, digits, cells):
    """:func:`unrank_partial`, keeping the mixed-radix digits too (for
    :func:`advance_placement`)."""
    for i in range(k - 1, -1, -1):
        digits[i] = r % (n - i)
        r //= n - i
    one = np.uint64(1)
    free = (one << np.uint64(n)) - one if n < 64 else ~np.uint64(0)
    for i in range(k):
        c = select_bit(free, digits[i])
        cells[i] = c
        free &= ~(one << np.uint64(c))


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
