"""Boxes cut off from every free goal by the boxes frozen on goals: a
deadlock test for the positions FESS keeps coming back to (its stuck test,
:func:`.fess.stuck_check`).

**What was seen.**  After 10 s alone on the unseen sets' unsolved levels,
the best position of ``fess-only`` was dead on Kevin01 26, 54 and 90,
MasterHead 43 and MarcusPalstra 9, and none of the search's tests said so.
On Kevin01 26 two boxes stand frozen on goals (each with a wall on both
axes, or a frozen box) in the one corridor by which the boxes of the left
room reach the goal area; the only other way, along the top row, needs the
player on the far side of the box, and he can get there only through that
corridor.  Every test the search runs misses it: the freeze test passes
(the frozen boxes are on goals), the sealed-goal test passes (the empty
goals are still fed by the box in the top row), the bound's matching
passes (it leaves the frozen boxes out), and a box-only flood passes (it
lets the player jump to the far side).  A breadth-first search proves the
position dead in 161,052 positions.

**The test** (:func:`frozen_cut_deadlock`): the boxes that never move
(the freeze rule's greatest fixpoint, :func:`.deadlocks.keep_frozen`)
become walls; with those walls, a lone box and a player who walks round
it (:func:`.planreach.reach_with_walls`, the other boxes taken off) give
each box that can move the free goals it can be pushed to from where the
player stands, and its own goal when it stands on one.  Without a perfect
matching of those boxes to the free goals, the position is dead: the
other boxes only ever stand in the way, and the frozen ones never move.
A frozen box off its goal is dead too (the freeze test of the expansion
finds that first).

**Cost.**  The tables take ``region × (96 + region)`` bytes (0.4 MB on
600 cells) and their making one flood of the region per region cell; they
are made again only when the frozen set changes (the stuck test asks of
positions under one part of the search at a time, mostly with the same
frozen boxes: on Kevin01 26, 2,803 tables for 6,744 tests in 20 s).  Off
past 64 goals (a goal set is one ``uint64``), past
:data:`.planreach.MAX_TABLE_WORK` cell visits, and when the freeze rule is
off.
Run at every expansion (the late check) instead, it made a table for
nine tests in ten and cost 40 % of the expansions on Kevin01 26.
"""

from __future__ import annotations

from typing import NamedTuple

import numba as nb
import numpy as np

from ..byref import by_reference
from .deadlocks import keep_frozen
from .features import FeatureWork, feature_work
from .matching import mask_matching_work, rows_all_matched
from .planreach import MAX_PLAN_GOALS, MAX_TABLE_WORK, NO_SIDE, reach_with_walls

#: ``FrozenCutWork.counters``: the stamp of ``mark``, of ``seen``, the
#: frozen boxes the table was made for (-1: none yet), tests run, tables
#: made, positions proved dead.
MARK, SEEN, TABLE_FOR, CUT_TESTS, CUT_TABLES, CUT_DEAD = range(6)


@by_reference
class FrozenCutWork(NamedTuple):
    """The test's tables and scratch (one per engine)."""

    on: int                  #: 1: test (0: too many goals or too large a region)
    rank: np.ndarray         #: int32[cell]: the goal's index in ``goal_cells`` (-1: none)
    mark: np.ndarray         #: int64[cell] scratch of the freeze fixpoint
    occ: np.ndarray          #: uint8[cell] scratch: the boxes
    blocked: np.ndarray      #: uint8[cell]: the walls of the table (the frozen boxes)
    frozen: np.ndarray       #: int32[box]: the frozen boxes the table was made for
    reach: np.ndarray        #: uint64[region, 4]: goals a lone box reaches (bits by rank)
    parts: np.ndarray        #: int8[region, region]: the side of a box the player walks to
    seen: np.ndarray         #: int64[region, 4] scratch of the pull search
    queue: np.ndarray        #: int64[4 × region] scratch of the pull search
    side_lab: np.ndarray     #: int32[4] scratch of the parts
    masks: np.ndarray        #: uint64[box] scratch: each box's goals
    match: np.ndarray        #: the matching's scratch
    fw: FeatureWork          #: the parts' flood scratch
    counters: np.ndarray     #: int64[6]: see MARK ... CUT_DEAD


def frozen_cut_work(goal_cells: np.ndarray, n_grid: int, n_region: int, n_boxes: int,
                    on: bool = True) -> FrozenCutWork:
    """The test's tables for a level (off, and all but empty, when ``on``
    is False, the goals do not fit a ``uint64`` or the table would take
    too long to make)."""
    on = on and len(goal_cells) <= MAX_PLAN_GOALS and n_region * n_region <= MAX_TABLE_WORK
    size = n_region if on else 0
    rank = np.full(n_grid, -1, np.int32)
    rank[goal_cells] = np.arange(len(goal_cells), dtype=np.int32)
    counters = np.zeros(6, np.int64)
    counters[TABLE_FOR] = -1
    return FrozenCutWork(int(on), rank, np.zeros(n_grid, np.int64), np.zeros(n_grid, np.uint8),
                         np.zeros(n_grid, np.uint8), np.zeros(n_boxes, np.int32),
                         np.zeros((size, 4), np.uint64), np.zeros((size, size), np.int8),
                         np.zeros((size, 4), np.int64), np.zeros(4 * size, np.int64),
                         np.zeros(4, np.int32), np.zeros(n_boxes, np.uint64), mask_matching_work(),
                         feature_work(n_grid), counters)


@nb.njit(cache=True, inline="always")
def _same_frozen(fz, boxes, n, tag):
    """Whether the boxes marked ``tag`` are those the table was made for."""
    k = 0
    for i in range(n):
        if fz.mark[boxes[i]] == tag:
            if k >= fz.counters[TABLE_FOR] or fz.frozen[k] != boxes[i]:
                return False
            k += 1
    return k == fz.counters[TABLE_FOR]


@nb.njit(cache=True)
def frozen_cut_deadlock(p, fz, boxes, n, player):
    """True when the position (``boxes[:n]`` sorted, the player on
    ``player``) is dead by the test of the module doc.  ``p``: the level's
    :class:`.kernels.SokobanParams`."""
    if fz.on == 0:
        return False
    fz.counters[CUT_TESTS] += 1
    fz.counters[MARK] += 1
    tag = fz.counters[MARK]
    for i in range(n):
        fz.occ[boxes[i]] = 1
        fz.mark[boxes[i]] = tag
    keep_frozen(boxes, n, fz.occ, p.inside, p.dead, p.width, fz.mark, tag)
    n_frozen = 0
    off_goal = False
    for i in range(n):
        if fz.mark[boxes[i]] == tag:
            n_frozen += 1
            if fz.rank[boxes[i]] < 0:
                off_goal = True
    for i in range(n):
        fz.occ[boxes[i]] = 0
    if off_goal:
        fz.counters[CUT_DEAD] += 1
        return True
    if n_frozen == 0:
        return False   # no new walls: the bound's matching has seen this board
    if not _same_frozen(fz, boxes, n, tag):
        for k in range(max(fz.counters[TABLE_FOR], 0)):
            fz.blocked[fz.frozen[k]] = 0
        k = 0
        for i in range(n):
            if fz.mark[boxes[i]] == tag:
                fz.blocked[boxes[i]] = 1
                fz.frozen[k] = boxes[i]
                k += 1
        fz.counters[TABLE_FOR] = k
        fz.counters[CUT_TABLES] += 1
        fz.counters[SEEN] = reach_with_walls(p.inside, p.deltas, p.index_cell, p.player_index,
                                             p.goal_cells, fz.blocked, fz.fw, fz.reach, fz.parts,
                                             fz.seen, fz.queue, fz.side_lab,
                                             fz.counters[SEEN])
    at = p.player_index[player]
    rows = 0
    for i in range(n):
        b = boxes[i]
        if fz.mark[b] == tag:
            continue
        bi = p.player_index[b]
        side = fz.parts[bi, at]
        m = fz.reach[bi, side] if side != NO_SIDE else np.uint64(0)
        if fz.rank[b] >= 0:
            m |= np.uint64(1) << np.uint64(fz.rank[b])   # on a goal: it may stay
        if m == 0:
            fz.counters[CUT_DEAD] += 1
            return True
        fz.masks[rows] = m
        rows += 1
    if rows_all_matched(fz.masks, rows, fz.match):
        return False
    fz.counters[CUT_DEAD] += 1
    return True
