"""Rooms and the passages that link them: FESS's *room connectivity*.

Festival (Shoham and Schaeffer, 2020) splits a level into rooms, "a
connected area of 2x3 squares", and its room-connectivity feature counts
"how many room links are obstructed by boxes".  Made precise here:

* a region cell is a **room cell** when some 2x3 or 3x2 rectangle of
  region cells covers it; the **rooms** are the connected parts of the
  room cells;
* the other region cells are **passage cells**; a connected part of them
  that touches two rooms or more is a **link** (a dead-end alcove, or a
  corridor that leaves a room and comes back to it, links nothing);
* a passage cell **cuts** its link when, without it, the link no longer
  joins all of its rooms: a cell of a corridor between two rooms does, a
  cell of a dead-end branch off that corridor does not;
* a link is **obstructed** when a box stands on one of its cutting cells.

The feature is the number of obstructed links (smaller is better, as
every feature).  The per-level analysis runs once in Python; per position
the kernels count boxes per link from :attr:`RoomTables.link_of`, in
O(boxes) for a position and O(1) for each child.  A level that is all one
room, or all corridors, has no links: the feature is 0 everywhere.
"""

from __future__ import annotations

from typing import NamedTuple

import numba as nb
import numpy as np

from ..byref import by_reference
from .model import Level
from .tables import region_cells


@by_reference
class RoomTables(NamedTuple):
    """The room analysis as the kernels read it."""

    link_of: np.ndarray   #: int32[grid]: the link a cell cuts, -1 for none
    counts: np.ndarray    #: int32[max(1, links)] scratch: boxes on each link's cutting cells


class RoomMap(NamedTuple):
    """The room analysis of a level (see the module doc)."""

    room_of: dict[int, int]       #: room cell -> room number
    links: list[frozenset[int]]   #: each link's passage cells
    cutting: list[frozenset[int]] #: each link's cutting cells


def room_cells(cells: set[int], width: int) -> set[int]:
    """The cells of ``cells`` covered by a 2x3 or 3x2 rectangle of them."""
    covered: set[int] = set()
    for top_left in cells:
        for rows, cols in ((2, 3), (3, 2)):
            if top_left % width + cols > width:   # the block would wrap a row
                continue
            block = [top_left + r * width + c for r in range(rows) for c in range(cols)]
            if all(x in cells for x in block):
                covered.update(block)
    return covered


def _neighbours(cell: int, width: int) -> tuple[int, int, int, int]:
    return (cell - 1, cell - width, cell + 1, cell + width)


def _parts(cells: set[int], width: int) -> list[set[int]]:
    """The 4-connected parts of ``cells``, in order of their smallest cell."""
    parts: list[set[int]] = []
    seen: set[int] = set()
    for seed in sorted(cells):
        if seed in seen:
            continue
        part = {seed}
        todo = [seed]
        while todo:
            for x in _neighbours(todo.pop(), width):
                if x in cells and x not in part:
                    part.add(x)
                    todo.append(x)
        seen |= part
        parts.append(part)
    return parts


def _cutting_cells(passage: set[int], width: int, touching: dict[int, set[int]]) -> set[int]:
    """The cells of one link whose removal separates two of its rooms.

    The graph has the passage cells and one node per room (room ``r`` is
    node ``-1 - r``; a cell is joined to the rooms it touches).  Tarjan's
    articulation points, walked iteratively from a room node: a cell ``v``
    cuts when one of its DFS children ``u`` has ``low[u] >= disc[v]`` and
    ``u``'s subtree holds a room (the part left with the root holds the
    root's room).
    """
    room_side: dict[int, list[int]] = {}
    for c in sorted(passage):
        for r in sorted(touching[c]):
            room_side.setdefault(-1 - r, []).append(c)

    def neighbours(v: int) -> list[int]:
        if v < 0:
            return room_side[v]
        return [x for x in _neighbours(v, width) if x in passage] + \
            [-1 - r for r in sorted(touching[v])]

    root = max(room_side)   # some room node
    disc = {root: 0}
    low = {root: 0}
    holds_room = {root: True}
    cut: set[int] = set()
    stack = [(root, None, iter(neighbours(root)))]
    while stack:
        v, parent, rest = stack[-1]
        for u in rest:
            if u == parent:
                continue
            if u in disc:
                low[v] = min(low[v], disc[u])
                continue
            disc[u] = low[u] = len(disc)
            holds_room[u] = u < 0
            stack.append((u, v, iter(neighbours(u))))
            break
        else:
            stack.pop()
            if stack:
                p = stack[-1][0]
                low[p] = min(low[p], low[v])
                holds_room[p] = holds_room[p] or holds_room[v]
                if p >= 0 and low[v] >= disc[p] and holds_room[v]:
                    cut.add(p)
    return cut


def room_map(level: Level) -> RoomMap:
    """The rooms, links and cutting cells of ``level`` (see the module doc)."""
    width = level.width
    region = set(region_cells(level))
    in_rooms = room_cells(region, width)
    room_of = {c: r for r, part in enumerate(_parts(in_rooms, width)) for c in part}
    links, cutting = [], []
    for passage in _parts(region - in_rooms, width):
        touching = {c: {room_of[x] for x in _neighbours(c, width) if x in room_of}
                    for c in passage}
        rooms = set().union(*touching.values())
        if len(rooms) < 2:
            continue
        links.append(frozenset(passage))
        cutting.append(frozenset(_cutting_cells(passage, width, touching)))
    return RoomMap(room_of, links, cutting)


def room_tables(level: Level, n_grid: int, on: bool = True) -> RoomTables:
    """The kernels' tables of ``level`` (``on=False``: no links, the
    feature is 0 everywhere)."""
    link_of = np.full(n_grid, -1, np.int32)
    n_links = 0
    if on:
        for cells in room_map(level).cutting:
            if cells:
                link_of[list(cells)] = n_links
                n_links += 1
    return RoomTables(link_of, np.zeros(max(1, n_links), np.int32))


@nb.njit(cache=True, inline="always")
def obstructed_links(rt, boxes, n):
    """The obstructed links of the position with boxes ``boxes[:n]``; leaves
    the boxes on each link's cutting cells in ``rt.counts`` for
    :func:`obstructed_after_move`."""
    counts = rt.counts
    counts[:] = 0
    blocked = 0
    for i in range(n):
        link = rt.link_of[boxes[i]]
        if link >= 0:
            if counts[link] == 0:
                blocked += 1
            counts[link] += 1
    return blocked


@nb.njit(cache=True, inline="always")
def obstructed_after_move(rt, blocked, frm, to):
    """The obstructed links once the box on ``frm`` stands on ``to``, from
    the position's count ``blocked`` (:func:`obstructed_links` ran on it)."""
    a = rt.link_of[frm]
    b = rt.link_of[to]
    if a == b:
        return blocked
    if a >= 0 and rt.counts[a] == 1:
        blocked -= 1
    if b >= 0 and rt.counts[b] == 0:
        blocked += 1
    return blocked
