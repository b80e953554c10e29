"""A growable hash table of states (the closed + open set of A* and BFS).

A stored state costs ``8 × K`` bytes of key, 4 bytes of cost ``g``, 4 bytes
of parent index, and two ``int32`` hash slots (the table is kept at most half
full), so ``8 K + 16`` bytes in all (K = 5 on an 8×20 Hakoiri board: 56 bytes).
Move codes are not stored: the path is rebuilt by re-expanding each parent.
"""

from __future__ import annotations

import numba as nb
import numpy as np

_MULT = np.uint64(0xBF58476D1CE4E5B9)
_SEED = np.uint64(0x9E3779B97F4A7C15)
_SHIFT = np.uint64(31)


@nb.njit(cache=True, inline="always")
def hash_key(key):
    """A 64-bit mix of the words of ``key``."""
    h = _SEED
    for i in range(key.shape[0]):
        h = (h ^ key[i]) * _MULT
        h ^= h >> _SHIFT
    return h


def empty_slots(rows: int) -> np.ndarray:
    """The hash slots of a fixed table of at most ``rows`` keys, all empty
    (-1): a power of two at least twice ``rows``, so the table stays at most
    half full and :func:`find_slot` always ends on a free slot."""
    return np.full(1 << max(1, (2 * rows - 1).bit_length()), -1, np.int32)


@nb.njit(cache=True, inline="always")
def keys_equal(a, b):
    """True when two key rows are equal."""
    for i in range(a.shape[0]):
        if a[i] != b[i]:
            return False
    return True


@nb.njit(cache=True)
def find_slot(keys, slots, key):
    """The slot of ``key``: ``slots[s]`` is its node index, or -1 if absent."""
    mask = slots.shape[0] - 1
    s = np.int64(hash_key(key) & np.uint64(mask))
    while True:
        idx = slots[s]
        if idx < 0 or keys_equal(keys[idx], key):
            return s
        s = (s + 1) & mask


@nb.njit(cache=True)
def rehash(keys, slots, n, first=0):
    """Enter keys ``first`` .. ``n - 1`` into ``slots``: with ``first`` 0,
    rebuild them (all -1 on entry) from the first ``n`` keys; else add to
    slots that hold the keys before ``first`` already."""
    for i in range(first, n):
        s = find_slot(keys, slots, keys[i])
        slots[s] = i


class NodeStore:
    """The arrays of a growable state table (Python side: growth, bytes)."""

    def __init__(self, key_words: int, capacity: int = 1 << 12):
        self.keys = np.zeros((capacity, key_words), dtype=np.uint64)
        self.g = np.zeros(capacity, dtype=np.int32)
        self.parent = np.full(capacity, -1, dtype=np.int32)
        self.slots = np.full(2 * capacity, -1, dtype=np.int32)

    @property
    def capacity(self) -> int:
        """How many states fit before the next growth."""
        return self.keys.shape[0]

    def nbytes(self) -> int:
        """Bytes held by the table's arrays."""
        return self.keys.nbytes + self.g.nbytes + self.parent.nbytes + self.slots.nbytes

    def grown_nbytes(self) -> int:
        """Bytes the table would hold after one doubling."""
        return 2 * self.nbytes()

    def load_kernels(self) -> None:
        """Compile (or load from the cache) the growth kernel now, on empty
        arrays of the same types, so that no search pays for it later."""
        rehash(self.keys[:0], np.full(2, -1, dtype=np.int32), 0)

    def grow(self, n_used: int) -> None:
        """Double the capacity, keeping the first ``n_used`` states."""
        cap = 2 * self.capacity
        keys = np.zeros((cap, self.keys.shape[1]), dtype=np.uint64)
        keys[:n_used] = self.keys[:n_used]
        g = np.zeros(cap, dtype=np.int32)
        g[:n_used] = self.g[:n_used]
        parent = np.full(cap, -1, dtype=np.int32)
        parent[:n_used] = self.parent[:n_used]
        self.keys, self.g, self.parent = keys, g, parent
        self.slots = np.full(2 * cap, -1, dtype=np.int32)
        rehash(self.keys, self.slots, n_used)

    def path_to(self, node: int) -> list[int]:
        """Node indices from the root to ``node``."""
        path = []
        while node >= 0:
            path.append(node)
            node = int(self.parent[node])
        return path[::-1]
