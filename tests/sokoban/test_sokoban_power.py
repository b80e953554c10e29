"""Tunnel macros, closed diagonal deadlocks and learned deadlock patterns,
each against a plain-Python definition or oracle on small positions."""

from __future__ import annotations

from dataclasses import replace

import numba as nb
import numpy as np
import pytest

from pdbsearch.puzzle import DEAD
from pdbsearch.pdb.learned import stored_patterns
from pdbsearch.search import Status, solve
from pdbsearch.search.common import evaluate_heuristic
from pdbsearch.sokoban import check_solution
from pdbsearch.sokoban.deadlocks import closed_diagonal_deadlock
from pdbsearch.sokoban.kernels import MACRO_BASE, MOVE_BASE
from pdbsearch.sokoban.learning import learn_from_child as _learn_from_child
from pdbsearch.sokoban.puzzle import Rules, SokobanPuzzle
from pdbsearch.sokoban.tables import region_cells, tunnel_axes
from pdbsearch.testing.sokoban import bfs_min_pushes, boxes_can_reach_goals

from .helpers import kernel_successors, microban, python_successors, random_position, xsb


@nb.njit
def learn_from_child(p, key, t):
    """The learning kernel, reached from Python (it is compiled for
    jitted callers only)."""
    return _learn_from_child(p, key, t)

MACROS_ONLY = replace(Rules.none(), tunnel_macros=True)
DIAGONAL_ONLY = replace(Rules.none(), diagonal=True)

# -- tunnel macros -------------------------------------------------------------------

LONG_TUNNEL = """\
############
#    ##    #
#@ $      .#
#    ##    #
############
"""


def test_a_box_entering_a_tunnel_goes_through_in_one_move():
    level = xsb(LONG_TUNNEL)
    puzzle = SokobanPuzzle(level, heuristic="zero", rules=MACROS_ONLY)
    box, player = level.cell(2, 4), level.cell(2, 3)
    right = [s for s in kernel_successors(puzzle, {box}, player) if s[3] % MOVE_BASE == 2]
    assert len(right) == 1
    boxes, _, cost, code = right[0]
    # (2, 5) and (2, 6) are tunnel cells: three pushes in one move.
    assert boxes == {level.cell(2, 7)} and cost == 3
    assert code == 2 * MACRO_BASE + box * MOVE_BASE + 2


def test_macro_solutions_replay_push_by_push_and_stay_optimal():
    level = xsb(LONG_TUNNEL)
    result = solve(SokobanPuzzle(level, heuristic="matching"), "astar")
    assert result.status is Status.SOLVED and result.optimal
    assert result.cost == bfs_min_pushes(level) == 7
    assert len(result.steps) == 7 and all(s.cost == 1 for s in result.steps)
    lurd = "".join(s.text for s in result.steps)
    assert check_solution(level, lurd) == (7, len(lurd))


@pytest.mark.parametrize("prepared", [False, True])
def test_bfs_switches_the_macros_off_for_single_pushes(prepared):
    """BFS counts moves, and a macro costs its pushes: under pushes the
    puzzle gives its macros up for BFS (before or after its tables were
    made), and BFS finds the optimum push by push."""
    level = xsb(LONG_TUNNEL)
    puzzle = SokobanPuzzle(level, heuristic="zero")
    assert not puzzle.unit_costs
    if prepared:
        assert puzzle.params.macros == 1
    result = solve(puzzle, "bfs")
    assert puzzle.unit_costs and puzzle.params.macros == 0
    assert result.status is Status.SOLVED and result.optimal
    assert result.cost == len(result.steps) == bfs_min_pushes(level) == 7
    assert check_solution(level, "".join(s.text for s in result.steps))[0] == 7
    # A* on the same puzzle afterwards: single pushes, the same optimum
    assert solve(puzzle, "astar").cost == 7
    # no macros under the moves metric (not proven there): unit costs are moot
    assert SokobanPuzzle(level, "moves", "zero").params.macros == 0


def _macro_closure(level, axes, boxes, player):
    """Single pushes, each pushed on through tunnel cells of its axis while
    the box is off goal (dropped when it is stuck): the macro definition."""
    out = set()
    for new_boxes, new_player, cost, code in python_successors(level, boxes, player, "pushes"):
        box, d = divmod(code, MOVE_BASE)
        step = (-1, -level.width, 1, level.width)[d]
        axis = 1 if d % 2 == 0 else 2
        t, count, stuck = box + step, 1, False
        while axes[t] == axis and t not in level.goals:
            if t + step in new_boxes:
                stuck = True
                break
            new_boxes = (new_boxes - {t}) | {t + step}
            t += step
            count += 1
        if not stuck:
            out.add((new_boxes, level.normalized_player(t - step, new_boxes), count,
                     (count - 1) * MACRO_BASE + code))
    return out


@pytest.mark.parametrize("number", (6, 36, 107))
def test_macro_successors_are_the_single_push_closure(number):
    level = microban(number)
    axes = tunnel_axes(level, region_cells(level))
    puzzle = SokobanPuzzle(level, heuristic="zero", rules=MACROS_ONLY)
    rng = np.random.default_rng(number)
    for _ in range(40):
        boxes, player = random_position(level, rng)
        assert kernel_successors(puzzle, boxes, player) == \
            _macro_closure(level, axes, boxes, player)


# -- closed diagonals ----------------------------------------------------------------

DIAGONAL = """\
#########
#@      #
#  $$   #
#  $ $  #
#   $#  #
# ..... #
#       #
#########
"""

#: A small room for random positions: 4 boxes, 4 goals, 20 cells.
ROOM = """\
#######
#@$$  #
#  $$ #
#   ..#
#   ..#
#######
"""


def _diagonal_verdict(puzzle, boxes, t, player):
    p = puzzle.params
    occ = np.zeros_like(p.work.occ)
    occ[sorted(boxes)] = 1
    return bool(closed_diagonal_deadlock(t, player, occ, p.inside, p.goal, p.width))


def test_a_hole_capped_by_a_box_and_a_wall_is_dead():
    # The hole (3, 4) is walled in by four boxes; its diagonal ends at the
    # box (2, 3) and at the wall (4, 5): a closed diagonal.
    level = xsb(DIAGONAL)
    puzzle = SokobanPuzzle(level, heuristic="zero", rules=DIAGONAL_ONLY)
    cap = level.cell(2, 3)
    assert _diagonal_verdict(puzzle, level.boxes, cap, level.player)
    assert _diagonal_verdict(puzzle, level.boxes, level.cell(4, 4), level.player)
    assert bfs_min_pushes(level) is None
    # Without the cap the diagonal is open: no verdict.
    open_ = (level.boxes - {cap}) | {level.cell(6, 6)}
    assert not _diagonal_verdict(puzzle, open_, level.cell(4, 4), level.player)
    # A goal in the hole: not a deadlock by this rule.
    on_goal = SokobanPuzzle(xsb(DIAGONAL.replace("#  $ $  #", "#  $.$  #").replace(
        "# ..... #", "# ....  #")), heuristic="zero", rules=DIAGONAL_ONLY)
    assert not _diagonal_verdict(on_goal, level.boxes, cap, level.player)


def test_closed_diagonal_verdicts_are_dead_by_the_oracle():
    level = xsb(ROOM)
    puzzle = SokobanPuzzle(level, heuristic="zero", rules=DIAGONAL_ONLY)
    rng = np.random.default_rng(7)
    fired = 0
    for _ in range(600):
        boxes, player = random_position(level, rng)
        for t in sorted(boxes):
            if _diagonal_verdict(puzzle, boxes, t, player):
                fired += 1
                assert not boxes_can_reach_goals(level, boxes, player), (boxes, player, t)
                break
    assert fired >= 5


@pytest.mark.parametrize("number", (7, 36, 60))
def test_diagonal_rule_keeps_the_optimum(number):
    level = microban(number)
    cost = solve(SokobanPuzzle(level, heuristic="matching", rules=DIAGONAL_ONLY), "astar").cost
    assert cost == bfs_min_pushes(level)


# -- learned deadlock patterns -------------------------------------------------------


@pytest.mark.parametrize("number", (36, 93, pytest.param(144, marks=pytest.mark.slow)))
def test_learned_patterns_are_dead_by_the_oracle(number):
    level = microban(number)
    puzzle = SokobanPuzzle(level, heuristic="zero", rules=replace(
        Rules.none(), dead_squares=True, freeze=True, learning=True))
    p = puzzle.params
    rng = np.random.default_rng(number)
    tried = 0
    for _ in range(300):
        boxes, player = random_position(level, rng, avoid=puzzle.dead_squares)
        key = puzzle.key_of(boxes, player)
        for t in sorted(boxes):
            tried += 1
            learn_from_child(p, key, t)
    patterns = stored_patterns(p.learned)
    assert patterns, "no pattern learned from random positions"
    layout = puzzle.layout
    for bits, region in patterns:
        assert 2 <= len(bits) < len(level.boxes)
    # The oracle explores a dead pattern's whole space in plain Python (a
    # minute for some 4-box patterns of level 144): the four smallest are
    # checked, each from one cell of its region (the player walks between
    # a region's cells, so they share a verdict).
    for bits, region in sorted(patterns, key=lambda pattern: len(pattern[0]))[:4]:
        cells = {layout.box_cells[b] for b in bits}
        player = layout.region[min(region)]
        assert player not in cells
        assert not boxes_can_reach_goals(level, cells, player, max_states=200_000)


# Levels where the search learns patterns (3 to 94) within a second of search.
@pytest.mark.parametrize("number", (36, 60, 122, 138))
def test_learning_keeps_the_optimum(number):
    level = microban(number)
    learning = SokobanPuzzle(level, heuristic="matching",
                             rules=replace(Rules(), tunnel_macros=False, diagonal=False,
                                           learning=True))
    plain = SokobanPuzzle(level, heuristic="matching", rules=replace(
        Rules(), tunnel_macros=False, diagonal=False, learning=False))
    a = solve(learning, "astar")
    b = solve(plain, "astar")
    assert a.status is b.status is Status.SOLVED and a.cost == b.cost
    assert stored_patterns(learning.params.learned), "nothing learned: the test proves nothing"


def test_learning_left_to_the_algorithm_is_on_for_weighted_searches_only():
    puzzle = SokobanPuzzle(microban(36), heuristic="matching")
    assert puzzle.rules.learning is None and "learning-auto" in puzzle.describe()
    result = solve(puzzle, "wastar", 2.0)
    assert puzzle.params.learning == 1 and result.status is Status.SOLVED
    solve(puzzle, "astar")
    assert puzzle.params.learning == 0
    forced = SokobanPuzzle(microban(36), heuristic="matching", rules=Rules(learning=False))
    solve(forced, "greedy")
    assert forced.params.learning == 0


def test_a_learned_pattern_prunes_the_state_it_came_from():
    """Every pattern learned prunes its own state, also one whose cluster
    shuts the player in away from the first region cell (a regression: a
    pattern used to keep its key's player field among its box bits, and
    then, with a player index other than 0, it never matched)."""
    level = microban(144)
    puzzle = SokobanPuzzle(level, heuristic="zero",
                           rules=replace(Rules.none(), dead_squares=True, learning=True))
    p = puzzle.params
    rng = np.random.default_rng(2)
    for _ in range(3000):
        boxes, player = random_position(level, rng, avoid=puzzle.dead_squares)
        key = puzzle.key_of(boxes, player)
        for t in sorted(boxes):
            if learn_from_child(p, key, t):
                bits, region = stored_patterns(p.learned)[-1]
                assert bits <= set(range(len(puzzle.layout.box_cells))), "box bits only"
                assert evaluate_heuristic(p, key) == DEAD
                if 0 not in region:
                    return
    pytest.fail("no pattern with the player shut in")
