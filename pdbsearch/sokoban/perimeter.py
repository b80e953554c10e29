"""Perimeter search (Manzini 1995; YASS's default): a search *backwards*
from the solved positions, by pulls, whose positions become goals of the
forward searches that find solutions.

Every position the backward search stores reaches the goal: it was pulled
from one that does, and a pull undone is a push.  So a forward search that
meets one is done, and the way on to the goal is the chain of stored
parents, read as pushes.  The endgame of a level, where boxes must go into
a goal area in a strict order, is often where the forward searches stall
and where the pulls are few and forced, so a perimeter pays.

* **Roots**: a box on every goal, the player in each area of the free
  cells (normalised, as the forward keys are).
* **A pull**: the player stands next to box ``b`` (on ``y = b + d``,
  reachable) with a free cell ``y + d`` behind it; the box comes to ``y``,
  the player to ``y + d``.  Undone, it is the push of the box on ``y``
  towards ``b``: code ``y * MOVE_BASE + opposite(d)``.
* **Pruned**: a pull that brings a box to a cell no start square's box can
  be pushed to (lone-box pushes, :func:`back_distances`): such a position
  is never met from the start, nor is anything pulled from it, since a box
  that leaves that cell by pulls never gets back to a start square.  The
  table stays complete for what matters: breadth-first alone, every stored
  depth is still the optimum (a forward path from a stored position never
  puts a box there either), and an exhausted table still proves the level
  unsolvable.
* **Pruned, too**: a pull after which some box off the start squares can
  never be pulled again (:func:`stuck_off_start`, the backward game's
  freeze deadlock): a set of boxes each of whose four pulls needs a cell
  that is a wall or another box of the set never moves, backwards or
  forwards.  The same reasoning keeps the depths and exhaustion sound: a
  position a stored one leads to by pushes has those boxes where they
  are, so it would be pruned too.
* **Order**: expansions alternate between the oldest position not yet
  expanded (breadth-first: a perimeter around the goal) and, with
  ``greedy`` (the default), the one whose boxes are nearest the start
  squares (:class:`GreedyOrder`: a backward greedy search towards the
  start, which some levels, scattered boxes into a tight goal area, need
  more than a forward one).  Measured on the development sets, the
  greedy half gained sasquatch5 25 -> 30 (docs/benchmarks.md).
* **Growth**: the table's arrays are reserved once (capacity from the
  memory limit, at most :data:`MAX_POSITIONS`), zeroed, so that their
  pages are mapped only as they fill; the hash slots in use double as
  positions come.  It is filled in chunks, as a member of the ``--algo fess``
  portfolio with its own share of the time; the forward members read the
  same table through their goal test (:func:`.kernels.is_goal`), so the
  goal set grows while they search.  The backward search alone is also a
  complete solver: it ends when it stores the start (solved) or runs out
  of positions (the level is unsolvable).
* **Depth**: a stored position's number of pushes along its stored way to
  the goal (breadth-first alone: the optimum); the heuristic returns it for
  a stored position (:func:`.bounds.heuristic`), so weighted A* and greedy
  search take a position they meet there at once, not when its bound
  comes up.

A stored position costs ``8 K + 20`` bytes (key, depth, parent, push code,
two hash slots; up to two more slots, 8 bytes, just after the slots
double), and 1 more breadth-first (the expanded flag), 17 with the greedy
order (the flag and a heap entry).

**Who uses it.**  With the greedy order, the ``--algo fess`` portfolio
(its depths are then not optimal, and no member promises a bound).
Breadth-first, A* (:mod:`pdbsearch.search.bidirectional`):
the depths are the optimum, and the table also keeps its *floor*, the
depth of the last layer known complete + 1, which every position it does
not hold needs at least (:func:`.kernels.perimeter_lookup`), and counts the
forward bounds the floor raised.
"""

from __future__ import annotations

from typing import NamedTuple

import numba as nb
import numpy as np

from ..fences import release_fence
from ..puzzle import KERNEL_JIT_OPTIONS, copy_key, kernel_jit
from ..search.common import (ENGINE_JIT_OPTIONS, EXHAUSTED, EXPANDED, GENERATED, GROW_NODES,
                             N_FSTATS, N_STATS, NODES, RUNNING, SOLVED)
from ..search.heap import heap_pop, heap_push
from ..search.store import keys_equal
from .advisors import start_push_distances
from .kernels import (FLOOR, GENERATION, MOVE_BASE, N_PERIMETER_COUNTERS, RAISED, SLOT_MASK,
                      PerimeterTable,
                      decode_boxes, flip_bit, perimeter_index, perimeter_slot, player_of,
                      set_player)
from .tables import flood_smallest

#: Most positions the perimeter stores, whatever the memory allows.
MAX_POSITIONS = 1 << 24
#: Hash slots of an empty perimeter (doubled as it fills).
FIRST_SLOTS = 1 << 12
#: Share of the memory limit the perimeter may take.
MEMORY_SHARE = 8

# Slots of ``PerimeterTable.counters``.
STORED, HEAD, FOUND, STAMP = 0, 1, 2, 3
# A chunk's outcome when the table is full (the member is retired).
FULL = -1
#: The greedy order's distance of a cell no start square's box reaches.
FAR_BACK = 1000


def bytes_per_position(key_words: int) -> int:
    """Bytes one stored position costs (key, depth, parent, code, two slots)."""
    return 8 * key_words + 20


def new_table(key_words: int, memory_bytes: int) -> tuple[PerimeterTable, np.ndarray,
                                                          np.ndarray]:
    """An empty perimeter sized from ``memory_bytes``, with its parent and
    push-code arrays: ``(table, parent, code)``.

    Every array is zeroed (empty slots are 0), so the OS maps its pages
    only as positions are stored: a level solved at once costs next to
    nothing, and a long run can store millions.  The slots in use start
    at :data:`FIRST_SLOTS` and double as the table fills (:func:`_store`)."""
    capacity = max(16, min(MAX_POSITIONS,
                           memory_bytes // MEMORY_SHARE // bytes_per_position(key_words)))
    n_slots = 1 << (2 * capacity - 1).bit_length()
    table = PerimeterTable(1, np.zeros((capacity, key_words), np.uint64),
                           np.zeros(n_slots, np.int32), np.zeros(capacity, np.int32),
                           np.zeros(N_PERIMETER_COUNTERS, np.int64))
    table.counters[FOUND] = -1
    table.counters[SLOT_MASK] = min(FIRST_SLOTS, n_slots) - 1
    return table, np.zeros(capacity, np.int32), np.zeros(capacity, np.int32)


@kernel_jit
def _double_slots(per):
    """Use twice as many slots and put every stored key back.  A lookup
    from another thread meanwhile may miss a stored key: the generation
    count is odd while the slots are rebuilt (:func:`.kernels.perimeter_lookup`)."""
    n = per.counters[STORED]
    used = per.counters[SLOT_MASK] + 1
    per.counters[GENERATION] += 1
    release_fence()
    for s in range(used):
        per.slots[s] = 0
    per.counters[SLOT_MASK] = 2 * used - 1
    for i in range(n):
        per.slots[perimeter_slot(per, per.keys[i])] = i + 1
    release_fence()
    per.counters[GENERATION] += 1


@nb.njit(**KERNEL_JIT_OPTIONS)   # called from Python after each chunk
def _publish_floor(per, floor):
    """Set the floor once every position nearer than it is published."""
    release_fence()
    per.counters[FLOOR] = floor


@nb.njit(**KERNEL_JIT_OPTIONS)   # tests call it from Python
def _store(per, parent, code, row, from_index, push):
    """Store ``row`` unless known; returns its index, -1 if it was known,
    or FULL - 1 when there is no room."""
    s = perimeter_slot(per, row)
    if per.slots[s] != 0:
        return -1
    i = per.counters[STORED]
    if i >= per.keys.shape[0] or 2 * (i + 1) > per.slots.shape[0]:
        return FULL - 1
    if 2 * (i + 1) > per.counters[SLOT_MASK] + 1:
        # At most half the slots in use hold keys: probes stay short.
        _double_slots(per)
        s = perimeter_slot(per, row)
    # Everything about the position first, the slot that publishes it last:
    # searches in other threads read the table while it grows (fences).
    copy_key(per.keys[i], row)
    per.depth[i] = 0 if from_index < 0 else per.depth[from_index] + 1
    parent[i] = from_index
    code[i] = push
    release_fence()
    per.slots[s] = i + 1
    per.counters[STORED] = i + 1
    return i


@kernel_jit
def _seed(p, per, parent, code, occ, mark, stack, row):
    """Store the roots: every goal holding a box, the player in each area."""
    for i in range(p.goal_cells.shape[0]):
        occ[p.goal_cells[i]] = 1
    per.counters[STAMP] += 1
    tag = per.counters[STAMP]
    for i in range(p.index_cell.shape[0]):
        c = p.index_cell[i]
        if occ[c] != 0 or mark[c] == tag:
            continue
        smallest = flood_smallest(c, occ, p.inside, p.deltas, mark, tag, stack)
        for w in range(row.shape[0]):
            row[w] = p.goal_mask[w]
        set_player(p, row, smallest)
        _store(per, parent, code, row, -1, -1)
    for i in range(p.goal_cells.shape[0]):
        occ[p.goal_cells[i]] = 0


class GreedyOrder(NamedTuple):
    """Every other expansion, the stored position whose boxes are nearest
    the start squares (a backward greedy search towards the start).  Its
    ``back`` distances also prune, with the greedy order off too: a pull
    onto a cell at :data:`FAR_BACK` is never stored."""

    on: int
    closed: np.ndarray   #: uint8[capacity]: expanded
    hf: np.ndarray       #: float64[capacity] heap keys
    hg: np.ndarray       #: int32[capacity] heap depths (deeper first)
    hn: np.ndarray       #: int32[capacity] heap indices
    size: np.ndarray     #: int64[2]: heap size, turn
    back: np.ndarray     #: int32[cell]: lone-box pushes from the nearest start square


def back_distances(puzzle) -> np.ndarray:
    """Pushes of a lone box from the nearest start square to each cell
    (:func:`.advisors.start_push_distances`), capped at :data:`FAR_BACK`."""
    return np.minimum(start_push_distances(puzzle), FAR_BACK)


@kernel_jit
def stuck_off_start(p, boxes, n, moved, to, occ, mark, tag, back):
    """True when, box ``moved`` (its index in ``boxes``; ``occ`` still
    shows it where it was) now on ``to``, some box off the start squares
    can never be pulled again.

    The largest set of boxes none of which can be pulled while the others
    stay (a pull along ``d`` needs the player on ``b + d`` and a free cell
    ``b + 2d`` to step back to; a wall or a box of the set blocks it) is
    found by dropping the boxes that can, until none can: ``mark`` holds
    ``tag`` on its cells.  Its boxes never move again, so a position with
    one of them off the start squares (``back`` nonzero) never becomes the
    start.  Only a set holding the moved box can be new (one without it
    blocked the same way before the pull, and the position pulled from
    was kept, or is a root, whose level then has no solution anyway), so a
    moved box with an open pull ends the check at once."""
    came_from = boxes[moved]
    for k in range(4):
        d = p.deltas[k]
        a = to + d
        if p.inside[a] != 0 and (occ[a] == 0 or a == came_from):
            if p.inside[a + d] != 0 and (occ[a + d] == 0 or a + d == came_from):
                return False
    for j in range(n):
        mark[to if j == moved else boxes[j]] = tag
    changed = True
    while changed:
        changed = False
        for j in range(n):
            b = to if j == moved else boxes[j]
            if mark[b] != tag:
                continue
            for k in range(4):
                d = p.deltas[k]
                if (p.inside[b + d] != 0 and mark[b + d] != tag
                        and p.inside[b + 2 * d] != 0 and mark[b + 2 * d] != tag):
                    mark[b] = 0    # this pull is possible: the box may move
                    changed = True
                    break
    for j in range(n):
        b = to if j == moved else boxes[j]
        if mark[b] == tag and back[b] != 0:
            return True
    return False


@nb.njit(**ENGINE_JIT_OPTIONS)
def perimeter_chunk(p, per, parent, code, start, budget, stats, occ, boxes, area, mark,
                    stack, row, order):
    """Expand up to ``budget`` stored positions by pulls, in the order of
    the module doc (``order``).

    Returns SOLVED (the start is stored: ``counters[FOUND]``), EXHAUSTED
    (every position backwards from the goal is stored, the start is not
    among them), FULL or RUNNING."""
    c = per.counters
    if c[STORED] == 0:
        _seed(p, per, parent, code, occ, mark, stack, row)
        found = perimeter_index(per, start)
        if found >= 0:
            c[FOUND] = found
            return SOLVED
    done = 0
    while True:
        if done >= budget:
            return RUNNING
        i = -1
        if order.on != 0:
            order.size[1] += 1
            if order.size[1] & 1:
                while order.size[0] > 0:
                    f0, g0, node, left = heap_pop(order.hf, order.hg, order.hn,
                                                  order.size[0])
                    order.size[0] = left
                    if order.closed[node] == 0:
                        i = node
                        break
        if i < 0:
            while c[HEAD] < c[STORED] and order.closed[c[HEAD]] != 0:
                c[HEAD] += 1
            if c[HEAD] >= c[STORED]:
                return EXHAUSTED
            i = c[HEAD]
            c[HEAD] = i + 1
        order.closed[i] = 1
        done += 1
        stats[EXPANDED] += 1
        key = per.keys[i]
        n = decode_boxes(p, key, boxes)
        for j in range(n):
            occ[boxes[j]] = 1
        c[STAMP] += 1
        tag = c[STAMP]
        flood_smallest(player_of(p, key), occ, p.inside, p.deltas, area, tag, stack)
        h_here = 0
        if order.on != 0:
            for j in range(n):
                h_here += order.back[boxes[j]]
        outcome = RUNNING
        for j in range(n):
            b = boxes[j]
            for k in range(4):
                d = p.deltas[k]
                y = b + d
                z = y + d
                if area[y] != tag or p.inside[z] == 0 or occ[z] != 0 or p.box_bit[y] < 0:
                    continue
                if order.back[y] >= FAR_BACK:
                    # No start square's box gets to y: neither does the start.
                    continue
                c[STAMP] += 1
                if stuck_off_start(p, boxes, n, j, y, occ, mark, c[STAMP], order.back):
                    continue
                occ[b] = 0
                occ[y] = 1
                c[STAMP] += 1
                smallest = flood_smallest(z, occ, p.inside, p.deltas, mark, c[STAMP], stack)
                occ[y] = 0
                occ[b] = 1
                copy_key(row, key)
                flip_bit(row, p.box_bit[b])
                flip_bit(row, p.box_bit[y])
                set_player(p, row, smallest)
                stats[GENERATED] += 1
                # Undone: the box on y pushed back onto b (direction -d).
                got = _store(per, parent, code, row, i, y * MOVE_BASE + (k + 2) % 4)
                if got == FULL - 1:
                    outcome = FULL
                    break
                if got >= 0 and keys_equal(row, start):
                    c[FOUND] = got
                    outcome = SOLVED
                    break
                if got >= 0 and order.on != 0:
                    h = h_here - order.back[b] + order.back[y]
                    order.size[0] = heap_push(order.hf, order.hg, order.hn, order.size[0],
                                              float(h), per.depth[got], got)
            if outcome != RUNNING:
                break
        for j in range(n):
            occ[boxes[j]] = 0
        stats[NODES] = c[STORED]
        if outcome != RUNNING:
            return outcome


class Perimeter:
    """A level's perimeter: the table the goal test reads, its parents and
    push codes, and the way from a stored position to the goal."""

    def __init__(self, puzzle, memory_bytes: int):
        self.puzzle = puzzle
        self.table, self.parent, self.code = new_table(puzzle.key_words, memory_bytes)
        #: True once a forward search's path was carried on from it
        self.met = False

    def stored(self) -> int:
        """How many positions the perimeter holds."""
        return int(self.table.counters[STORED])

    def nbytes(self) -> int:
        """Bytes in use: the stored positions' rows and the slots in use
        (the pages of the rest are not mapped yet)."""
        t = self.table
        row = t.keys.itemsize * t.keys.shape[1] + 12   # key, depth, parent, code
        return self.stored() * row + 4 * int(t.counters[SLOT_MASK] + 1)

    def reserved_nbytes(self) -> int:
        """Bytes of the arrays as allocated (at most this many in use)."""
        t = self.table
        return (t.keys.nbytes + t.slots.nbytes + t.depth.nbytes + self.parent.nbytes
                + self.code.nbytes)

    def index_of(self, key: np.ndarray) -> int:
        """The stored index of ``key``, -1 if absent."""
        return int(perimeter_index(self.table, key))

    def way_to_goal(self, index: int) -> tuple[list[np.ndarray], list[int]]:
        """From stored position ``index``: the keys after it, on to a solved
        position, and the pushes between them."""
        keys, codes = [], []
        while int(self.parent[index]) >= 0:
            codes.append(int(self.code[index]))
            index = int(self.parent[index])
            keys.append(self.table.keys[index].copy())
        return keys, codes


class PerimeterSearch:
    """The backward search as an engine (a member of the ``--algo fess``
    portfolio; see the module doc)."""

    name = "perimeter"

    def __init__(self, puzzle, perimeter: Perimeter, greedy: bool = True):
        self.puzzle = puzzle
        self.perimeter = perimeter
        self.stats = np.zeros(N_STATS, dtype=np.int64)
        self.fstats = np.zeros(N_FSTATS, dtype=np.float64)
        n_grid = puzzle.level.width * puzzle.level.height
        self._occ = np.zeros(n_grid, np.uint8)
        self._boxes = np.zeros(max(1, len(puzzle.level.boxes)), np.int32)
        self._area = np.zeros(n_grid, np.int64)
        self._mark = np.zeros(n_grid, np.int64)
        self._stack = np.zeros(n_grid, np.int32)
        self._row = np.zeros(puzzle.key_words, np.uint64)
        self._start = puzzle.initial_key()
        self._full = False
        n_cap = perimeter.table.keys.shape[0] if greedy else 1
        self._order = GreedyOrder(int(greedy), np.zeros(perimeter.table.keys.shape[0], np.uint8),
                                  np.zeros(n_cap), np.zeros(n_cap, np.int32),
                                  np.zeros(n_cap, np.int32), np.zeros(2, np.int64),
                                  back_distances(puzzle))

    def detach(self) -> bool:
        """True when filled breadth-first (beside A*): a portfolio may then
        run it in a thread of its own.  Its scratch is its own, it reads
        only the level's tables, and it writes only the table, whose
        readers allow for a writer in another thread (the generation count
        and the floor's order, :func:`.kernels.perimeter_lookup`).  False
        with the greedy order, whose ``--algo fess`` portfolio keeps it in
        the caller's thread beside the members that share its time there."""
        return not self._order.on

    def load_kernels(self) -> None:
        """Compile (or load) the chunk kernel, on a budget of nothing, and
        the lookup that carries a solution on to the goal (:meth:`Perimeter.index_of`)."""
        self.run(0)
        self.perimeter.index_of(self.puzzle.initial_key())

    def run(self, budget: int) -> int:
        """Expand up to ``budget`` positions; SOLVED, EXHAUSTED, RUNNING, or
        GROW_NODES once the table is full (the portfolio then retires it)."""
        if self._full:
            return GROW_NODES
        per = self.perimeter
        code = perimeter_chunk(self.puzzle.params, per.table, per.parent, per.code, self._start,
                               budget, self.stats, self._occ, self._boxes, self._area,
                               self._mark, self._stack, self._row, self._order)
        counters = per.table.counters
        if not self._order.on and counters[HEAD] > 0:
            # Breadth-first: every position of depth < d, the depth of the
            # last one expanded, is expanded, so every one of depth <= d is
            # stored and any other needs at least d + 1 pushes (the floor,
            # :func:`.kernels.perimeter_lookup`).
            _publish_floor(per.table, per.table.depth[counters[HEAD] - 1] + 1)
        if code == FULL:
            self._full = True
            return GROW_NODES
        return code

    def nbytes(self) -> int:
        """Bytes in use by the table and the order of expansion."""
        o = self._order
        per_position = o.closed.itemsize + (
            o.hf.itemsize + o.hg.itemsize + o.hn.itemsize if o.on else 0)
        return self.perimeter.nbytes() + self.perimeter.stored() * per_position

    def reserved_nbytes(self) -> int:
        """Bytes of the arrays as allocated: what the portfolio counts when
        another member asks to grow, so that the memory limit holds however
        far the perimeter fills."""
        o = self._order
        return (self.perimeter.reserved_nbytes() + o.closed.nbytes + o.hf.nbytes + o.hg.nbytes
                + o.hn.nbytes)

    def grow_nbytes(self, code: int) -> int:
        """A full table does not grow: past any limit."""
        return 1 << 62

    def grow(self, code: int) -> None:
        """Never called (see :meth:`grow_nbytes`)."""

    def solution_keys(self) -> list[np.ndarray]:
        """The start, then its way to the goal."""
        keys, _ = self.perimeter.way_to_goal(int(self.perimeter.table.counters[FOUND]))
        return [self._start.copy()] + keys

    def solution_codes(self, keys: list[np.ndarray]) -> list[int]:
        """The pushes along :meth:`solution_keys`."""
        _, codes = self.perimeter.way_to_goal(int(self.perimeter.table.counters[FOUND]))
        return codes

    def lower_bound(self) -> float | None:
        """No bound (the perimeter's depth is not one of the start)."""
        return None

    def floor_raised(self) -> int:
        """How many bounds the floor raised so far (breadth-first beside A*:
        what the perimeter is worth to it, :mod:`pdbsearch.search.bidirectional`)."""
        return int(self.perimeter.table.counters[RAISED])

    def report(self) -> dict:
        """How many positions the perimeter holds."""
        return {"perimeter_positions": self.perimeter.stored(),
                "perimeter_met": self.perimeter.met}
