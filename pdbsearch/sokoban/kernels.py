"""Jitted Sokoban kernels: the state key, push-level successors, the goal test
(the lower bounds are in :mod:`.bounds`).

**The key** (:class:`~.tables.KeyLayout`): one bit per box cell, and the
player's index among the region cells in the top bits of the last word.
Under the **pushes** metric the player is *normalised*: it is the smallest
cell the player can reach, so all positions that differ only by where the
player walks share a key.  Under the **moves** metric walking costs, and two
positions with the same boxes but the player elsewhere in the same area are
not equivalent; the key then keeps the exact cell where the player stands
(after a push: the cell the box left).

**A successor** is one push the player can reach: move code
``box_cell * MOVE_BASE + direction`` (LURD order), cost 1 (pushes) or
walk + 1 (moves, the walk being a shortest one).  Under the pushes metric
a push into a one-way tunnel goes on through it as one *tunnel macro*
(:func:`_tunnel_run`): its cost is its number of pushes ``count``, its
code adds ``(count - 1) * MACRO_BASE``.  The deadlock rules of
:mod:`.deadlocks` are applied here, where the pushed box is known.

**Params.**  :class:`SokobanParams` holds the level's static tables;
its ``work`` field is a :class:`SokobanWork` record of scratch arrays (one
search runs in one thread), so that nothing is allocated per node, and
its ``patterns`` field the pattern databases of :mod:`.bounds`.
"""

from __future__ import annotations

from typing import NamedTuple

import numba as nb
import numpy as np
from numba.cpython.unsafe.numbers import trailing_zeros

from ..byref import by_reference
from ..fences import acquire_fence
from ..puzzle import copy_key, kernel_jit
from ..search.store import hash_key, keys_equal
from .deadlocks import (DEADLOCK, NO_RULE, RESTRICT, CutWork, closed_diagonal_deadlock,
                        corral_restriction, cut_work, freeze_deadlock, may_close_diagonal,
                        may_freeze, stranded_goal_deadlock, tunnel_restriction)
from .tables import flood_smallest
from .vocabulary import MOVES

#: Move code of a push: ``box_cell * MOVE_BASE + direction`` (LURD order).
MOVE_BASE = 4
#: A tunnel macro of ``count`` pushes of the same box in the same direction
#: adds ``(count - 1) * MACRO_BASE`` to the code of its first push (above
#: every single push code: boards are at most 64 x 64 cells).
MACRO_BASE = 1 << 24


@nb.njit(cache=True, inline="always")
def push_ends(p, move):
    """``(b, t)``: the cell of the box a push (or tunnel macro) moves, and
    the cell it ends on."""
    count = move // MACRO_BASE + 1
    single = move % MACRO_BASE
    b = single // MOVE_BASE
    return b, b + count * p.deltas[single % MOVE_BASE]


_ONE = np.uint64(1)

# Slots of ``work.counters`` (stamp counters of the stamped scratch arrays).
AREA, SEEN, LABEL, FROZEN, BASE, ROWS = 0, 1, 2, 3, 4, 5
N_COUNTERS = 6


@by_reference
class SokobanWork(NamedTuple):
    """Scratch arrays of the kernels (see :func:`work_arrays`)."""

    # -- successors and deadlocks (one entry per grid cell unless said) --
    occ: np.ndarray             #: uint8: 1 where a box stands
    boxes: np.ndarray           #: int32[box]: the box cells of the state
    area: np.ndarray            #: int64: stamp of the player's area
    walk: np.ndarray            #: int32: walking distance (moves metric)
    seen: np.ndarray            #: int64: stamps of children's floods
    label: np.ndarray           #: int64: corral labels
    barmark: np.ndarray         #: int64: corral barrier marks
    frozen: np.ndarray          #: int64: freeze candidate marks
    queue: np.ndarray           #: int32
    stack: np.ndarray           #: int32
    bars: np.ndarray            #: int32[box]
    all_bars: np.ndarray        #: int32[box]
    counters: np.ndarray        #: int64[N_COUNTERS]: stamp counters
    cut: CutWork                #: the stranded-goal test's pull
    # -- the bound: the last matching computed (the *base*) --
    h_boxes: np.ndarray         #: int32[box]
    h_sides: np.ndarray         #: int64[box]: sides the player reaches, per box
    h_changed: np.ndarray       #: int32[box]: boxes whose row differs from the base
    h_free: np.ndarray          #: int32[box]: base rows to replace
    row_seen: np.ndarray        #: int64[box]: stamps of the base rows kept
    base_cost: np.ndarray       #: int64[box, box]: its cost matrix
    base_work: np.ndarray       #: int64[6, box + 1]: its duals and assignment
    base_cells: np.ndarray      #: int32[box]: the box cell of each row
    base_sides: np.ndarray      #: int64[box]: the side mask of each row
    base_row: np.ndarray        #: int32[cell]: row of a box cell (if base_mark is current)
    base_mark: np.ndarray       #: int64[cell]: stamp of the base's box cells
    base_info: np.ndarray       #: int64[3]: valid, stamp, total
    # -- the pattern bound --
    pat_box: np.ndarray         #: int64[box]: pattern index of each box
    pat_h1: np.ndarray          #: int64[box]: one-box value of each box
    pat_used: np.ndarray        #: int64[box]: box already in a chosen group
    pat_gain: np.ndarray        #: int64[group]: gain of a candidate group
    pat_members: np.ndarray     #: int64[group, 4]: its boxes (-1 pads)


@by_reference
class PatternBoundParams(NamedTuple):
    """The k-box pattern databases as the bound reads them (see :mod:`.bounds`)."""

    table: np.ndarray           #: uint8: the tables for k = 1 .. k, one after another
    offset: np.ndarray          #: int64[k + 2]: start of the j-box table at [j]
    k: int                      #: largest pattern size (0: no tables)
    binom: np.ndarray           #: int64[B + 1, k + 1]: binomials for ranking
    index: np.ndarray           #: int64[cell]: pattern index of a live cell, -1 if dead
    grouping: int               #: a grouping code of .vocabulary
    limit: int                  #: most k-subsets (k >= 3) looked up per state


class PerimeterTable(NamedTuple):
    """Positions known to reach the goal (:mod:`.perimeter`), as the goal
    test reads them: a position found there ends a search that finds
    solutions (its way to the goal is stored beside it)."""

    on: int                 #: 1: the goal test also accepts a stored position
    keys: np.ndarray        #: uint64[capacity, K]
    slots: np.ndarray       #: int32[power of two]: index + 1 of a stored key, 0 empty
    depth: np.ndarray       #: int32[capacity]: pushes from the position to the goal
    #: int64[N_PERIMETER_COUNTERS]: stored, next to expand, found, stamp,
    #: slot mask, floor, raised, generation
    counters: np.ndarray


#: Slot of ``PerimeterTable.counters`` holding the mask of the slots in use.
SLOT_MASK = 4
#: Slot of ``PerimeterTable.counters`` holding the *floor*: pushes that every
#: position the table does not hold needs at least (0 unless the table was
#: filled breadth-first, :func:`perimeter_lookup`).
FLOOR = 5
#: Slot of ``PerimeterTable.counters`` counting the bounds the floor raised
#: (:func:`pdbsearch.search.bidirectional`'s measure of what the perimeter is worth).
RAISED = 6
#: Slot of ``PerimeterTable.counters`` counting the rebuilds of the slots
#: twice (at the start and at the end of each): odd while one is under way,
#: when a lookup from another thread may miss a stored key (a sequence
#: lock, :func:`perimeter_lookup`).
GENERATION = 7
#: Length of ``PerimeterTable.counters``.
N_PERIMETER_COUNTERS = 8


def no_perimeter(key_words: int) -> PerimeterTable:
    """The placeholder of searches without a perimeter."""
    counters = np.zeros(N_PERIMETER_COUNTERS, np.int64)
    counters[SLOT_MASK] = 1
    return PerimeterTable(0, np.zeros((1, key_words), np.uint64), np.zeros(2, np.int32),
                          np.zeros(1, np.int32), counters)


@nb.njit(cache=True, inline="always")
def perimeter_slot(per, key):
    """The slot of ``key`` among the perimeter's slots in use (the first
    ``counters[SLOT_MASK] + 1``): it holds the key's index + 1, or 0 when
    the key is absent.  Empty is 0, not -1, so that the arrays can come
    zeroed from the OS and their pages are mapped only as they fill."""
    mask = per.counters[SLOT_MASK]
    s = np.int64(hash_key(key) & np.uint64(mask))
    while True:
        idx = per.slots[s]
        if idx == 0 or keys_equal(per.keys[idx - 1], key):
            return s
        s = (s + 1) & mask


@by_reference
class SokobanParams(NamedTuple):
    """What the Sokoban kernels need, as seen inside numba."""

    width: int
    metric: int                 #: a metric code of .vocabulary
    heuristic: int              #: a heuristic code of .vocabulary
    incremental: int            #: 1: update the last matching when few rows change
    freeze: int                 #: 1: prune freeze deadlocks
    corral: int                 #: 1: PI-corral rule
    tunnels: int                #: 1: tunnel rule
    macros: int                 #: 1: tunnel macros (pushes metric only)
    diagonal: int               #: 1: closed diagonal deadlocks
    n_boxes: int
    player_shift: int           #: bit of the player field in the last word
    #: pushes metric: the sum of the goals' row + column, mod 2 (every push
    #: changes a box's by one, so the pushes left have the parity of the
    #: boxes' sum minus this); -1 under moves, where no such parity holds
    pushes_parity: int
    inside: np.ndarray          #: uint8[cell]: 1 on region cells
    goal: np.ndarray            #: uint8[cell]
    dead: np.ndarray            #: uint8[cell]: dead squares, never pushed onto (0s when off)
    tunnel: np.ndarray          #: int8[cell]: tunnel axis (0s when tunnel rule and macros are off)
    box_bit: np.ndarray         #: int32[cell]: bit of the cell, -1 if none
    bit_cell: np.ndarray        #: int32[bit]
    player_index: np.ndarray    #: int32[cell]: index among region cells, -1 if none
    index_cell: np.ndarray      #: int32[index]
    box_mask: np.ndarray        #: uint64[K]: the box bits
    goal_mask: np.ndarray       #: uint64[K]: the bits of goal cells
    dist: np.ndarray            #: int32[goal, cell]: push distances (player teleporting)
    nearest: np.ndarray         #: int32[cell]: push distance to the nearest goal
    aware: int                  #: 1: use the player-aware tables below
    goal_cells: np.ndarray      #: int32[goal]
    side_comp: np.ndarray       #: int16[region index, cell]: parts of the region without a cell
    side_dist: np.ndarray       #: int32[goal, cell, side]: player-aware push distances
    deltas: np.ndarray          #: int64[4]: LURD offsets
    patterns: PatternBoundParams
    work: SokobanWork
    learning: int               #: 1: learn deadlock patterns while searching
    learned: NamedTuple         #: the learned patterns (:mod:`pdbsearch.pdb.learned`)
    learn: NamedTuple           #: the learning's scratch arrays (:mod:`.learning`)
    perimeter: PerimeterTable   #: positions known to reach the goal (off: a placeholder)


def work_arrays(n_grid: int, n_boxes: int, n_groups: int) -> SokobanWork:
    """Fresh scratch arrays for a level of ``n_grid`` cells and ``n_boxes``
    boxes, with room for ``n_groups`` candidate pattern groups."""
    per_cell = {"occ": np.uint8, "area": np.int64, "walk": np.int32, "seen": np.int64,
                "label": np.int64, "barmark": np.int64, "frozen": np.int64,
                "queue": np.int32, "stack": np.int32, "base_row": np.int32,
                "base_mark": np.int64}
    per_box = {"boxes": np.int32, "bars": np.int32, "all_bars": np.int32,
               "h_boxes": np.int32, "h_sides": np.int64, "h_changed": np.int32,
               "h_free": np.int32, "row_seen": np.int64, "base_cells": np.int32,
               "base_sides": np.int64, "pat_box": np.int64, "pat_h1": np.int64,
               "pat_used": np.int64}
    arrays = {name: np.zeros(n_grid, dtype) for name, dtype in per_cell.items()}
    arrays.update({name: np.zeros(n_boxes, dtype) for name, dtype in per_box.items()})
    arrays.update(counters=np.zeros(N_COUNTERS, np.int64), base_info=np.zeros(3, np.int64),
                  base_cost=np.zeros((n_boxes, n_boxes), np.int64),
                  base_work=np.zeros((6, n_boxes + 1), np.int64),
                  pat_gain=np.zeros(n_groups, np.int64),
                  pat_members=np.zeros((n_groups, 4), np.int64), cut=cut_work(n_grid))
    return SokobanWork(**arrays)


@nb.njit(cache=True, inline="always")
def decode_boxes(p, key, out):
    """Write the box cells of ``key`` into ``out``; returns how many."""
    # int64 from the start: a literal 0 here made numba compile non-inlined
    # callees taking ``n`` (pattern_bound) a second time, for Literal[int](0).
    n = np.int64(0)
    for w in range(key.shape[0]):
        word = key[w] & p.box_mask[w]
        while word != 0:
            out[n] = p.bit_cell[w * 64 + np.int64(trailing_zeros(word))]
            n += 1
            word &= word - _ONE
    return n


@nb.njit(cache=True, inline="always")
def player_of(p, key):
    """The player cell stored in ``key``."""
    last = key.shape[0] - 1
    return p.index_cell[np.int64(key[last] >> np.uint64(p.player_shift))]


@nb.njit(cache=True, inline="always")
def _flood_area(p, w, start, with_walk):
    """Stamp the cells the player reaches from ``start`` in ``w.area``
    (and their walking distances in ``w.walk``); returns the stamp."""
    w.counters[AREA] += 1
    tag = w.counters[AREA]
    area, occ, inside, q, walk = w.area, w.occ, p.inside, w.queue, w.walk
    area[start] = tag
    if with_walk:
        walk[start] = 0
    q[0] = start
    n = 1
    i = 0
    while i < n:
        c = q[i]
        i += 1
        for k in range(4):
            x = c + p.deltas[k]
            if inside[x] != 0 and occ[x] == 0 and area[x] != tag:
                area[x] = tag
                if with_walk:
                    walk[x] = walk[c] + 1
                q[n] = x
                n += 1
    return tag


@nb.njit(cache=True, inline="always")
def _smallest_reachable(p, w, start):
    """The smallest cell the player reaches from ``start`` (current ``w.occ``)."""
    w.counters[SEEN] += 1
    return flood_smallest(start, w.occ, p.inside, p.deltas, w.seen, w.counters[SEEN], w.stack)


@nb.njit(cache=True, inline="always")
def _set_bit(key, bit):
    key[bit >> 6] |= _ONE << np.uint64(bit & 63)


@nb.njit(cache=True, inline="always")
def _clear_bit(key, bit):
    key[bit >> 6] &= ~(_ONE << np.uint64(bit & 63))


@kernel_jit
def expand(p, key, out_keys, out_costs, out_moves):
    """The pushes the player can reach from ``key`` (see the module doc)."""
    w = p.work
    occ, boxes = w.occ, w.boxes
    n_boxes = decode_boxes(p, key, boxes)
    for i in range(n_boxes):
        occ[boxes[i]] = 1
    player = player_of(p, key)
    moves_metric = p.metric == MOVES
    tag = _flood_area(p, w, player, moves_metric)

    # Move pruning: at most one rule restricts the pushes (each alone keeps an
    # optimal push); their deadlock verdicts hold under any metric.
    only_box = -1
    only_step = 0
    only_lo = -1
    only_hi = -1
    verdict = NO_RULE
    if p.tunnels != 0:
        verdict, only_box, only_step = tunnel_restriction(
            boxes, n_boxes, occ, p.goal, p.dead, p.tunnel, p.width, w.area, tag)
        if verdict != RESTRICT or moves_metric:
            only_box = -1
    if verdict != DEADLOCK and only_box < 0 and p.corral != 0:
        verdict, only_lo, only_hi = corral_restriction(
            boxes, n_boxes, occ, p.inside, p.goal, p.dead, p.width, w.area, tag,
            w.label, w.counters, LABEL, w.barmark, w.queue, w.bars, w.all_bars)
        if verdict != RESTRICT or moves_metric:
            only_lo = -1
    n = 0
    if verdict != DEADLOCK:
        n = _pushes(p, w, key, n_boxes, tag, only_box, only_step, only_lo, only_hi,
                    out_keys, out_costs, out_moves)
    for i in range(n_boxes):
        occ[boxes[i]] = 0
    return n


@nb.njit(cache=True, inline="always")
def _pushes(p, w, key, n_boxes, tag, only_box, only_step, only_lo, only_hi,
            out_keys, out_costs, out_moves):
    """Write the allowed pushes (``w.occ`` holds the boxes, ``w.area`` the
    player's area stamped ``tag``): all of them, or only the push of
    ``only_box`` by ``only_step``, or only the pushes onto cells labelled
    ``only_lo..only_hi``; returns how many."""
    width = p.width
    occ, boxes, area = w.occ, w.boxes, w.area
    last = key.shape[0] - 1
    shift = np.uint64(p.player_shift)
    player_mask = ~((~np.uint64(0)) << shift)
    n = 0
    for i in range(n_boxes):
        b = boxes[i]
        if only_box >= 0 and b != only_box:
            continue
        for d in range(4):
            step = p.deltas[d]
            if only_box >= 0 and step != only_step:
                continue
            t = b + step
            if p.inside[t] == 0 or occ[t] != 0 or area[b - step] != tag:
                continue
            if only_lo >= 0 and not only_lo <= w.label[t] <= only_hi:
                continue
            if p.dead[t] != 0:
                continue
            occ[b] = 0
            occ[t] = 1
            ok = True
            count = 1
            if p.macros != 0:
                count = _tunnel_run(p, occ, t, step)
                ok = count > 0
                if count > 1:
                    occ[t] = 0
                    t = t + (count - 1) * step
                    occ[t] = 1
            if ok and p.freeze != 0 and may_freeze(t, occ, p.inside, p.dead, width):
                w.counters[FROZEN] += 1
                ok = not freeze_deadlock(t, occ, p.inside, p.goal, p.dead, width, w.frozen,
                                         w.counters[FROZEN], w.stack)
                if ok and w.frozen[t] == w.counters[FROZEN]:
                    # The box froze on its goal: the boxes that never move
                    # grew, which is when a goal gets cut off (the player,
                    # behind the box, decides which others still move).
                    boxes[i] = t
                    ok = not strands_goal(p, boxes, n_boxes, t - step)
                    boxes[i] = b
            if ok and p.diagonal != 0 and may_close_diagonal(t, t - step, occ, p.inside, width):
                ok = not closed_diagonal_deadlock(t, t - step, occ, p.inside, p.goal, width)
            if ok:
                if p.metric == MOVES:
                    new_player = b
                    out_costs[n] = w.walk[b - step] + 1
                else:
                    new_player = _smallest_reachable(p, w, t - step)
                    out_costs[n] = count
                row = out_keys[n]
                copy_key(row, key)
                _clear_bit(row, p.box_bit[b])
                _set_bit(row, p.box_bit[t])
                row[last] = (row[last] & player_mask) | (
                    np.uint64(p.player_index[new_player]) << shift)
                out_moves[n] = (count - 1) * MACRO_BASE + b * MOVE_BASE + d
                n += 1
            occ[t] = 0
            occ[b] = 1
    return n


@nb.njit(cache=True)
def strands_goal(p, boxes, n_boxes, player):
    """True when the boxes the player (on ``player``) can never push include
    one off its goal or cut an empty goal off from every other box
    (:func:`.deadlocks.stranded_goal_deadlock`; ``p.work.occ`` shows the
    boxes)."""
    w = p.work
    w.counters[FROZEN] += 1
    return stranded_goal_deadlock(boxes, n_boxes, player, w.occ, p.inside, p.goal, p.goal_cells,
                                  p.dead, p.deltas, w.frozen, w.counters[FROZEN], w.seen,
                                  w.counters, SEEN, w.queue, w.cut)


@nb.njit(cache=True, inline="always")
def _tunnel_run(p, occ, t, step):
    """Tunnel macro (pushes metric): the box just pushed onto ``t`` by
    ``step`` is pushed on while it stands off goal on a one-way tunnel cell
    of that axis (see :func:`.deadlocks.tunnel_restriction`: from such a
    position the forward push alone keeps an optimal solution, so the
    positions in between can be skipped).  Returns how many pushes the
    whole move makes, or 0 when the box gets stuck in the tunnel (a box or
    a dead square ahead: a deadlock).  ``occ`` is left as it was."""
    axis = 1 if step == 1 or step == -1 else 2
    count = 1
    c = t
    while p.tunnel[c] == axis and p.goal[c] == 0:
        x = c + step
        if occ[x] != 0 or p.dead[x] != 0:
            return 0
        c = x
        count += 1
    return count


@nb.njit(cache=True, inline="always")
def set_player(p, row, cell):
    """Write the player cell ``cell`` into the key ``row``."""
    last = row.shape[0] - 1
    shift = np.uint64(p.player_shift)
    mask = ~((~np.uint64(0)) << shift)
    row[last] = (row[last] & mask) | (np.uint64(p.player_index[cell]) << shift)


@nb.njit(cache=True, inline="always")
def flip_bit(row, bit):
    """Toggle key bit ``bit`` of ``row`` (a box arrives or leaves)."""
    row[bit >> 6] ^= np.uint64(1) << np.uint64(bit & 63)


@nb.njit(cache=True, inline="always")
def perimeter_index(per, key):
    """The stored index of ``key`` in the perimeter, -1 if absent."""
    return per.slots[perimeter_slot(per, key)] - 1


@nb.njit(cache=True, inline="always")
def perimeter_depth(p, key):
    """The pushes from ``key`` to the goal along the perimeter's stored way
    when it holds ``key`` (:mod:`.perimeter`), else -1."""
    per = p.perimeter
    if per.on == 0:
        return -1
    i = perimeter_index(per, key)
    return per.depth[i] if i >= 0 else -1


@nb.njit(cache=True, inline="always")
def perimeter_lookup(p, key):
    r"""``(depth, floor)``: the pushes from ``key`` to the goal along the
    perimeter's stored way when it holds ``key`` (else -1), and the
    *floor*, pushes that a position it does not hold needs at least: with
    its breadth-first layers complete to depth ``D``, ``D + 1`` (0 when
    off, or when it was not filled breadth-first).

    The backward search may fill the table in another thread (beside A\*
    on two cores).  So the floor is read before the lookup (every position
    nearer than the floor read was stored before it was published), and a
    miss proves nothing when the slots were being rebuilt meanwhile (the
    generation count odd, or changed): the floor is then 0."""
    per = p.perimeter
    if per.on == 0:
        return -1, 0
    floor = per.counters[FLOOR]
    generation = per.counters[GENERATION]
    acquire_fence()
    i = perimeter_index(per, key)
    if i >= 0:
        return per.depth[i], floor
    acquire_fence()
    if (generation & 1) != 0 or per.counters[GENERATION] != generation:
        return -1, 0
    return -1, floor


@nb.njit(cache=True, inline="always")
def in_perimeter(p, key):
    """True when the perimeter is on and holds ``key``."""
    return perimeter_depth(p, key) >= 0


@kernel_jit
def is_goal(p, key):
    """True when every box stands on a goal, or (searches that find
    solutions, :mod:`.perimeter`) the position is known to reach it."""
    for w in range(key.shape[0]):
        if (key[w] & p.box_mask[w]) != p.goal_mask[w]:
            return in_perimeter(p, key)
    return True
