"""The packing plan of a level: the order in which goals are filled, and
the out-of-plan (OOP) zones derived from it (FESS's *packed* and
*out-of-plan* features, :mod:`.features`).

A plan is a :class:`PlanParams`: ``order`` lists the goal cells, the one to
fill first first; *packed* is the longest prefix of it that holds boxes,
or, counted by goal area (:func:`goal_areas`), the sum over the areas of
the longest prefix of each area's part of the order (``split``,
``area_end``; one area when the plan is read whole).
When no order is known the plan is *naive*: packed counts the boxes on
goals (Festival's ``NAIVE`` scoring).

A plan may also *park* boxes: the backward path it is read from can leave
a box waiting off the goals while others are filled, in a pocket that
those goals then shut (:meth:`.packing.PackingSearch.parking`,
:func:`parking_arrays`); a prefix counts only with as many boxes in each
such pocket as the plan parks there (:func:`.planreach.feasible_packed`).
The pocket, not the cell: the path leaves its boxes on cells it happened
to use, and asking for those very cells left the packed count at zero in
every position the search reached on levels that park four boxes before
the first goal (MasterHead 16 and 43).
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from ..byref import by_reference
from .matching import mask_matching_work
from .planreach import empty_tables


@by_reference
class PlanParams(NamedTuple):
    """The plan as the kernels read it."""

    naive: int            #: 1: packed = boxes on goals (``order`` unused)
    order: np.ndarray     #: int32[goals]: goal cells in packing order
    zone: np.ndarray      #: uint8[goals + 1, cell]: OOP zone of each step (1 inside)
    split: np.ndarray     #: int32[goals]: ``order`` regrouped by goal area, each in plan order
    area_end: np.ndarray  #: int32[areas]: where each area's run in ``split`` ends
    rank_of: np.ndarray   #: int32[cell]: the goal's place in ``order`` (-1: not a goal)
    reach: np.ndarray     #: uint64[goals + 1, region, 4]: :func:`.planreach.plan_reach` (empty: off)
    parts: np.ndarray     #: int8[goals + 1, region, region]: the same (empty: off)
    # The scratch of :func:`.planreach.feasible_packed` (one plan per
    # search, so no two threads share it).
    free_masks: np.ndarray  #: uint64[goals]: the goals each box off the prefix reaches
    match_work: np.ndarray  #: int32: :func:`.matching.mask_matching_work`
    #: int32[goals + 2]: the pockets that hold parked boxes when ``k`` goals
    #: are packed are ``park_zones[park_start[k] : park_start[k + 1]]``
    #: (:func:`parking_arrays`)
    park_start: np.ndarray
    #: int32: each pocket as ``need, size, cell_1 .. cell_size``, step by step
    park_zones: np.ndarray
    #: int32[goals + 2]: the boxes the plan has taken out of its pockets
    #: onto goals before step ``k`` (:func:`parking_base`)
    park_base: np.ndarray


def naive_plan(n_goals: int, n_grid: int) -> PlanParams:
    """No order: packed = boxes on goals, no OOP zones."""
    return PlanParams(1, np.zeros(n_goals, np.int32), np.zeros((n_goals + 1, n_grid), np.uint8),
                      np.zeros(n_goals, np.int32), np.full(1, n_goals, np.int32),
                      np.full(n_grid, -1, np.int32), *empty_tables(),
                      np.zeros(n_goals, np.uint64), mask_matching_work(),
                      *parking_arrays(np.zeros(n_goals, np.int32), {}),
                      np.zeros(n_goals + 2, np.int32))


def parking_arrays(order, parking: dict[int, frozenset[int]], reachable=None,
                   deltas=None) -> tuple[np.ndarray, np.ndarray]:
    """``(park_start, park_zones)`` of a plan: step ``k`` (the first ``k``
    goals of ``order`` packed) parks the cells ``parking`` gives the
    ``k``-th goal (:meth:`.packing.PackingSearch.parking`).

    A box the backward path happened to leave on a cell a while is not
    always one that must wait there: ``reachable(k)`` (a mask over the
    cells) tells where a box from a start square can still be pushed with
    the first ``k`` goals as walls, and a cell is kept over a run of steps
    that park it only if some step of the run shuts it off, so that its
    box must have come before.  Each step walls up more, so that is the
    run's last step.

    With ``deltas`` (the grid's four steps) too, what a step asks for is
    not the cell but its *pocket*: the cells, off the goals, that a box
    reaches at the start and no longer once the run's last step is packed,
    joined to the cell side by side; pockets that meet are one, and a
    pocket needs as many boxes as the step parks in it.  Without them
    each cell is a pocket of its own that needs its box."""
    n = len(order)
    steps = [set(parking.get(int(order[k - 1]), ())) for k in range(1, n + 1)]
    masks: dict[int, np.ndarray] = {}
    kept_ends: list[dict[int, int]] = [{} for _ in range(n)]
    if reachable is not None:
        for k in range(1, n + 1):
            for cell in list(steps[k - 1]):
                end = k
                while end < n and cell in steps[end]:
                    end += 1
                if end not in masks:
                    masks[end] = reachable(end)
                if masks[end][cell] != 0:
                    steps[k - 1].discard(cell)
                else:
                    kept_ends[k - 1][cell] = end
    pocket = _pocket_finder(order, reachable, masks, deltas)
    start = np.zeros(n + 2, np.int32)
    zones: list[int] = []
    for k in range(1, n + 1):
        for need, cells in _pockets(steps[k - 1], kept_ends[k - 1], pocket):
            zones.extend((need, len(cells), *cells))
        start[k + 1] = len(zones)
    return start, np.array(zones, np.int32)


def parking_base(park_start, park_zones) -> np.ndarray:
    """``base[k]``: the boxes the plan's pockets have given up to goals
    before step ``k`` (each step that parks fewer boxes than the one
    before took the difference onto its goal).  The packed feature counts
    them, and the boxes in the next step's pockets, as progress
    (:func:`.planreach.parking_credit`), so that a plan that parks boxes
    before its first goal has a count that grows while they are parked."""
    n = len(park_start) - 2
    total = np.zeros(n + 2, np.int64)
    for k in range(1, n + 1):
        j = int(park_start[k])
        while j < park_start[k + 1]:
            total[k] += park_zones[j]
            j += 2 + int(park_zones[j + 1])
    base = np.zeros(n + 2, np.int32)
    for k in range(1, n + 1):
        base[k + 1] = base[k] + max(0, total[k] - total[k + 1])
    return base


def _pocket_finder(order, reachable, masks, deltas):
    """``pocket(cell, end)``: the cells of ``cell``'s pocket when the run
    that parks it ends at step ``end`` (see :func:`parking_arrays`), or
    just the cell without ``deltas``."""
    if reachable is None or deltas is None:
        return lambda cell, end: {cell}
    at_start = reachable(0)
    goals = {int(g) for g in order}
    n_grid = at_start.shape[0]
    known: dict[tuple[int, int], frozenset[int]] = {}

    def pocket(cell: int, end: int) -> frozenset[int]:
        if (cell, end) not in known:
            shut = masks[end]
            found, stack = {cell}, [cell]
            while stack:
                y = stack.pop()
                for d in deltas:
                    x = y + int(d)
                    if 0 <= x < n_grid and x not in found and at_start[x] != 0 \
                            and shut[x] == 0 and x not in goals:
                        found.add(x)
                        stack.append(x)
            known[cell, end] = frozenset(found)
        return known[cell, end]
    return pocket


def _pockets(cells, ends: dict[int, int], pocket) -> list[tuple[int, list[int]]]:
    """The pockets of one step's parked ``cells``, those that meet merged:
    ``(boxes needed, sorted cells)`` each."""
    groups: list[tuple[int, set[int]]] = []
    for cell in sorted(cells):
        need, zone = 1, set(pocket(cell, ends.get(cell, -1)))
        for other in [g for g in groups if g[1] & zone]:
            groups.remove(other)
            need += other[0]
            zone |= other[1]
        groups.append((need, zone))
    return [(need, sorted(zone)) for need, zone in groups]


def goal_areas(goals, deltas) -> dict[int, int]:
    """Each goal's *goal area*: the goals joined through side-adjacent
    goals (``deltas``: the grid's four steps), numbered from 0."""
    goals = [int(g) for g in goals]
    members = set(goals)
    area: dict[int, int] = {}
    count = 0
    for g in goals:
        if g in area:
            continue
        k = area[g] = count
        count += 1
        todo = [g]
        while todo:
            x = todo.pop()
            for d in deltas:
                y = x + int(d)
                if y in members and y not in area:
                    area[y] = k
                    todo.append(y)
    return area


def split_by_area(order, area_of: dict[int, int]) -> tuple[np.ndarray, np.ndarray]:
    """``order`` regrouped by area (``area_of[goal]``; a goal it does not
    name is in area 0), each area's goals in their plan order, and the end
    of each area's run in the result."""
    runs: dict[int, list[int]] = {}
    for g in order:
        runs.setdefault(area_of.get(int(g), 0), []).append(int(g))
    split = [g for run in runs.values() for g in run]
    ends = np.cumsum([len(run) for run in runs.values()]).astype(np.int32)
    return np.array(split, np.int32), ends
