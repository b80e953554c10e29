"""The plan's remaining goals reached with its packed boxes as walls
(:mod:`pdbsearch.sokoban.planreach`) against a plain forward search, and
the packed feature it lowers."""

from __future__ import annotations

import numpy as np
import pytest

from pdbsearch.sokoban.features import feature_work
from pdbsearch.sokoban.matching import mask_matching_work
from pdbsearch.sokoban.plan import parking_arrays
from pdbsearch.sokoban.planreach import (NO_SIDE, empty_tables, feasible_packed, parked_at,
                                         plan_reach, plan_tables)
from pdbsearch.sokoban.puzzle import SokobanPuzzle
from pdbsearch.testing.fess import PlanReach
from pdbsearch.testing.fess import feasible_packed as oracle_feasible

from .helpers import goal_heavy_boxes, microban, xsb

#: A corridor of goals filled from one end.
CORRIDOR = """\
##########
#@ $ $ ..#
##########
"""

#: A corridor whose far goal is packed: the box left of the player can
#: only be pushed away from the near goal.
WRONG_SIDE = """\
########
# $@ .*#
########
"""


def tables(level, order):
    puzzle = SokobanPuzzle(level, "pushes", "matching")
    p = puzzle.params
    reach, parts = plan_tables(len(order), len(p.index_cell))
    plan_reach(p.inside, p.deltas, p.index_cell, p.player_index, np.array(order, np.int32),
               feature_work(len(p.inside)), reach, parts)
    return puzzle, reach, parts


def rank_of(puzzle, order):
    ranks = np.full(puzzle.params.inside.shape[0], -1, np.int32)
    ranks[order] = np.arange(len(order), dtype=np.int32)
    return ranks


def feasible(puzzle, reach, parts, ranks, boxes, player, packed, moved_from=-1, moved_to=-1):
    """:func:`feasible_packed` with its scratch."""
    arr = np.array(boxes, np.int32)
    return feasible_packed(reach, parts, ranks, puzzle.params.player_index, arr, len(arr),
                           player, packed, moved_from, moved_to, np.zeros(len(arr), np.uint64),
                           mask_matching_work(), *parking_arrays(ranks[ranks >= 0], {}),
                           np.zeros(len(ranks), np.uint8))


def level_of(text):
    return microban(int(text.split()[1])) if text.startswith("microban") else xsb(text)


@pytest.mark.parametrize("text", [CORRIDOR, WRONG_SIDE, "microban 3", "microban 36",
                                  "microban 93"])
def test_the_tables_match_a_forward_search_for_every_prefix(text):
    """For every prefix, box cell and player cell: the side ``parts``
    names is one the player walks to (the smallest), and the goals under
    it are those a forward search from the player's cell reaches."""
    level = level_of(text)
    rng = np.random.default_rng(len(text))
    for _ in range(2):
        order = [int(g) for g in rng.permutation(sorted(level.goals))]
        puzzle, reach, parts = tables(level, order)
        oracle = PlanReach(level, order)
        region = puzzle.params.index_cell.tolist()
        w = level.width
        for k in range(len(order) + 1):
            walls = set(order[:k])
            for i, cell in enumerate(region):
                if cell in walls:
                    continue
                for x, player in enumerate(region):
                    part = oracle.part(k, cell, player)
                    sides = [d for d, step in enumerate((-1, -w, 1, w)) if cell + step in part]
                    side = int(parts[k, i, x])
                    assert side == (sides[0] if sides else NO_SIDE), (k, cell, player)
                    # A box on a goal still to fill reaches it, pushed or not.
                    got = {order.index(cell)} if cell in order[k:] else set()
                    if side != NO_SIDE:
                        got |= {j for j in range(len(order)) if int(reach[k, i, side]) >> j & 1}
                    assert got == set(oracle.goals(k, cell, player)), (k, cell, player)


@pytest.mark.parametrize("text", [CORRIDOR, "microban 36", "microban 93", "microban 105"])
def test_the_feasible_count_matches_the_definition(text):
    level = level_of(text)
    rng = np.random.default_rng(7 + len(text))
    puzzle = SokobanPuzzle(level, "pushes", "matching")
    lowered = 0
    for _ in range(3):
        order = [int(g) for g in rng.permutation(sorted(level.goals))]
        _, reach, parts = tables(level, order)
        oracle = PlanReach(level, order)
        ranks = rank_of(puzzle, order)
        for _ in range(30):
            boxes = sorted(goal_heavy_boxes(level, rng, puzzle.dead_squares))
            free = sorted(set(level.playable_cells()) - set(boxes))
            player = free[rng.integers(len(free))]
            packed = next((k for k, g in enumerate(order) if g not in boxes), len(order))
            want = oracle_feasible(oracle, boxes, player)
            assert feasible(puzzle, reach, parts, ranks, boxes, player, packed) == want
            # The same position given as a move of one of its boxes.
            moved = [-7] + boxes[1:]
            assert feasible(puzzle, reach, parts, ranks, moved, player, packed,
                            -7, boxes[0]) == want
            lowered += want < packed
    assert lowered > 0   # the sample reaches the case the count is for


def test_a_goal_walled_off_by_the_plan_is_not_counted_as_progress():
    """The corridor filled from the near end: the box on the near goal
    leaves the far goal no way in, so its packing counts for nothing;
    filled from the far end, it counts."""
    level = xsb(CORRIDOR)
    w = level.width
    near, far, outside = w + 7, w + 8, w + 3
    for order, boxes, want in (([near, far], [outside, near], 0),
                               ([far, near], [outside, far], 1)):
        puzzle, reach, parts = tables(level, order)
        assert feasible(puzzle, reach, parts, rank_of(puzzle, order), boxes, level.player,
                        1) == want


def test_where_the_player_stands_counts():
    """WRONG_SIDE: the player right of the last box can only push it away
    from the last goal, so the packed far goal counts for nothing; with
    the player left of it, it counts."""
    level = xsb(WRONG_SIDE)
    w = level.width
    box, far, near = w + 2, w + 6, w + 5
    order = [far, near]
    puzzle, reach, parts = tables(level, order)
    ranks = rank_of(puzzle, order)
    assert feasible(puzzle, reach, parts, ranks, [box, far], w + 3, 1) == 0
    assert feasible(puzzle, reach, parts, ranks, [box, far], w + 1, 1) == 1


def test_boxes_that_cannot_share_the_goals_out_do_not_count():
    """A table made by hand: goal 0 packed; the boxes on cells 1 and 2
    reach only goal 1, the box on cell 3 goals 1 to 3.  Every box reaches
    a goal and every goal a box (Hall's condition for single ones), yet no
    matching gives each box a goal of its own: nothing counts."""
    n_region = 5   # region cell i is grid cell i; the player stands on 4
    reach = np.zeros((5, n_region, 4), np.uint64)
    parts = np.full((5, n_region, n_region), NO_SIDE, np.int8)
    parts[:, :, 4] = 0
    reach[1, 1, 0] = reach[1, 2, 0] = 0b0010
    reach[1, 3, 0] = 0b1110
    ranks = np.array([0, -1, -1, -1, -1], np.int32)
    index = np.arange(n_region, dtype=np.int32)
    boxes = np.array([0, 1, 2, 3], np.int32)

    def count():
        return feasible_packed(reach, parts, ranks, index, boxes, 4, 4, 1, -1, -1,
                               np.zeros(4, np.uint64), mask_matching_work(),
                               *parking_arrays([0, 1, 2, 3], {}), np.zeros(5, np.uint8))

    assert count() == 0
    reach[1, 2, 0] = 0b0110   # the second box may take goal 2 now
    assert count() == 1


@pytest.mark.parametrize("table", [True, False])
def test_a_prefix_packed_before_the_boxes_it_parks_does_not_count(table):
    """Two goals on cells 0 and 1 (plan order), every box reaching every
    goal; step 1 parks a box on cell 3.  With a box there the first goal
    counts; with the box on cell 2 the matching alone would count it, the
    parking does not (with the table, or without: then only the parking
    lowers the count)."""
    n_region = 5
    reach = np.zeros((3, n_region, 4), np.uint64)
    parts = np.full((3, n_region, n_region), NO_SIDE, np.int8)
    parts[:, :, 4] = 0
    reach[1, :, 0] = 0b10
    if not table:
        reach, parts = empty_tables()
    ranks = np.array([0, 1, -1, -1, -1], np.int32)
    index = np.arange(n_region, dtype=np.int32)
    park = parking_arrays([0, 1], {0: frozenset({3})})

    def count(other):
        boxes = np.array([0, other], np.int32)
        occ = np.zeros(n_region, np.uint8)
        occ[boxes] = 1
        return feasible_packed(reach, parts, ranks, index, boxes, 2, 4, 1, -1, -1,
                               np.zeros(2, np.uint64), mask_matching_work(), *park, occ)

    assert count(3) == 1
    assert count(2) == 0


def test_the_table_is_off_for_plans_it_cannot_hold():
    """Empty tables leave the packed count as it is (a plan of the level's
    goals, parking nothing)."""
    level = microban(3)
    puzzle = SokobanPuzzle(level, "pushes", "matching")
    reach, parts = empty_tables()
    ranks = rank_of(puzzle, sorted(level.goals))
    assert feasible(puzzle, reach, parts, ranks, sorted(level.boxes), level.player, 2) == 2


def test_a_step_past_the_plan_parks_nothing():
    """The parking arrays hold one row per step of the plan; a count asked
    beyond it reads nothing past them (it once read out of bounds, and the
    test process crashed now and then)."""
    start, cells = parking_arrays([], {})
    assert parked_at(start, cells, np.zeros(4, np.uint8), 3)
    start, cells = parking_arrays([5, 6], {5: frozenset({2})})
    occ = np.zeros(8, np.uint8)
    assert not parked_at(start, cells, occ, 1)
    occ[2] = 1
    assert parked_at(start, cells, occ, 1) and parked_at(start, cells, occ, 2)
