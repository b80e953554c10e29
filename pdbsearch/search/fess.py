"""FESS, the feature space search (Shoham and Schaeffer, IEEE CoG 2020), the
search behind the Festival Sokoban solver: it *finds* solutions, it proves
nothing (no optimality claim, ever).

**The idea.**  An ordinary search tree (a DAG: a position is expanded once)
over the domain's *macro moves*, plus a small *feature space*: each
expanded position is projected onto a cell, the feature vector of the best
position on its path from the root (so a move that makes things worse
stays in the cell it came from).  The cells are visited in turn, and every
other iteration the best cell found so far (while it keeps improving: see
:func:`best_cell_period`); inside a cell the unexpanded
move with the least *accumulated weight* is taken, where a move weighs 0
when an advisor recommends it and 1 otherwise.  Time is shared among the
discovered cells, so the search cannot drown in one plateau of a heuristic.

**The domain protocol.**  A domain supplies its features and macro moves
through jitted kernels registered for its params class with
:func:`register_fess_kernels` (dispatched at compile time like the kernels
of :mod:`pdbsearch.puzzle`, so numba's on-disk cache works):

``expand(p, key, self_info, out_keys, out_desc, out_cost, out_feat, out_rank, out_flags) -> n``
    The macro moves of the position ``key``: child ``i`` has the key
    ``out_keys[i]``, an opaque int64 descriptor ``out_desc[i]`` from which
    :func:`fess_child_key` rebuilds the key later (children are stored as
    descriptors, not keys, until they are chosen), the cost ``out_cost[i]``
    (e.g. pushes), the features ``out_feat[i, :F]`` (smaller is better; the
    first ``cell_features`` of them name the cell), the rank
    ``out_rank[i]`` in ``[0, 2**62)`` (the domain's whole quality order,
    smaller is better: used to pick the best ancestor, to break ties
    between moves and to find the best cell) and ``out_flags[i]``
    (:data:`ADVISED`: a domain advisor recommends it; :data:`GOAL_CHILD`: a
    goal).  It also writes the position's own rank and features into
    ``self_info`` (``[rank, f0, f1, ...]``).  Cheap deadlock tests belong
    here (a dead child is simply not written).
``child_key(p, parent_key, desc, out_key)``
    The key of the child with descriptor ``desc``.
``late_check(p, key) -> bool``
    True when the position is dead: the expensive tests, run only on the
    move chosen for expansion (Festival's lazy deadlock check).
``stuck_check(p, key, again) -> int`` (optional)
    :data:`PROVED_DEAD` when the position is dead, by a costlier test that
    may learn something (Festival's stuck patterns); the engine asks it of
    a position once :data:`SUBTREE_CHECK` expansions have been made under
    it, and a dead verdict drops the position's whole subtree.
    :data:`NOT_PROVED` when it proves nothing; :data:`ASK_LATER` when a
    test could not run for want of budget.  The engine then keeps the
    position among the :data:`MAX_DEFERRED` best-ranked ones deferred and
    asks again (``again`` = 1: the domain may skip what it ran the first
    time) before the first test of a position ranked worse, and every
    :data:`RETRY_EVERY` expansions.  So when tests are rationed, the best
    positions get them: those are where the search keeps coming back, and
    a dead one among them holds the whole search (the best position FESS
    had reached on a level of 11 boxes, dead, proved so by 382 positions
    of the probe, was never tested: the budget was spent when its
    subtree reached the mark).

The engine adds the generic *feature advisors* itself: for each feature,
the best-ranked new child that improves it without worsening feature 0
(the primary one, e.g. packed boxes) gets weight 0.  So a domain that
only computes features already gets Festival's packing, connectivity and
room advisors; special advisors (out-of-plan, opener, ...) set
:data:`ADVISED` in the domain.

The Python side of a domain is a :class:`FessDomain`, returned by the
puzzle's ``fess_domain(limits)``: the params, the feature counts, the
per-level preparation (run in slices inside the search's time, so limits
and Ctrl-C hold during it) and the move codes of a macro edge for the
replay.

**Memory.**  Only expanded positions are stored as nodes: ``8 K + 53``
bytes each (K key words; 8 K key, 4 g, 4 parent, 8 hash slots, 4 weight,
8 best rank, 4 cell, 1 flags, 8 child cursor, 8 child end, 4 subtree
size).  A generated
child costs 20 bytes (8 descriptor, 8 weight and rank, 4 cost) until the
search ends.  Each node with untried children has one 16-byte entry in its
cell's heap (the heaps live in one arena with doubling segments, so up to
twice that).  Children already expanded are dropped when generated.
The deferred stuck tests take 12 bytes each, :data:`MAX_DEFERRED` of
them at most.
"""

from __future__ import annotations

import time
from typing import NamedTuple

import numba as nb
import numpy as np
from numba.extending import overload

from ..errors import PdbsearchError
from ..puzzle import KERNEL_JIT_OPTIONS, copy_key, kernel_jit
from .common import (ENGINE_JIT_OPTIONS, EXHAUSTED, EXPANDED, F_LAST, GENERATED, GOAL,
                     GROW_NODES, NODES, N_FSTATS, N_STATS, OPEN, PRUNED, RUNNING, SOLVED,
                     STALLED)
from .store import NodeStore, find_slot

# -- the protocol ---------------------------------------------------------------

#: ``out_flags`` bits of a child.
ADVISED = 1       #: a domain advisor recommends this move (weight 0)
GOAL_CHILD = 2    #: the child is a goal position

#: Ranks are below 2**RANK_BITS; the move weight (0/1) sits above them.
RANK_BITS = 62
RANK_MASK = (1 << RANK_BITS) - 1
#: Largest value of a cell feature (each takes 16 bits of the cell key).
MAX_CELL_FEATURE = (1 << 16) - 1
#: Most features that name a cell.
MAX_CELL_FEATURES = 4

#: Expansions under a position after which the domain's ``stuck_check``
#: runs on it (Festival's 64).
SUBTREE_CHECK = 64

#: Verdicts of a domain's ``stuck_check``.
NOT_PROVED = 0    #: no test proved the position dead
PROVED_DEAD = 1   #: the position is dead
ASK_LATER = 2     #: a test could not run now (its budget is spent)

#: Most positions whose stuck test waits for budget (the best-ranked kept).
MAX_DEFERRED = 64
#: Expansions between two asks of the best deferred position (a power of two).
RETRY_EVERY = 256
#: Expansions without a better position after which the best cell's turns thin out.
STALE_EXPANSIONS = 2048
#: The best cell gets at least one turn in this many of its own.
MAX_BEST_PERIOD = 8

_KERNELS: dict[type, dict] = {}


@kernel_jit
def never_stuck(p, key, again):
    """The ``stuck_check`` of a domain that has none."""
    return NOT_PROVED


def register_fess_kernels(params_class: type, *, expand, child_key, late_check,
                          stuck_check=never_stuck) -> None:
    """Register a domain's FESS kernels for its params class (see the
    module docstring); call it at import time of the domain module."""
    _KERNELS[params_class] = {"expand": expand, "child_key": child_key,
                              "late_check": late_check, "stuck_check": stuck_check}


def _lookup(params_type, name: str):
    cls = getattr(params_type, "instance_class", None)
    if cls not in _KERNELS:
        raise TypeError(f"no FESS kernels registered for {params_type}")
    return _KERNELS[cls][name]


def fess_expand(p, key, self_info, out_keys, out_desc, out_cost, out_feat, out_rank,
                out_flags):
    """The domain's macro moves (dispatched inside numba)."""
    raise NotImplementedError("only callable from jitted code")


def fess_child_key(p, parent_key, desc, out_key):
    """The domain's child key from a descriptor (dispatched inside numba)."""
    raise NotImplementedError("only callable from jitted code")


def fess_late_check(p, key):
    """The domain's lazy deadlock check (dispatched inside numba)."""
    raise NotImplementedError("only callable from jitted code")


def fess_stuck_check(p, key, again):
    """The domain's stuck test (dispatched inside numba)."""
    raise NotImplementedError("only callable from jitted code")


@overload(fess_expand, jit_options=KERNEL_JIT_OPTIONS, inline="always")
def _overload_expand(p, key, self_info, out_keys, out_desc, out_cost, out_feat, out_rank,
                     out_flags):
    fn = _lookup(p, "expand")

    def impl(p, key, self_info, out_keys, out_desc, out_cost, out_feat, out_rank, out_flags):
        return fn(p, key, self_info, out_keys, out_desc, out_cost, out_feat, out_rank,
                  out_flags)
    return impl


@overload(fess_child_key, jit_options=KERNEL_JIT_OPTIONS, inline="always")
def _overload_child_key(p, parent_key, desc, out_key):
    fn = _lookup(p, "child_key")

    def impl(p, parent_key, desc, out_key):
        fn(p, parent_key, desc, out_key)
    return impl


@overload(fess_late_check, jit_options=KERNEL_JIT_OPTIONS, inline="always")
def _overload_late_check(p, key):
    fn = _lookup(p, "late_check")

    def impl(p, key):
        return fn(p, key)
    return impl


@overload(fess_stuck_check, jit_options=KERNEL_JIT_OPTIONS, inline="always")
def _overload_stuck_check(p, key, again):
    fn = _lookup(p, "stuck_check")

    def impl(p, key, again):
        return fn(p, key, again)
    return impl


@nb.njit(**KERNEL_JIT_OPTIONS)
def stuck_check_once(p, key, again=0):
    """The domain's stuck test of one position (called from Python): its
    verdict, :data:`PROVED_DEAD`, :data:`NOT_PROVED` or :data:`ASK_LATER`."""
    return fess_stuck_check(p, key, again)


@nb.njit(**KERNEL_JIT_OPTIONS)
def expand_once(p, key, self_info, out_keys, out_desc, out_cost, out_feat, out_rank,
                out_flags):
    """The domain's FESS expansion of one position (called from Python:
    tests and tools)."""
    return fess_expand(p, key, self_info, out_keys, out_desc, out_cost, out_feat, out_rank,
                       out_flags)


@nb.njit(**KERNEL_JIT_OPTIONS)
def child_key_once(p, parent_key, desc, out_key):
    """The domain's child key of one descriptor (called from Python)."""
    fess_child_key(p, parent_key, desc, out_key)


@nb.njit(**KERNEL_JIT_OPTIONS)
def late_check_once(p, key):
    """The domain's lazy deadlock check of one position (called from Python)."""
    return fess_late_check(p, key)


class FessDomain:
    """The Python half of a domain's FESS support (subclass it).

    Attributes: ``params`` (registered with :func:`register_fess_kernels`;
    it may be replaced by :meth:`prepare`, keeping its type),
    ``n_features`` (F), ``cell_features`` (how many of them name a cell,
    at most :data:`MAX_CELL_FEATURES`), ``max_children`` (most children of
    one expansion), ``key_words``, ``complete`` (False when the moves may
    miss every solution: an exhausted search then proves nothing, and
    ends as :data:`.common.STALLED`).
    """

    params = None
    puzzle = None
    n_features = 1
    cell_features = 1
    max_children = 1
    key_words = 1
    complete = True

    def initial_key(self) -> np.ndarray:
        """The root's key (by default the puzzle's start)."""
        return self.puzzle.initial_key()

    def prepare(self, seconds: float) -> bool:
        """Do up to about ``seconds`` of per-level work; True once done (the
        search calls it between chunks until then)."""
        return True

    def load_kernels(self) -> None:
        """Compile (or load) the preparation and replay kernels now."""

    def codes_between(self, parent_key: np.ndarray, child_key: np.ndarray) -> list[int]:
        """The puzzle's move codes of one macro edge, for the replay."""
        raise NotImplementedError

    def describe(self) -> dict:
        """What the preparation found (for reports); empty by default."""
        return {}


# -- engine arrays ------------------------------------------------------------------

# Node flags.
_EXPANDED = 1
_DEAD = 2
_STUCK = 4     #: the stuck test proved it dead: its subtree is dropped

#: Extra return codes of the chunk (besides those of .common).
GROW_EDGES = 5
GROW_CELLS = 6
GROW_ARENA = 7

# Slots of the ``fs`` int64 array (the loop's own state).
N_CELLS, CURSOR, ITERATION, BEST_CELL, BEST_RANK, N_EDGES, ARENA_TOP, MAX_CAP, \
    LAZY_DEAD, N_ADVISED, WASTED, BEST_OWN, BEST_NODE, STUCK, DROPPED, N_DEFERRED, \
    DEFERRALS, DEFERRED_DEAD, BEST_SINCE, BEST_RESETS = range(20)
N_FS = 20

_NO_RANK = np.int64(1) << np.int64(62)


class Nodes(NamedTuple):
    """Per expanded node (beyond the NodeStore's key, g, parent, slots)."""

    wt: np.ndarray       #: int32 accumulated weight
    brank: np.ndarray    #: int64 best rank on the path (the projection)
    cell: np.ndarray     #: int32 cell of the node
    flags: np.ndarray    #: uint8 _EXPANDED / _DEAD
    kcur: np.ndarray     #: int64 next child edge to try
    kend: np.ndarray     #: int64 one past the last child edge
    sub: np.ndarray      #: int32 expansions under the node (up to SUBTREE_CHECK)


class Deferred(NamedTuple):
    """The positions whose stuck test waits for budget (``fs[N_DEFERRED]``
    of them, unordered: at most :data:`MAX_DEFERRED`, scanned)."""

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
def _sift_down(a, off, size, i):
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
def _cell_push(cells, a, fs, stats, c, w, rank, node):
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
def _cell_of(cells, fs, feat_key):
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
    cells.brank[c] = _NO_RANK
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
def _pack_features(info, n_cell):
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
def _sort_edges(e, lo, hi):
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


# -- the chunk ---------------------------------------------------------------------


@nb.njit(cache=True, inline="always")
def _count_subtrees(params, keys, parent, nodes, fs, deferred, x):
    """One more expansion (of ``x``) under each ancestor of ``x`` and ``x``
    itself; an ancestor reaching :data:`SUBTREE_CHECK` gets the domain's
    stuck test (:func:`_first_stuck_test`), which may drop its subtree
    (Festival's stuck patterns).  A node counts at least what any node
    under it counts, so the walk ends at the first ancestor already full:
    O(SUBTREE_CHECK), not the depth."""
    y = x
    while y >= 0 and nodes.sub[y] < SUBTREE_CHECK:
        nodes.sub[y] += 1
        if nodes.sub[y] == SUBTREE_CHECK:
            _first_stuck_test(params, keys, parent, nodes, fs, deferred, y)
        y = parent[y]


@nb.njit(**KERNEL_JIT_OPTIONS)
def _first_stuck_test(params, keys, parent, nodes, fs, deferred, y):
    """The stuck test of ``y``, after that of a deferred position ranked
    better (which takes the budget first); ``y`` is deferred in turn if
    the domain asks."""
    if fs[N_DEFERRED] > 0 and deferred.rank[_best_deferred(deferred, fs)] < nodes.brank[y]:
        if _retry_deferred(params, keys, parent, nodes, fs, deferred) and \
                _doomed(parent, nodes, y):
            return
    verdict = fess_stuck_check(params, keys[y], 0)
    if verdict == PROVED_DEAD:
        nodes.flags[y] |= _STUCK
        fs[STUCK] += 1
    elif verdict == ASK_LATER:
        _defer(deferred, fs, y, nodes.brank[y])


@nb.njit(cache=True, inline="always")
def _best_deferred(deferred, fs):
    """Index of the best-ranked deferred position (the latest of equals)."""
    best = 0
    for i in range(1, fs[N_DEFERRED]):
        if deferred.rank[i] <= deferred.rank[best]:
            best = i
    return best


@nb.njit(cache=True, inline="always")
def _defer(deferred, fs, y, rank):
    """Keep ``y`` for a later stuck test, in place of the worst-ranked
    deferred position if there is no room (or not at all if ``y`` is the
    worst)."""
    fs[DEFERRALS] += 1
    n = fs[N_DEFERRED]
    if n < deferred.node.shape[0]:
        deferred.node[n] = y
        deferred.rank[n] = rank
        fs[N_DEFERRED] = n + 1
        return
    worst = 0
    for i in range(1, n):
        if deferred.rank[i] > deferred.rank[worst]:
            worst = i
    if rank < deferred.rank[worst]:
        deferred.node[worst] = y
        deferred.rank[worst] = rank


@nb.njit(**KERNEL_JIT_OPTIONS)
def _retry_deferred(params, keys, parent, nodes, fs, deferred):
    """Ask the stuck test again of the best deferred positions, until one
    gets a verdict or the domain asks to wait again (dead subtrees' are
    dropped unasked).  True when a position was proved dead."""
    while fs[N_DEFERRED] > 0:
        i = _best_deferred(deferred, fs)
        y = deferred.node[i]
        rank = deferred.rank[i]
        last = fs[N_DEFERRED] - 1
        deferred.node[i] = deferred.node[last]
        deferred.rank[i] = deferred.rank[last]
        fs[N_DEFERRED] = last
        if _doomed(parent, nodes, y):
            continue
        verdict = fess_stuck_check(params, keys[y], 1)
        if verdict == ASK_LATER:
            deferred.node[last] = y
            deferred.rank[last] = rank
            fs[N_DEFERRED] = last + 1
            return False
        if verdict == PROVED_DEAD:
            nodes.flags[y] |= _STUCK
            fs[STUCK] += 1
            fs[DEFERRED_DEAD] += 1
            return True
        return False
    return False


@nb.njit(cache=True, inline="always")
def _doomed(parent, nodes, x):
    """True when ``x`` or an ancestor was proved dead by the stuck test
    (the mark is copied down to ``x`` so that its subtree stops sooner)."""
    y = x
    while y >= 0:
        if nodes.flags[y] & _STUCK:
            nodes.flags[x] |= _STUCK
            return True
        y = parent[y]
    return False


@nb.njit(cache=True, inline="always")
def _expand_node(params, x, p, keys, g, parent, slots, nodes, edges, cells, arena, fs, stats,
                 buf, n_feat, n_cell):
    """Expand stored node ``x`` (reached from ``p``, -1 for the root): write
    its children as edges, project it onto its cell, queue it there.
    Returns the index of a goal child stored as a node, or -1."""
    info = buf.self_info
    n = fess_expand(params, keys[x], info, buf.keys, buf.desc, buf.cost, buf.feat,
                    buf.rank, buf.flags)
    stats[EXPANDED] += 1
    stats[GENERATED] += n
    nodes.flags[x] |= _EXPANDED
    own = info[0]
    if own < fs[BEST_OWN]:
        fs[BEST_OWN] = own
        fs[BEST_NODE] = x
    if p < 0 or own < nodes.brank[p]:
        nodes.brank[x] = own
        c = _cell_of(cells, fs, _pack_features(info, n_cell))
    else:
        nodes.brank[x] = nodes.brank[p]
        c = nodes.cell[p]
    nodes.cell[x] = c
    if nodes.brank[x] < cells.brank[c]:
        cells.brank[c] = nodes.brank[x]
    if nodes.brank[x] < fs[BEST_RANK]:
        fs[BEST_RANK] = nodes.brank[x]
        fs[BEST_CELL] = c
        fs[BEST_SINCE] = stats[EXPANDED]
    # Goal children end the search; children already stored are dropped.
    flags = buf.flags
    for i in range(n):
        if flags[i] & GOAL_CHILD:
            s = find_slot(keys, slots, buf.keys[i])
            y = slots[s]
            if y < 0:
                y = stats[NODES]
                copy_key(keys[y], buf.keys[i])
                slots[s] = y
                stats[NODES] += 1
                parent[y] = x
                g[y] = g[x] + buf.cost[i]
            # A goal stored before it became one (a domain's goal set may
            # grow, as Sokoban's perimeter does) keeps its own way from the
            # root: it may be an ancestor of x, and x its parent a cycle.
            return y
        s = find_slot(keys, slots, buf.keys[i])
        if slots[s] >= 0:
            flags[i] |= 128
    # The feature advisors: per feature, the best-ranked new child that
    # improves it and does not worsen feature 0.
    for f in range(n_feat):
        best = -1
        for i in range(n):
            if flags[i] & 128:
                continue
            if buf.feat[i, f] < info[1 + f] and buf.feat[i, 0] <= info[1]:
                if best < 0 or buf.rank[i] < buf.rank[best]:
                    best = i
        if best >= 0:
            flags[best] |= ADVISED
    lo = fs[N_EDGES]
    m = lo
    for i in range(n):
        if flags[i] & 128:
            continue
        edges.desc[m] = buf.desc[i]
        edges.cost[m] = buf.cost[i]
        r = buf.rank[i]
        if flags[i] & ADVISED:
            edges.key[m] = r
            fs[N_ADVISED] += 1
        else:
            edges.key[m] = r | (np.int64(1) << np.int64(RANK_BITS))
        m += 1
    fs[N_EDGES] = m
    if m - lo > 1:
        _sort_edges(edges, lo, m)
    if 0 < m - lo <= 2:
        edges.key[lo] &= RANK_MASK  # Festival: of at most two moves, the first is free
    nodes.kcur[x] = lo
    nodes.kend[x] = m
    if m > lo:
        k = edges.key[lo]
        _cell_push(cells, arena, fs, stats, c, nodes.wt[x] + (k >> np.int64(RANK_BITS)),
                   k & RANK_MASK, x)
    return -1


@nb.njit(cache=True, inline="always")
def best_open_cell(cells, n_cells, skip):
    """The best-ranked cell with moves left other than ``skip`` (the first
    of equals; -1: none)."""
    best = -1
    for d in range(n_cells):
        if d != skip and cells.size[d] > 0 and (
                best < 0 or cells.brank[d] < cells.brank[best]):
            best = d
    return best


@nb.njit(cache=True)
def forget_dead_best(parent, nodes, cells, fs, stats):
    """After a stuck verdict: if it dooms the best position, the best is
    no longer that one but the best-ranked other cell with moves left, and
    the stagnation count starts again.

    A dead best position kept as the best made the best cell's turns go to
    an empty cell (the search's own fallback then took the best-ranked
    non-empty one, at the thinned period of a search that stopped
    improving) and made every later position be measured against a rank
    no live position may reach: on Kevin01 54 (``fess-only``, 20 s), the
    best position, reached after 19,850 of 51,129 expansions, had been
    proved dead and dropped, and the 31,279 expansions after it counted
    as stagnation.  It also made the best position reported
    (:meth:`FessSearch.best_keys`) one the search no longer held."""
    x = fs[BEST_NODE]
    if not _doomed(parent, nodes, x):
        return
    best = best_open_cell(cells, fs[N_CELLS], nodes.cell[x])
    fs[BEST_OWN] = _NO_RANK       # the next position expanded is the best one
    fs[BEST_CELL] = best
    fs[BEST_RANK] = cells.brank[best] if best >= 0 else _NO_RANK
    fs[BEST_SINCE] = stats[EXPANDED]
    fs[BEST_RESETS] += 1


@nb.njit(cache=True)
def best_cell_period(stale):
    """How many of the best cell's turns pass for each one it takes, after
    ``stale`` expansions without a better position: 1 (every turn) below
    :data:`STALE_EXPANSIONS`, then 2, 4, ... as the stagnation doubles, up
    to :data:`MAX_BEST_PERIOD`.

    Festival gives the best cell every other iteration.  When that cell
    holds a dead end no test proves (the best positions of several unseen
    levels are dead, proved by A* in 38 K to 1 M positions), those turns
    are lost; a best cell that still improves keeps them all."""
    doublings = stale // STALE_EXPANSIONS
    period = 1
    while doublings > 0 and period < MAX_BEST_PERIOD:
        period *= 2
        doublings >>= 1
    return period


@nb.njit(cache=True, inline="always")
def _pick_cell(cells, fs, stats):
    """The cell of this iteration: the cursor's (advanced) on even
    iterations, the best cell on odd ones (Festival alternates) or on one
    odd iteration in :func:`best_cell_period` once it stops improving; -1
    when every heap is empty."""
    n_cells = fs[N_CELLS]
    if stats[OPEN] == 0 or n_cells == 0:
        return -1
    it = fs[ITERATION]
    fs[ITERATION] = it + 1
    # The period only on odd iterations: even ones are the cursor's anyway.
    if it % 2 == 1 and (it // 2) % best_cell_period(stats[EXPANDED] - fs[BEST_SINCE]) == 0:
        c = fs[BEST_CELL]
        if c >= 0 and cells.size[c] > 0:
            return c
        return best_open_cell(cells, n_cells, -1)
    c = fs[CURSOR] % n_cells
    while cells.size[c] == 0:
        fs[WASTED] += 1
        c = (c + 1) % n_cells
    fs[CURSOR] = (c + 1) % n_cells
    return c


@nb.njit(**ENGINE_JIT_OPTIONS)
def fess_chunk(params, keys, g, parent, slots, nodes, edges, cells, arena, stats, fstats, fs,
               buf, deferred, n_feat, n_cell, budget):
    """Run FESS for at most ``budget`` iterations (expansions or moves found
    dead by the late check)."""
    cap = keys.shape[0]
    ecap = edges.key.shape[0]
    ccap = cells.key.shape[0]
    acap = arena.w.shape[0]
    max_children = buf.desc.shape[0]
    done = 0
    while True:
        if done >= budget:
            return RUNNING
        if stats[NODES] + 2 > cap:
            return GROW_NODES
        if fs[N_EDGES] + max_children > ecap:
            return GROW_EDGES
        if fs[N_CELLS] + 1 > ccap:
            return GROW_CELLS
        if fs[ARENA_TOP] + 2 * fs[MAX_CAP] + 8 > acap:
            return GROW_ARENA
        if stats[NODES] == 0:  # the root (its goal test was the driver's)
            stats[NODES] = 1
            slots[find_slot(keys, slots, keys[0])] = 0
            nodes.wt[0] = 0
            g[0] = 0
            parent[0] = -1
            goal = _expand_node(params, 0, -1, keys, g, parent, slots, nodes, edges, cells,
                                arena, fs, stats, buf, n_feat, n_cell)
            done += 1
            if goal >= 0:
                stats[GOAL] = goal
                return SOLVED
            continue
        c = _pick_cell(cells, fs, stats)
        if c < 0:
            return EXHAUSTED
        fstats[F_LAST] = fs[N_CELLS]
        # Pop moves from this cell (then from the next ones) until one leads
        # to a position not stored yet.
        x = -1
        p = -1
        j = -1
        while x < 0:
            while cells.size[c] == 0:
                c = (c + 1) % fs[N_CELLS]
            off = cells.off[c]
            p = arena.node[off]
            if _doomed(parent, nodes, p):
                # A dead subtree: its node leaves the heap with its moves.
                size = cells.size[c] - 1
                cells.size[c] = size
                stats[OPEN] -= 1
                fs[DROPPED] += 1
                nodes.kcur[p] = nodes.kend[p]
                if size > 0:
                    arena.w[off] = arena.w[off + size]
                    arena.rank[off] = arena.rank[off + size]
                    arena.node[off] = arena.node[off + size]
                    _sift_down(arena, off, size, 0)
                if stats[OPEN] == 0:
                    return EXHAUSTED
                continue
            j = nodes.kcur[p]
            nodes.kcur[p] = j + 1
            if j + 1 < nodes.kend[p]:
                k = edges.key[j + 1]
                arena.w[off] = nodes.wt[p] + (k >> np.int64(RANK_BITS))
                arena.rank[off] = k & RANK_MASK
                _sift_down(arena, off, cells.size[c], 0)
            else:
                size = cells.size[c] - 1
                cells.size[c] = size
                stats[OPEN] -= 1
                if size > 0:
                    arena.w[off] = arena.w[off + size]
                    arena.rank[off] = arena.rank[off + size]
                    arena.node[off] = arena.node[off + size]
                    _sift_down(arena, off, size, 0)
            fess_child_key(params, keys[p], edges.desc[j], buf.tmp_key)
            s = find_slot(keys, slots, buf.tmp_key)
            if slots[s] >= 0:
                if stats[OPEN] == 0:
                    return EXHAUSTED
                continue
            x = stats[NODES]
            copy_key(keys[x], buf.tmp_key)
            slots[s] = x
            stats[NODES] += 1
        parent[x] = p
        g[x] = g[p] + edges.cost[j]
        nodes.wt[x] = nodes.wt[p] + (edges.key[j] >> np.int64(RANK_BITS))
        nodes.kcur[x] = 0
        nodes.kend[x] = 0
        done += 1
        if fess_late_check(params, keys[x]):
            nodes.flags[x] = _DEAD
            stats[PRUNED] += 1
            fs[LAZY_DEAD] += 1
            continue
        goal = _expand_node(params, x, p, keys, g, parent, slots, nodes, edges, cells, arena,
                            fs, stats, buf, n_feat, n_cell)
        if goal >= 0:
            stats[GOAL] = goal
            return SOLVED
        stuck = fs[STUCK]
        _count_subtrees(params, keys, parent, nodes, fs, deferred, x)
        if fs[N_DEFERRED] > 0 and stats[EXPANDED] & (RETRY_EVERY - 1) == 0:
            _retry_deferred(params, keys, parent, nodes, fs, deferred)
        if fs[STUCK] > stuck:
            forget_dead_best(parent, nodes, cells, fs, stats)


# -- the Python side -------------------------------------------------------------------

#: Seconds of preparation per call of :meth:`FessSearch.run`.
PREPARE_SLICE = 0.1


class FessSearch:
    """Engine state of a FESS run (see the module docstring)."""

    progress_label = "cells"
    name = "fess"

    def __init__(self, puzzle, limits, domain: FessDomain | None = None):
        """FESS on ``puzzle`` through its ``fess_domain(limits)`` (or the
        given ``domain``)."""
        if domain is None:
            make = getattr(puzzle, "fess_domain", None)
            if make is None:
                raise PdbsearchError(f"fess is not available for {puzzle.domain} puzzles")
            domain = make(limits)
        self.puzzle = puzzle
        self.domain = domain
        d = self.domain
        if not 1 <= d.cell_features <= min(MAX_CELL_FEATURES, d.n_features):
            raise ValueError("a FESS domain names its cell by 1 to 4 of its features")
        self.prepared = False
        self.store = NodeStore(d.key_words)
        self.store.keys[0] = d.initial_key()
        cap = self.store.capacity
        self.nodes = Nodes(np.zeros(cap, np.int32), np.zeros(cap, np.int64),
                           np.zeros(cap, np.int32), np.zeros(cap, np.uint8),
                           np.zeros(cap, np.int64), np.zeros(cap, np.int64),
                           np.zeros(cap, np.int32))
        ecap = max(1 << 14, 4 * d.max_children)
        self.edges = Edges(np.zeros(ecap, np.int64), np.zeros(ecap, np.int64),
                           np.zeros(ecap, np.int32))
        self.cells = self._new_cells(1 << 8)
        self.arena = Arena(np.zeros(1 << 12, np.int64), np.zeros(1 << 12, np.int64),
                           np.zeros(1 << 12, np.int32))
        m, f, k = d.max_children, d.n_features, d.key_words
        self.buf = Buffers(np.zeros((m, k), np.uint64), np.zeros(m, np.int64),
                           np.zeros(m, np.int32), np.zeros((m, f), np.int32),
                           np.zeros(m, np.int64), np.zeros(m, np.uint8),
                           np.zeros(f + 1, np.int64), np.zeros(k, np.uint64))
        self.deferred = Deferred(np.zeros(MAX_DEFERRED, np.int32),
                                 np.zeros(MAX_DEFERRED, np.int64))
        self.stats = np.zeros(N_STATS, dtype=np.int64)
        self.fstats = np.zeros(N_FSTATS, dtype=np.float64)
        self.fs = np.zeros(N_FS, dtype=np.int64)
        self.fs[BEST_RANK] = int(_NO_RANK)
        self.fs[BEST_OWN] = int(_NO_RANK)
        self.fs[BEST_CELL] = -1
        self.fs[BEST_NODE] = 0
        self.prepare_seconds = 0.0
        #: Set by a search that follows this one (:mod:`.relay`): then
        #: ``published_best`` is kept current after each chunk.
        self.followed = False
        #: ``(node, keys from the start to it)`` of the best position, as of
        #: the end of the last chunk; replaced whole, so that a search in
        #: another thread reads it without a lock.
        self.published_best: tuple[int, list[np.ndarray]] = (0, [self.store.keys[0].copy()])

    @staticmethod
    def _new_cells(cap: int) -> Cells:
        return Cells(np.zeros(cap, np.int64), np.full(2 * cap, -1, np.int32),
                     np.zeros(cap, np.int64), np.zeros(cap, np.int64),
                     np.zeros(cap, np.int64), np.zeros(cap, np.int64))

    def run(self, budget: int) -> int:
        """One chunk: a slice of the domain's preparation until it is done,
        then at most ``budget`` FESS iterations."""
        if not self.prepared:
            if budget <= 0:
                return RUNNING
            t0 = time.perf_counter()
            self.prepared = self.domain.prepare(PREPARE_SLICE)
            self.prepare_seconds += time.perf_counter() - t0
            return RUNNING
        code = self._chunk(budget)
        if self.followed and int(self.fs[BEST_NODE]) != self.published_best[0]:
            self.published_best = (int(self.fs[BEST_NODE]), self.best_keys())
        return code

    def _chunk(self, budget: int) -> int:
        st, d = self.store, self.domain
        code = fess_chunk(d.params, st.keys, st.g, st.parent, st.slots, self.nodes,
                          self.edges, self.cells, self.arena, self.stats, self.fstats,
                          self.fs, self.buf, self.deferred, d.n_features, d.cell_features,
                          budget)
        if code == EXHAUSTED and not d.complete:
            return STALLED
        return code

    def detach(self) -> bool:
        """Make this engine share no mutable state with the puzzle's other
        engines, so that a portfolio may run it in a thread of its own;
        True if the domain could (its ``detach()``)."""
        detach = getattr(self.domain, "detach", None)
        return bool(detach is not None and detach())

    def load_kernels(self) -> None:
        """Compile or load every kernel a run may call (see the driver)."""
        self._chunk(0)
        self.domain.load_kernels()
        self.store.load_kernels()
        rehash_cells(self._new_cells(1), 0)

    def nbytes(self) -> int:
        """Bytes held now."""
        return (self.store.nbytes() + sum(a.nbytes for a in self.nodes)
                + sum(a.nbytes for a in self.edges) + sum(a.nbytes for a in self.cells)
                + sum(a.nbytes for a in self.arena))

    def grow_nbytes(self, code: int) -> int:
        """Bytes that would be held after serving ``code``."""
        if code == GROW_NODES:
            extra = self.store.nbytes() + sum(a.nbytes for a in self.nodes)
        elif code == GROW_EDGES:
            extra = sum(a.nbytes for a in self.edges)
        elif code == GROW_CELLS:
            extra = sum(a.nbytes for a in self.cells)
        else:
            extra = 2 * sum(a.nbytes for a in self.arena)
        return self.nbytes() + extra

    def grow(self, code: int) -> None:
        """Make room as ``code`` asks."""
        if code == GROW_NODES:
            n = int(self.stats[NODES])
            self.store.grow(n)
            cap = self.store.capacity
            self.nodes = Nodes(*(_grown(a, cap, n) for a in self.nodes))
        elif code == GROW_EDGES:
            n = int(self.fs[N_EDGES])
            cap = 2 * self.edges.key.shape[0]
            self.edges = Edges(*(_grown(a, cap, n) for a in self.edges))
        elif code == GROW_CELLS:
            n = int(self.fs[N_CELLS])
            old = self.cells
            cells = self._new_cells(2 * old.key.shape[0])
            for new, prev in zip(cells, old):
                if new is not cells.slots:
                    new[:n] = prev[:n]
            rehash_cells(cells, n)
            self.cells = cells
        else:
            self._compact_arena()

    def _compact_arena(self) -> None:
        """Copy the live heap segments into a new arena with room to spare."""
        n = int(self.fs[N_CELLS])
        cells, old = self.cells, self.arena
        live = int(cells.cap[:n].sum())
        size = max(1 << 12, 2 * live + 4 * int(self.fs[MAX_CAP]) + 16)
        arena = Arena(np.zeros(size, np.int64), np.zeros(size, np.int64),
                      np.zeros(size, np.int32))
        top = 0
        for c in range(n):
            off, cap, used = int(cells.off[c]), int(cells.cap[c]), int(cells.size[c])
            for new, prev in zip(arena, old):
                new[top:top + used] = prev[off:off + used]
            cells.off[c] = top
            top += cap
        self.fs[ARENA_TOP] = top
        self.arena = arena

    def solution_keys(self) -> list[np.ndarray]:
        """The positions from the start to the goal found."""
        return [self.store.keys[i].copy() for i in self.store.path_to(int(self.stats[GOAL]))]

    def best_keys(self) -> list[np.ndarray]:
        """The positions from the start to the best-ranked one expanded
        (since the last one the stuck test proved dead: :func:`forget_dead_best`)."""
        return [self.store.keys[i].copy() for i in self.store.path_to(int(self.fs[BEST_NODE]))]

    def solution_codes(self, keys: list[np.ndarray]) -> list[int]:
        """The puzzle's move codes along ``keys`` (each macro edge unrolled)."""
        codes: list[int] = []
        for a, b in zip(keys, keys[1:]):
            codes.extend(self.domain.codes_between(a, b))
        return codes

    def lower_bound(self) -> float | None:
        """FESS proves no bound."""
        return None

    def report(self) -> dict:
        """The loop's own figures (cells, late-dead moves, advised moves ...)."""
        fs = self.fs
        return {"cells": int(fs[N_CELLS]), "lazy_dead": int(fs[LAZY_DEAD]),
                "edges": int(fs[N_EDGES]), "advised": int(fs[N_ADVISED]),
                "stuck": int(fs[STUCK]), "stuck_dropped": int(fs[DROPPED]),
                "stuck_deferrals": int(fs[DEFERRALS]),
                "stuck_deferred_dead": int(fs[DEFERRED_DEAD]),
                "dead_best_resets": int(fs[BEST_RESETS]),
                "expanded_since_best": int(self.stats[EXPANDED] - fs[BEST_SINCE]),
                "prepare_seconds": round(self.prepare_seconds, 4),
                **self.domain.describe()}


def _grown(a: np.ndarray, cap: int, n: int) -> np.ndarray:
    out = np.zeros((cap,) + a.shape[1:], dtype=a.dtype)
    out[:n] = a[:n]
    return out
