"""Jitted Sokoban lower bounds: nearest goals, the minimum-cost matching and
the additive k-box pattern databases.

Every bound here is admissible for both metrics.  Each box-goal distance is
the lone box's push distance with the player starting where it is
(player-aware tables): other boxes removed, which only makes pushing
easier.  ``simple`` sums each box's nearest goal; ``matching`` takes the
cheapest one-to-one assignment; ``pdb`` the larger of the matching and the
pattern bound (:func:`pattern_bound`).  Under the moves metric the bound in
pushes is still a bound, and the walk to the next push is added.  Under
pushes, each bound is raised to the parity that every solution's pushes
left have (:func:`_to_pushes_parity`).
"""

from __future__ import annotations

import numba as nb
import numpy as np

from ..pdb.builder import UNREACHABLE as NO_ENTRY
from ..puzzle import DEAD, kernel_jit
from .kernels import (BASE, RAISED, ROWS, SEEN, decode_boxes, perimeter_lookup,
                      player_of)
from .learning import is_learned_dead
from .matching import min_cost_matching, rematch_row
from .tables import UNREACHABLE
from .vocabulary import MOVES, PDB, SIMPLE, STATIC, ZERO

#: Cost of an impossible box-goal pair in the matching (more than any sum of
#: real distances, so an optimum that uses one proves a bipartite deadlock).
IMPOSSIBLE = np.int64(1) << 40
#: Up to this many triples and quadruples, the pattern bound looks them all up.
EXHAUSTIVE_GROUPS = 64


# -- box-goal distances ---------------------------------------------------------


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


# -- the matching, kept up to date between siblings -------------------------------


@nb.njit(cache=True, inline="always")
def _fill_row(p, cost, i, box, sides, n):
    """Row ``i`` of a box-goal cost matrix; returns the box's nearest goal
    distance (UNREACHABLE: the box can reach no goal)."""
    nearest = UNREACHABLE
    for g in range(n):
        d = _box_distance(p, g, box, sides)
        cost[i, g] = d if d < UNREACHABLE else IMPOSSIBLE
        if d < nearest:
            nearest = d
    return nearest


@nb.njit(cache=True, inline="always")
def _set_base_row(p, r, b, sides, tag, n):
    """Make row ``r`` of the base matching the box on ``b`` (reachable
    sides ``sides``): record it and fill its costs."""
    w = p.work
    w.base_cells[r] = b
    w.base_sides[r] = sides
    w.base_row[b] = r
    w.base_mark[b] = tag
    _fill_row(p, w.base_cost, r, b, sides, n)


@nb.njit(cache=True, inline="always")
def _full_matching(p, boxes, n):
    """Build the cost matrix of a position from scratch and match it; it
    becomes the base."""
    w = p.work
    w.counters[BASE] += 1
    tag = w.counters[BASE]
    for i in range(n):
        _set_base_row(p, i, boxes[i], w.h_sides[i], tag, n)
    w.base_info[0] = p.incremental
    w.base_info[1] = tag
    w.base_info[2] = min_cost_matching(w.base_cost, n, w.base_work)
    return w.base_info[2]


@nb.njit(cache=True, inline="always")
def _updated_matching(p, boxes, n):
    """The matching of a position from the base, when few rows differ:
    rows of boxes on the same cell with the same side mask are equal, and
    each other row is replaced in turn and rematched in O(n²).  The result
    becomes the base.  Returns -1 (nothing changed) when too many differ."""
    w = p.work
    if w.base_info[0] == 0:
        return -1
    tag = w.base_info[1]
    w.counters[ROWS] += 1
    seen = w.counters[ROWS]
    most = max(2, n // 4)   # beyond this, rebuilding is cheaper
    k = 0
    for i in range(n):
        c = boxes[i]
        if w.base_mark[c] == tag and w.base_sides[w.base_row[c]] == w.h_sides[i]:
            w.row_seen[w.base_row[c]] = seen
        else:
            if k == most:
                return -1
            w.h_changed[k] = i
            k += 1
    if k == 0:
        return w.base_info[2]
    m = 0
    for r in range(n):
        if w.row_seen[r] != seen:
            w.h_free[m] = r
            w.base_mark[w.base_cells[r]] = 0
            m += 1
    total = w.base_info[2]
    for t in range(k):
        r = w.h_free[t]
        i = w.h_changed[t]
        _set_base_row(p, r, boxes[i], w.h_sides[i], tag, n)
        total = rematch_row(w.base_cost, n, r, w.base_work)
    w.base_info[2] = total
    return total


@nb.njit(cache=True, inline="always")
def matching_bound(p, boxes, n):
    """The minimum-cost matching of the boxes (``work.h_sides`` filled) to
    the goals, or DEAD when no perfect matching exists."""
    total = _updated_matching(p, boxes, n)
    if total < 0:
        total = _full_matching(p, boxes, n)
    if total >= IMPOSSIBLE:
        return DEAD
    return total


# -- the additive pattern bound ----------------------------------------------------
#
# A *group* is up to 4 boxes (indices into the state's sorted box list, -1
# pads) with its *gain*: its table value minus the one-box values of its
# boxes.  The bound is the sum of the one-box values plus the gains of
# disjoint groups.  Every helper returns DEAD as soon as a table entry says a
# group of boxes cannot reach the goals.


@nb.njit(cache=True, inline="always")
def _pattern_value(pt, size, r, pi):
    """The ``size``-box table entry of the set of rank ``r``, player index ``pi``."""
    n_sets = pt.binom[pt.binom.shape[0] - 1, size]
    return np.int64(pt.table[pt.offset[size] + pi * n_sets + r])


@nb.njit(cache=True, inline="always")
def _add_group(w, m, gain, a, b, c, d):
    """Record candidate group ``m`` (boxes a, b, c, d; -1 pads) with its gain."""
    w.pat_gain[m] = gain
    w.pat_members[m, 0] = a
    w.pat_members[m, 1] = b
    w.pat_members[m, 2] = c
    w.pat_members[m, 3] = d
    return m + 1


@nb.njit(cache=True, inline="always")
def _insert_member(w, q, size, o):
    """Insert box ``o`` into group ``q`` of ``size`` sorted members."""
    t = size
    while t > 0 and w.pat_members[q, t - 1] > o:
        w.pat_members[q, t] = w.pat_members[q, t - 1]
        t -= 1
    w.pat_members[q, t] = o


@nb.njit(cache=True, inline="always")
def _one_box_values(p, boxes, n, pi):
    """Fill each box's pattern index and one-box value; returns their sum."""
    pt, w = p.patterns, p.work
    total = 0
    for i in range(n):
        c = pt.index[boxes[i]]
        if c < 0:
            return DEAD
        w.pat_box[i] = c
        v = _pattern_value(pt, 1, c, pi)
        if v == NO_ENTRY:
            return DEAD
        w.pat_h1[i] = v
        total += v
    return total


@nb.njit(cache=True, inline="always")
def _static_bound(p, n, pi, kmax):
    """Static grouping: the sum over runs of ``kmax`` consecutive boxes."""
    pt, idx = p.patterns, p.work.pat_box
    total = 0
    i = 0
    while i < n:
        size = min(kmax, n - i)
        r = 0
        for t in range(size):
            r += pt.binom[idx[i + t], t + 1]
        v = _pattern_value(pt, size, r, pi)
        if v == NO_ENTRY:
            return DEAD
        total += v
        i += size
    return total


@nb.njit(cache=True, inline="always")
def _pair_candidates(p, n, pi):
    """Every pair of boxes with a positive gain becomes a candidate group;
    returns how many (or -1: a dead pair)."""
    pt, w = p.patterns, p.work
    idx, h1 = w.pat_box, w.pat_h1
    m = 0
    for i in range(n):
        ri = pt.binom[idx[i], 1]
        for j in range(i + 1, n):
            v = _pattern_value(pt, 2, ri + pt.binom[idx[j], 2], pi)
            if v == NO_ENTRY:
                return -1
            g = v - h1[i] - h1[j]
            if g > 0:
                m = _add_group(w, m, g, i, j, -1, -1)
    return m


@nb.njit(cache=True, inline="always")
def _small_group_candidates(p, n, pi, m, with_quads):
    """Add every triple (and quadruple) with a positive gain to the ``m``
    candidates; returns the new count (or -1: a dead group)."""
    pt, w = p.patterns, p.work
    idx, h1, binom = w.pat_box, w.pat_h1, pt.binom
    for i in range(n):
        ri = binom[idx[i], 1]
        for j in range(i + 1, n):
            rj = ri + binom[idx[j], 2]
            for l in range(j + 1, n):
                rl = rj + binom[idx[l], 3]
                v = _pattern_value(pt, 3, rl, pi)
                if v == NO_ENTRY:
                    return -1
                g = v - h1[i] - h1[j] - h1[l]
                if g > 0:
                    m = _add_group(w, m, g, i, j, l, -1)
                for o in range(l + 1, n if with_quads else 0):
                    v = _pattern_value(pt, 4, rl + binom[idx[o], 4], pi)
                    if v == NO_ENTRY:
                        return -1
                    g = v - h1[i] - h1[j] - h1[l] - h1[o]
                    if g > 0:
                        m = _add_group(w, m, g, i, j, l, o)
    return m


@nb.njit(cache=True, inline="always")
def _pick_disjoint(w, m):
    """Take candidate groups of largest gain whose boxes are all free, one
    after another; returns the gains taken (``work.pat_used`` marks boxes)."""
    total = 0
    while True:
        best = 0
        pick = -1
        for q in range(m):
            g = w.pat_gain[q]
            if g <= best:
                continue
            free = True
            for t in range(4):
                b = w.pat_members[q, t]
                if b >= 0 and w.pat_used[b] != 0:
                    free = False
            if free:
                best = g
                pick = q
        if pick < 0:
            return total
        for t in range(4):
            b = w.pat_members[pick, t]
            if b >= 0:
                w.pat_used[b] = 1
        total += best


@nb.njit(cache=True, inline="always")
def _pick_disjoint_pairs(w, m):
    """Greedy pairing: the disjoint candidate pairs of largest gain, copied
    after the candidates (groups ``m .. chosen - 1``); returns
    ``(gains taken, chosen)``."""
    chosen = m
    total = 0
    while True:
        best = 0
        pick = -1
        for q in range(m):
            g = w.pat_gain[q]
            if (g > best and w.pat_used[w.pat_members[q, 0]] == 0
                    and w.pat_used[w.pat_members[q, 1]] == 0):
                best = g
                pick = q
        if pick < 0:
            return total, chosen
        a, b = w.pat_members[pick, 0], w.pat_members[pick, 1]
        w.pat_used[a] = 1
        w.pat_used[b] = 1
        _add_group(w, chosen, best, a, b, -1, -1)
        chosen += 1
        total += best


@nb.njit(cache=True, inline="always")
def _grow_groups(p, n, pi, first, chosen, kmax):
    """Grow each chosen group by the free box that gains most (boxes that
    interact with a pair often interact with a third), up to ``kmax``
    boxes, with at most ``patterns.limit`` lookups.  Returns
    ``(extra gain, lookups made)``; the gain is DEAD for a dead group."""
    pt, w = p.patterns, p.work
    idx, h1, binom = w.pat_box, w.pat_h1, pt.binom
    looked = 0
    total = 0
    for size in range(3, kmax + 1):
        for q in range(first, chosen):
            if w.pat_members[q, size - 2] < 0 or (size - 1 < 4 and w.pat_members[q, size - 1] >= 0):
                continue  # not a group of size - 1
            base = 0
            for u in range(size - 1):
                base += h1[w.pat_members[q, u]]
            best = w.pat_gain[q]
            pick = -1
            for o in range(n):
                if w.pat_used[o] != 0 or looked >= pt.limit:
                    continue
                looked += 1
                # rank of the group with o inserted in order
                r = 0
                t = 0
                placed = False
                for u in range(size - 1):
                    b = w.pat_members[q, u]
                    if not placed and o < b:
                        r += binom[idx[o], t + 1]
                        t += 1
                        placed = True
                    r += binom[idx[b], t + 1]
                    t += 1
                if not placed:
                    r += binom[idx[o], t + 1]
                v = _pattern_value(pt, size, r, pi)
                if v == NO_ENTRY:
                    return DEAD, looked
                g = v - base - h1[o]
                if g > best:
                    best = g
                    pick = o
            if pick >= 0:
                w.pat_used[pick] = 1
                total += best - w.pat_gain[q]
                w.pat_gain[q] = best
                _insert_member(w, q, size - 1, pick)
    return total, looked


@nb.njit(cache=True, inline="always")
def _merge_pairs(p, pi, first, chosen, looked):
    """4-box tables: merge two chosen pairs into one group when that gains
    more than both (within the lookup limit); returns the extra gain, or
    DEAD for a dead group."""
    pt, w = p.patterns, p.work
    idx, h1, binom = w.pat_box, w.pat_h1, pt.binom
    total = 0
    for a in range(first, chosen):
        if w.pat_members[a, 1] < 0 or w.pat_members[a, 2] >= 0:
            continue
        for b in range(a + 1, chosen):
            if w.pat_members[b, 1] < 0 or w.pat_members[b, 2] >= 0:
                continue
            if w.pat_members[a, 1] < 0 or w.pat_members[a, 2] >= 0:
                break  # a has merged
            if looked >= pt.limit:
                break
            looked += 1
            _insert_member(w, a, 2, w.pat_members[b, 0])
            _insert_member(w, a, 3, w.pat_members[b, 1])
            r = 0
            for u in range(4):
                r += binom[idx[w.pat_members[a, u]], u + 1]
            v = _pattern_value(pt, 4, r, pi)
            if v == NO_ENTRY:
                return DEAD
            g = v
            for u in range(4):
                g -= h1[w.pat_members[a, u]]
            if g > w.pat_gain[a] + w.pat_gain[b]:
                total += g - w.pat_gain[a] - w.pat_gain[b]
                w.pat_gain[a] = g
                w.pat_gain[b] = 0
                w.pat_members[b, 1] = -1   # b is gone
            else:
                # undo: a keeps its own two boxes
                x0 = w.pat_members[b, 0]
                x1 = w.pat_members[b, 1]
                t = 0
                for u in range(4):
                    c = w.pat_members[a, u]
                    if c != x0 and c != x1:
                        w.pat_members[a, t] = c
                        t += 1
                w.pat_members[a, 2] = -1
                w.pat_members[a, 3] = -1
    return total


@kernel_jit
def pattern_bound(p, boxes, n, player):
    """The additive pattern bound: the sum of the k-box table values of
    disjoint groups of boxes (each push moves one box, so the groups'
    pushes add up), or DEAD when some group cannot reach the goals.

    ``boxes`` are in increasing cell order, so their pattern indices are
    sorted.  Greedy grouping starts from every box alone (the one-box
    values) and takes the disjoint groups of largest *gain* one after
    another.  With few boxes (at most EXHAUSTIVE_GROUPS triples and
    quadruples) every group is a candidate.  Otherwise it takes pairs first,
    then grows each chosen pair by the free box that gains most (to
    ``k`` boxes), and merges two chosen pairs into a 4-box group when that
    gains more than both: the pairs cost C(n, 2) lookups in a small table,
    the rest at most ``patterns.limit``.  Static grouping takes runs of
    ``k`` consecutive boxes.
    """
    pt, w = p.patterns, p.work
    pi = p.player_index[player]
    total = _one_box_values(p, boxes, n, pi)
    kmax = min(pt.k, n)
    if total >= DEAD or kmax < 2:
        return total
    if pt.grouping == STATIC:
        return _static_bound(p, n, pi, kmax)
    m = _pair_candidates(p, n, pi)
    if m < 0:
        return DEAD
    for i in range(n):
        w.pat_used[i] = 0
    n3 = n * (n - 1) * (n - 2) // 6 if kmax >= 3 else 0
    n4 = n3 * (n - 3) // 4 if kmax >= 4 else 0
    if n3 + n4 <= EXHAUSTIVE_GROUPS:
        if n3 > 0:
            m = _small_group_candidates(p, n, pi, m, n4 > 0)
            if m < 0:
                return DEAD
        return total + _pick_disjoint(w, m)
    gain, chosen = _pick_disjoint_pairs(w, m)
    total += gain
    gain, looked = _grow_groups(p, n, pi, m, chosen, kmax)
    if gain >= DEAD:
        return DEAD
    total += gain
    if kmax >= 4:
        gain = _merge_pairs(p, pi, m, chosen, looked)
        if gain >= DEAD:
            return DEAD
        total += gain
    return total


# -- the bound the engines ask for --------------------------------------------------


@nb.njit(cache=True, inline="always")
def _walk_to_push(p, boxes, n, player):
    """Moves metric: the fewest steps the player needs before its next push
    (a breadth-first walk to the nearest cell from which a box can be
    pushed onto a free, live cell; 0 when it stands at one, as it often does
    right after a push)."""
    w = p.work
    occ, inside, q, seen, walk = w.occ, p.inside, w.queue, w.seen, w.walk
    for i in range(n):
        occ[boxes[i]] = 1
    w.counters[SEEN] += 1
    tag = w.counters[SEEN]
    seen[player] = tag
    walk[player] = 0
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
                    found = walk[c]
                    break
            elif inside[x] != 0 and seen[x] != tag:
                seen[x] = tag
                walk[x] = walk[c] + 1
                q[tail] = x
                tail += 1
    for i in range(n):
        occ[boxes[i]] = 0
    return found if found > 0 else 0


@nb.njit(cache=True, inline="always")
def _to_pushes_parity(p, total, boxes, n):
    """``total`` raised by one if its parity is not that of the pushes left
    (see :func:`.puzzle.cell_parity`; under moves, ``total`` as it is).
    Every way to the goal takes pushes of that parity, so the raised bound
    is still a bound.  The matching's value always has it (each box-goal
    distance has the parity of their row + column difference); a pattern
    table's entry, whose boxes may end on other goals, and the perimeter's
    floor need not."""
    if p.pushes_parity < 0:
        return total
    s = p.pushes_parity
    for i in range(n):
        c = boxes[i]
        s += c // p.width + c % p.width
    return total + ((s + total) & 1)


@nb.njit(cache=True, inline="always")
def _bound(p, key, with_patterns):
    """The heuristic (see :func:`heuristic`), with or without the pattern
    bound (``with_patterns``; it only counts when the heuristic is pdb)."""
    known, floor = perimeter_lookup(p, key)
    if known >= 0:
        return known
    if p.learning != 0 and is_learned_dead(p, key):
        return DEAD
    if p.heuristic == ZERO:
        return 0
    w = p.work
    boxes = w.h_boxes
    n = decode_boxes(p, key, boxes)
    player = player_of(p, key)
    simple = 0
    for i in range(n):
        b = boxes[i]
        if p.nearest[b] >= UNREACHABLE:
            return DEAD
        sides = _reachable_sides(p, b, player)
        w.h_sides[i] = sides
        if p.heuristic == SIMPLE:
            nearest = UNREACHABLE
            for g in range(n):
                d = _box_distance(p, g, b, sides)
                if d < nearest:
                    nearest = d
            if nearest >= UNREACHABLE:
                return DEAD
            simple += nearest
    if p.heuristic == SIMPLE:
        total = simple
    else:
        pattern = 0
        if with_patterns and p.heuristic == PDB:
            # first: a dead pattern spares the matching
            pattern = pattern_bound(p, boxes, n, player)
            if pattern >= DEAD:
                return DEAD
        total = matching_bound(p, boxes, n)
        if total >= DEAD:
            return DEAD
        if pattern > total:
            total = pattern
    if total < floor:
        total = floor   # a perimeter filled breadth-first holds all that is nearer
        p.perimeter.counters[RAISED] += 1
    total = _to_pushes_parity(p, total, boxes, n)
    if p.metric == MOVES and total > 0:
        # Every push costs its walk + 1 and the pushes left are >= total,
        # so the walk to the next push can be added.
        total += _walk_to_push(p, boxes, n, player)
    return total


@kernel_jit
def heuristic(p, key):
    """A lower bound on the cost left (admissible for both metrics), or
    DEAD: a learned deadlock pattern (:mod:`.learning`), a box that cannot
    reach any goal, no perfect box-goal matching, or (``pdb``) a group of
    boxes that the pattern tables call dead.

    The bounds the engines ask for in a row are mostly of siblings, which
    differ in one or two boxes, so the last matching is kept and updated in
    O(n²) per changed row (a row is unchanged when its box has the same
    cell and the same reachable sides) instead of being rebuilt in O(n³).

    With a perimeter on (``--algo fess``; breadth-first beside A*), a
    position it holds gets its pushes to the goal along the stored way
    instead, and one it does not hold at least the perimeter's floor
    (:func:`.kernels.perimeter_lookup`).

    Its value is the larger of :func:`first_bound` and
    :func:`pattern_refinement` (lazy A* asks for them apart).
    """
    return _bound(p, key, True)


@kernel_jit
def first_bound(p, key):
    """The heuristic without the pattern bound: the cheap half that lazy A*
    computes for every node it generates (with ``pdb``, the matching)."""
    return _bound(p, key, False)


@kernel_jit
def pattern_refinement(p, key):
    """The dear half of the ``pdb`` heuristic, which lazy A* computes only
    for the nodes it is about to expand: the pattern bound (with the walk to
    the next push under the moves metric), or DEAD when a group of boxes is
    dead; 0 with another heuristic.  Not raised to the perimeter's floor
    nor replaced by a distance the perimeter knows: :func:`first_bound`
    has those, and the engine takes the larger of the two."""
    if p.heuristic != PDB:
        return 0
    w = p.work
    boxes = w.h_boxes
    n = decode_boxes(p, key, boxes)
    player = player_of(p, key)
    total = pattern_bound(p, boxes, n, player)
    if total >= DEAD:
        return DEAD
    total = _to_pushes_parity(p, total, boxes, n)
    if p.metric == MOVES and total > 0:
        total += _walk_to_push(p, boxes, n, player)
    return total
