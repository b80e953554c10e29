"""Dead-end probes: a small exhaustive search from one position.

FESS can reach a position that is dead although no rule sees it: say
thirteen boxes packed in a goal room and a goal between them that no box
can enter any more, with three boxes still loose outside.  Every box alone
still reaches a goal, no box is frozen, so neither the bound nor the
freeze, corral or sealed-goal rules prune it; the local searches of
:mod:`.learning` cannot see it either (taking loose boxes off leaves only
boxes on goals).  Such a position is often the best FESS has found, and
FESS spends half its iterations on its best cell (fewer once it stops
improving, but still a share), so it keeps coming back there.

Yet the positions reachable from it are few (a few thousand pushes on
that level), because most boxes are packed.  A *probe* searches them all,
breadth-first over pushes with every pruning rule of the push expansion
and the puzzle's bound (so only positions from which the goal may still be
reached are kept), up to :data:`PROBE_LIMIT` positions.  If it runs out of
positions without reaching a goal (or the perimeter), the position is dead
and so is everything below it: FESS drops its subtree.  If it reaches the
limit, nothing is concluded.

**What a dead probe met is dead too.**  Every position the probe stored is
reachable from the dead one, so none reaches the goal either.  Such a
*family* of dead positions (the three loose boxes anywhere they can go,
the player anywhere) is what FESS would otherwise meet again and again
from other parents, each a new node; so the probe's positions are kept in
a table (up to :data:`DEAD_CAPACITY`, then no more are added), and FESS
drops a child found there when it generates it (:func:`known_dead`, one
hash lookup).

A probe costs at most :data:`PROBE_LIMIT` positions; probes together cost
at most :data:`PROBE_RATIO` expansions per expansion of the main search
(plus the last probe's), and are only tried on positions with at most
:data:`PROBE_LOOSE` boxes off goals, where the reachable space is small
enough to be searched.  A position worth a probe whose turn comes while
the budget is spent gets ``ASK_LATER``: FESS keeps the best-ranked such
positions and asks again when the budget has come back (the best position
reached is the one a search keeps coming back to, and the one whose probe
pays most).
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from ..byref import by_reference
from ..puzzle import DEAD, copy_key, kernel_jit
from ..search.fess_protocol import ASK_LATER, NOT_PROVED, PROVED_DEAD
from ..search.store import empty_slots, find_slot
from .bounds import heuristic
from .kernels import decode_boxes, expand, is_goal
from .learning import EXPANDS

#: Most positions one probe stores before it gives up.
PROBE_LIMIT = 8192
#: Probe expansions allowed per expansion of the main search, on average
#: (a probe expansion costs about a tenth of a FESS expansion)...
PROBE_RATIO = 1
#: ...after this many for free (none: on a level solved in a second, 20,000
#: free ones made a fifth of FESS's time).
PROBE_ALLOWANCE = 0
#: Most boxes off goals in a position worth probing.
PROBE_LOOSE = 6
#: Most positions kept as known dead.
DEAD_CAPACITY = 1 << 17

# Slots of ``ProbeWork.counters``.
SPENT, PROBES, PROVED, KEPT, HITS, REACHED = 0, 1, 2, 3, 4, 5
N_COUNTERS = 6

# Outcomes of one probe.
REACHES_GOAL, DEAD_END, UNKNOWN = 0, 1, 2


@by_reference
class ProbeWork(NamedTuple):
    """Scratch arrays of the probes (see :func:`probe_work`)."""

    on: int                 #: 1: probes run (0: :func:`probe_dead` says no)
    keys: np.ndarray        #: uint64[PROBE_LIMIT + successors, K]: positions met
    slots: np.ndarray       #: int32: their hash slots
    slot_of: np.ndarray     #: int32: slot of each position (to clear them)
    out_keys: np.ndarray    #: uint64[successors, K]: one expansion's children
    out_costs: np.ndarray   #: int32[successors]
    out_moves: np.ndarray   #: int64[successors]
    dead_keys: np.ndarray   #: uint64[DEAD_CAPACITY, K]: positions known dead
    dead_slots: np.ndarray  #: int32: their hash slots
    counters: np.ndarray    #: int64[N_COUNTERS]


def probe_work(key_words: int, max_successors: int, enabled: bool) -> ProbeWork:
    """Scratch arrays for a level (tiny placeholders when probes are off).
    Memory: about (PROBE_LIMIT + DEAD_CAPACITY) x (8 K + 8) bytes, 4.3 MiB
    for a key of three words."""
    rows = PROBE_LIMIT + max_successors if enabled else 1
    dead = DEAD_CAPACITY if enabled else 1
    return ProbeWork(int(enabled), np.zeros((rows, key_words), np.uint64),
                     empty_slots(rows), np.zeros(rows, np.int32),
                     np.zeros((max_successors, key_words), np.uint64),
                     np.zeros(max_successors, np.int32), np.zeros(max_successors, np.int64),
                     np.zeros((dead, key_words), np.uint64), empty_slots(dead),
                     np.zeros(N_COUNTERS, np.int64))


@kernel_jit
def probe(p, pw, root, limit):
    """Breadth-first over the pushes from ``root`` (see the module doc):
    REACHES_GOAL, DEAD_END (every position kept was expanded) or UNKNOWN
    (``limit`` positions stored)."""
    if is_goal(p, root):
        return REACHES_GOAL
    keys, slots = pw.keys, pw.slots
    copy_key(keys[0], root)
    s = find_slot(keys, slots, root)
    slots[s] = 0
    pw.slot_of[0] = s
    stored = 1
    head = 0
    verdict = DEAD_END
    while head < stored and verdict == DEAD_END:
        n = expand(p, keys[head], pw.out_keys, pw.out_costs, pw.out_moves)
        head += 1
        for i in range(n):
            child = pw.out_keys[i]
            if is_goal(p, child):
                verdict = REACHES_GOAL
                break
            if heuristic(p, child) >= DEAD:
                continue
            s = find_slot(keys, slots, child)
            if slots[s] >= 0:
                continue
            copy_key(keys[stored], child)
            slots[s] = stored
            pw.slot_of[stored] = s
            stored += 1
            if stored >= limit:
                verdict = UNKNOWN
                break
    pw.counters[SPENT] += head
    if verdict == DEAD_END:
        _keep_dead(pw, stored)
    for i in range(stored):
        slots[pw.slot_of[i]] = -1
    return verdict


@kernel_jit
def _keep_dead(pw, stored):
    """Add the first ``stored`` positions of a dead probe to the known dead
    (as many as the table takes)."""
    for i in range(stored):
        if pw.counters[KEPT] >= pw.dead_keys.shape[0]:
            return
        s = find_slot(pw.dead_keys, pw.dead_slots, pw.keys[i])
        if pw.dead_slots[s] < 0:
            copy_key(pw.dead_keys[pw.counters[KEPT]], pw.keys[i])
            pw.dead_slots[s] = pw.counters[KEPT]
            pw.counters[KEPT] += 1


@kernel_jit
def known_dead(pw, key):
    """True when a dead probe met ``key`` (so it is dead)."""
    if pw.counters[KEPT] == 0:
        return False
    if pw.dead_slots[find_slot(pw.dead_keys, pw.dead_slots, key)] < 0:
        return False
    pw.counters[HITS] += 1
    return True


@kernel_jit
def probe_dead(p, pw, key):
    """The probe's verdict on ``key`` for FESS's stuck test
    (:mod:`pdbsearch.search.fess_protocol`): ``PROVED_DEAD`` when a probe proves it
    dead; ``ASK_LATER`` when it is worth a probe (at most
    :data:`PROBE_LOOSE` boxes off goals) but the budget is spent (the main
    search's expansions are those its expansion counts for the stuck test,
    ``p.learn.counters[EXPANDS]``); else ``NOT_PROVED``."""
    if pw.on == 0:
        return NOT_PROVED
    boxes = p.work.boxes
    n = decode_boxes(p, key, boxes)
    loose = 0
    for i in range(n):
        loose += 1 - p.goal[boxes[i]]
    if loose > PROBE_LOOSE:
        return NOT_PROVED
    if pw.counters[SPENT] > PROBE_RATIO * p.learn.counters[EXPANDS] + PROBE_ALLOWANCE:
        return ASK_LATER
    pw.counters[PROBES] += 1
    verdict = probe(p, pw, key, PROBE_LIMIT)
    if verdict == REACHES_GOAL:
        pw.counters[REACHED] += 1
    if verdict != DEAD_END:
        return NOT_PROVED
    pw.counters[PROVED] += 1
    return PROVED_DEAD
