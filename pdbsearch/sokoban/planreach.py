"""Whether the plan can still be finished with its packed boxes left in
place: the *feasible* packed count of FESS's packed feature.

A packed box of the plan's prefix is meant to stay: the boxes still to
come must reach the remaining goals around it.  When they cannot, the
prefix was packed too early (a goal behind it is cut off, or the corridor
the player needs is closed), and counting it as progress leads the search
into a cell of feature space from which no position is solved (MasterHead
22: 13 of 14 boxes packed, the last one with no way to its goal).

**The tables** (:func:`plan_reach`, once per plan): ``reach[k, i, d]``
has bit ``j`` (``j >= k``) set when a lone box on region cell ``i`` can
be pushed to the plan's ``j``-th goal with the first ``k`` goals as
walls, the player starting on side ``d`` of it.  Unlike the OOP zones
(:func:`.packing.oop_zones`, where the player only needs the cell behind
the box), the player must walk, around the box and the walls, to each
side it pushes from: a pull search from each goal over (box cell, player
side) states, the sides joined when they are connected without the box.
Where the player starts matters: ``parts[k, i, x]`` names the side of
the box (the smallest, when several) whose cell the player on region
cell ``x`` can walk to, with the first ``k`` goals and the box as walls
and the other boxes taken off.  (Kevin01 90: the last box reaches the
last goal only when pushed from below, and below it is a pocket closed
by the packed boxes and the box itself, while the player is above.)
Pushing another box never takes the player out of that part, so a child
reads the table with its own player cell like any position.

**The count** (:func:`feasible_packed`): the largest ``k`` up to the
packed count at which the boxes off the first ``k`` goals can be given
the remaining goals one each, every box a goal it can reach from where
the player stands or the goal it stands on (a perfect matching, :func:`.matching.rows_all_matched`;
MasterHead 43: every box reaches a goal and every goal a box, yet only
one box reaches either of two goals).  It is a judgement on the plan,
not a deadlock (a packed box may still be taken out again): it only
lowers the feature.

**Parked boxes.**  A plan read from a backward path may need boxes to
wait in a pocket before the goals around it are filled: Disciple 20 (*The
octopus' hole*) fills seven goals of its goal area, three of which shut a
pocket of floor that only those goals open, and three boxes must be
parked in it first.  Packed before them, the seven leave the last goals
out of reach, but the matching fails only from the fifth goal on: the
trap counted four, as much as a position on the right way, and the
search kept returning to it.  The count therefore
also asks that the boxes the plan parks by step ``k`` stand where it parks
them (:func:`parked_at`; :func:`.plan.parking_arrays`), and FESS's packed
feature adds each box parked (:func:`parking_credit`).

**Cost.** The tables take 32 + ``region`` bytes per region cell and plan
step (``(goals + 1) × region × (32 + region)``: 2.0 MB for 14 goals on
350 cells), and their making one flood of the region per region cell
and step; they are off (empty) for plans of more than 64 goals (a goal
set is one ``uint64``), past :data:`MAX_TABLE_WORK` cell visits (64 MB
of ``parts``), and for the naive plan.  Per position, the count looks
each box up and matches the boxes once per step it goes down.
"""

from __future__ import annotations

import numba as nb
import numpy as np

from .features import components
from .matching import rows_all_matched

#: Most goals a plan may have for the table (one bit each in a uint64).
MAX_PLAN_GOALS = 64
#: Most cell visits the table's floods may take (about a third of a
#: second), which is also the size in bytes of its ``parts`` half.
MAX_TABLE_WORK = 64_000_000
#: ``parts`` of a cell the player cannot push the box from (a wall, the
#: box's own cell, or a part of the board that touches no side of it).
NO_SIDE = 4


def table_fits(n_goals: int, n_region: int) -> bool:
    """Whether a plan of ``n_goals`` on ``n_region`` cells gets a table."""
    return n_goals <= MAX_PLAN_GOALS and (n_goals + 1) * n_region * n_region <= MAX_TABLE_WORK


def empty_tables() -> tuple[np.ndarray, np.ndarray]:
    """The tables of a plan that has none (``reach``, ``parts``)."""
    return np.zeros((0, 0, 4), np.uint64), np.zeros((0, 0, 0), np.int8)


def plan_tables(n_goals: int, n_region: int) -> tuple[np.ndarray, np.ndarray]:
    """Zeroed ``reach`` and ``parts`` for :func:`plan_reach`."""
    return (np.zeros((n_goals + 1, n_region, 4), np.uint64),
            np.zeros((n_goals + 1, n_region, n_region), np.int8))


@nb.njit(cache=True)
def plan_reach(inside, deltas, region, index, order, fw, out, parts):
    """Fill ``out[k, i, d]`` (uint64) and ``parts[k, i, x]`` (int8), for
    ``k`` from 0 to ``len(order)`` and region cells ``i`` and ``x``:

    * ``parts[k, i, x]``: with ``order[:k]`` as walls and a box on
      ``region[i]``, the smallest side ``d`` of the box whose cell is in
      the part of region cell ``x`` (:data:`NO_SIDE`: none);
    * ``out[k, i, d]``: the goals ``order[j]``, ``j >= k``, the lone box
      can be pushed to from there, the player starting on side ``d``.

    ``index[cell]`` is the cell's region index; ``fw`` is the scratch of
    :func:`.features.components`, which labels the parts around each box."""
    n_region = region.shape[0]
    blocked = np.zeros(inside.shape[0], np.uint8)
    seen = np.zeros((n_region, 4), np.int64)
    queue = np.empty(4 * n_region, np.int64)
    side_lab = np.empty(4, np.int32)
    stamp = 0
    for k in range(order.shape[0] + 1):
        if k > 0:
            blocked[order[k - 1]] = 1
        stamp = reach_with_walls(inside, deltas, region, index, order, blocked, fw, out[k],
                                 parts[k], seen, queue, side_lab, stamp)


@nb.njit(cache=True)
def reach_with_walls(inside, deltas, region, index, order, blocked, fw, out, parts, seen, queue,
                     side_lab, stamp):
    """One step of :func:`plan_reach` for the cells ``blocked`` marks as
    walls: ``parts[i, x]`` and ``out[i, d]`` (bit ``j`` for each goal
    ``order[j]`` not blocked).  ``seen`` (int64, region × 4) and ``queue``
    (int64, 4 × region) are scratch whose stamps start after ``stamp``,
    ``side_lab`` (int32, 4) scratch too (nothing is allocated: the FESS
    kernels call it); returns the last stamp used."""
    n_region = region.shape[0]
    out[:, :] = 0
    parts[:, :] = NO_SIDE
    for b in range(n_region):
        if blocked[region[b]] != 0:
            continue   # a wall now: no box stands there
        blocked[region[b]] = 1
        components(region, inside, blocked, deltas, fw)
        blocked[region[b]] = 0
        # The part of each side cell (a cell of it; -1: a wall), then
        # each cell named by the first side in its part.
        for d in range(4):
            y = region[b] + deltas[d]
            side_lab[d] = fw.lab[y] if inside[y] != 0 and fw.mark[y] == fw.counters[0] \
                else -1
        for i in range(n_region):
            c = region[i]
            if fw.mark[c] != fw.counters[0]:
                continue   # a wall or the box
            for d in range(4):
                if side_lab[d] == fw.lab[c]:
                    parts[b, i] = d
                    break
    for j in range(order.shape[0]):
        if blocked[order[j]] != 0:
            continue
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
            out[bi, d] |= bit
            c = region[bi]
            side = parts[bi, index[c + deltas[d]]]
            # The player walks round the box to the other sides of it.
            for e in range(4):
                y = c + deltas[e]
                if e != d and inside[y] != 0 and blocked[y] == 0 and \
                        parts[bi, index[y]] == side and seen[bi, e] != stamp:
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
    return stamp


@nb.njit(cache=True, inline="always")
def parked_at(park_start, park_cells, occ, k):
    """Whether the boxes the plan has parked when its first ``k`` goals
    are packed (:func:`.plan.parking_arrays`) all stand on their cells
    (``occ``); a step past the plan's last parks nothing."""
    if k + 1 >= park_start.shape[0]:
        return True
    for j in range(park_start[k], park_start[k + 1]):
        if occ[park_cells[j]] == 0:
            return False
    return True


@nb.njit(cache=True, inline="always")
def parking_credit(park_start, park_cells, park_base, occ, k):
    """What parking adds to a packed count of ``k`` (its parked boxes in
    place): the parked boxes the plan has moved onto goals by then
    (``park_base``, :func:`.plan.parking_base`) and the boxes (``occ``)
    on the cells step ``k + 1`` parks.  So the count grows box by box
    while the plan parks, and by one a goal after."""
    last = park_base.shape[0] - 1
    if k + 1 >= last:
        return park_base[last]
    credit = park_base[k + 1]
    for j in range(park_start[k + 1], park_start[k + 2]):
        if occ[park_cells[j]] != 0:
            credit += 1
    return credit


@nb.njit(cache=True, inline="always")
def feasible_packed(reach, parts, rank_of, index, boxes, n, player, packed, moved_from,
                    moved_to, masks, work, park_start, park_cells, occ):
    """The largest ``k <= packed`` at which the plan can still be finished
    with its first ``k`` goals as walls (see the module doc), the box of
    ``moved_from`` standing on ``moved_to`` (-1, -1: the position as it
    is) and the player on ``player`` (any cell he can walk to), and the
    boxes the plan has parked by step ``k`` stand where it parks them
    (``occ`` marks the boxes, the move made: a prefix packed before its
    boxes were parked shut them out, :meth:`.packing.PackingSearch.parking`).
    Without the table, the largest such ``k`` that parks its boxes.
    ``masks`` (uint64, one per box) and ``work``
    (:func:`.matching.mask_matching_work`) are scratch."""
    n_goals = reach.shape[0] - 1
    if n_goals < 0 or packed >= n_goals:
        k = packed
        while k > 0 and not parked_at(park_start, park_cells, occ, k):
            k -= 1
        return k
    full = (~np.uint64(0)) >> np.uint64(64 - n_goals)
    k = packed
    while k > 0:
        if not parked_at(park_start, park_cells, occ, k):
            k -= 1
            continue
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
            bi = index[b]
            side = parts[k, bi, index[player]]
            m = reach[k, bi, side] if side != NO_SIDE else np.uint64(0)
            if r >= k:
                m |= np.uint64(1) << np.uint64(r)   # on its goal: it may stay
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
