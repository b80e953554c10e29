"""Boxes that stand on a goal the plan fills later and cut off the goal it
fills next: *blockers*, counted with FESS's hotspot feature.

The packed feature counts the longest prefix of the plan's order that holds
boxes; a box on a later goal counts for nothing, and nothing told the
search that it can be in the way (the hotspot feature, :mod:`.hotspots`,
leaves boxes on goals out).  Kevin01 1 (26 boxes, a goal area fed down two
columns): after 20 s the best position of ``fess-only`` had 13 goals of
the plan packed and 20 boxes on goals, and a box on the plan's 22nd goal
cut off its 14th from every other box.  The best positions of Disciple 2
and 10 and Kevin01 90 had such a box too.

**The tables** (:func:`goal_cutoffs`, once per plan): with the plan's
first ``m`` goals as walls, the cells from which a lone box can be pushed
onto its ``m``-th goal (a flood of reverse pushes, as for the OOP zones,
:func:`.packing.oop_zones`); then the same with its ``j``-th goal (``j >
m``) a wall too.  When that wall takes away more than its own cell,
``sources[j, m, i]`` marks the region cells ``i`` still left (the ``m``-th
goal's own cell among them); otherwise the row is all 0.

**The count** (:func:`blockers`): with the first ``k`` goals packed and
the ``k``-th empty, a box on goal ``j > k`` whose row ``sources[j, k]``
is marked is a blocker when no other box (off the packed prefix) stands on a cell of
``sources[j, k]`` and the box itself cannot be pushed on to goal ``k``
from the side the player walks to (the plan's :mod:`.planreach` table):
while it stays, no box can be brought to the next goal.  (Without that
last test, a box the plan pushes through a later goal on its way to the
next one counted as a blocker: MasterHead 41, solved by ``fess-only`` in
0.2 s, took 5 s.)  It is a judgement on the plan, not a deadlock (the box
may be pushed away again, or the prefix unpacked), and it only ranks: the
hotspot feature names no cell of feature space, so the search prefers,
among positions of one cell, those without blockers, and the hotspot
advisor proposes moves that take one away.

**Cost.** ``goals² × region`` bytes (0.96 MB for 40 goals on 600
cells); made with one flood per pair of goals.  Off (empty) when the plan
has no :mod:`.planreach` table (past 64 goals, or too large a region).
Per position, one look-up per box on a later goal, and a scan of the boxes
for each box whose goal cuts the next one.
"""

from __future__ import annotations

import numba as nb
import numpy as np

from .planreach import NO_SIDE


def empty_cutoffs() -> np.ndarray:
    """The ``sources`` table of a plan that has none."""
    return np.zeros((0, 0, 0), np.uint8)


def cutoff_tables(n_goals: int, n_region: int) -> np.ndarray:
    """A zeroed ``sources`` table for :func:`goal_cutoffs`."""
    return np.zeros((n_goals, n_goals, n_region), np.uint8)


@nb.njit(cache=True)
def box_sources(inside, deltas, wall, targets, stamp, seen, queue) -> int:
    """Stamp (``seen``) the cells from which a lone box can be pushed onto
    one of ``targets`` (themselves among them), with ``wall`` as walls and
    the player needing only the cell behind the box; their number."""
    tail = 0
    for t in targets:
        seen[t] = stamp
        queue[tail] = t
        tail += 1
    head = 0
    while head < tail:
        y = queue[head]
        head += 1
        for d in deltas:
            x = y - d
            if inside[x] != 0 and wall[x] == 0 and inside[x - d] != 0 and \
                    wall[x - d] == 0 and seen[x] != stamp:
                seen[x] = stamp
                queue[tail] = x
                tail += 1
    return tail


@nb.njit(cache=True)
def goal_cutoffs(inside, deltas, region, order, sources):
    """Fill ``sources[j, m, i]`` for ``j > m`` (see the module doc); ``i``
    indexes ``region``."""
    n_grid = inside.shape[0]
    n = order.shape[0]
    wall = np.zeros(n_grid, np.uint8)
    before = np.zeros(n_grid, np.int64)
    seen = np.zeros(n_grid, np.int64)
    queue = np.empty(n_grid, np.int64)
    sources[:, :, :] = 0
    stamp = 0
    for m in range(n):
        if m > 0:
            wall[order[m - 1]] = 1
        whole = box_sources(inside, deltas, wall, order[m:m + 1], m + 1, before, queue)
        for j in range(m + 1, n):
            g = order[j]
            own = 1 if before[g] == m + 1 else 0
            wall[g] = 1
            stamp += 1
            left = box_sources(inside, deltas, wall, order[m:m + 1], stamp, seen, queue)
            wall[g] = 0
            if left < whole - own:
                for i in range(region.shape[0]):
                    if seen[region[i]] == stamp:
                        sources[j, m, i] = 1


@nb.njit(cache=True, inline="always")
def blockers(sources, reach, parts, order, rank_of, index, boxes, n, player, packed,
             moved_from, moved_to):
    """The boxes on later goals that cut off the plan's goal ``packed``
    (the next one; see the module doc), the box of ``moved_from`` standing
    on ``moved_to`` (-1, -1: the position as it is) and the player on
    ``player``.  A box that can itself be pushed on to that goal, from the
    side the player walks to (``reach``, ``parts``: :mod:`.planreach`), is
    on its way there, not in the way."""
    k = packed
    if k >= sources.shape[0]:
        return 0
    goal = index[order[k]]   # its row of sources[j, k] is marked iff goal j cuts it off
    count = 0
    bit = np.uint64(1) << np.uint64(k)
    for i in range(n):
        b = boxes[i]
        if b == moved_from:
            b = moved_to
        j = rank_of[b]
        if j <= k or sources[j, k, goal] == 0:
            continue
        side = parts[k, index[b], index[player]]
        if side != NO_SIDE and reach[k, index[b], side] & bit != 0:
            continue
        fed = False
        for e in range(n):
            c = boxes[e]
            if c == moved_from:
                c = moved_to
            if e == i or 0 <= rank_of[c] < k:
                continue   # the blocker itself, or a wall of the packed prefix
            if sources[j, k, index[c]] != 0:
                fed = True
                break
        if not fed:
            count += 1
    return count
