"""A binary min-heap open list in numba, over three parallel arrays.

Entries are ordered by ``f`` (float64, so any real weight α works), ties
broken towards the larger ``g`` (deeper nodes first, which finds the goal
sooner among equal-f nodes). An entry costs 16 bytes. Stale entries (a node
whose ``g`` has improved since) are skipped by the caller on pop.
"""

from __future__ import annotations

import numba as nb
import numpy as np


@nb.njit(cache=True, inline="always")
def _before(hf, hg, i, j):
    return hf[i] < hf[j] or (hf[i] == hf[j] and hg[i] > hg[j])


@nb.njit(cache=True)
def heap_push(hf, hg, hn, size, f, g, node):
    """Insert an entry; returns the new size (the caller ensures room)."""
    i = size
    hf[i] = f
    hg[i] = g
    hn[i] = node
    while i > 0:
        p = (i - 1) >> 1
        if _before(hf, hg, i, p):
            hf[i], hf[p] = hf[p], hf[i]
            hg[i], hg[p] = hg[p], hg[i]
            hn[i], hn[p] = hn[p], hn[i]
            i = p
        else:
            break
    return size + 1


@nb.njit(cache=True)
def heap_pop(hf, hg, hn, size):
    """Remove the first entry; returns (f, g, node, new size)."""
    f, g, node = hf[0], hg[0], hn[0]
    size -= 1
    hf[0], hg[0], hn[0] = hf[size], hg[size], hn[size]
    i = 0
    while True:
        left = 2 * i + 1
        if left >= size:
            break
        best = left
        right = left + 1
        if right < size and _before(hf, hg, right, left):
            best = right
        if _before(hf, hg, best, i):
            hf[i], hf[best] = hf[best], hf[i]
            hg[i], hg[best] = hg[best], hg[i]
            hn[i], hn[best] = hn[best], hn[i]
            i = best
        else:
            break
    return f, g, node, size


class Heap:
    """The heap's arrays (Python side: growth and bytes)."""

    def __init__(self, capacity: int = 1 << 12):
        self.f = np.zeros(capacity, dtype=np.float64)
        self.g = np.zeros(capacity, dtype=np.int32)
        self.node = np.zeros(capacity, dtype=np.int32)

    @property
    def capacity(self) -> int:
        """How many entries fit before the next growth."""
        return self.f.shape[0]

    def nbytes(self) -> int:
        """Bytes held by the heap's arrays."""
        return self.f.nbytes + self.g.nbytes + self.node.nbytes

    def grow(self) -> None:
        """Double the capacity (the entries are kept)."""
        self.f = np.concatenate([self.f, np.zeros_like(self.f)])
        self.g = np.concatenate([self.g, np.zeros_like(self.g)])
        self.node = np.concatenate([self.node, np.zeros_like(self.node)])
