"""The arrays of a FESS run (:mod:`.fess`): its records of nodes, edges
and cells, the heap of each cell of feature space (kept in one arena), the
hash that finds a cell from its features, and the sort of a node's
children.

**Memory.**  Only expanded positions are stored as nodes: ``8 K + 53``
bytes each (K key words; 8 K key, 4 g, 4 parent, 8 hash slots, 4 weight,
8 best rank, 4 cell, 1 flags, 8 child cursor, 8 child end, 4 subtree
size).  A generated
child costs 20 bytes (8 descriptor, 8 weight and rank, 4 cost) until the
search ends.  Each node with untried children has one 16-byte entry in its
cell's heap (the heaps live in one arena with doubling segments, so up to
twice that).  Children already expanded are dropped when generated.
The deferred stuck tests take 12 bytes each, :data:`.fess_stuck.MAX_DEFERRED` of
them at most.
"""

from __future__ import annotations

from typing import NamedTuple

import numba as nb
import numpy as np

from .common import OPEN
from .fess_protocol import MAX_CELL_FEATURE

# -- engine arrays ------------------------------------------------------------------

# Node flags.
NODE_EXPANDED = 1
NODE_DEAD = 2
NODE_STUCK = 4     #: the stuck test proved it dead: its subtree is dropped

#: Extra return codes of the chunk (besides those of .common).
GROW_EDGES = 5
GROW_CELLS = 6
GROW_ARENA = 7

# Slots of the ``fs`` int64 array (the loop's own state).
N_CELLS, CURSOR, ITERATION, BEST_CELL, BEST_RANK, N_EDGES, ARENA_TOP, MAX_CAP, \
    LAZY_DEAD, N_ADVISED, WASTED, BEST_OWN, BEST_NODE, STUCK, DROPPED, N_DEFERRED, \
    DEFERRALS, DEFERRED_DEAD, BEST_SINCE, BEST_RESETS, COST_CAP, BOUND_FEATURE, CAPPED, \
    REPARENTED = range(24)
N_FS = 24
#: ``fs[COST_CAP]`` of a search given no cap.
NO_COST_CAP = np.int64(1) << np.int64(62)

NO_RANK = np.int64(1) << np.int64(62)


class Nodes(NamedTuple):
    """Per expanded node (beyond the NodeStore's key, g, parent, slots)."""

    wt: np.ndarray       #: int32 accumulated weight
    brank: np.ndarray    #: int64 best rank on the path (the projection)
    cell: np.ndarray     #: int32 cell of the node
    flags: np.ndarray    #: uint8 NODE_EXPANDED / NODE_DEAD
    kcur: np.ndarray     #: int64 next child edge to try
    kend: np.ndarray     #: int64 one past the last child edge
    sub: np.ndarray      #: int32 expansions under the node (up to SUBTREE_CHECK)


class Deferred(NamedTuple):
    """The positions whose stuck test waits for budget (``fs[N_DEFERRED]``
    of them, unordered: at most :data:`.fess_stuck.MAX_DEFERRED`, scanned)."""

    node: np.ndarray     #: int32
    rank: np.ndarray     #: int64 the node's ``brank`` (smaller: asked first)


class Edges(NamedTuple):
    """Per generated child, sorted per parent by (weight, rank)."""

    desc: np.ndarray     #: int64 the domain's descriptor
    key: np.ndarray      #: int64 weight << RANK_BITS | rank
    cost: np.ndarray     #: int32


class Cells(NamedTuple):
    """Per cell of feature space, and its heap segment in the arena."""

    key: np.ndarray      #: int64 packed features
    slots: np.ndarray    #: int32 open-addressing hash (2 x capacity)
    off: np.ndarray      #: int64 heap segment start
    cap: np.ndarray      #: int64 heap segment capacity
    size: np.ndarray     #: int64 heap entries
    brank: np.ndarray    #: int64 best rank projected here


class Arena(NamedTuple):
    """The heap entries of every cell: (weight, rank, node), least first."""

    w: np.ndarray        #: int64 accumulated weight of the node's next move
    rank: np.ndarray     #: int64 rank of that move's child
    node: np.ndarray     #: int32


class Buffers(NamedTuple):
    """One expansion's output and scratch."""

    keys: np.ndarray     #: uint64[M, K]
    desc: np.ndarray     #: int64[M]
    cost: np.ndarray     #: int32[M]
    feat: np.ndarray     #: int32[M, F]
    rank: np.ndarray     #: int64[M]
    flags: np.ndarray    #: uint8[M]
    self_info: np.ndarray  #: int64[F + 1]
    tmp_key: np.ndarray  #: uint64[K]


# -- heaps in the arena ------------------------------------------------------------------


@nb.njit(cache=True, inline="always")
def _less(a, i, j):
    if a.w[i] != a.w[j]:
        return a.w[i] < a.w[j]
    if a.rank[i] != a.rank[j]:
        return a.rank[i] < a.rank[j]
    return a.node[i] < a.node[j]


@nb.njit(cache=True, inline="always")
def _swap(a, i, j):
    a.w[i], a.w[j] = a.w[j], a.w[i]
    a.rank[i], a.rank[j] = a.rank[j], a.rank[i]
    a.node[i], a.node[j] = a.node[j], a.node[i]


@nb.njit(cache=True)
def sift_down(a, off, size, i):
    """Move the arena entry at heap position ``i`` of the heap segment
    ``a[off : off + size]`` down to its place (least first)."""
    while True:
        left = 2 * i + 1
        if left >= size:
            return
        best = left
        if left + 1 < size and _less(a, off + left + 1, off + left):
            best = left + 1
        if _less(a, off + best, off + i):
            _swap(a, off + best, off + i)
            i = best
        else:
            return


@nb.njit(cache=True)
def cell_push(cells, a, fs, stats, c, w, rank, node):
    """Add an entry to cell ``c``'s heap, moving the segment to the arena's
    end (twice as large) when it is full; the caller made room."""
    if cells.size[c] == cells.cap[c]:
        new_cap = max(np.int64(4), 2 * cells.cap[c])
        new_off = fs[ARENA_TOP]
        off = cells.off[c]
        for i in range(cells.size[c]):
            a.w[new_off + i] = a.w[off + i]
            a.rank[new_off + i] = a.rank[off + i]
            a.node[new_off + i] = a.node[off + i]
        fs[ARENA_TOP] = new_off + new_cap
        cells.off[c] = new_off
        cells.cap[c] = new_cap
        if new_cap > fs[MAX_CAP]:
            fs[MAX_CAP] = new_cap
    off = cells.off[c]
    i = cells.size[c]
    a.w[off + i] = w
    a.rank[off + i] = rank
    a.node[off + i] = node
    cells.size[c] = i + 1
    stats[OPEN] += 1
    while i > 0:
        parent = (i - 1) >> 1
        if _less(a, off + i, off + parent):
            _swap(a, off + i, off + parent)
            i = parent
        else:
            break


# -- cells ---------------------------------------------------------------------


@nb.njit(cache=True, inline="always")
def _mix(x):
    h = np.uint64(x) * np.uint64(0x9E3779B97F4A7C15)
    return h ^ (h >> np.uint64(29))


@nb.njit(cache=True)
def cell_of(cells, fs, feat_key):
    """The cell of packed features ``feat_key``, created if new (the cursor
    then jumps to it, as in Festival); the caller made room."""
    mask = cells.slots.shape[0] - 1
    s = np.int64(_mix(feat_key) & np.uint64(mask))
    while True:
        c = cells.slots[s]
        if c < 0:
            break
        if cells.key[c] == feat_key:
            return c
        s = (s + 1) & mask
    c = fs[N_CELLS]
    cells.slots[s] = c
    cells.key[c] = feat_key
    cells.off[c] = 0
    cells.cap[c] = 0
    cells.size[c] = 0
    cells.brank[c] = NO_RANK
    fs[N_CELLS] = c + 1
    fs[CURSOR] = c
    return c


@nb.njit(cache=True)
def rehash_cells(cells, n):
    """Rebuild the cell hash (all -1 on entry) from the first ``n`` cells."""
    mask = cells.slots.shape[0] - 1
    for c in range(n):
        s = np.int64(_mix(cells.key[c]) & np.uint64(mask))
        while cells.slots[s] >= 0:
            s = (s + 1) & mask
        cells.slots[s] = c


@nb.njit(cache=True, inline="always")
def pack_features(info, n_cell):
    """The cell key of features ``info[1 : 1 + n_cell]`` (16 bits each)."""
    k = np.int64(0)
    for f in range(n_cell):
        v = info[1 + f]
        if v < 0:
            v = 0
        elif v > MAX_CELL_FEATURE:
            v = MAX_CELL_FEATURE
        k |= np.int64(v) << np.int64(16 * f)
    return k


# -- sorting a node's children ----------------------------------------------------------


@nb.njit(cache=True)
def sort_edges(e, lo, hi):
    """Heapsort ``e[lo:hi]`` by key (descriptor and cost follow)."""
    n = hi - lo
    for start in range(n // 2 - 1, -1, -1):
        _edge_sift(e, lo, start, n)
    for end in range(n - 1, 0, -1):
        _edge_swap(e, lo, lo + end)
        _edge_sift(e, lo, 0, end)


@nb.njit(cache=True, inline="always")
def _edge_swap(e, i, j):
    e.key[i], e.key[j] = e.key[j], e.key[i]
    e.desc[i], e.desc[j] = e.desc[j], e.desc[i]
    e.cost[i], e.cost[j] = e.cost[j], e.cost[i]


@nb.njit(cache=True)
def _edge_sift(e, lo, i, n):
    while True:
        left = 2 * i + 1
        if left >= n:
            return
        big = left
        if left + 1 < n and e.key[lo + left + 1] > e.key[lo + left]:
            big = left + 1
        if e.key[lo + big] > e.key[lo + i]:
            _edge_swap(e, lo + i, lo + big)
            i = big
        else:
            return
