"""Festival's Sokoban-specific advisors (the engine supplies the feature
advisors: packing, connectivity, obstructed room links, out-of-plan count, the
lower bound).

Each proposes at most one move of a position, never one that lowers the
packed count (Festival's rule):

* **explorer** (breaking into closed areas): among *reversible* moves (a
  lone box can be pushed back), those after which some other box can be
  pushed from a side the player could not reach before; the best-ranked;
* **opener** (clearing the way): when no move packs a box, let X be the
  next goal of the plan; among moves that lower neither the packed count
  nor the connectivity and do not bring the box closer to X, the box
  nearest X, pushed farthest;
* **out-of-plan**: when boxes stand in the area about to be sealed, among
  reversible moves that worsen neither packed, connectivity nor the OOP
  count and take a box away from that area, the box nearest it (deepest),
  pushed farthest.

Distances are lone-box push distances with the player free to walk
(:func:`push_distances`), or walking distances from the target.
"""

from __future__ import annotations

from typing import NamedTuple

import numba as nb
import numpy as np

from ..byref import by_reference
from .features import CONNECTIVITY, OUT_OF_PLAN, UNPACKED
from .macros import split_at

#: Distance of an unreachable cell.
FAR = 1 << 20


@by_reference
class AdvisorTables(NamedTuple):
    """Per-level tables and per-expansion scratch of the advisors."""

    on: int                  #: 1: advise (0: only the engine's feature advisors)
    reach: np.ndarray        #: uint8[region, region]: a lone box gets from one to the other
    walk: np.ndarray         #: int32[goal rank, cell]: walking distance from the plan's k-th goal
    oop_dist: np.ndarray     #: int32[step, cell]: pushes from the step's OOP zone
    side_mask: np.ndarray    #: int64[box] scratch: pushable sides the player reaches
    open_mask: np.ndarray    #: int64[box] scratch: open sides he does not reach
    ch_from: np.ndarray      #: int32[M] scratch: the moved box's cell
    ch_to: np.ndarray        #: int32[M] scratch: its new cell
    ch_gain: np.ndarray      #: int32[M] scratch: newly pushable sides of other boxes


def advisor_tables(on: bool, n_region: int, n_goals: int, n_grid: int,
                   max_children: int, n_boxes: int) -> AdvisorTables:
    """Placeholder tables (filled by :func:`lone_reach` and the plan)."""
    return AdvisorTables(int(on), np.zeros((n_region, n_region), np.uint8),
                         np.full((max(1, n_goals), n_grid), FAR, np.int32),
                         np.zeros((n_goals + 1, n_grid), np.int32),
                         np.zeros(n_boxes, np.int64), np.zeros(n_boxes, np.int64),
                         np.zeros(max_children, np.int32),
                         np.zeros(max_children, np.int32), np.zeros(max_children, np.int32))


@nb.njit(cache=True)
def push_reach(inside, deltas, start, out):
    """``out[c] = 1`` where a lone box on ``start`` can be pushed (the
    player walks freely: it only needs the cell behind the box); cells
    already marked are not entered again, so several starts may share
    ``out``."""
    q = np.empty(inside.shape[0], np.int64)
    out[start] = 1
    q[0] = start
    head, tail = 0, 1
    while head < tail:
        c = q[head]
        head += 1
        for d in deltas:
            t = c + d
            if inside[t] != 0 and inside[c - d] != 0 and out[t] == 0:
                out[t] = 1
                q[tail] = t
                tail += 1


@nb.njit(cache=True)
def lone_reach(inside, deltas, region, out):
    """``out[i, j] = 1`` when a lone box on region cell ``i`` can be pushed
    to region cell ``j`` (:func:`push_reach`)."""
    grid = np.zeros(inside.shape[0], np.uint8)
    for i in range(region.shape[0]):
        grid[:] = 0
        push_reach(inside, deltas, region[i], grid)
        for j in range(region.shape[0]):
            out[i, j] = grid[region[j]]


@nb.njit(cache=True)
def walk_distances(inside, deltas, targets, out):
    """``out[k, c]``: steps from ``targets[k]`` to cell ``c`` through the
    region (walls only)."""
    q = np.empty(inside.shape[0], np.int64)
    for k in range(targets.shape[0]):
        row = out[k]
        row[targets[k]] = 0
        q[0] = targets[k]
        head, tail = 0, 1
        while head < tail:
            c = q[head]
            head += 1
            for d in deltas:
                x = c + d
                if inside[x] != 0 and row[x] == FAR:
                    row[x] = row[c] + 1
                    q[tail] = x
                    tail += 1


@nb.njit(cache=True)
def push_distances(inside, deltas, zone, out):
    """``out[k, c]``: pushes a lone box needs from zone ``k`` (``zone[k, c]
    == 1``) to cell ``c`` (0 inside the zone, FAR when unreachable)."""
    q = np.empty(inside.shape[0], np.int64)
    for k in range(zone.shape[0]):
        row = out[k]
        tail = 0
        for c in range(inside.shape[0]):
            if zone[k, c] != 0:
                row[c] = 0
                q[tail] = c
                tail += 1
            else:
                row[c] = FAR
        head = 0
        while head < tail:
            c = q[head]
            head += 1
            for d in deltas:
                t = c + d
                if inside[t] != 0 and inside[c - d] != 0 and row[t] == FAR:
                    row[t] = row[c] + 1
                    q[tail] = t
                    tail += 1


def start_push_distances(puzzle, boxes=None) -> np.ndarray:
    """int32[cell]: pushes a lone box needs from the nearest start square
    (a box's square in the level, or in ``boxes``) to each cell,
    :data:`FAR` where none gets (what a box found there by pulls can have
    come from)."""
    p = puzzle.params
    starts = np.zeros((1, p.inside.shape[0]), np.uint8)
    starts[0, sorted(puzzle.level.boxes if boxes is None else boxes)] = 1
    dist = np.empty(starts.shape, np.int32)
    push_distances(p.inside, p.deltas, starts, dist)
    return dist[0]


@nb.njit(cache=True, inline="always")
def _push_open(b, k, occ, inside, dead, deltas):
    """Side ``k`` of the box on ``b`` is free, and so is the live cell it
    would be pushed onto (whether the player gets there is the caller's)."""
    x = b + deltas[k]
    t = b - deltas[k]
    return inside[x] != 0 and occ[x] == 0 and inside[t] != 0 and occ[t] == 0 and dead[t] == 0


@nb.njit(cache=True, inline="always")
def pushable_sides(b, lab, player_lab, occ, inside, dead, deltas):
    """Bit ``k``: the player (in the part ``player_lab`` of the labelling
    ``lab``) reaches side ``k`` of the box on ``b`` and can push it."""
    mask = 0
    for k in range(4):
        if _push_open(b, k, occ, inside, dead, deltas) and lab[b + deltas[k]] == player_lab:
            mask |= 1 << k
    return mask


@nb.njit(cache=True, inline="always")
def open_sides(b, occ, inside, dead, deltas):
    """Bit ``k``: side ``k`` of the box on ``b`` is open to a push, whether
    or not the player gets there (:func:`_push_open`)."""
    mask = 0
    for k in range(4):
        if _push_open(b, k, occ, inside, dead, deltas):
            mask |= 1 << k
    return mask


@nb.njit(cache=True, inline="always")
def may_gain_sides(b, s, open_unreached, deltas):
    """False when no side of the box on ``b`` can turn pushable by the move
    of the box on ``s``: every side that is open after the move was open
    before unless ``s`` is next to ``b`` (only the cell ``s`` is freed), so
    a box with no open side the player did not reach (``open_unreached``)
    and no neighbour on ``s`` gains none."""
    if open_unreached != 0:
        return True
    for k in range(4):
        if b + deltas[k] == s:
            return True
    return False


@nb.njit(cache=True, inline="always")
def gained_sides(b, c, player_cell, known, occ, inside, dead, deltas, mw):
    """The sides of the box on ``b`` that are pushable in a child whose
    moved box stands on ``c`` (the player in the part whose smallest cell
    is ``player_cell``) and not among the ``known`` ones (its pushable
    sides in the parent).  The parts are read off the macro search's DFS
    (:func:`.macros.split_at`) instead of a labelling of the child (``occ``
    shows the child); a side already known is not looked at, which spares
    most of those reads."""
    mask = 0
    for k in range(4):
        if known & (1 << k):
            continue
        x = b + deltas[k]
        if _push_open(b, k, occ, inside, dead, deltas) and mw.dstamp[x] == mw.dstamp[c] and \
                split_at(c, x, deltas, mw)[1] == player_cell:
            mask |= 1 << k
    return mask


@nb.njit(cache=True, inline="always")
def _reversible(at, index, s, c):
    return at.reach[index[c], index[s]] != 0


@nb.njit(cache=True)
def advise(at, index, m, feat, rank, flags, own_unpacked, own_conn, own_oop, packed,
           next_goal, advised):
    """Run the three advisors over the ``m`` children (features ``feat``:
    unpacked, connectivity, OOP; scratch ``at.ch_*`` filled) and set the
    ``advised`` bit of their picks."""
    # explorer
    best = -1
    for i in range(m):
        if at.ch_gain[i] > 0 and feat[i, UNPACKED] <= own_unpacked and \
                _reversible(at, index, at.ch_from[i], at.ch_to[i]):
            if best < 0 or rank[i] < rank[best]:
                best = i
    if best >= 0:
        flags[best] |= advised
    # opener
    if next_goal >= 0:
        packs = False
        for i in range(m):
            if feat[i, UNPACKED] < own_unpacked:
                packs = True
                break
        if not packs:
            row = at.walk[next_goal]
            best = -1
            for i in range(m):
                s, c = at.ch_from[i], at.ch_to[i]
                if feat[i, UNPACKED] > own_unpacked or feat[i, CONNECTIVITY] > own_conn \
                        or row[c] < row[s]:
                    continue
                if best < 0 or row[s] < row[at.ch_from[best]] or (
                        row[s] == row[at.ch_from[best]] and row[c] > row[at.ch_to[best]]):
                    best = i
            if best >= 0:
                flags[best] |= advised
    # out of plan
    if own_oop > 0:
        row = at.oop_dist[packed]
        best = -1
        for i in range(m):
            s, c = at.ch_from[i], at.ch_to[i]
            if feat[i, UNPACKED] > own_unpacked or feat[i, CONNECTIVITY] > own_conn \
                    or feat[i, OUT_OF_PLAN] > own_oop \
                    or row[c] <= row[s] or not _reversible(at, index, s, c):
                continue
            if best < 0 or row[s] < row[at.ch_from[best]] or (
                    row[s] == row[at.ch_from[best]] and row[c] > row[at.ch_to[best]]):
                best = i
        if best >= 0:
            flags[best] |= advised
