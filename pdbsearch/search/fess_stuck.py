"""FESS's stuck tests (Festival's stuck patterns): once
:data:`.fess_protocol.SUBTREE_CHECK` expansions have been made under a
position, the domain's ``stuck_check`` is asked of it, and a dead verdict
drops the position's whole subtree.  A test that cannot run for want of
budget defers the position; the best-ranked deferred positions are asked
again first.
"""

from __future__ import annotations

import numba as nb

from ..puzzle import KERNEL_JIT_OPTIONS
from .fess_protocol import ASK_LATER, PROVED_DEAD, SUBTREE_CHECK, fess_stuck_check
from .fess_space import DEFERRALS, DEFERRED_DEAD, N_DEFERRED, NODE_STUCK, STUCK

#: Most positions whose stuck test waits for budget (the best-ranked kept).
MAX_DEFERRED = 64
#: Expansions between two asks of the best deferred position (a power of two).
RETRY_EVERY = 256

@nb.njit(cache=True, inline="always")
def count_subtrees(params, keys, parent, nodes, fs, deferred, x):
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
    if fs[N_DEFERRED] > 0 and deferred.rank[best_deferred(deferred, fs)] < nodes.brank[y]:
        if retry_deferred(params, keys, parent, nodes, fs, deferred) and \
                doomed(parent, nodes, y):
            return
    verdict = fess_stuck_check(params, keys[y], 0)
    if verdict == PROVED_DEAD:
        nodes.flags[y] |= NODE_STUCK
        fs[STUCK] += 1
    elif verdict == ASK_LATER:
        defer(deferred, fs, y, nodes.brank[y])


@nb.njit(cache=True, inline="always")
def best_deferred(deferred, fs):
    """Index of the best-ranked deferred position (the latest of equals)."""
    best = 0
    for i in range(1, fs[N_DEFERRED]):
        if deferred.rank[i] <= deferred.rank[best]:
            best = i
    return best


@nb.njit(cache=True, inline="always")
def defer(deferred, fs, y, rank):
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
def retry_deferred(params, keys, parent, nodes, fs, deferred):
    """Ask the stuck test again of the best deferred positions, until one
    gets a verdict or the domain asks to wait again (dead subtrees' are
    dropped unasked).  True when a position was proved dead."""
    while fs[N_DEFERRED] > 0:
        i = best_deferred(deferred, fs)
        y = deferred.node[i]
        rank = deferred.rank[i]
        last = fs[N_DEFERRED] - 1
        deferred.node[i] = deferred.node[last]
        deferred.rank[i] = deferred.rank[last]
        fs[N_DEFERRED] = last
        if doomed(parent, nodes, y):
            continue
        verdict = fess_stuck_check(params, keys[y], 1)
        if verdict == ASK_LATER:
            deferred.node[last] = y
            deferred.rank[last] = rank
            fs[N_DEFERRED] = last + 1
            return False
        if verdict == PROVED_DEAD:
            nodes.flags[y] |= NODE_STUCK
            fs[STUCK] += 1
            fs[DEFERRED_DEAD] += 1
            return True
        return False
    return False


@nb.njit(cache=True, inline="always")
def doomed(parent, nodes, x):
    """True when ``x`` or an ancestor was proved dead by the stuck test
    (the mark is copied down to ``x`` so that its subtree stops sooner)."""
    y = x
    while y >= 0:
        if nodes.flags[y] & NODE_STUCK:
            nodes.flags[x] |= NODE_STUCK
            return True
        y = parent[y]
    return False
