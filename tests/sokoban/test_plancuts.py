"""Boxes on later goals of the plan that cut off its next goal
(:mod:`pdbsearch.sokoban.plancuts`) against the plain definition, and the
hotspot feature that counts them."""

from __future__ import annotations

import numpy as np
import pytest

from pdbsearch.sokoban.features import feature_work
from pdbsearch.sokoban.plancuts import blockers, cutoff_tables, goal_cutoffs
from pdbsearch.sokoban.planreach import plan_reach, plan_tables
from pdbsearch.sokoban.puzzle import SokobanPuzzle
from pdbsearch.testing.fess import PlanReach, plan_blockers

from .helpers import goal_heavy_boxes, microban, xsb

#: A room with a dead-end shaft of two goals below it: the far (bottom)
#: one must be filled first, since a box on the near one cuts it off.  A
#: box pushed up out of the shaft ends against the top wall, where no
#: push brings it back down.
ROOM = """\
#######
#     #
#@ $$ #
####.##
####.##
#######
"""


def cell(level, x, y):
    return y * level.width + x


def tables(level, order):
    """The puzzle, the tables :func:`blockers` reads (the cut-offs and the
    plan's :mod:`.planreach` table) and each goal's place in ``order``."""
    puzzle = SokobanPuzzle(level, "pushes", "matching")
    p = puzzle.params
    arr = np.array(order, np.int32)
    sources = cutoff_tables(len(order), len(p.index_cell))
    goal_cutoffs(p.inside, p.deltas, p.index_cell, arr, sources)
    reach, parts = plan_tables(len(order), len(p.index_cell))
    plan_reach(p.inside, p.deltas, p.index_cell, p.player_index, arr,
               feature_work(len(p.inside)), reach, parts)
    ranks = np.full(p.inside.shape[0], -1, np.int32)
    ranks[order] = np.arange(len(order), dtype=np.int32)
    return puzzle, (sources, reach, parts, arr), ranks


def count(puzzle, tables_, ranks, order, boxes, player, moved_from=-1, moved_to=-1):
    """:func:`blockers` of a position, its packed prefix read from ``order``."""
    placed = set(boxes) - {moved_from} | ({moved_to} if moved_to >= 0 else set())
    packed = next((k for k, g in enumerate(order) if g not in placed), len(order))
    arr = np.array(boxes, np.int32)
    return blockers(*tables_, ranks, puzzle.params.player_index, arr, len(arr), player, packed,
                    moved_from, moved_to)


def test_a_box_on_the_near_goal_of_a_dead_end_blocks_the_far_one():
    """With the player shut in behind it, in the shaft; from the room he
    pushes it on to the far goal, and it is on its way, not in the way."""
    level = xsb(ROOM)
    near, far, box = cell(level, 4, 3), cell(level, 4, 4), cell(level, 3, 2)
    room = cell(level, 1, 2)
    assert {near, far} == set(level.goals)
    for order, blocked in (([far, near], 1), ([near, far], 0)):
        puzzle, tables_, ranks = tables(level, order)
        oracle = PlanReach(level, order)
        assert count(puzzle, tables_, ranks, order, [box, near], far) == blocked
        assert plan_blockers(oracle, [box, near], far) == blocked
        assert count(puzzle, tables_, ranks, order, [box, near], room) == 0
        assert plan_blockers(oracle, [box, near], room) == 0
        # No box on a goal: nothing in the way.
        off = cell(level, 4, 2)   # above the shaft
        assert count(puzzle, tables_, ranks, order, [box, off], room) == 0
    # Filled in the plan's order, the far goal first: no blocker either.
    puzzle, tables_, ranks = tables(level, [far, near])
    assert count(puzzle, tables_, ranks, [far, near], [box, far], near) == 0


@pytest.mark.parametrize("number", [3, 36, 93, 105, 150])
def test_the_count_matches_the_definition(number):
    """Random plans and positions with many boxes on goals, also given as
    the move of one box, against :func:`plan_blockers`."""
    level = microban(number)
    rng = np.random.default_rng(number)
    seen = 0
    for _ in range(4):
        order = [int(g) for g in rng.permutation(sorted(level.goals))]
        puzzle, tables_, ranks = tables(level, order)
        oracle = PlanReach(level, order)
        for _ in range(40):
            boxes = sorted(goal_heavy_boxes(level, rng, puzzle.dead_squares))
            free = sorted(set(level.playable_cells()) - set(boxes))
            player = free[rng.integers(len(free))]
            want = plan_blockers(oracle, boxes, player)
            assert count(puzzle, tables_, ranks, order, boxes, player) == want, (order, boxes)
            moved = [-7] + boxes[1:]
            assert count(puzzle, tables_, ranks, order, moved, player, -7, boxes[0]) == want
            seen += want
    assert seen > 0   # the sample reaches the case the count is for


def test_the_hotspot_feature_counts_the_blocker():
    """Through FESS's expansion (the position's own features): a box on
    the shaft's near goal with the player shut in behind it counts one
    hotspot more than with the player in the room."""
    from pdbsearch.search.result import Limits
    from pdbsearch.sokoban.features import HOTSPOTS
    from pdbsearch.sokoban.fess import SokobanFessDomain

    from .test_fess_macros import fess_children

    level = xsb(ROOM)
    puzzle = SokobanPuzzle(level, "pushes", "matching")
    domain = SokobanFessDomain(puzzle, Limits())
    while not domain.prepare(1.0):
        pass
    near, far, box = cell(level, 4, 3), cell(level, 4, 4), cell(level, 3, 2)
    room = cell(level, 1, 2)
    assert domain.params.plan.order.tolist() == [far, near]
    hot = {}
    for player in (far, room):
        _children, info = fess_children(domain, puzzle.key_of(frozenset({box, near}), player))
        hot[player] = int(info[1 + HOTSPOTS])
    assert hot[far] == hot[room] + 1
