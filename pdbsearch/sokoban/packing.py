"""The packing order of a level, by a backward search (Festival, JSoko):
the order in which the goals are filled, read from the pull game
(:mod:`.pullgame`: from the solved position, boxes are pulled back to the
squares where boxes start, and taken off there).

The search is FESS itself, on the pull game
(:class:`.pullgame.PullDomain`), for a bounded time; the best position it
reaches (fewest boxes left, then fewer player regions, fewer boxes on
goals, boxes farther from the goals) gives the plan.

**Reading the plan.**  Walk the backward path from the solved position:
the goal a box first leaves at step ``t`` is filled at backward time ``t``,
so forward the goals are filled in *decreasing* ``t``; goals never emptied
on the path come first (deepest goals first).  Each goal, once filled,
stays filled (Festival's permutation form of a plan).
"""

from __future__ import annotations

import time
from collections import deque

import numba as nb
import numpy as np

from ..search.common import EXHAUSTED, RUNNING, SOLVED
from ..search.fess import FessSearch
from .plancuts import box_sources
from .pullgame import PullDomain, PullProblem


def goal_depths(level, goals) -> dict[int, int]:
    """Each goal's distance, through goal cells, to the nearest non-goal
    floor cell (deep goals of a goal room are filled first)."""
    goals = set(goals)
    depth: dict[int, int] = {}
    todo: deque = deque()
    for g in goals:
        if any(n not in goals for n in level.neighbors(g)):
            depth[g] = 1
            todo.append(g)
    while todo:
        g = todo.popleft()
        for n in level.neighbors(g):
            if n in goals and n not in depth:
                depth[n] = depth[g] + 1
                todo.append(n)
    for g in goals:
        depth.setdefault(g, len(goals) + 1)
    return depth


def parked_boxes(first_empty: dict[int, int], boxes_at: list[set[int]],
                 goals) -> dict[int, frozenset[int]]:
    """The boxes a plan keeps *parked* when it fills each goal.

    ``first_empty[g]`` is the step of the backward path at which goal
    ``g`` first loses its box, ``boxes_at[t]`` the boxes after step ``t``.
    Forward, ``g`` is filled in the position just before that step; the
    boxes standing then off the goals already filled for good (the goals
    the path empties at that step or later, and those it never empties)
    have come from their start squares and wait there for their turn: a
    box parked in a pocket that only the goals around it open (Disciple
    20, *The octopus' hole*: three boxes wait behind goals the plan fills
    before theirs).  Most plans park none: the backward path takes each
    box off the board as soon as it can."""
    never = {g for g in goals if g not in first_empty}
    parked: dict[int, frozenset[int]] = {}
    for g, t in first_empty.items():
        final = never | {h for h, th in first_empty.items() if th >= t}
        cells = frozenset(boxes_at[t - 1] - final)
        if cells:
            parked[g] = cells
    return parked


class PackingSearch:
    """The backward search for a packing order, run in slices of time.

    ``step(seconds)`` runs it for about that long and returns True once it
    is over (solved, exhausted, or its ``budget`` of seconds or memory used);
    then :meth:`order` reads the plan.
    """

    def __init__(self, puzzle, budget_seconds: float, memory_bytes: int,
                 block_goal_starts: bool = False):
        self.domain = PullDomain(puzzle, block_goal_starts)
        self.engine = FessSearch(PullProblem(self.domain), None, self.domain)
        self.engine.prepared = True
        self.budget = budget_seconds
        self.memory = memory_bytes
        self.spent = 0.0
        self.outcome = "running"
        self.puzzle = puzzle
        self._parking: dict[int, frozenset[int]] = {}

    def load_kernels(self) -> None:
        """Compile (or load) the pull game's kernels."""
        self.engine._chunk(0)

    def step(self, seconds: float) -> bool:
        """Search for about ``seconds``; True when finished."""
        t0 = time.perf_counter()
        budget = 64
        while time.perf_counter() - t0 < seconds:
            code = self.engine.run(budget)
            if code == SOLVED:
                self.outcome = "solved"
            elif code == EXHAUSTED:
                self.outcome = "exhausted"
            elif code != RUNNING:
                if self.engine.grow_nbytes(code) > self.memory:
                    self.outcome = "memory"
                else:
                    self.engine.grow(code)
            if self.outcome != "running":
                break
            budget = min(budget * 2, 4096)
        self.spent += time.perf_counter() - t0
        if self.outcome == "running" and self.spent >= self.budget:
            self.outcome = "time"
        return self.outcome != "running"

    def order(self) -> tuple[list[int], int]:
        """The goals in packing order, and how many boxes the backward path
        took off the board (0: no plan worth having)."""
        level = self.puzzle.level
        if self.outcome == "solved":
            keys = self.engine.solution_keys()
        else:
            keys = self.engine.best_keys()
        first_empty: dict[int, int] = {}
        removed = 0
        previous = None
        boxes_at = []
        for t, key in enumerate(keys):
            boxes = self.domain.boxes_of(key)
            boxes_at.append(boxes)
            if previous is not None:
                for cell in previous - boxes:
                    if cell in level.goals and cell not in first_empty:
                        first_empty[cell] = t
                if len(boxes) < len(previous):
                    removed += 1
            previous = boxes
        self._parking = parked_boxes(first_empty, boxes_at, level.goals)
        depth = goal_depths(level, level.goals)
        never = sorted((g for g in level.goals if g not in first_empty),
                       key=lambda g: (-depth[g], g))
        emptied = sorted(first_empty, key=lambda g: (-first_empty[g], g))
        return never + emptied, removed

    def parking(self) -> dict[int, frozenset[int]]:
        """After :meth:`order`: for each goal the plan fills, the cells off
        the goals filled by then where boxes already stand (forward) when
        it is filled (:func:`parked_boxes`)."""
        return self._parking

    def describe(self) -> dict:
        """Figures of the backward search."""
        e = self.engine
        return {"packing_outcome": self.outcome, "packing_seconds": round(self.spent, 3),
                "packing_expanded": int(e.stats[0])}


@nb.njit(cache=True)
def oop_zones(inside, dead, deltas, region, order):
    """``zone[k, cell]``: the out-of-plan zone once the first ``k`` goals of
    ``order`` are packed (see :mod:`.plan`)."""
    n_grid = inside.shape[0]
    n = order.shape[0]
    raw = np.zeros((n + 1, n_grid), np.uint8)
    wall = np.zeros(n_grid, np.uint8)
    src = np.zeros(n_grid, np.int64)
    q = np.empty(n_grid, np.int64)
    for k in range(n + 1):
        if k > 0:
            wall[order[k - 1]] = 1
        tag = k + 1
        box_sources(inside, deltas, wall, order[k:], tag, src, q)
        for i in range(region.shape[0]):
            c = region[i]
            if wall[c] == 0 and dead[c] == 0 and src[c] != tag:
                raw[k, c] = 1
    # Each step takes the next different zone, looking no further than two
    # goals from the end (Festival scans steps 0..n-2: the last goal's own
    # approach would otherwise be everyone's zone).
    zone = np.zeros((n + 1, n_grid), np.uint8)
    for k in range(n):
        j = k + 1
        while j <= n - 2:
            same = True
            for i in range(region.shape[0]):
                if raw[j, region[i]] != raw[k, region[i]]:
                    same = False
                    break
            if not same:
                break
            j += 1
        src_row = raw[j] if j <= n - 2 else raw[k]
        for i in range(region.shape[0]):
            zone[k, region[i]] = src_row[region[i]]
    return zone
