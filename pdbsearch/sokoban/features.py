"""Sokoban's FESS features, computed per position in numba.

All are small integers, *smaller is better* (the engine's convention):

* ``unpacked`` = boxes − *packed*, where packed is the longest prefix of
  the packing order (:mod:`.plan`) whose goals all hold boxes (without an
  order: the boxes on goals, Festival's naive scoring), less the part of
  that prefix the other boxes could not finish the plan around
  (:mod:`.planreach`);
* ``connectivity``: the number of player regions, i.e. the connected parts
  of the region's free cells (fewer: the player can get to more places);
* ``rooms``: the room links obstructed by boxes (room connectivity,
  :mod:`.rooms`);
* ``out_of_plan``: the boxes inside the area that the next packing steps
  will seal off (the OOP zone of the plan's current step, :mod:`.plan`);
* ``hotspots``: the boxes standing in another box's way to its goals
  (:mod:`.hotspots`), and the boxes on later goals of the plan that cut
  off its next goal (:mod:`.plancuts`).

The first four name the cell of feature space; hotspots only rank (as in
Festival, where they feed an advisor, not the cell).  The *rank* packs the
five, in that order, above a distance tie-break (the sum of each box's
push distance to its nearest goal, or the lower bound), so that comparing
ranks compares positions as Festival's ``is_better_score`` does.
"""

from __future__ import annotations

from typing import NamedTuple

import numba as nb
import numpy as np

from ..byref import by_reference

#: Number of features, and how many of them (the first) name a cell.
N_FEATURES = 5
N_CELL_FEATURES = 4
UNPACKED, CONNECTIVITY, ROOMS, OUT_OF_PLAN, HOTSPOTS = 0, 1, 2, 3, 4

# Bit fields of the rank (62 bits in all: the engine's ranks are below 2**62).
_DIST_BITS = 24
_FIELD_BITS = 8
_FIELD_MAX = (1 << _FIELD_BITS) - 1
_HOT_BITS = 6
_HOT_MAX = (1 << _HOT_BITS) - 1
#: Largest distance tie-break a rank holds (larger ones are clamped to it).
DIST_MAX = (1 << _DIST_BITS) - 1


@by_reference
class FeatureWork(NamedTuple):
    """Scratch of the component labelling."""

    mark: np.ndarray       #: int64[cell] stamp of a labelled cell
    lab: np.ndarray        #: int32[cell] smallest cell of its component
    stack: np.ndarray      #: int32[cell]
    counters: np.ndarray   #: int64[1]


def feature_work(n_grid: int) -> FeatureWork:
    """Fresh scratch for a grid of ``n_grid`` cells."""
    return FeatureWork(np.zeros(n_grid, np.int64), np.zeros(n_grid, np.int32),
                       np.zeros(n_grid, np.int32), np.zeros(1, np.int64))


@nb.njit(cache=True, inline="always")
def components(region, inside, occ, deltas, fw):
    """Label every free region cell with the smallest cell of its connected
    part (``fw.lab``) and return the number of parts (the connectivity).

    ``region`` lists the region cells in increasing order, so the first
    cell met of each part is its smallest: the normalised player cell of
    any position whose player stands in it.
    """
    fw.counters[0] += 1
    tag = fw.counters[0]
    mark, lab, stack = fw.mark, fw.lab, fw.stack
    count = 0
    for i in range(region.shape[0]):
        seed = region[i]
        if occ[seed] != 0 or mark[seed] == tag:
            continue
        count += 1
        mark[seed] = tag
        lab[seed] = seed
        stack[0] = seed
        n = 1
        while n > 0:
            n -= 1
            c = stack[n]
            for d in range(4):
                x = c + deltas[d]
                if inside[x] != 0 and occ[x] == 0 and mark[x] != tag:
                    mark[x] = tag
                    lab[x] = seed
                    stack[n] = x
                    n += 1
    return count


@nb.njit(cache=True, inline="always")
def components_freeing(conn, s, inside, occ, deltas, lab):
    """The connectivity once the box on ``s`` is lifted, from the labelling
    of the last :func:`components` (``conn`` parts, ``occ`` as it was
    then): the parts around ``s`` become one."""
    merged = 0
    seen0 = seen1 = seen2 = -1
    for k in range(4):
        x = s + deltas[k]
        if inside[x] == 0 or occ[x] != 0:
            continue
        part = lab[x]
        if part != seen0 and part != seen1 and part != seen2:
            merged += 1
            if seen0 < 0:
                seen0 = part
            elif seen1 < 0:
                seen1 = part
            else:
                seen2 = part
    return conn - merged + 1


@nb.njit(cache=True, inline="always")
def packed_count(order, naive, occ, on_goals):
    """Boxes packed: the longest prefix of ``order`` (goal cells) all
    holding boxes, or the ``on_goals`` count when the plan is ``naive``."""
    if naive != 0:
        return on_goals
    k = 0
    while k < order.shape[0] and occ[order[k]] != 0:
        k += 1
    return k


@nb.njit(cache=True, inline="always")
def packed_by_area(split, area_end, naive, occ, on_goals):
    """Boxes packed, area by area: the sum over the goal areas of the
    longest prefix of each area's part of the plan that holds boxes (the
    ``on_goals`` count when the plan is ``naive``)."""
    if naive != 0:
        return on_goals
    total = 0
    start = 0
    for a in range(area_end.shape[0]):
        end = area_end[a]
        k = start
        while k < end and occ[split[k]] != 0:
            k += 1
        total += k - start
        start = end
    return total


@nb.njit(cache=True, inline="always")
def out_of_plan(zone, packed, boxes, n, moved_from, moved_to):
    """Boxes inside the OOP zone of step ``packed`` (``zone[step, cell]``),
    with the box of ``moved_from`` standing on ``moved_to`` instead (pass
    -1, -1 for the position as it is)."""
    row = zone[packed]
    count = 0
    for i in range(n):
        b = boxes[i]
        if b == moved_from:
            b = moved_to
        count += row[b]
    return count


@nb.njit(cache=True, inline="always")
def pack_rank(unpacked, connectivity, rooms, oop, hotspots, dist):
    """The rank of a position from its features and distance tie-break."""
    r = np.int64(min(unpacked, _FIELD_MAX))
    r = (r << _FIELD_BITS) | min(connectivity, _FIELD_MAX)
    r = (r << _FIELD_BITS) | min(rooms, _FIELD_MAX)
    r = (r << _FIELD_BITS) | min(oop, _FIELD_MAX)
    r = (r << _HOT_BITS) | min(hotspots, _HOT_MAX)
    return (r << _DIST_BITS) | min(dist, DIST_MAX)
