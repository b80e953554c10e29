"""Learned deadlock patterns: a pattern database grown on demand during a search.

A *pattern* is a set of pieces (bits of a state key: for Sokoban, box
cells) and a *player region* (bits of the player's index).  A state
*matches* it when every pattern bit is set in its key and the state's
player index is in the region.  A domain learns a pattern once a small
local search has proved that the pattern's pieces alone, with the player
in the region, cannot reach a goal; matching is sound when more pieces
only make a dead pattern deader (true of Sokoban boxes: a solution of the
full position, with the other boxes removed, is a solution of the
pattern).

The store is a fixed number of rows allocated before the search (the
engines allocate nothing per node); once full, learning stops.  Patterns
are chained by an *anchor* bit (their lowest piece bit), so a match
looks only at the patterns anchored at one of the state's set bits.
Any engine (A*, IDA*, FESS) can ask :func:`learned_match`.

A pattern may also *count* (:func:`learned_add_counting`): it matches only
when at least ``need`` of the state's pieces stand on the cells of its
``count`` bits.  The Sokoban frozen-box cut learns such patterns: boxes
frozen on goals (the piece bits), and more boxes confined to a set of
goals than it has (the count), dead whatever the other boxes do.  A plain
pattern has ``need`` 0.  Each row costs ``8 (2 K + R) + 8`` bytes (``K``
key words, ``R`` region words): 4,096 rows of a 20 × 20 board (K = 8,
R = 7) take 0.8 MB.
"""

from __future__ import annotations

from typing import NamedTuple

import numba as nb
import numpy as np
from numba.cpython.unsafe.numbers import trailing_zeros

from ..fences import release_fence
from .ranking import popcount64

_ONE = np.uint64(1)

# Slots of ``info``.
COUNT = 0         #: patterns stored
FULL = 1          #: 1 once a pattern was refused for lack of room
N_INFO = 4

#: Default number of pattern rows.
DEFAULT_CAPACITY = 1 << 12


class LearnedPatterns(NamedTuple):
    """The pattern rows as the kernels see them (see :func:`new_store`)."""

    bits: np.ndarray        #: uint64[capacity, K]: the pattern's piece bits (key words)
    region: np.ndarray      #: uint64[capacity, R]: player indices allowed
    count: np.ndarray       #: uint64[capacity, K]: the counted cells (key bits)
    need: np.ndarray        #: int32[capacity]: pieces needed on them (0: a plain pattern)
    next: np.ndarray        #: int32[capacity]: next pattern with the same anchor, -1 ends
    head: np.ndarray        #: int32[64 K]: first pattern anchored at each bit, -1 if none
    info: np.ndarray        #: int64[N_INFO]: counters (slots above)


def new_store(key_words: int, player_values: int,
              capacity: int = DEFAULT_CAPACITY) -> LearnedPatterns:
    """An empty store for keys of ``key_words`` words and player indices
    ``0 .. player_values - 1``, with room for ``capacity`` patterns (at
    least one row, so the kernels always have arrays to read)."""
    capacity = max(1, capacity)
    region_words = max(1, (player_values + 63) // 64)
    return LearnedPatterns(np.zeros((capacity, key_words), np.uint64),
                           np.zeros((capacity, region_words), np.uint64),
                           np.zeros((capacity, key_words), np.uint64),
                           np.zeros(capacity, np.int32),
                           np.full(capacity, -1, np.int32),
                           np.full(64 * key_words, -1, np.int32),
                           np.zeros(N_INFO, np.int64))


@nb.njit(cache=True, inline="always")
def _covers(row, key, mask):
    """Every bit of ``row`` is set in ``key & mask``."""
    for w in range(row.shape[0]):
        if (key[w] & mask[w] & row[w]) != row[w]:
            return False
    return True


@nb.njit(cache=True, inline="always")
def _counted(row, key, mask, need):
    """At least ``need`` bits of ``key & mask`` are set in ``row``."""
    found = 0
    for w in range(row.shape[0]):
        found += popcount64(key[w] & mask[w] & row[w])
    return found >= need


@nb.njit(cache=True, inline="always")
def learned_match(store, key, piece_mask, player):
    """True when the state ``key`` (its piece bits are ``key & piece_mask``)
    with player index ``player`` matches a learned pattern.  It writes
    nothing: searches in other threads may match at the same time."""
    if store.info[COUNT] == 0:
        return False
    pw = player >> 6
    pb = _ONE << np.uint64(player & 63)
    for w in range(key.shape[0]):
        word = key[w] & piece_mask[w]
        while word != 0:
            bit = w * 64 + np.int64(trailing_zeros(word))
            word &= word - _ONE
            q = store.head[bit]
            while q >= 0:
                if (store.region[q, pw] & pb) != 0 and \
                        _covers(store.bits[q], key, piece_mask) and \
                        (store.need[q] == 0 or
                         _counted(store.count[q], key, piece_mask, store.need[q])):
                    return True
                q = store.next[q]
    return False


@nb.njit(cache=True)
def learned_add(store, bits, region):
    """Store a pattern (piece bits ``bits``, player region ``region``);
    returns its row, or -1 when the store is full or ``bits`` is empty."""
    return learned_add_counting(store, bits, region, bits, 0)


@nb.njit(cache=True)
def learned_add_counting(store, bits, region, count, need):
    """Store a pattern that matches only when at least ``need`` pieces
    stand on the ``count`` bits as well (``need`` 0: a plain pattern, as
    :func:`learned_add`); returns its row, or -1 as :func:`learned_add`."""
    n = store.info[COUNT]
    if n >= store.bits.shape[0]:
        store.info[FULL] = 1
        return -1
    anchor = -1
    for w in range(bits.shape[0]):
        if bits[w] != 0:
            anchor = w * 64 + np.int64(trailing_zeros(bits[w]))
            break
    if anchor < 0:
        return -1
    for w in range(bits.shape[0]):
        store.bits[n, w] = bits[w]
    for w in range(region.shape[0]):
        store.region[n, w] = region[w]
    for w in range(count.shape[0]):
        store.count[n, w] = count[w] if need > 0 else np.uint64(0)
    store.need[n] = need
    store.next[n] = store.head[anchor]
    # The row in full, then the chain head that publishes it: a search in
    # another thread may be matching against the store (..fences).
    release_fence()
    store.head[anchor] = n
    store.info[COUNT] = n + 1
    return n


def reference_match(patterns: list[tuple[set[int], set[int]]], pieces: set[int],
                    player: int, counts: list[tuple[set[int], int]] | None = None) -> bool:
    """Plain-Python definition of a match, for the tests: ``patterns`` are
    ``(piece bits, player indices)`` pairs, ``counts`` (one per pattern,
    none: all plain) ``(counted bits, need)`` pairs."""
    counts = counts or [(set(), 0)] * len(patterns)
    return any(bits <= pieces and player in region and len(counted & pieces) >= need
               for (bits, region), (counted, need) in zip(patterns, counts))


def _bit_set(row: np.ndarray) -> set[int]:
    """The indices of the set bits of a row of uint64 words."""
    return {w * 64 + i for w in range(row.shape[0]) for i in range(64)
            if (int(row[w]) >> i) & 1}


def stored_patterns(store: LearnedPatterns) -> list[tuple[set[int], set[int]]]:
    """The stored patterns as ``(piece bits, player indices)`` sets."""
    return [(_bit_set(store.bits[q]), _bit_set(store.region[q]))
            for q in range(int(store.info[COUNT]))]


def stored_counts(store: LearnedPatterns) -> list[tuple[set[int], int]]:
    """The stored patterns' counts as ``(counted bits, need)`` pairs
    (``(set(), 0)`` for a plain pattern)."""
    return [(_bit_set(store.count[q]), int(store.need[q]))
            for q in range(int(store.info[COUNT]))]
