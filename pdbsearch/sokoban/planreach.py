"""Whether the plan can still be finished with its packed boxes left in
place: the *feasible* packed count of FESS's packed feature.

A packed box of the plan's prefix is meant to stay: the boxes still to
come must reach the remaining goals around it.  When they cannot, the
prefix was packed too early (a goal behind it is cut off, or the corridor
the player needs is closed), and counting it as progress leads the search
into a cell of feature space from which no position is solved (MasterHead
22: 13 of 14 boxes packed, the last one with no way to its goal).

**The table** (:func:`plan_reach`, once per plan): ``reach[k, i]`` has bit
``j`` (``j >= k``) set when a lone box on region cell ``i`` can be pushed
to the plan's ``j``-th goal with the first ``k`` goals as walls.  Unlike
the OOP zones (:func:`.packing.oop_zones`, where the player only needs
the cell behind the box), the player must walk, around the box and the
walls, to each side it pushes from: a pull search from each goal over
(box cell, player side) states, the sides joined when they are connected
without the box.

**The count** (:func:`feasible_packed`): the largest ``k`` up to the
packed count at which the boxes off the first ``k`` goals can be given
the remaining goals one each, every box a goal it can reach (a perfect
matching, :func:`.matching.rows_all_matched`; MasterHead 43: every box
reaches a goal and every goal a box, yet only one box reaches either of
two goals).  It is a judgement on the plan, not a deadlock (a packed box
may still be taken out again): it only lowers the feature.

**Cost.** The table takes 8 bytes per region cell and plan step
(``(goals + 1) × region × 8``: 40 KB for 14 goals on 350 cells), and its
making one flood of the region per region cell and step; it is off (an
empty table) for plans of more than 64 goals (a goal set is one
``uint64``), when that making would pass :data:`MAX_TABLE_WORK` cell
visits, and for the naive plan.  Per position, the count looks each box
up and matches the boxes once per step it goes down.
"""

from __future__ import annotations

import numba as nb
import numpy as np

from .features import components
from .matching import rows_all_matched

#: Most goals a plan may have for the table (one bit each in a uint64).
MAX_PLAN_GOALS = 64
#: Most cell visits the table's floods may take (about a second).
MAX_TABLE_WORK = 200_000_000


def table_fits(n_goals: int, n_region: int) -> bool:
    """Whether a plan of ``n_goals`` on ``n_region`` cells gets a table."""
    return n_goals <= MAX_PLAN_GOALS and (n_goals + 1) * n_region * n_region <= MAX_TABLE_WORK


@nb.njit(cache=True)
def plan_reach(inside, deltas, region, index, order, fw, out):
    """Fill ``out[k, i]`` (uint64, ``len(order) + 1`` rows, one column per
    region cell): the goals ``order[j]``, ``j >= k``, a lone box on
    ``region[i]`` can be pushed to with ``order[:k]`` as walls (see the
    module doc).  ``index[cell]`` is the cell's region index; ``fw`` is
    the scratch of :func:`.features.components`, which labels the player's
    parts around each box."""
    n_region = region.shape[0]
    n = order.shape[0]
    blocked = np.zeros(inside.shape[0], np.uint8)
    # lab[b, i]: the part of region cell i once a box stands on region
    # cell b (a cell of the part; -1: a wall or the box).
    lab = np.empty((n_region, n_region), np.int32)
    seen = np.zeros((n_region, 4), np.int64)
    queue = np.empty(4 * n_region, np.int64)
    stamp = 0
    out[:, :] = 0
    for k in range(n + 1):
        if k > 0:
            blocked[order[k - 1]] = 1
        for b in range(n_region):
            if blocked[region[b]] != 0:
                continue   # a wall now: no box stands there
            blocked[region[b]] = 1
            components(region, inside, blocked, deltas, fw)
            blocked[region[b]] = 0
            for i in range(n_region):
                c = region[i]
                lab[b, i] = fw.lab[c] if fw.mark[c] == fw.counters[0] else -1
        for j in range(k, n):
            stamp += 1
            bit = np.uint64(1) << np.uint64(j)
            g = index[order[j]]
            tail = 0
            for d in range(4):
                y = order[j] + deltas[d]
                if inside[y] != 0 and blocked[y] == 0:
                    seen[g, d] = stamp
                    queue[tail] = g * 4 + d
                    tail += 1
            head = 0
            while head < tail:
                st = queue[head]
                head += 1
                bi = st >> 2
                d = st & 3
                out[k, bi] |= bit
                c = region[bi]
                side = lab[bi, index[c + deltas[d]]]
                # The player walks round the box to the other sides of it.
                for e in range(4):
                    y = c + deltas[e]
                    if e != d and inside[y] != 0 and blocked[y] == 0 and \
                            lab[bi, index[y]] == side and seen[bi, e] != stamp:
                        seen[bi, e] = stamp
                        queue[tail] = bi * 4 + e
                        tail += 1
                # A pull: the player steps back, the box follows onto his cell.
                p = c + deltas[d]
                q = p + deltas[d]
                if inside[q] != 0 and blocked[q] == 0:
                    ip = index[p]
                    if seen[ip, d] != stamp:
                        seen[ip, d] = stamp
                        queue[tail] = ip * 4 + d
                        tail += 1


@nb.njit(cache=True, inline="always")
def feasible_packed(reach, rank_of, index, boxes, n, packed, moved_from, moved_to, masks, work):
    """The largest ``k <= packed`` at which the plan can still be finished
    with its first ``k`` goals as walls (see the module doc), the box of
    ``moved_from`` standing on ``moved_to`` (-1, -1: the position as it
    is); ``packed`` itself when the table is off.  ``masks`` (uint64, one
    per box) and ``work`` (:func:`.matching.mask_matching_work`) are
    scratch."""
    n_goals = reach.shape[0] - 1
    if n_goals < 0 or packed >= n_goals:
        return packed
    full = (~np.uint64(0)) >> np.uint64(64 - n_goals)
    k = packed
    while k > 0:
        need = full & ~((np.uint64(1) << np.uint64(k)) - np.uint64(1))
        union = np.uint64(0)
        rows = 0
        ok = True
        for i in range(n):
            b = boxes[i]
            if b == moved_from:
                b = moved_to
            r = rank_of[b]
            if 0 <= r < k:
                continue
            m = reach[k, index[b]]
            if m == 0:
                ok = False
                break
            union |= m
            masks[rows] = m
            rows += 1
        # Hall's condition for single boxes and goals first: a few bit
        # operations, where the matching needs a search when boxes compete.
        if ok and (union & need) == need and rows_all_matched(masks, rows, work):
            return k
        k -= 1
    return 0
