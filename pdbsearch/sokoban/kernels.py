"""Jitted Sokoban kernels: push-level successors, goal test, lower bounds.

**The key** (:class:`~.tables.KeyLayout`): one bit per box cell, and the
player's index among the region cells in the top bits of the last word.
Under the **pushes** metric the player is *normalised*: it is the smallest
cell the player can reach, so all positions that differ only by where the
player walks share a key.  Under the **moves** metric walking costs, and two
positions with the same boxes but the player elsewhere in the same area are
not equivalent; the key then keeps the exact cell where the player stands
(after a push: the cell the box left).

**A successor** is one push the player can reach: move code
``box_cell * 4 + direction`` (LURD order), cost 1 (pushes) or walk + 1
(moves, the walk being a shortest one).  The deadlock rules of
:mod:`.deadlocks` are applied here, where the pushed box is known.

The kernels keep their work arrays in the params tuple (one search runs in
one thread), so that nothing is allocated per node.
"""

from __future__ import annotations

from typing import NamedTuple

import numba as nb
import numpy as np
from numba.cpython.unsafe.numbers import trailing_zeros

from ..puzzle import DEAD, copy_key, register_kernels
from .deadlocks import (DEADLOCK, RESTRICT, corral_restriction, freeze_deadlock,
                        may_freeze, tunnel_restriction)
from .matching import min_cost_matching, rematch_row
from .tables import UNREACHABLE, flood_smallest

METRIC_CODES = {"pushes": 0, "moves": 1}
HEURISTIC_CODES = {"zero": 0, "simple": 1, "matching": 2, "pdb": 3}
#: How the pattern bound groups the boxes: greedy by gain, or fixed runs.
GROUPING_CODES = {"greedy": 0, "static": 1}
#: Move code of a push: ``box_cell * MOVE_BASE + direction`` (LURD order).
MOVE_BASE = 4

_ONE = np.uint64(1)


class SokobanParams(NamedTuple):
    """What the Sokoban kernels need, as seen inside numba."""

    width: int
    metric: int                 #: METRIC_CODES
    heuristic: int              #: HEURISTIC_CODES
    incremental: int            #: 1: update the last matching when few rows change
    freeze: int                 #: 1: prune freeze deadlocks
    corral: int                 #: 1: PI-corral rule
    tunnels: int                #: 1: tunnel rule
    n_boxes: int
    player_shift: int           #: bit of the player field in the last word
    inside: np.ndarray          #: uint8[cell]: 1 on region cells
    goal: np.ndarray            #: uint8[cell]
    dead: np.ndarray            #: uint8[cell]: dead squares, never pushed onto (0s when off)
    tunnel: np.ndarray          #: int8[cell]: tunnel axis (0s when the rule is off)
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
    # -- the k-box pattern databases (heuristic "pdb"; see .patterns) --
    pdb: np.ndarray             #: uint8: the tables for k = 1 .. pdb_k, one after another
    pdb_offset: np.ndarray      #: int64[pdb_k + 2]: start of the k-box table at [k]
    pdb_k: int                  #: largest pattern size (0: no tables)
    pdb_binom: np.ndarray       #: int64[B + 1, pdb_k + 1]: binomials for ranking
    pdb_index: np.ndarray       #: int64[cell]: pattern index of a live cell, -1 if dead
    pdb_grouping: int           #: GROUPING_CODES
    pdb_limit: int              #: most k-subsets (k >= 3) looked up per state
    pdb_box: np.ndarray         #: int64[box]: work: pattern index of each box
    pdb_h1: np.ndarray          #: int64[box]: work: one-box value of each box
    pdb_used: np.ndarray        #: int64[box]: work: box already in a chosen group
    pdb_gain: np.ndarray        #: int64[group]: work: gain of a candidate group
    pdb_members: np.ndarray     #: int64[group, 4]: work: its boxes (-1 pads)
    # -- work arrays (expand) --
    occ: np.ndarray             #: uint8[cell]
    boxes: np.ndarray           #: int32[box]
    area: np.ndarray            #: int64[cell]: stamp of the player's area
    walk: np.ndarray            #: int32[cell]: walking distance (moves metric)
    seen: np.ndarray            #: int64[cell]: stamps of children's floods
    label: np.ndarray           #: int64[cell]: corral labels
    barmark: np.ndarray         #: int64[cell]: corral barrier marks
    frozen: np.ndarray          #: int64[cell]: freeze candidate marks
    queue: np.ndarray           #: int32[cell]
    stack: np.ndarray           #: int32[cell]
    bars: np.ndarray            #: int32[box]
    all_bars: np.ndarray        #: int32[box]
    counters: np.ndarray        #: int64[6]: stamp counters
    # -- work arrays (heuristic): the last matching computed (the *base*) --
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


# Slots of ``counters``.
_AREA, _SEEN, _LABEL, _FROZEN, _BASE, _ROWS = 0, 1, 2, 3, 4, 5
#: Cost of an impossible box-goal pair in the matching (more than any sum of
#: real distances, so an optimum that uses one proves a bipartite deadlock).
_IMPOSSIBLE = np.int64(1) << 40
#: Up to this many triples and quadruples, the pattern bound looks them all up.
_EXHAUSTIVE_GROUPS = 64


@nb.njit(cache=True, inline="always")
def decode_boxes(p, key, out):
    """Write the box cells of ``key`` into ``out``; returns how many."""
    n = 0
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
def _flood_area(p, start, with_walk):
    """Stamp the cells the player reaches from ``start`` in ``p.area``
    (and their walking distances in ``p.walk``); returns the stamp."""
    p.counters[_AREA] += 1
    tag = p.counters[_AREA]
    area, occ, inside, q = p.area, p.occ, p.inside, p.queue
    area[start] = tag
    if with_walk:
        p.walk[start] = 0
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
                    p.walk[x] = p.walk[c] + 1
                q[n] = x
                n += 1
    return tag


@nb.njit(cache=True, inline="always")
def _smallest_reachable(p, start):
    """The smallest cell the player reaches from ``start`` (current ``p.occ``)."""
    p.counters[_SEEN] += 1
    return flood_smallest(start, p.occ, p.inside, p.deltas, p.seen, p.counters[_SEEN], p.stack)


@nb.njit(cache=True, inline="always")
def _set_bit(key, bit):
    key[bit >> 6] |= _ONE << np.uint64(bit & 63)


@nb.njit(cache=True, inline="always")
def _clear_bit(key, bit):
    key[bit >> 6] &= ~(_ONE << np.uint64(bit & 63))


@nb.njit(cache=True)
def expand(p, key, out_keys, out_costs, out_moves):
    """The pushes the player can reach from ``key`` (see the module doc)."""
    width = p.width
    occ = p.occ
    boxes = p.boxes
    n_boxes = decode_boxes(p, key, boxes)
    for i in range(n_boxes):
        occ[boxes[i]] = 1
    player = player_of(p, key)
    moves_metric = p.metric == 1
    tag = _flood_area(p, player, moves_metric)

    # Move pruning: at most one rule restricts the pushes (each alone keeps an
    # optimal push); their deadlock verdicts hold under any metric.
    only_box = -1
    only_step = 0
    only_lo = -1
    only_hi = -1
    verdict = 0  # NO_RULE
    if p.tunnels != 0:
        verdict, only_box, only_step = tunnel_restriction(
            boxes, n_boxes, occ, p.goal, p.dead, p.tunnel, width, p.area, tag)
        if verdict != RESTRICT or moves_metric:
            only_box = -1
    if verdict != DEADLOCK and only_box < 0 and p.corral != 0:
        verdict, only_lo, only_hi = corral_restriction(
            boxes, n_boxes, occ, p.inside, p.goal, p.dead, width, p.area, tag,
            p.label, p.counters, _LABEL, p.barmark, p.queue, p.bars,
            p.all_bars)
        if verdict != RESTRICT or moves_metric:
            only_lo = -1
    n = 0
    if verdict != DEADLOCK:
        n = _pushes(p, key, n_boxes, tag, only_box, only_step, only_lo, only_hi,
                    out_keys, out_costs, out_moves)
    for i in range(n_boxes):
        occ[boxes[i]] = 0
    return n


@nb.njit(cache=True, inline="always")
def _pushes(p, key, n_boxes, tag, only_box, only_step, only_lo, only_hi,
            out_keys, out_costs, out_moves):
    """Write the allowed pushes (``p.occ`` holds the boxes, ``p.area`` the
    player's area stamped ``tag``): all of them, or only the push of
    ``only_box`` by ``only_step``, or only the pushes onto cells labelled
    ``only_lo..only_hi``; returns how many."""
    width = p.width
    occ, boxes, area = p.occ, p.boxes, p.area
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
            if only_lo >= 0 and not only_lo <= p.label[t] <= only_hi:
                continue
            if p.dead[t] != 0:
                continue
            occ[b] = 0
            occ[t] = 1
            ok = True
            if p.freeze != 0 and may_freeze(t, occ, p.inside, p.dead, width):
                p.counters[_FROZEN] += 1
                ok = not freeze_deadlock(t, occ, p.inside, p.goal, p.dead, width, p.frozen,
                                         p.counters[_FROZEN], p.stack)
            if ok:
                if p.metric == 1:
                    new_player = b
                    out_costs[n] = p.walk[b - step] + 1
                else:
                    new_player = _smallest_reachable(p, b)
                    out_costs[n] = 1
                row = out_keys[n]
                copy_key(row, key)
                _clear_bit(row, p.box_bit[b])
                _set_bit(row, p.box_bit[t])
                row[last] = (row[last] & player_mask) | (
                    np.uint64(p.player_index[new_player]) << shift)
                out_moves[n] = b * 4 + d
                n += 1
            occ[t] = 0
            occ[b] = 1
    return n


@nb.njit(cache=True, inline="always")
def _reachable_sides(p, box, player):
    """Bit ``k`` set if the player can get next to ``box`` on side ``k``
    when the other boxes are ignored (all four without side tables)."""
    if p.aware == 0:
        return 15
    row = p.side_comp[p.player_index[box]]
    part = row[player]
    mask = 0
    for k in range(4):
        x = box + p.deltas[k]
        if p.inside[x] != 0 and row[x] == part:
            mask |= 1 << k
    return mask


@nb.njit(cache=True, inline="always")
def _box_distance(p, g, box, sides):
    """Pushes a lone box at ``box`` needs to goal ``g`` with the player on
    one of the ``sides`` (UNREACHABLE if it cannot get there)."""
    if p.aware == 0:
        return p.dist[g, box]
    if box == p.goal_cells[g]:
        return 0
    best = UNREACHABLE
    for k in range(4):
        if sides & (1 << k):
            d = p.side_dist[g, box, k]
            if d < best:
                best = d
    return best


@nb.njit(cache=True, inline="always")
def _fill_row(p, cost, i, box, sides, n):
    """Row ``i`` of a box-goal cost matrix; returns the box's nearest goal
    distance (UNREACHABLE: the box can reach no goal)."""
    nearest = UNREACHABLE
    for g in range(n):
        d = _box_distance(p, g, box, sides)
        cost[i, g] = d if d < UNREACHABLE else _IMPOSSIBLE
        if d < nearest:
            nearest = d
    return nearest


@nb.njit(cache=True, inline="always")
def _set_base_row(p, r, b, sides, tag, n):
    """Make row ``r`` of the base matching the box on ``b`` (reachable
    sides ``sides``): record it and fill its costs."""
    p.base_cells[r] = b
    p.base_sides[r] = sides
    p.base_row[b] = r
    p.base_mark[b] = tag
    _fill_row(p, p.base_cost, r, b, sides, n)


@nb.njit(cache=True, inline="always")
def _full_matching(p, boxes, n):
    """Build the cost matrix of a position from scratch and match it; it
    becomes the base."""
    p.counters[_BASE] += 1
    tag = p.counters[_BASE]
    for i in range(n):
        _set_base_row(p, i, boxes[i], p.h_sides[i], tag, n)
    p.base_info[0] = p.incremental
    p.base_info[1] = tag
    p.base_info[2] = min_cost_matching(p.base_cost, n, p.base_work)
    return p.base_info[2]


@nb.njit(cache=True, inline="always")
def _updated_matching(p, boxes, n):
    """The matching of a position from the base, when few rows differ:
    rows of boxes on the same cell with the same side mask are equal, and
    each other row is replaced in turn and rematched in O(n²).  The result
    becomes the base.  Returns -1 (nothing changed) when too many differ."""
    if p.base_info[0] == 0:
        return -1
    tag = p.base_info[1]
    p.counters[_ROWS] += 1
    seen = p.counters[_ROWS]
    most = max(2, n // 4)   # beyond this, rebuilding is cheaper
    k = 0
    for i in range(n):
        c = boxes[i]
        if p.base_mark[c] == tag and p.base_sides[p.base_row[c]] == p.h_sides[i]:
            p.row_seen[p.base_row[c]] = seen
        else:
            if k == most:
                return -1
            p.h_changed[k] = i
            k += 1
    if k == 0:
        return p.base_info[2]
    m = 0
    for r in range(n):
        if p.row_seen[r] != seen:
            p.h_free[m] = r
            p.base_mark[p.base_cells[r]] = 0
            m += 1
    total = p.base_info[2]
    for t in range(k):
        r = p.h_free[t]
        i = p.h_changed[t]
        _set_base_row(p, r, boxes[i], p.h_sides[i], tag, n)
        total = rematch_row(p.base_cost, n, r, p.base_work)
    p.base_info[2] = total
    return total


@nb.njit(cache=True, inline="always")
def _pattern_value(p, size, r, pi):
    """The ``size``-box table entry of the set of rank ``r``, player index ``pi``."""
    n_sets = p.pdb_binom[p.pdb_binom.shape[0] - 1, size]
    return np.int64(p.pdb[p.pdb_offset[size] + pi * n_sets + r])


@nb.njit(cache=True, inline="always")
def _add_group(p, m, gain, a, b, c, d):
    """Record a candidate group (boxes a, b, c, d; -1 pads) with its gain."""
    p.pdb_gain[m] = gain
    p.pdb_members[m, 0] = a
    p.pdb_members[m, 1] = b
    p.pdb_members[m, 2] = c
    p.pdb_members[m, 3] = d
    return m + 1


@nb.njit(cache=True, inline="always")
def _insert_member(p, q, size, o):
    """Insert box ``o`` into group ``q`` of ``size`` sorted members."""
    t = size
    while t > 0 and p.pdb_members[q, t - 1] > o:
        p.pdb_members[q, t] = p.pdb_members[q, t - 1]
        t -= 1
    p.pdb_members[q, t] = o


@nb.njit(cache=True, inline="always")
def _pattern_bound(p, boxes, n, player):
    """The additive pattern bound: the sum of the k-box table values of
    disjoint groups of boxes (each push moves one box, so the groups'
    pushes add up), or DEAD when some group cannot reach the goals.

    ``boxes`` are in increasing cell order, so their pattern indices are
    sorted.  Greedy grouping starts from every box alone (the one-box
    values) and takes the disjoint groups of largest *gain* (a group's
    value minus its boxes' one-box values) one after another.  With few
    boxes (at most _EXHAUSTIVE_GROUPS triples and quadruples) every group
    is a candidate.  Otherwise it takes pairs first, then grows each chosen
    pair by the free box that gains most (to pdb_k boxes), and merges two
    chosen pairs into a 4-box group when that gains more than both: the
    pairs cost C(n, 2) lookups in a small table, the rest at most
    ``pdb_limit``.  Static grouping takes runs of ``pdb_k`` consecutive
    boxes.
    """
    pi = p.player_index[player]
    binom = p.pdb_binom
    idx, h1 = p.pdb_box, p.pdb_h1
    total = 0
    for i in range(n):
        c = p.pdb_index[boxes[i]]
        if c < 0:
            return DEAD
        idx[i] = c
        v = _pattern_value(p, 1, c, pi)
        if v == 255:
            return DEAD
        h1[i] = v
        total += v
    kmax = min(p.pdb_k, n)
    if kmax < 2:
        return total
    if p.pdb_grouping == 1:
        total = 0
        i = 0
        while i < n:
            size = min(kmax, n - i)
            r = 0
            for t in range(size):
                r += binom[idx[i + t], t + 1]
            v = _pattern_value(p, size, r, pi)
            if v == 255:
                return DEAD
            total += v
            i += size
        return total
    m = 0
    for i in range(n):
        ri = binom[idx[i], 1]
        for j in range(i + 1, n):
            v = _pattern_value(p, 2, ri + binom[idx[j], 2], pi)
            if v == 255:
                return DEAD
            g = v - h1[i] - h1[j]
            if g > 0:
                m = _add_group(p, m, g, i, j, -1, -1)
    used = p.pdb_used
    for i in range(n):
        used[i] = 0
    n3 = n * (n - 1) * (n - 2) // 6 if kmax >= 3 else 0
    n4 = n3 * (n - 3) // 4 if kmax >= 4 else 0
    if n3 + n4 <= _EXHAUSTIVE_GROUPS:
        # Few boxes: every triple and quadruple is a candidate too.
        for i in range(n3 and n):
            ri = binom[idx[i], 1]
            for j in range(i + 1, n):
                rj = ri + binom[idx[j], 2]
                for l in range(j + 1, n):
                    rl = rj + binom[idx[l], 3]
                    v = _pattern_value(p, 3, rl, pi)
                    if v == 255:
                        return DEAD
                    g = v - h1[i] - h1[j] - h1[l]
                    if g > 0:
                        m = _add_group(p, m, g, i, j, l, -1)
                    for o in range(l + 1, n if n4 else 0):
                        v = _pattern_value(p, 4, rl + binom[idx[o], 4], pi)
                        if v == 255:
                            return DEAD
                        g = v - h1[i] - h1[j] - h1[l] - h1[o]
                        if g > 0:
                            m = _add_group(p, m, g, i, j, l, o)
        while True:
            best = 0
            pick = -1
            for q in range(m):
                g = p.pdb_gain[q]
                if g <= best:
                    continue
                free = True
                for t in range(4):
                    b = p.pdb_members[q, t]
                    if b >= 0 and used[b] != 0:
                        free = False
                if free:
                    best = g
                    pick = q
            if pick < 0:
                return total
            for t in range(4):
                b = p.pdb_members[pick, t]
                if b >= 0:
                    used[b] = 1
            total += best
    # Greedy pairing: the disjoint pairs of largest gain.
    chosen = m
    while True:
        best = 0
        pick = -1
        for q in range(m):
            g = p.pdb_gain[q]
            if g > best and used[p.pdb_members[q, 0]] == 0 and used[p.pdb_members[q, 1]] == 0:
                best = g
                pick = q
        if pick < 0:
            break
        used[p.pdb_members[pick, 0]] = 1
        used[p.pdb_members[pick, 1]] = 1
        _add_group(p, chosen, best, p.pdb_members[pick, 0], p.pdb_members[pick, 1], -1, -1)
        chosen += 1
        total += best
    # Then each chosen group grows by the free box that gains most (boxes
    # that interact with a pair often interact with a third), up to pdb_k
    # boxes, and (4-box tables) two chosen pairs merge when that gains more
    # than both: a few lookups per group instead of every triple.
    looked = 0
    for size in range(3, kmax + 1):
        for q in range(m, chosen):
            if p.pdb_members[q, size - 2] < 0 or (size - 1 < 4 and p.pdb_members[q, size - 1] >= 0):
                continue  # not a group of size - 1
            base = 0
            for u in range(size - 1):
                base += h1[p.pdb_members[q, u]]
            best = p.pdb_gain[q]
            pick = -1
            for o in range(n):
                if used[o] != 0 or looked >= p.pdb_limit:
                    continue
                looked += 1
                r = 0
                t = 0
                placed = False
                for u in range(size - 1):
                    b = p.pdb_members[q, u]
                    if not placed and o < b:
                        r += binom[idx[o], t + 1]
                        t += 1
                        placed = True
                    r += binom[idx[b], t + 1]
                    t += 1
                if not placed:
                    r += binom[idx[o], t + 1]
                v = _pattern_value(p, size, r, pi)
                if v == 255:
                    return DEAD
                g = v - base - h1[o]
                if g > best:
                    best = g
                    pick = o
            if pick >= 0:
                used[pick] = 1
                total += best - p.pdb_gain[q]
                p.pdb_gain[q] = best
                _insert_member(p, q, size - 1, pick)
    if kmax >= 4:
        for a in range(m, chosen):
            if p.pdb_members[a, 1] < 0 or p.pdb_members[a, 2] >= 0:
                continue
            for b in range(a + 1, chosen):
                if p.pdb_members[b, 1] < 0 or p.pdb_members[b, 2] >= 0:
                    continue
                if p.pdb_members[a, 1] < 0 or p.pdb_members[a, 2] >= 0:
                    break  # a has merged
                if looked >= p.pdb_limit:
                    break
                looked += 1
                _insert_member(p, a, 2, p.pdb_members[b, 0])
                _insert_member(p, a, 3, p.pdb_members[b, 1])
                r = 0
                for u in range(4):
                    r += binom[idx[p.pdb_members[a, u]], u + 1]
                v = _pattern_value(p, 4, r, pi)
                if v == 255:
                    return DEAD
                g = v
                for u in range(4):
                    g -= h1[p.pdb_members[a, u]]
                if g > p.pdb_gain[a] + p.pdb_gain[b]:
                    total += g - p.pdb_gain[a] - p.pdb_gain[b]
                    p.pdb_gain[a] = g
                    p.pdb_gain[b] = 0
                    p.pdb_members[b, 1] = -1   # b is gone
                else:
                    # undo: a keeps its own two boxes
                    x0 = p.pdb_members[b, 0]
                    x1 = p.pdb_members[b, 1]
                    t = 0
                    for u in range(4):
                        c = p.pdb_members[a, u]
                        if c != x0 and c != x1:
                            p.pdb_members[a, t] = c
                            t += 1
                    p.pdb_members[a, 2] = -1
                    p.pdb_members[a, 3] = -1
    return total


@nb.njit(cache=True, inline="always")
def _walk_to_push(p, boxes, n, player):
    """Moves metric: the fewest steps the player needs before its next push
    (a breadth-first walk to the nearest cell from which a box can be
    pushed onto a free, live cell; 0 when it stands at one, as it often does
    right after a push)."""
    occ, inside, q, seen = p.occ, p.inside, p.queue, p.seen
    for i in range(n):
        occ[boxes[i]] = 1
    p.counters[_SEEN] += 1
    tag = p.counters[_SEEN]
    seen[player] = tag
    p.walk[player] = 0
    q[0] = player
    head, tail = 0, 1
    found = -1
    while head < tail and found < 0:
        c = q[head]
        head += 1
        for k in range(4):
            x = c + p.deltas[k]
            if occ[x] != 0:
                t = x + p.deltas[k]
                if inside[t] != 0 and occ[t] == 0 and p.dead[t] == 0:
                    found = p.walk[c]
                    break
            elif inside[x] != 0 and seen[x] != tag:
                seen[x] = tag
                p.walk[x] = p.walk[c] + 1
                q[tail] = x
                tail += 1
    for i in range(n):
        occ[boxes[i]] = 0
    return found if found > 0 else 0


@nb.njit(cache=True)
def heuristic(p, key):
    """A lower bound on the cost left (admissible for both metrics), or
    DEAD: a box that cannot reach any goal, no perfect box-goal matching,
    or (``pdb``) a group of boxes that the pattern tables call dead.

    Each box-goal distance is the lone box's push distance with the player
    starting where it is (player-aware tables) -- other boxes removed, which
    only makes pushing easier.  ``simple`` sums each box's nearest goal;
    ``matching`` takes the cheapest one-to-one assignment.  The bounds the
    engines ask for in a row are mostly of siblings, which differ in one or
    two boxes, so the last matching is kept and updated in O(n²) per
    changed row (a row is unchanged when its box has the same cell and the
    same reachable sides) instead of being rebuilt in O(n³).  ``pdb`` takes
    the larger of the matching and the additive pattern bound
    (:func:`_pattern_bound`).  Under the moves metric the bound in pushes
    is still a bound, and the walk to the next push is added.
    """
    if p.heuristic == 0:
        return 0
    boxes = p.h_boxes
    n = decode_boxes(p, key, boxes)
    player = player_of(p, key)
    simple = 0
    for i in range(n):
        b = boxes[i]
        if p.nearest[b] >= UNREACHABLE:
            return DEAD
        sides = _reachable_sides(p, b, player)
        p.h_sides[i] = sides
        if p.heuristic == 1:
            nearest = UNREACHABLE
            for g in range(n):
                d = _box_distance(p, g, b, sides)
                if d < nearest:
                    nearest = d
            if nearest >= UNREACHABLE:
                return DEAD
            simple += nearest
    if p.heuristic == 1:
        total = simple
    else:
        pattern = 0
        if p.heuristic == 3:
            # first: a dead pattern spares the matching
            pattern = _pattern_bound(p, boxes, n, player)
            if pattern >= DEAD:
                return DEAD
        total = _updated_matching(p, boxes, n)
        if total < 0:
            total = _full_matching(p, boxes, n)
        if total >= _IMPOSSIBLE:
            return DEAD
        if pattern > total:
            total = pattern
    if p.metric == 1 and total > 0:
        # Every push costs its walk + 1 and the pushes left are >= total,
        # so the walk to the next push can be added.
        total += _walk_to_push(p, boxes, n, player)
    return total


@nb.njit(cache=True)
def is_goal(p, key):
    """True when every box stands on a goal."""
    for w in range(key.shape[0]):
        if (key[w] & p.box_mask[w]) != p.goal_mask[w]:
            return False
    return True


register_kernels(SokobanParams, expand=expand, heuristic=heuristic, is_goal=is_goal)
