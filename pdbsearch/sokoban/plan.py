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
:func:`parking_arrays`); a prefix counts only with its parked boxes in
place (:func:`.planreach.feasible_packed`), and each box parked counts
as progress too (:func:`parking_base`): a plan that parks four boxes
before its first goal (MasterHead 16) otherwise leaves the count at zero
in every position until all four stand in place.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from ..byref import by_reference
from .matching import mask_matching_work
from .plancuts import empty_cutoffs
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
    #: int32[goals + 2]: the cells parked when ``k`` goals are packed are
    #: ``park_cells[park_start[k] : park_start[k + 1]]`` (:func:`parking_arrays`)
    park_start: np.ndarray
    park_cells: np.ndarray  #: int32: the parked cells, step by step
    #: int32[goals + 2]: the parked boxes the plan has moved onto goals
    #: before step ``k`` (:func:`parking_base`)
    park_base: np.ndarray
    #: uint8[goals, goals, region]: when a box on goal ``j`` cuts goal
    #: ``m`` off some of its approaches, the cells that still reach it
    #: (:mod:`.plancuts`; empty: off)
    cut_sources: np.ndarray


def naive_plan(n_goals: int, n_grid: int) -> PlanParams:
    """No order: packed = boxes on goals, no OOP zones."""
    return PlanParams(1, np.zeros(n_goals, np.int32), np.zeros((n_goals + 1, n_grid), np.uint8),
                      np.zeros(n_goals, np.int32), np.full(1, n_goals, np.int32),
                      np.full(n_grid, -1, np.int32), *empty_tables(),
                      np.zeros(n_goals, np.uint64), mask_matching_work(),
                      *parking_arrays(np.zeros(n_goals, np.int32), {}),
                      np.zeros(n_goals + 2, np.int32), empty_cutoffs())


def parking_arrays(order, parking: dict[int, frozenset[int]],
                   reachable=None) -> tuple[np.ndarray, np.ndarray]:
    """``(park_start, park_cells)`` of a plan: step ``k`` (the first ``k``
    goals of ``order`` packed) parks the cells ``parking`` gives the
    ``k``-th goal (:meth:`.packing.PackingSearch.parking`).

    A box the backward path happened to leave on a cell a while is not
    always one that must wait there: ``reachable(k)`` (a mask over the
    cells) tells where a box from a start square can still be pushed with
    the first ``k`` goals as walls, and a cell is kept over a run of steps
    that park it only if some step of the run shuts it off, so that its
    box must have come before.  Each step walls up more, so that is the
    run's last step."""
    n = len(order)
    steps = [set(parking.get(int(order[k - 1]), ())) for k in range(1, n + 1)]
    if reachable is not None:
        masks: dict[int, np.ndarray] = {}
        for k in range(1, n + 1):
            for cell in list(steps[k - 1]):
                end = k
                while end < n and cell in steps[end]:
                    end += 1
                if end not in masks:
                    masks[end] = reachable(end)
                if masks[end][cell] != 0:
                    steps[k - 1].discard(cell)
    start = np.zeros(n + 2, np.int32)
    cells: list[int] = []
    for k in range(1, n + 1):
        cells.extend(sorted(steps[k - 1]))
        start[k + 1] = len(cells)
    return start, np.array(cells, np.int32)


def parking_base(park_start) -> np.ndarray:
    """``base[k]``: the parked boxes the plan has moved onto goals before
    step ``k`` (a step that parks fewer boxes than the one before filled
    its goal with the difference).  The packed feature counts them, and
    the boxes on the cells the next step parks, as progress
    (:func:`.planreach.parking_credit`): the count grows by one a box
    parked or a goal packed, along the plan."""
    start = np.asarray(park_start, np.int64)
    parked = np.diff(start, append=start[-1])   # parked[k]: cells of step k (0 past the plan)
    base = np.zeros(len(start), np.int32)
    base[2:] = np.cumsum(np.maximum(0, parked[1:-1] - parked[2:]))
    return base


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
