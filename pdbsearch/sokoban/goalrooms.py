"""Goal rooms and their packing order: the goal-room macro of the forward
FESS engine (``fess-only``; Rolling Stone's *goal macros*, Junghanns and
Schaeffer).

A **goal room** is a part of the level, reached only through one cell (its
**entrance**), that holds goals and no box at the start: every box that
will fill its goals comes in through the entrance.  Found once per level:
for each floor cell ``e`` that is not a goal and holds no box, each part
of the region without ``e`` (one depth-first search with low-links gives
them all) that holds no box, at least two goals and at most
:data:`MAX_ROOM_CELLS` cells is a candidate; the largest candidates are
kept first, and a smaller one only when it does not overlap a kept one.

**Packing order, by retrograde analysis.**  A goal ``g`` can be filled
*last* when, with every other goal of the room holding a box, a box
standing on the entrance with the player just outside it can be pushed to
``g`` (one macro search of :func:`.macros.box_macros` on the room alone).
Taking boxes out only frees cells, so a goal that can be filled last with
the set ``S`` of goals filled can still be with any subset of ``S``: the
greedy analysis (take the goal that can be filled last away, repeat) finds
an order whenever one exists.  Among the goals that can be last it takes
the one nearest the entrance (the deep goals are filled first).  A room
with no order is no goal room.

**A room no other box needs.**  The macro assumes that a box comes into
the room only to stay, so the room is also refused when the goals outside
it could not be given distinct boxes, each of which could be pushed alone
from its start to its goal (a macro search, the player walking around it)
without the room and its entrance (for the box or the player): a level
that uses the room as a place to turn a box round (Microban 147) or its
entrance as the player's standing cell (Boxoban hard 1142) keeps its
ordinary moves there.

**The macro** (:func:`room_targets`, :func:`room_allows`).  While a room
holds exactly the first ``k`` goals of its order (it is *clean*), a box
coming in from outside may go to the ``k+1``-th goal only, in one macro
move, and no box comes in once it is full; a room that is not clean (a
box moved inside it) restricts nothing.  This drops children, never adds
one, so every solution is still made of ordinary macro moves and replays
as before; it may lose a solution that needs a box parked in the room,
which is why the optimal searches do not use it, and why an exhausted
search that has dropped a move proves nothing
(:data:`..search.common.STALLED`).
"""

from __future__ import annotations

from typing import NamedTuple

import numba as nb
import numpy as np

from ..byref import by_reference
from .formats import parse_xsb_collection
from .macros import box_macros, macro_work, tarjan
from .matching import matching_cost
from .tables import flood_smallest, grid_deltas

#: Largest goal room (cells), to keep the per-level analysis short.
MAX_ROOM_CELLS = 200
#: ``next_goal`` of a room that restricts nothing (it is not clean).
OPEN = -1
#: ``next_goal`` of a clean, full room: no box comes in.
CLOSED = -2


@by_reference
class GoalRoomTables(NamedTuple):
    """The goal rooms as the kernels read them."""

    room_of: np.ndarray    #: int32[grid]: the goal room of a cell, -1 for none (entrances: -1)
    start: np.ndarray      #: int32[rooms + 1]: each room's first index in ``order``
    order: np.ndarray      #: int32[goals in rooms]: each room's goals, the one to fill first first
    next_goal: np.ndarray  #: int32[max(1, rooms)] scratch: per position, see :func:`room_targets`
    count: np.ndarray      #: int32[max(1, rooms)] scratch: boxes in each room
    dropped: np.ndarray    #: int64[1]: children the macro has dropped so far


class GoalRoom(NamedTuple):
    """One goal room: its entrance, its cells and its packing order."""

    entrance: int
    cells: frozenset[int]
    order: tuple[int, ...]


def _candidates(level, inside: np.ndarray, deltas: np.ndarray,
                mw) -> list[tuple[int, frozenset[int]]]:
    """(entrance, cells) of every candidate room (see the module doc),
    largest first.  One depth-first search of the empty region
    (:func:`.macros.tarjan`) gives every cell's separated parts: a DFS child
    ``w`` of ``e`` whose low-link does not reach above ``e`` roots a part,
    the cells discovered from ``disc[w]`` to ``fin[w]``; the rest of the
    region without ``e`` is the parent's part."""
    goals, boxes = level.goals, level.boxes
    tarjan(inside, np.zeros(inside.shape[0], np.uint8), deltas, level.player, mw)
    last = int(mw.counters[2])
    order = mw.order[:last + 1].tolist()
    box_sum = np.cumsum([0] + [c in boxes for c in order])
    goal_sum = np.cumsum([0] + [c in goals for c in order])
    disc, fin, low, parent = mw.disc, mw.fin, mw.low, mw.dparent
    found: list[tuple[int, frozenset[int]]] = []
    for e in order:
        if e in goals or e in boxes:
            continue
        children = [e + int(d) for d in deltas if inside[e + int(d)] and
                    parent[e + int(d)] == e and disc[e + int(d)] > disc[e]]
        root = parent[e] < 0
        split = [w for w in children if root or low[w] >= disc[e]]
        if len(split) + (0 if root else 1) < 2:
            continue   # e separates nothing
        spans = [(int(disc[w]), int(fin[w])) for w in split]
        for a, b in spans:
            if b - a + 1 <= MAX_ROOM_CELLS and box_sum[b + 1] == box_sum[a] and \
                    goal_sum[b + 1] - goal_sum[a] >= 2:
                found.append((e, frozenset(order[a:b + 1])))
        if not root:
            size = last + 1 - 1 - sum(b - a + 1 for a, b in spans)
            n_boxes = box_sum[-1] - sum(box_sum[b + 1] - box_sum[a] for a, b in spans)
            n_goals = goal_sum[-1] - sum(goal_sum[b + 1] - goal_sum[a] for a, b in spans)
            if size <= MAX_ROOM_CELLS and n_boxes == 0 and n_goals >= 2:
                inner = set(order) - {e}
                for a, b in spans:
                    inner -= set(order[a:b + 1])
                found.append((e, frozenset(inner)))
    return sorted(found, key=lambda t: (-len(t[1]), t[0]))


def _doors(entrance: int, cells: frozenset[int], inside: np.ndarray, deltas: np.ndarray):
    """Each way a box on the entrance can be pushed into the room: the
    player's cell just outside, and the region the push search may use
    (the room, the entrance and that cell)."""
    doors = []
    for d in deltas:
        inner = entrance + int(d)
        outer = entrance - int(d)
        if inner not in cells or not inside[outer] or outer in cells:
            continue
        room = np.zeros(inside.shape[0], np.uint8)
        room[list(cells)] = 1
        room[entrance] = 1
        room[outer] = 1
        doors.append((outer, room))
    return doors


def _fill_costs(entrance: int, cells: frozenset[int], filled: set[int], doors,
                dead: np.ndarray, deltas: np.ndarray, mw) -> dict[int, int]:
    """Pushes to each cell of the room that a box on the entrance can reach
    through one of the ``doors`` (:func:`_doors`), the ``filled`` goals
    holding boxes."""
    n_grid = dead.shape[0]
    occ = np.zeros(n_grid, np.uint8)
    occ[list(filled)] = 1
    occ[entrance] = 1
    area = np.zeros(n_grid, np.int64)
    label = np.zeros(n_grid, np.int32)
    costs: dict[int, int] = {}
    for outer, room in doors:
        area[:] = 0
        area[outer] = 1
        n = box_macros(entrance, outer, area, 1, room, occ, dead, deltas, label, -1, -1, mw,
                       4 * n_grid)
        for i in range(n):
            st = int(mw.emit[i])
            c = st >> 2
            if c in cells and c not in filled:
                cost = int(mw.depth[st])
                costs[c] = min(cost, costs.get(c, cost))
    return costs


def packing_order(entrance: int, cells: frozenset[int], goals: frozenset[int],
                  inside: np.ndarray, dead: np.ndarray, deltas: np.ndarray,
                  mw=None) -> tuple[int, ...] | None:
    """The room's goals in the order to fill them, by the retrograde
    analysis of the module doc; None when there is no such order."""
    mw = mw if mw is not None else macro_work(inside.shape[0])
    doors = _doors(entrance, cells, inside, deltas)
    filled = set(cells & goals)
    backwards: list[int] = []
    while filled:
        best = None
        for g in sorted(filled):
            costs = _fill_costs(entrance, cells, filled - {g}, doors, dead, deltas, mw)
            if g in costs and (best is None or costs[g] < best[0]):
                best = (costs[g], g)
        if best is None:
            return None
        filled.discard(best[1])
        backwards.append(best[1])
    return tuple(reversed(backwards))


def _room_not_needed(level, entrance: int, cells: frozenset[int], inside: np.ndarray,
                     dead: np.ndarray, deltas: np.ndarray, mw) -> bool:
    """Can the goals outside the room have distinct boxes that each reach
    theirs, alone, without the room and its entrance (see the module doc)?"""
    walled = inside.copy()
    walled[list(cells)] = 0
    walled[entrance] = 0
    boxes = sorted(level.boxes)
    outside = sorted(level.goals - cells)
    # Rows: the outside goals, then free rows for the room's goals.
    cost = np.zeros((len(boxes), len(boxes)), np.int64)
    n_grid = inside.shape[0]
    occ = np.zeros(n_grid, np.uint8)
    area = np.zeros(n_grid, np.int64)
    stack = np.empty(n_grid, np.int64)
    label = np.zeros(n_grid, np.int32)
    # The player starts in the room: it walks out first.
    player = level.player if walled[level.player] else \
        next(entrance + int(d) for d in deltas if walled[entrance + int(d)])
    for j, b in enumerate(boxes):
        reach = {b}
        if walled[b]:
            occ[b] = 1
            flood_smallest(player, occ, walled, deltas, area, j + 1, stack)
            n = box_macros(b, player, area, j + 1, walled, occ, dead, deltas, label, -1, -1,
                           mw, 4 * n_grid)
            reach.update(int(mw.emit[i]) >> 2 for i in range(n))
            occ[b] = 0
        for i, g in enumerate(outside):
            cost[i, j] = 0 if g in reach else 1
    return matching_cost(cost) == 0


def goal_rooms(level, inside: np.ndarray, dead: np.ndarray, deltas: np.ndarray) -> list[GoalRoom]:
    """The goal rooms of ``level`` (``inside``, ``dead``: uint8 masks of the
    region and the dead squares; ``deltas``: the LURD offsets)."""
    mw = macro_work(inside.shape[0])
    rooms: list[GoalRoom] = []
    taken: set[int] = set()
    for entrance, cells in _candidates(level, inside, deltas, mw):
        if entrance in taken or cells & taken:
            continue
        if not _room_not_needed(level, entrance, cells, inside, dead, deltas, mw):
            continue
        order = packing_order(entrance, cells, level.goals, inside, dead, deltas, mw)
        if order is None:
            continue
        rooms.append(GoalRoom(entrance, cells, order))
        taken |= cells | {entrance}
    return rooms


def goal_room_tables(rooms: list[GoalRoom], n_grid: int) -> GoalRoomTables:
    """The kernels' tables of ``rooms`` (an empty list: no goal macro)."""
    room_of = np.full(n_grid, -1, np.int32)
    start = np.zeros(len(rooms) + 1, np.int32)
    order: list[int] = []
    for r, room in enumerate(rooms):
        room_of[list(room.cells)] = r
        order.extend(room.order)
        start[r + 1] = len(order)
    size = max(1, len(rooms))
    return GoalRoomTables(room_of, start, np.array(order, np.int32),
                          np.full(size, OPEN, np.int32), np.zeros(size, np.int32),
                          np.zeros(1, np.int64))


#: A small level with one goal room (four goals in the bottom two rows,
#: entered through the gap in the wall), on which :func:`load_kernels`
#: runs the analysis.
_SAMPLE_LEVEL = """\
##########
#@ $ $   #
#  $ $   #
####### ##
#        #
#....    #
##########
"""
_loaded = False


def load_kernels(puzzle_class: type) -> None:
    """Compile (or load) the kernels :func:`goal_rooms` calls from Python,
    once a process, by finding the room of a small level (its region and
    dead squares as ``puzzle_class``, the Sokoban puzzle, works them out; a
    parameter, as this module sits below the puzzle): a run of levels does
    it in its warm-up, so that its children do not each load them on the
    levels that have a candidate room (some 17 ms a child)."""
    global _loaded
    if _loaded:
        return
    level = parse_xsb_collection(_SAMPLE_LEVEL, "<goal-room sample>")[0]
    puzzle = puzzle_class(level, "pushes", "matching")
    if not goal_rooms(level, puzzle.inside, puzzle.dead, grid_deltas(level.width)):
        raise AssertionError("the goal-room sample level has no goal room")
    _loaded = True


@nb.njit(cache=True, inline="always")
def room_targets(gr, boxes, n, occ):
    """Set each room's ``next_goal`` for the position of ``boxes`` (``n`` of
    them, ``occ`` marking them): the goal a box coming in must go to when
    the room is clean, :data:`CLOSED` when it is clean and full,
    :data:`OPEN` when it is not clean."""
    rooms = gr.start.shape[0] - 1
    for r in range(rooms):
        gr.count[r] = 0
    for i in range(n):
        r = gr.room_of[boxes[i]]
        if r >= 0:
            gr.count[r] += 1
    for r in range(rooms):
        lo = gr.start[r]
        hi = gr.start[r + 1]
        k = 0
        while lo + k < hi and occ[gr.order[lo + k]] != 0:
            k += 1
        if gr.count[r] != k:
            gr.next_goal[r] = OPEN
        elif lo + k == hi:
            gr.next_goal[r] = CLOSED
        else:
            gr.next_goal[r] = gr.order[lo + k]


@nb.njit(cache=True, inline="always")
def room_allows(gr, s, c):
    """May the box on ``s`` go to ``c`` in one macro move (after
    :func:`room_targets` of the position)?  Counts the moves refused."""
    r = gr.room_of[c]
    if r < 0 or gr.room_of[s] == r:
        return True
    t = gr.next_goal[r]
    if t == OPEN or t == c:
        return True
    gr.dropped[0] += 1
    return False
