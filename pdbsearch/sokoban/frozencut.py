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

**What a verdict teaches** (:func:`_learn_cut`).  The search meets many
variants of one dead end: the same boxes frozen on the same goals, the
other boxes elsewhere.  A dead verdict names ``k`` boxes that together
reach fewer than ``k`` free goals ``T`` (Hall's condition broken,
:func:`.matching.hall_rows`), and that holds of any position with the
same frozen boxes and enough boxes on cells that reach only ``T``.  So
the verdict is kept as a counting pattern
(:func:`pdbsearch.pdb.learned.learned_add_counting`): the frozen boxes
``F``; the player cells ``P`` of the player's part of the board (``F``
walls) from which each of the ``k`` boxes still reaches only ``T``; the
cells ``C`` from which a lone box reaches, with the player on any cell of
``P``, no goal outside ``T`` (its own goal counted); and the need
``|T| + 1``.  Sound: ``F`` stays frozen whatever else stands on the board
(it holds itself up with the walls), a lone box reaches at least what it
does among other boxes, and so more boxes on ``C`` than ``T`` has goals
can never all be placed.  The position that taught it matches it (its
``k`` boxes are on ``C``), and so do its variants; FESS looks each child
up in the store when it makes it (:func:`.fess.expand`).  Making one
takes ``region × |P|`` table reads, and the cut's dead verdicts are few
(in 30 s of ``fess-only`` on Kevin01 54, 14 of 4,588 tests, each
learned).
"""

from __future__ import annotations

from typing import NamedTuple

import numba as nb
import numpy as np

from ..byref import by_reference
from ..pdb.learned import learned_add_counting
from ..pdb.ranking import popcount64
from .deadlocks import keep_frozen
from .features import FeatureWork, components, feature_work
from .matching import hall_rows, mask_matching_work
from .planreach import MAX_PLAN_GOALS, MAX_TABLE_WORK, NO_SIDE, reach_with_walls

#: ``FrozenCutWork.counters``: the stamp of ``mark``, of ``seen``, the
#: frozen boxes the table was made for (-1: none yet), tests run, tables
#: made, positions proved dead, patterns learned.
MARK, SEEN, TABLE_FOR, CUT_TESTS, CUT_TABLES, CUT_DEAD, CUT_LEARNED = range(7)


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
    row_box: np.ndarray      #: int32[box] scratch: the box of each row of ``masks``
    match: np.ndarray        #: the matching's scratch
    fw: FeatureWork          #: the parts' flood scratch
    in_p: np.ndarray         #: uint8[region] scratch: the pattern's player cells
    bits: np.ndarray         #: uint64[K] scratch: the pattern's frozen boxes
    count: np.ndarray        #: uint64[K] scratch: its counted cells
    region_bits: np.ndarray  #: uint64[R] scratch: its player cells
    counters: np.ndarray     #: int64[7]: see MARK ... CUT_LEARNED


def frozen_cut_work(goal_cells: np.ndarray, n_grid: int, n_region: int, n_boxes: int,
                    on: bool = True, key_words: int = 1) -> FrozenCutWork:
    """The test's tables for a level (off, and all but empty, when ``on``
    is False, the goals do not fit a ``uint64`` or the table would take
    too long to make); ``key_words``: the level's key length, for the
    patterns a verdict teaches."""
    on = on and len(goal_cells) <= MAX_PLAN_GOALS and n_region * n_region <= MAX_TABLE_WORK
    size = n_region if on else 0
    rank = np.full(n_grid, -1, np.int32)
    rank[goal_cells] = np.arange(len(goal_cells), dtype=np.int32)
    counters = np.zeros(7, np.int64)
    counters[TABLE_FOR] = -1
    return FrozenCutWork(int(on), rank, np.zeros(n_grid, np.int64), np.zeros(n_grid, np.uint8),
                         np.zeros(n_grid, np.uint8), np.zeros(n_boxes, np.int32),
                         np.zeros((size, 4), np.uint64), np.zeros((size, size), np.int8),
                         np.zeros((size, 4), np.int64), np.zeros(4 * size, np.int64),
                         np.zeros(4, np.int32), np.zeros(n_boxes, np.uint64),
                         np.zeros(n_boxes, np.int32), mask_matching_work(), feature_work(n_grid),
                         np.zeros(size, np.uint8), np.zeros(key_words, np.uint64),
                         np.zeros(key_words, np.uint64),
                         np.zeros(max(1, (n_region + 63) // 64), np.uint64), counters)


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


@nb.njit(cache=True, inline="always")
def _lone_goals(fz, bi, ai, own):
    """The goals a lone box on region cell ``bi`` reaches with the player
    on region cell ``ai`` (the table's walls), and ``own``."""
    side = fz.parts[bi, ai]
    return (fz.reach[bi, side] if side != NO_SIDE else np.uint64(0)) | own


@nb.njit(cache=True, inline="always")
def _own_goal(fz, b):
    """The bit of the goal on cell ``b`` (0: none)."""
    return np.uint64(1) << np.uint64(fz.rank[b]) if fz.rank[b] >= 0 else np.uint64(0)


@nb.njit(cache=True)
def _learn_cut(p, fz, store, player, k):
    """Store the counting pattern of the module doc for the verdict whose
    ``k`` rows (in ``fz.match[3, :k]``) break Hall's condition; the table
    is the frozen boxes' (``fz.blocked``).  True if it was stored."""
    region = p.index_cell
    n_region = region.shape[0]
    goals = np.uint64(0)
    for j in range(k):
        goals |= fz.masks[fz.match[3, j]]
    outside = ~goals
    # P: the cells of the player's part from which the k boxes still reach
    # only those goals.
    components(region, p.inside, fz.blocked, p.deltas, fz.fw)
    fw = fz.fw
    part = fw.lab[player]
    for w in range(fz.region_bits.shape[0]):
        fz.region_bits[w] = 0
    for ai in range(n_region):
        c = region[ai]
        ok = fw.mark[c] == fw.counters[0] and fw.lab[c] == part
        j = 0
        while ok and j < k:
            b = fz.row_box[fz.match[3, j]]
            if _lone_goals(fz, p.player_index[b], ai, _own_goal(fz, b)) & outside != 0:
                ok = False
            j += 1
        fz.in_p[ai] = 1 if ok else 0
        if ok:
            fz.region_bits[ai >> 6] |= np.uint64(1) << np.uint64(ai & 63)
    # C: the cells from which a lone box reaches no other goal, the player
    # anywhere in P; F: the frozen boxes.
    for w in range(fz.count.shape[0]):
        fz.count[w] = 0
        fz.bits[w] = 0
    for bi in range(n_region):
        b = region[bi]
        bit = p.box_bit[b]
        if bit < 0:
            continue
        if fz.blocked[b] != 0:
            fz.bits[bit >> 6] |= np.uint64(1) << np.uint64(bit & 63)
            continue
        own = _own_goal(fz, b)
        confined = own & outside == 0
        ai = 0
        while confined and ai < n_region:
            if fz.in_p[ai] != 0 and _lone_goals(fz, bi, ai, own) & outside != 0:
                confined = False
            ai += 1
        if confined:
            fz.count[bit >> 6] |= np.uint64(1) << np.uint64(bit & 63)
    need = 1 + popcount64(goals)
    if learned_add_counting(store, fz.bits, fz.region_bits, fz.count, need) < 0:
        return False
    fz.counters[CUT_LEARNED] += 1
    return True


@nb.njit(cache=True)
def frozen_cut_deadlock(p, fz, boxes, n, player, store, learn):
    """True when the position (``boxes[:n]`` sorted, the player on
    ``player``) is dead by the test of the module doc.  ``p``: the level's
    :class:`.kernels.SokobanParams`.  With ``learn`` (non-zero), a dead
    verdict of the cut is kept in ``store`` (a
    :class:`pdbsearch.pdb.learned.LearnedPatterns`) as the counting
    pattern of the module doc."""
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
    stranded = -1
    for i in range(n):
        b = boxes[i]
        if fz.mark[b] == tag:
            continue
        # On a goal, a box may stay.
        m = _lone_goals(fz, p.player_index[b], at, _own_goal(fz, b))
        if m == 0 and stranded < 0:
            stranded = rows
        fz.masks[rows] = m
        fz.row_box[rows] = b
        rows += 1
    if stranded >= 0:
        k = 1   # a box that reaches no goal: Hall's condition broken by one row
        fz.match[3, 0] = stranded
    else:
        k = hall_rows(fz.masks, rows, fz.match)
        if k == 0:
            return False
    fz.counters[CUT_DEAD] += 1
    if learn != 0:
        _learn_cut(p, fz, store, player, k)
    return True
