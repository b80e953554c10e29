"""The plan's remaining goals reached with its packed boxes as walls
(:mod:`pdbsearch.sokoban.planreach`) against a plain forward search, and
the packed feature it lowers."""

from __future__ import annotations

import numpy as np
import pytest

from pdbsearch.sokoban.features import feature_work
from pdbsearch.sokoban.matching import mask_matching_work
from pdbsearch.sokoban.planreach import feasible_packed, plan_reach
from pdbsearch.sokoban.puzzle import SokobanPuzzle
from pdbsearch.testing.fess import feasible_packed as oracle_feasible
from pdbsearch.testing.fess import plan_goals_reached

from .helpers import goal_heavy_boxes, microban, xsb

#: A corridor of goals filled from one end.
CORRIDOR = """\
##########
#@ $ $ ..#
##########
"""


#: Two rooms joined by a door that is the plan's first goal: with the door
#: packed, the box inside the right room reaches both of its goals, and the
#: two boxes of the left room only the one goal there.
DOOR = """\
#########
#@  #   #
# $$*.$.#
#  .#   #
#########
"""


def feasible(table, ranks, puzzle, arr, packed, moved_from=-1, moved_to=-1):
    """:func:`feasible_packed` with its scratch."""
    return feasible_packed(table, ranks, puzzle.params.player_index, arr, len(arr), packed,
                           moved_from, moved_to, np.zeros(len(arr), np.uint64),
                           mask_matching_work())


def reach_table(level, order):
    puzzle = SokobanPuzzle(level, "pushes", "matching")
    p = puzzle.params
    table = np.zeros((len(order) + 1, len(p.index_cell)), np.uint64)
    plan_reach(p.inside, p.deltas, p.index_cell, p.player_index, np.array(order, np.int32),
               feature_work(len(p.inside)), table)
    return puzzle, table


def rank_of(puzzle, order):
    ranks = np.full(puzzle.params.inside.shape[0], -1, np.int32)
    ranks[order] = np.arange(len(order), dtype=np.int32)
    return ranks


@pytest.mark.parametrize("text", [CORRIDOR, "microban 3", "microban 36", "microban 93",
                                  "microban 105"])
def test_the_table_matches_a_forward_search_for_every_prefix(text):
    level = microban(int(text.split()[1])) if text.startswith("microban") else xsb(text)
    rng = np.random.default_rng(len(text))
    for _ in range(2):
        order = [int(g) for g in rng.permutation(sorted(level.goals))]
        puzzle, table = reach_table(level, order)
        region = puzzle.params.index_cell.tolist()
        for k in range(len(order) + 1):
            want = plan_goals_reached(level, order, k)
            for i, cell in enumerate(region):
                got = {j for j in range(len(order)) if int(table[k, i]) >> j & 1}
                assert got == set(want.get(cell, ())), (k, cell)


@pytest.mark.parametrize("text", [CORRIDOR, "microban 36", "microban 93", "microban 105"])
def test_the_feasible_count_matches_the_definition(text):
    level = microban(int(text.split()[1])) if text.startswith("microban") else xsb(text)
    rng = np.random.default_rng(7 + len(text))
    puzzle = SokobanPuzzle(level, "pushes", "matching")
    lowered = 0
    for _ in range(3):
        order = [int(g) for g in rng.permutation(sorted(level.goals))]
        _, table = reach_table(level, order)
        reached = [plan_goals_reached(level, order, k) for k in range(len(order) + 1)]
        ranks = rank_of(puzzle, order)
        for _ in range(30):
            boxes = goal_heavy_boxes(level, rng, puzzle.dead_squares)
            arr = np.array(sorted(boxes), np.int32)
            packed = next((k for k, g in enumerate(order) if g not in boxes), len(order))
            want = oracle_feasible(level, order, boxes, reached)
            got = feasible(table, ranks, puzzle, arr, packed)
            assert got == want, (sorted(boxes), order)
            # The same position given as a move of one of its boxes.
            moved = int(arr[0])
            arr[0] = -7
            assert feasible(table, ranks, puzzle, arr, packed, -7, moved) == want
            lowered += want < packed
    assert lowered > 0   # the sample reaches the case the count is for


def test_a_goal_walled_off_by_the_plan_is_not_counted_as_progress():
    """The corridor filled from the near end: the box on the near goal
    leaves the far goal no way in, so its packing counts for nothing;
    filled from the far end, it counts."""
    level = xsb(CORRIDOR)
    w = level.width
    near, far, outside = w + 7, w + 8, w + 3
    for order, boxes, want in (([near, far], {near, outside}, 0),
                               ([far, near], {far, outside}, 1)):
        puzzle, table = reach_table(level, order)
        arr = np.array(sorted(boxes), np.int32)
        assert feasible(table, rank_of(puzzle, order), puzzle, arr, 1) == want


def test_boxes_that_every_goal_sees_but_that_cannot_share_them_out_do_not_count():
    """DOOR: every box reaches a goal and every goal a box, yet the left
    room's two boxes share its one goal: the door packed first counts for
    nothing (Hall's condition for single boxes and goals would keep it)."""
    level = xsb(DOOR)
    w = level.width
    door, left_goal, right_goals = 2 * w + 4, 3 * w + 3, [2 * w + 5, 2 * w + 7]
    order = [door, *right_goals, left_goal]
    puzzle, table = reach_table(level, order)
    reached = plan_goals_reached(level, order, 1)
    assert {place for goals in reached.values() for place in goals} == {1, 2, 3}
    assert all(reached[b] for b in level.boxes if b != door)
    arr = np.array(sorted(level.boxes), np.int32)
    assert feasible(table, rank_of(puzzle, order), puzzle, arr, 1) == 0
    assert oracle_feasible(level, order, level.boxes, [None, reached]) == 0


def test_the_table_is_off_for_plans_it_cannot_hold():
    """An empty table leaves the packed count as it is."""
    level = microban(3)
    puzzle = SokobanPuzzle(level, "pushes", "matching")
    arr = np.array(sorted(level.boxes), np.int32)
    assert feasible(np.zeros((0, 0), np.uint64), np.full(1, -1, np.int32), puzzle, arr, 2) == 2
