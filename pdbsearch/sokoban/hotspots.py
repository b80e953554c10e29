"""Hotspots: boxes that stand in another box's way to its goals (Festival's
fifth score, behind the hotspot advisor).

Festival (Shoham and Schaeffer, 2020) calls a box a *hotspot* when it
blocks another box's way to the goals.  Made precise here, on an empty
board where a lone box moves by pushes and the player needs only the cell
behind it (as :func:`.advisors.lone_reach`):

* ``goals_from[x]`` is the number of goals a lone box on ``x`` can reach;
* a cell ``b`` **blocks** a cell ``x`` when, with ``b`` a wall, a lone box
  on ``x`` reaches fewer goals than that;
* neither side counts when it is a goal (a box on its goal is not in the
  way, and needs no way) or a dead square;
* a box on ``b`` is a **hotspot** when ``b`` blocks the cell of some other
  box; the feature is the number of hotspots (smaller is better).

The table ``blocks[x, b]`` (region indices, one byte each) is built once a
level, one reverse flood per (blocker, goal): ``R · G`` floods of ``O(R)``
for R region cells and G goals, so it is built in slices inside the
search's time (:class:`HotspotBuilder`); a level whose table is not done
in time keeps the feature at 0.  Per position the kernels count, for each
box, the other boxes whose cells it blocks: O(n²) for a position, O(n)
for each child from its parent's counts.
"""

from __future__ import annotations

import time
from typing import NamedTuple

import numba as nb
import numpy as np

from ..byref import by_reference


@by_reference
class HotspotTables(NamedTuple):
    """The blocking table and the per-position scratch, as the kernels see
    them."""

    on: int               #: 1: the table is built (0: the feature is 0)
    blocks: np.ndarray    #: uint8[region, region]: ``blocks[x, b]``, see the module doc
    count: np.ndarray     #: int32[boxes] scratch: per box, the boxes it blocks


def hotspot_tables(n_region: int, n_boxes: int) -> HotspotTables:
    """Tables with the feature off (the table is filled by the builder)."""
    return HotspotTables(0, np.zeros((n_region, n_region), np.uint8),
                         np.zeros(max(1, n_boxes), np.int32))


@nb.njit(cache=True)
def _goal_counts(inside, deltas, goal_cells, blocker, out, seen, queue):
    """``out[c]`` = goals a lone box on ``c`` reaches with ``blocker`` a
    wall (-1: none): one reverse flood (pulls) per goal."""
    out[:] = 0
    for g in range(goal_cells.shape[0]):
        start = goal_cells[g]
        if start == blocker:
            continue
        tag = g + 1
        seen[start] = tag
        out[start] += 1
        queue[0] = start
        head, tail = 0, 1
        while head < tail:
            y = queue[head]
            head += 1
            for d in deltas:
                x = y - d
                if inside[x] != 0 and inside[x - d] != 0 and x != blocker and \
                        x - d != blocker and seen[x] != tag:
                    seen[x] = tag
                    out[x] += 1
                    queue[tail] = x
                    tail += 1
    seen[:] = 0


@nb.njit(cache=True)
def blocking_rows(inside, deltas, goal, dead, goal_cells, region, lo, hi, base, blocks,
                  counts, seen, queue):
    """Fill ``blocks[:, j]`` for the blockers of region indices ``lo..hi-1``
    (``base``: the goal counts without a blocker)."""
    for j in range(lo, hi):
        b = region[j]
        if goal[b] != 0 or dead[b] != 0:
            continue
        _goal_counts(inside, deltas, goal_cells, b, counts, seen, queue)
        for i in range(region.shape[0]):
            x = region[i]
            if i != j and goal[x] == 0 and dead[x] == 0 and counts[x] < base[x]:
                blocks[i, j] = 1


@nb.njit(cache=True)
def goal_counts(inside, deltas, goal_cells, out, seen, queue):
    """``out[c]`` = goals a lone box on ``c`` reaches (no blocker)."""
    _goal_counts(inside, deltas, goal_cells, -1, out, seen, queue)


@nb.njit(cache=True, inline="always")
def position_hotspots(ht, index, boxes, n):
    """The hotspots of the position ``boxes[:n]``; leaves in ``ht.count``
    each box's number of other boxes whose cells it blocks (the parent's
    counts of :func:`child_hotspots`)."""
    if ht.on == 0:
        return 0
    hot = 0
    for i in range(n):
        col = index[boxes[i]]
        k = 0
        for j in range(n):
            if j != i:
                k += ht.blocks[index[boxes[j]], col]
        ht.count[i] = k
        if k > 0:
            hot += 1
    return hot


@nb.njit(cache=True, inline="always")
def child_hotspots(ht, index, boxes, n, s, c):
    """The hotspots after the box on ``s`` moves to ``c``, from the counts
    :func:`position_hotspots` left for the parent: O(n)."""
    if ht.on == 0:
        return 0
    hot = 0
    rs = index[s]
    rc = index[c]
    mine = 0
    for i in range(n):
        b = boxes[i]
        if b == s:
            continue
        col = index[b]
        if ht.count[i] - ht.blocks[rs, col] + ht.blocks[rc, col] > 0:
            hot += 1
        mine += ht.blocks[col, rc]
    if mine > 0:
        hot += 1
    return hot


class HotspotBuilder:
    """Builds a level's blocking table in slices of time (the table costs
    ``R · G`` floods; see the module doc)."""

    def __init__(self, params):
        self._p = params
        n_region = params.index_cell.shape[0]
        n_grid = params.inside.shape[0]
        self.tables = hotspot_tables(n_region, int(params.n_boxes))
        self._next = 0
        self._base = np.zeros(n_grid, np.int32)
        self._counts = np.zeros(n_grid, np.int32)
        self._seen = np.zeros(n_grid, np.int64)
        self._queue = np.zeros(n_grid, np.int64)
        self._started = False

    def load_kernels(self) -> None:
        """Compile (or load) the builder's kernels now."""
        p = self._p
        blocking_rows(p.inside, p.deltas, p.goal, p.dead, p.goal_cells, p.index_cell, 0, 0,
                      self._base, self.tables.blocks, self._counts, self._seen, self._queue)
        goal_counts(p.inside, p.deltas, p.goal_cells[:0], self._counts, self._seen,
                    self._queue)

    def step(self, seconds: float) -> bool:
        """Work for about ``seconds``; True once the table is complete (its
        tables then have ``on`` = 1)."""
        p = self._p
        if not self._started:
            goal_counts(p.inside, p.deltas, p.goal_cells, self._base, self._seen, self._queue)
            self._started = True
        n_region = p.index_cell.shape[0]
        end = time.perf_counter() + seconds
        batch = 8
        while self._next < n_region:
            hi = min(n_region, self._next + batch)
            t0 = time.perf_counter()
            blocking_rows(p.inside, p.deltas, p.goal, p.dead, p.goal_cells, p.index_cell,
                          self._next, hi, self._base, self.tables.blocks, self._counts,
                          self._seen, self._queue)
            self._next = hi
            now = time.perf_counter()
            if now >= end:
                return self._next >= n_region and self._finish()
            if now - t0 < 0.01:
                batch *= 2
        return self._finish()

    def _finish(self) -> bool:
        self.tables = self.tables._replace(on=1)
        return True
