"""Deadlock patterns learned while searching (Rolling Stone's pattern search,
Festival's stuck patterns), the Sokoban side of :mod:`pdbsearch.pdb.learned`.

After each expansion, every child whose pushed box now stands in a cluster
of boxes (boxes touching it, also diagonally, and boxes touching those, up
to :data:`MAX_PATTERN_BOXES`, but fewer than all) may be *tried*: a small
breadth-first search over the pushes of that cluster alone, every other
box removed, the player where it stands.  If the cluster cannot put each
of its boxes on a goal (the search runs out of positions within
:data:`LOCAL_LIMIT`), the cluster with the player's area on the emptied
board is a dead pattern: removing boxes only helps (a solution of the full
position, its other boxes removed, is a solution of the cluster), so every
position that has these boxes, and its player in that area, is dead.  The
pattern is first *distilled*: each box whose removal leaves the rest still
dead is dropped, which makes it match more positions.  The heuristic
kernel (:func:`.bounds.heuristic`) then prunes every state that matches a
pattern, through :func:`is_learned_dead`, which other engines may call too.

The local search prunes only with rules that hold whatever the number of
goals is (dead squares and freeze deadlocks; a box frozen on a goal is
fine).  A cluster tried once (its boxes and normalised player) is kept in
a small table and not tried again.  Learning costs at most
:data:`LEARN_RATIO` local positions per expansion of the main search (after
a first allowance), so a level where nothing is learned loses little.
Every array is allocated before the search; a full pattern store stops the
learning.

**Stuck positions** (Festival's stuck patterns, :func:`learn_stuck`): FESS
asks, of a position under which it has spent many expansions, whether it
is dead.  Every box the player can push both along its row and along its
column is taken off, one after the other (what is left is what holds the
position); the boxes left (fewer than all, at most
:data:`MAX_STUCK_BOXES`) get the local search in its *xy* form, where a
position with such a free box has that box's removal as its only
successor.  When the boxes left are too many, or not dead, each cluster
of boxes (as above, up to :data:`MAX_PATTERN_BOXES`, one of them off its
goal) gets the same xy search alone: on a big level few boxes are xy-free,
so the first half rarely applies, while a knot of boxes no one can undo
(four boxes jammed in a corner of the storage area, the goal room half
filled) is the commonest way a FESS search gets stuck.  A dead verdict is
distilled and stored as above.
"""

from __future__ import annotations

from typing import NamedTuple

import numba as nb
import numpy as np

from ..byref import by_reference
from ..pdb.learned import (DEFAULT_CAPACITY, FULL, LearnedPatterns, learned_add, learned_match,
                           new_store)
from ..puzzle import copy_key, kernel_jit
from ..search.store import empty_slots, find_slot
from .deadlocks import freeze_deadlock, may_freeze
from .kernels import (decode_boxes, expand, flip_bit, player_of, push_ends, set_player)
from .tables import flood_smallest

#: Largest cluster a local search is tried on.
MAX_PATTERN_BOXES = 6
#: Most boxes left for the xy search of :func:`learn_stuck` (Festival's 12).
MAX_STUCK_BOXES = 12
#: Most positions one local search stores before it gives up (unknown).
LOCAL_LIMIT = 512
#: Local positions allowed per expansion of the main search, on average...
LEARN_RATIO = 2
#: ...after this many for free (a search of a few thousand expansions may learn).
LEARN_ALLOWANCE = 20_000
#: Clusters remembered as tried (the table is cleared when it is half full).
TRIED_CAPACITY = 1 << 14

# Slots of ``LearnWork.counters``.
STAMP, FROZEN, EXPANDS, LOCAL, SEARCHES, LEARNED, TRIED = 0, 1, 2, 3, 4, 5, 6
N_COUNTERS = 8

# Outcomes of a local search.
SOLVABLE, DEAD_SET, UNKNOWN = 0, 1, 2


@by_reference
class LearnWork(NamedTuple):
    """Scratch arrays of the local searches (see :func:`learn_work`)."""

    keys: np.ndarray        #: uint64[LOCAL_LIMIT + max successors, K]: local positions
    slots: np.ndarray       #: int32: their hash slots
    slot_of: np.ndarray     #: int32: slot of each local position (to clear them)
    goals_on: np.ndarray    #: int32: boxes on goals in each local position
    occ: np.ndarray         #: uint8[cell]
    area: np.ndarray        #: int64[cell]: stamps of the player's area
    seen: np.ndarray        #: int64[cell]: stamps of the children's floods
    frozen: np.ndarray      #: int64[cell]: freeze marks
    stack: np.ndarray       #: int32[cell]
    boxes: np.ndarray       #: int32[box]
    members: np.ndarray     #: int32[box]: the cluster's cells
    split: np.ndarray       #: int32[box]: the stuck position's boxes (~cell: in a cluster tried)
    sub: np.ndarray         #: uint64[K]: the cluster's key
    region: np.ndarray      #: uint64[R]: the pattern's player region
    tried_keys: np.ndarray  #: uint64[TRIED_CAPACITY, K]: clusters tried
    tried_slots: np.ndarray  #: int32[2 TRIED_CAPACITY]
    counters: np.ndarray    #: int64[N_COUNTERS]


def learn_work(n_grid: int, n_boxes: int, key_words: int, player_values: int,
               enabled: bool) -> LearnWork:
    """Scratch arrays for a level (tiny placeholders when learning is off)."""
    local = LOCAL_LIMIT + 4 * n_boxes if enabled else 1
    tried = TRIED_CAPACITY if enabled else 1
    return LearnWork(np.zeros((local, key_words), np.uint64),
                     empty_slots(local), np.zeros(local, np.int32),
                     np.zeros(local, np.int32), np.zeros(n_grid, np.uint8),
                     np.zeros(n_grid, np.int64), np.zeros(n_grid, np.int64),
                     np.zeros(n_grid, np.int64), np.zeros(n_grid, np.int32),
                     np.zeros(n_boxes, np.int32), np.zeros(n_boxes, np.int32),
                     np.zeros(n_boxes, np.int32), np.zeros(key_words, np.uint64),
                     np.zeros(max(1, (player_values + 63) // 64), np.uint64),
                     np.zeros((tried, key_words), np.uint64),
                     empty_slots(tried), np.zeros(N_COUNTERS, np.int64))


def pattern_store(key_words: int, player_values: int, enabled: bool) -> LearnedPatterns:
    """The level's store of learned patterns (one placeholder row when off)."""
    return new_store(key_words, player_values, DEFAULT_CAPACITY if enabled else 1)


# -- the local search ---------------------------------------------------------------


@kernel_jit
def _normalised_player(p, lw, key_boxes, n, start):
    """The smallest cell the player reaches from ``start`` around the boxes
    ``key_boxes[:n]`` (``lw.occ`` must hold exactly them)."""
    lw.counters[STAMP] += 1
    return flood_smallest(start, lw.occ, p.inside, p.deltas, lw.seen, lw.counters[STAMP],
                          lw.stack)


@kernel_jit
def _can_push(p, lw, b, d, tag):
    """The player (its area stamped ``tag`` in ``lw.area``) can push the box
    on ``b`` in direction ``d``, onto a free cell that is not dead."""
    step = p.deltas[d]
    t = b + step
    return p.inside[t] != 0 and lw.occ[t] == 0 and p.dead[t] == 0 and lw.area[b - step] == tag


@kernel_jit
def _free_box(p, lw, n, tag):
    """The index in ``lw.boxes[:n]`` of a box the player can push both along
    its row and along its column (Festival's "xy" box), or -1."""
    for i in range(n):
        b = lw.boxes[i]
        if (_can_push(p, lw, b, 0, tag) or _can_push(p, lw, b, 2, tag)) and \
                (_can_push(p, lw, b, 1, tag) or _can_push(p, lw, b, 3, tag)):
            return i
    return -1


@kernel_jit
def _keep(lw, stored, goals_on):
    """Keep the local position written in ``lw.keys[stored]`` (with
    ``goals_on`` boxes on goals) unless it is stored already; returns the
    new number of positions."""
    s = find_slot(lw.keys, lw.slots, lw.keys[stored])
    if lw.slots[s] < 0:
        lw.slots[s] = stored
        lw.slot_of[stored] = s
        lw.goals_on[stored] = goals_on
        stored += 1
    return stored


@kernel_jit
def local_search(p, lw, root, limit, xy):
    """Can the boxes of ``root`` (a key holding only some boxes), alone on
    the board, each reach a goal?  Breadth-first over pushes, pruning dead
    squares and freeze deadlocks.  With ``xy`` (Festival's xy search), a
    position where some box can be pushed both along its row and along its
    column has one successor instead: that box taken off the board (removing
    a box never makes a position harder, so a dead verdict still holds, and
    the search stays small).  Returns SOLVABLE, DEAD_SET (every position was
    searched) or UNKNOWN (``limit`` positions stored)."""
    keys, slots, occ, boxes = lw.keys, lw.slots, lw.occ, lw.boxes
    n = decode_boxes(p, root, boxes)
    on = 0
    for i in range(n):
        on += p.goal[boxes[i]]
    if on == n:
        return SOLVABLE
    copy_key(keys[0], root)
    s = find_slot(keys, slots, root)
    slots[s] = 0
    lw.slot_of[0] = s
    lw.goals_on[0] = on
    stored = 1
    head = 0
    verdict = DEAD_SET
    while head < stored and verdict == DEAD_SET:
        key = keys[head]
        on = lw.goals_on[head]
        head += 1
        n = decode_boxes(p, key, boxes)
        for i in range(n):
            occ[boxes[i]] = 1
        lw.counters[STAMP] += 1
        tag = lw.counters[STAMP]
        flood_smallest(player_of(p, key), occ, p.inside, p.deltas, lw.area, tag, lw.stack)
        free = _free_box(p, lw, n, tag) if xy != 0 else -1
        if free >= 0:
            b = boxes[free]
            child_on = on - p.goal[b]
            if child_on == n - 1:
                verdict = SOLVABLE
            else:
                row = keys[stored]
                copy_key(row, key)
                flip_bit(row, p.box_bit[b])
                occ[b] = 0
                lw.counters[STAMP] += 1
                set_player(p, row, flood_smallest(player_of(p, key), occ, p.inside, p.deltas,
                                                   lw.seen, lw.counters[STAMP], lw.stack))
                occ[b] = 1
                stored = _keep(lw, stored, child_on)
                if stored >= limit:
                    verdict = UNKNOWN
        for i in range(n if free < 0 else 0):
            b = boxes[i]
            for d in range(4):
                step = p.deltas[d]
                t = b + step
                if (p.inside[t] == 0 or occ[t] != 0 or lw.area[b - step] != tag
                        or p.dead[t] != 0):
                    continue
                occ[b] = 0
                occ[t] = 1
                ok = True
                if p.freeze != 0 and may_freeze(t, occ, p.inside, p.dead, p.width):
                    lw.counters[FROZEN] += 1
                    ok = not freeze_deadlock(t, occ, p.inside, p.goal, p.dead, p.width,
                                             lw.frozen, lw.counters[FROZEN], lw.stack)
                if ok:
                    child_on = on + p.goal[t] - p.goal[b]
                    if child_on == n:
                        verdict = SOLVABLE
                    else:
                        row = keys[stored]
                        copy_key(row, key)
                        flip_bit(row, p.box_bit[b])
                        flip_bit(row, p.box_bit[t])
                        lw.counters[STAMP] += 1
                        set_player(p, row, flood_smallest(b, occ, p.inside, p.deltas, lw.seen,
                                                           lw.counters[STAMP], lw.stack))
                        stored = _keep(lw, stored, child_on)
                        if stored >= limit:
                            verdict = UNKNOWN
                occ[t] = 0
                occ[b] = 1
                if verdict != DEAD_SET:
                    break
            if verdict != DEAD_SET:
                break
        for i in range(n):
            occ[boxes[i]] = 0
    for i in range(stored):
        slots[lw.slot_of[i]] = -1
    lw.counters[LOCAL] += stored
    lw.counters[SEARCHES] += 1
    return verdict


# -- clusters, distilling, the trigger -------------------------------------------------


@kernel_jit
def _cluster(p, lw, n, t):
    """The cluster of the box at ``t`` among ``lw.boxes[:n]`` (``lw.occ``
    holds them): boxes within one step, diagonals included, of a member,
    grown breadth-first up to MAX_PATTERN_BOXES.  Returns its size."""
    members = lw.members
    members[0] = t
    size = 1
    i = 0
    width = p.width
    while i < size and size < MAX_PATTERN_BOXES:
        c = members[i]
        i += 1
        for dr in range(-1, 2):
            for dc in range(-1, 2):
                x = c + dr * width + dc
                if x == c or lw.occ[x] == 0 or size >= MAX_PATTERN_BOXES:
                    continue
                known = False
                for j in range(size):
                    if members[j] == x:
                        known = True
                if not known:
                    members[size] = x
                    size += 1
    return size


@kernel_jit
def _subset_key(p, lw, size, skip, player):
    """``lw.sub``: the key of the cluster without member ``skip`` (-1: all)
    and the player normalised on that board; ``lw.occ`` is left empty."""
    sub = lw.sub
    for w in range(sub.shape[0]):
        sub[w] = 0
    for j in range(size):
        if j != skip:
            lw.occ[lw.members[j]] = 1
            flip_bit(sub, p.box_bit[lw.members[j]])
    lw.counters[STAMP] += 1
    set_player(p, sub, flood_smallest(player, lw.occ, p.inside, p.deltas, lw.seen,
                                       lw.counters[STAMP], lw.stack))
    for j in range(size):
        lw.occ[lw.members[j]] = 0


@nb.njit(cache=True)
def _first_try(lw):
    """True if the cluster ``lw.sub`` was never tried (it is noted now)."""
    tried, slots = lw.tried_keys, lw.tried_slots
    s = find_slot(tried, slots, lw.sub)
    if slots[s] >= 0:
        return False
    n = lw.counters[TRIED]
    if 2 * n >= tried.shape[0]:   # half full: start afresh
        for i in range(slots.shape[0]):
            slots[i] = -1
        n = 0
        s = find_slot(tried, slots, lw.sub)
    copy_key(tried[n], lw.sub)
    slots[s] = n
    lw.counters[TRIED] = n + 1
    return True


@kernel_jit
def _store_pattern(p, lw, store, player):
    """Add ``lw.sub`` with the player's area on its board as a pattern."""
    n = decode_boxes(p, lw.sub, lw.boxes)
    for i in range(n):
        lw.occ[lw.boxes[i]] = 1
    for w in range(lw.region.shape[0]):
        lw.region[w] = 0
    lw.counters[STAMP] += 1
    tag = lw.counters[STAMP]
    flood_smallest(player, lw.occ, p.inside, p.deltas, lw.seen, tag, lw.stack)
    for i in range(p.index_cell.shape[0]):
        if lw.seen[p.index_cell[i]] == tag:
            lw.region[i >> 6] |= np.uint64(1) << np.uint64(i & 63)
    for i in range(n):
        lw.occ[lw.boxes[i]] = 0
    # The pattern is the box bits alone: the player is the region's business
    # (a player field left in would never be covered by a position's boxes).
    for w in range(lw.sub.shape[0]):
        lw.sub[w] &= p.box_mask[w]
    if learned_add(store, lw.sub, lw.region) >= 0:
        lw.counters[LEARNED] += 1


@kernel_jit
def learn_from_child(p, key, t):
    """Try the cluster of the box just pushed to ``t`` in the position
    ``key`` (see the module doc); returns True if a pattern was learned."""
    lw = p.learn
    n = decode_boxes(p, key, lw.boxes)
    if n < 3:
        return False   # a cluster of 2 boxes out of 2 is the whole level
    for i in range(n):
        lw.occ[lw.boxes[i]] = 1
    size = _cluster(p, lw, n, t)
    for i in range(n):
        lw.occ[lw.boxes[i]] = 0
    if size < 2 or size >= n:
        return False
    on = 0
    for j in range(size):
        on += p.goal[lw.members[j]]
    if on == size:
        return False
    player = player_of(p, key)
    _subset_key(p, lw, size, -1, player)
    if not _first_try(lw):
        return False
    if local_search(p, lw, lw.sub, LOCAL_LIMIT, 0) != DEAD_SET:
        return False
    _distil_and_store(p, lw, size, player, 0)
    return True


@kernel_jit
def _distil_and_store(p, lw, size, player, xy):
    """Drop every member of the dead set ``lw.members[:size]`` whose removal
    leaves the rest dead, then store what is left as a pattern."""
    j = 0
    while j < size and size > 2:
        _subset_key(p, lw, size, j, player)
        if local_search(p, lw, lw.sub, LOCAL_LIMIT, xy) == DEAD_SET:
            size -= 1
            lw.members[j] = lw.members[size]
        else:
            j += 1
    _subset_key(p, lw, size, -1, player)
    _store_pattern(p, lw, p.learned, player)


@nb.njit(cache=True, inline="always")
def _over_budget(lw):
    """Has learning (the children's clusters of :func:`expand_and_learn` or
    the stuck test) used its :data:`LEARN_RATIO` local positions per
    expansion, after the allowance?"""
    return lw.counters[LOCAL] > LEARN_RATIO * lw.counters[EXPANDS] + LEARN_ALLOWANCE


@kernel_jit
def learn_stuck(p, key):
    """Festival's stuck test, for a position under which a search has spent
    many expansions: take off the board, one at a time, every box the player
    can push both along its row and along its column; if some boxes are
    left (at most :data:`MAX_STUCK_BOXES`, not all on goals, and fewer than
    all the boxes), run the xy local search (:func:`local_search`) on them;
    if that proves nothing, run it on each cluster of boxes
    (:func:`_dead_cluster`).  A dead verdict is distilled and stored in
    ``p.learned``; returns True then (the position is dead).  Costs at most
    :data:`LEARN_RATIO` local positions per expansion counted in
    ``p.learn`` (after the allowance)."""
    lw = p.learn
    if p.learned.info[FULL] != 0 or _over_budget(lw):
        return False
    total = decode_boxes(p, key, lw.boxes)
    n = total
    for i in range(n):
        lw.occ[lw.boxes[i]] = 1
    player = player_of(p, key)
    while n > 0:
        lw.counters[STAMP] += 1
        flood_smallest(player, lw.occ, p.inside, p.deltas, lw.area, lw.counters[STAMP],
                       lw.stack)
        i = _free_box(p, lw, n, lw.counters[STAMP])
        if i < 0:
            break
        lw.occ[lw.boxes[i]] = 0
        n -= 1
        lw.boxes[i] = lw.boxes[n]
    on = 0
    for i in range(n):
        lw.occ[lw.boxes[i]] = 0
        lw.members[i] = lw.boxes[i]
        on += p.goal[lw.boxes[i]]
    if n < total and n <= MAX_STUCK_BOXES and on < n:
        _subset_key(p, lw, n, -1, player)
        if _first_try(lw) and local_search(p, lw, lw.sub, LOCAL_LIMIT, 1) == DEAD_SET:
            _distil_and_store(p, lw, n, player, 1)
            return True
    return _dead_cluster(p, lw, key, player)


@kernel_jit
def _dead_cluster(p, lw, key, player):
    """The second half of :func:`learn_stuck`: each cluster of boxes (see
    :func:`_cluster`) grown from a box off its goal, not grown from before,
    of two boxes or more but fewer than all, gets the xy local search alone
    (once in the search: :func:`_first_try`); the first dead one is
    distilled and stored, and True returned."""
    total = decode_boxes(p, key, lw.boxes)
    cells = lw.split
    for i in range(total):
        cells[i] = lw.boxes[i]
    for i in range(total):
        if cells[i] < 0 or p.goal[cells[i]] != 0:
            continue
        for j in range(total):
            lw.occ[cells[j] if cells[j] >= 0 else ~cells[j]] = 1
        size = _cluster(p, lw, total, cells[i])
        for j in range(total):
            c = cells[j] if cells[j] >= 0 else ~cells[j]
            lw.occ[c] = 0
            for m in range(size):
                if lw.members[m] == c:
                    cells[j] = ~c
        if size < 2 or size >= total:
            continue
        if _over_budget(lw):
            return False
        _subset_key(p, lw, size, -1, player)
        if not _first_try(lw):
            continue
        if local_search(p, lw, lw.sub, LOCAL_LIMIT, 1) == DEAD_SET:
            _distil_and_store(p, lw, size, player, 1)
            return True
    return False


@nb.njit(cache=True, inline="always")
def is_learned_dead(p, key):
    """True when the Sokoban state ``key`` matches a learned deadlock pattern
    (the kernel other engines may call)."""
    return learned_match(p.learned, key, p.box_mask, p.player_index[player_of(p, key)])


@nb.njit(cache=True, inline="always")
def expand_and_learn(p, key, out_keys, out_costs, out_moves):
    """The successors of :func:`.kernels.expand`; with learning on, each
    child's cluster is then tried, within the budget (module doc), and
    children that match a pattern are left for the heuristic to prune.
    Small, so inlined into the engines; the kernels it calls are compiled
    without reference counting (``KERNEL_JIT_OPTIONS``)."""
    n = expand(p, key, out_keys, out_costs, out_moves)
    if p.learning == 0:
        return n
    lw = p.learn
    lw.counters[EXPANDS] += 1
    if p.learned.info[FULL] != 0:   # no room left: learning stops
        return n
    for i in range(n):
        if _over_budget(lw):
            break
        _, t = push_ends(p, out_moves[i])
        if not is_learned_dead(p, out_keys[i]):
            learn_from_child(p, out_keys[i], t)
    return n
