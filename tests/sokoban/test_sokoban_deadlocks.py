"""Each deadlock and pruning rule on hand-made positions, including
positions that look dead but are not (goals inside, boxes on goals)."""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import pytest

from pdbsearch.search import Status, solve
from pdbsearch.testing.sokoban import bfs_min_pushes
from pdbsearch.sokoban.deadlocks import (DEADLOCK, NO_RULE, RESTRICT,
                                         corral_restriction, freeze_deadlock,
                                         tunnel_restriction)
from pdbsearch.sokoban.puzzle import Rules, SokobanPuzzle
from pdbsearch.sokoban.tables import pull_distances, region_cells, tunnel_axes

from .helpers import ONLY_FREEZE, kernel_successors, xsb


def _occupancy(puzzle, boxes):
    occ = np.zeros_like(puzzle.params.work.occ)
    occ[sorted(boxes)] = 1
    return occ


def frozen(text: str, row: int, col: int, rules: Rules = ONLY_FREEZE) -> bool:
    """Does the freeze rule call the start position dead, for the box at
    (row, col) as the one just pushed?"""
    level = xsb(text)
    p = SokobanPuzzle(level, rules=rules, heuristic="matching").params
    occ = _occupancy(SokobanPuzzle(level, rules=rules, heuristic="matching"), level.boxes)
    return bool(freeze_deadlock(level.cell(row, col), occ, p.inside, p.goal, p.dead, p.width,
                                p.work.frozen, 1, p.work.stack))


def _area(level, puzzle):
    area = np.zeros(puzzle.params.work.occ.shape[0], dtype=np.int64)
    area[sorted(level.reachable())] = 1
    return area


def corral(text: str) -> tuple[int, set[int]]:
    """The corral verdict on the start position and the allowed targets."""
    level = xsb(text)
    puzzle = SokobanPuzzle(level, heuristic="matching")
    p = puzzle.params
    n = p.work.occ.shape[0]
    occ = _occupancy(puzzle, level.boxes)
    label = np.zeros(n, dtype=np.int64)
    boxes = np.array(sorted(level.boxes), dtype=np.int32)
    verdict, lo, hi = corral_restriction(
        boxes, len(boxes), occ, p.inside, p.goal, p.dead, p.width, _area(level, puzzle), 1,
        label, np.zeros(1, np.int64), 0, np.zeros(n, np.int64), np.zeros(n, np.int32),
        np.zeros(len(boxes), np.int32), np.zeros(len(boxes), np.int32))
    targets = {c for c in range(n) if verdict == RESTRICT and lo <= label[c] <= hi
               and not occ[c]}
    return int(verdict), targets


def tunnel(text: str) -> tuple[int, int, int]:
    """The tunnel verdict on the start position: (verdict, box cell, step)."""
    level = xsb(text)
    puzzle = SokobanPuzzle(level, heuristic="matching")
    p = puzzle.params
    boxes = np.array(sorted(level.boxes), dtype=np.int32)
    verdict, box, step = tunnel_restriction(boxes, len(boxes), _occupancy(puzzle, level.boxes),
                                            p.goal, p.dead, p.tunnel, p.width,
                                            _area(level, puzzle), 1)
    return int(verdict), int(box), int(step)


def optimum(text: str, rules: Rules = Rules(), heuristic: str = "matching"):
    """(status, cost, expanded) of an A* search with the given rules."""
    result = solve(SokobanPuzzle(xsb(text), heuristic=heuristic, rules=rules), "astar")
    return result.status, result.cost, result.expanded


# -- dead squares -------------------------------------------------------------

ROOM = """\
#######
#     #
# $ . #
#@    #
#######
"""


def live_cells(text: str) -> set[tuple[int, int]]:
    level = xsb(text)
    dead = SokobanPuzzle(level, heuristic="matching").dead_squares
    return {level.row_col(c) for c in level.playable_cells() - dead}


def test_dead_squares_are_the_cells_no_pull_reaches():
    # Goal in the middle: a box on any wall side can only slide along it.
    assert live_cells(ROOM) == {(2, 2), (2, 3), (2, 4)}
    # Goal on the top wall: that side is live up to its corners, and so
    # are the cells from which a box can be pushed up onto it.
    on_wall = ROOM.replace("#     #", "#   . #", 1).replace("# $ . #", "# $   #")
    assert live_cells(on_wall) == {(1, 2), (1, 3), (1, 4), (2, 2), (2, 3), (2, 4)}


def test_no_push_onto_a_dead_square():
    level = xsb(ROOM)
    on = kernel_successors(SokobanPuzzle(level, heuristic="matching"), level.boxes, level.player)
    off = kernel_successors(SokobanPuzzle(level, rules=Rules(dead_squares=False), heuristic="matching"),
                            level.boxes, level.player)
    up = level.cell(1, 2)   # pushing the box up puts it against the top wall: dead
    assert all(up not in boxes for boxes, *_ in on)
    assert any(up in boxes for boxes, *_ in off)


# -- freeze deadlocks ---------------------------------------------------------

BLOCK = """\
#########
#@      #
# $$    #
# $$    #
#    ...#
#      .#
#########
"""

BLOCK_ON_GOALS = """\
#########
#@      #
# **    #
# **    #
#    $. #
#########
"""

PAIR_ON_WALL = """\
########
#  $$..#
#@     #
########
"""

PAIR_ON_WALL_GOALS = """\
#########
#  **   #
#@   $. #
#########
"""

CHAIN = """\
########
#@     #
#  #   #
#  $$ .#
#   $# #
#  ..  #
########
"""

NOT_A_CHAIN = """\
########
#@     #
#  #   #
#  $$ .#
#      #
#  .   #
########
"""


def test_two_by_two_block_off_goals_is_frozen():
    for row, col in ((2, 2), (2, 3), (3, 2), (3, 3)):
        assert frozen(BLOCK, row, col)


def test_two_by_two_block_on_goals_is_not_a_deadlock():
    assert not frozen(BLOCK_ON_GOALS, 2, 2)
    status, cost, _ = optimum(BLOCK_ON_GOALS)
    assert status is Status.SOLVED and cost == bfs_min_pushes(xsb(BLOCK_ON_GOALS)) == 1


def test_two_boxes_side_by_side_on_a_wall_are_frozen():
    assert frozen(PAIR_ON_WALL, 1, 4)
    assert frozen(PAIR_ON_WALL, 1, 3)


def test_a_frozen_pair_on_goals_is_fine():
    assert not frozen(PAIR_ON_WALL_GOALS, 1, 3)
    status, cost, _ = optimum(PAIR_ON_WALL_GOALS)
    assert status is Status.SOLVED and cost == 1


def test_frozen_chain_across_both_axes():
    # Box (3,3) is held by the wall above and box (3,4); (3,4) by (3,3) and
    # (4,4); (4,4) by (3,4) and the wall on its right: none can ever move.
    assert frozen(CHAIN, 3, 4)
    assert frozen(CHAIN, 4, 4)


def test_chain_with_a_free_box_is_not_frozen():
    assert not frozen(NOT_A_CHAIN, 3, 3)
    assert not frozen(NOT_A_CHAIN, 3, 4)


def test_both_sides_dead_blocks_an_axis():
    # The box against the top wall cannot move up or down; left and right of
    # it are dead squares (top wall, no goal there), so with the dead-square
    # rule it is frozen, and without it it is not.
    text = """\
#######
#  $  #
#@  . #
#######
"""
    with_dead = Rules(dead_squares=True, freeze=True, corral=False, tunnels=False)
    assert frozen(text, 1, 3, with_dead)
    assert not frozen(text, 1, 3, ONLY_FREEZE)


# -- corrals ------------------------------------------------------------------

SEALED_ROW = """\
#######
#.    #
###$###
#  @  #
#  $ .#
#######
"""

SEALED_ROW_AFTER_PUSH = """\
#######
#. $  #
###@###
#     #
#  $ .#
#######
"""

SEALED_ROOM = """\
#######
#.    #
#     #
###$###
#  @  #
#######
"""

SEALED_BY_A_SOLVED_BOX = """\
#######
#     #
###*###
#@ $. #
#     #
#######
"""


def test_pi_corral_allows_only_pushes_into_it():
    verdict, targets = corral(SEALED_ROW)
    level = xsb(SEALED_ROW)
    assert verdict == RESTRICT
    assert targets == {level.cell(1, c) for c in range(1, 6)}
    # In the search: the only successor pushes the sealing box up.
    successors = kernel_successors(SokobanPuzzle(level, heuristic="matching"), level.boxes, level.player)
    assert {code for *_, code in successors} == {level.cell(2, 3) * 4 + 1}


def test_corral_split_by_its_own_box_is_a_deadlock():
    # The box that entered the top row cuts it in two; neither half is a
    # PI-corral alone, but their union is, and no push can open it.
    verdict, _ = corral(SEALED_ROW_AFTER_PUSH)
    assert verdict == DEADLOCK
    status, _, expanded = optimum(SEALED_ROW, heuristic="zero")
    assert status is Status.UNSOLVABLE and expanded <= 2
    assert bfs_min_pushes(xsb(SEALED_ROW)) is None


def test_corral_with_a_goal_inside_is_solved_optimally():
    verdict, _ = corral(SEALED_ROOM)
    assert verdict == RESTRICT
    status, cost, _ = optimum(SEALED_ROOM)
    assert status is Status.SOLVED and cost == bfs_min_pushes(xsb(SEALED_ROOM)) == 4


def test_corral_needing_no_work_is_left_alone():
    # The box sealing the empty room is on its goal and the room has no
    # goal: nothing needs to happen there.
    verdict, _ = corral(SEALED_BY_A_SOLVED_BOX)
    assert verdict == NO_RULE
    status, cost, _ = optimum(SEALED_BY_A_SOLVED_BOX)
    assert status is Status.SOLVED and cost == 1


def test_corral_rule_saves_work_on_a_dead_level():
    # (The player-aware bound sees this dead end by itself: without a bound.)
    with_rule = optimum(SEALED_ROW, heuristic="zero")
    without = optimum(SEALED_ROW, Rules(corral=False), heuristic="zero")
    assert with_rule[0] is without[0] is Status.UNSOLVABLE
    assert with_rule[2] < without[2]


# -- tunnels ------------------------------------------------------------------

TUNNEL = """\
##########
#    #   #
#   @$.  #
#    #   #
##########
"""

TUNNEL_BLOCKED = """\
##########
#    #   #
#   @$$. #
#    #  .#
##########
"""

TUNNEL_GOAL = """\
##########
#    #   #
#@$. *   #
#    #   #
##########
"""


def test_tunnel_cells():
    level = xsb(TUNNEL)
    axes = tunnel_axes(level, region_cells(level))
    assert {level.row_col(int(c)) for c in np.flatnonzero(axes)} == {(2, 5)}
    assert axes[level.cell(2, 5)] == 1   # along the row


def test_the_boards_tables_kept_for_a_board_are_its_own_and_copies():
    """pull_distances and tunnel_axes keep a few boards' tables: a board
    with the same cells and other goals gets its own, and a caller that
    writes into its copy changes no other caller's."""
    level, other = xsb(TUNNEL), xsb(TUNNEL_GOAL)
    region = region_cells(level)
    first = pull_distances(level, region)
    first[:] = 0
    again = pull_distances(level, region)
    assert (again != 0).any()
    assert region_cells(other) == region and sorted(other.goals) != sorted(level.goals)
    assert not np.array_equal(pull_distances(other, region), again)
    axes = tunnel_axes(level, region)
    axes[:] = 0
    assert tunnel_axes(level, region).any()


def test_tunnel_box_is_pushed_on():
    level = xsb(TUNNEL)
    assert tunnel(TUNNEL) == (RESTRICT, level.cell(2, 5), 1)
    status, cost, _ = optimum(TUNNEL)
    assert status is Status.SOLVED and cost == 1


def test_tunnel_box_that_cannot_go_on_is_a_deadlock():
    assert tunnel(TUNNEL_BLOCKED)[0] == DEADLOCK
    assert bfs_min_pushes(xsb(TUNNEL_BLOCKED)) is None
    assert optimum(TUNNEL_BLOCKED)[0] is Status.UNSOLVABLE


def test_tunnel_box_on_a_goal_may_stay():
    assert tunnel(TUNNEL_GOAL)[0] == NO_RULE
    status, cost, _ = optimum(TUNNEL_GOAL)
    assert status is Status.SOLVED and cost == 1


# -- every rule keeps the optimum ------------------------------------------------

ALL_OFF = Rules.none()


@pytest.mark.parametrize("rules", [Rules(), ALL_OFF, Rules(dead_squares=False),
                                   Rules(freeze=False), Rules(corral=False),
                                   Rules(tunnels=False), Rules(tunnel_macros=False),
                                   Rules(diagonal=False), Rules(learning=False),
                                   replace(Rules.none(), tunnel_macros=True),
                                   replace(Rules.none(), diagonal=True),
                                   replace(Rules.none(), learning=True)],
                         ids=lambda r: r.describe())
@pytest.mark.parametrize("text", [SEALED_ROOM, TUNNEL, TUNNEL_GOAL, BLOCK_ON_GOALS,
                                  PAIR_ON_WALL_GOALS, SEALED_BY_A_SOLVED_BOX])
def test_rules_keep_the_optimum_on_hand_made_levels(rules, text):
    status, cost, _ = optimum(text, rules)
    assert status is Status.SOLVED and cost == bfs_min_pushes(xsb(text))
