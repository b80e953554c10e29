"""The jitted Sokoban kernels against plain-Python definitions: key layout,
successors on random positions (both metrics), goal test, dead squares."""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import pytest

from pdbsearch.search.common import evaluate_is_goal
from pdbsearch.testing.sokoban import dead_squares
from pdbsearch.sokoban.puzzle import Rules, SokobanPuzzle

from .helpers import (kernel_successors, microban, python_successors,
                      random_position)

NO_RULES = Rules.none()
DEAD_ONLY = replace(Rules.none(), dead_squares=True)
#: a spread of Microban levels: small, big, many boxes, wide (155 needs 3 words)
LEVELS = (1, 6, 36, 93, 107, 144, 155)


@pytest.mark.parametrize("number", LEVELS)
@pytest.mark.parametrize("metric", ["pushes", "moves"])
def test_successors_match_python_on_random_positions(number, metric):
    level = microban(number)
    rng = np.random.default_rng(number)
    bare = SokobanPuzzle(level, metric, "zero", NO_RULES)
    dead_rule = SokobanPuzzle(level, metric, "zero", DEAD_ONLY)
    dead = dead_rule.dead_squares
    for _ in range(25):
        boxes, player = random_position(level, rng)
        assert kernel_successors(bare, boxes, player) == \
            python_successors(level, boxes, player, metric)
        boxes, player = random_position(level, rng, avoid=dead)
        assert kernel_successors(dead_rule, boxes, player) == \
            python_successors(level, boxes, player, metric, dead)


@pytest.mark.parametrize("number", LEVELS)
def test_key_round_trip_and_goal_test(number):
    level = microban(number)
    puzzle = SokobanPuzzle(level, heuristic="matching")
    rng = np.random.default_rng(7)
    for _ in range(20):
        boxes, player = random_position(level, rng, avoid=puzzle.dead_squares)
        key = puzzle.key_of(boxes, player)
        assert key.shape == (puzzle.key_words,)
        got_boxes, got_player = puzzle.position_of(key)
        assert got_boxes == boxes
        assert got_player == level.normalized_player(player, boxes)
        assert not evaluate_is_goal(puzzle.params, key) or boxes == level.goals
    goal_key = puzzle.key_of(level.goals, min(level.playable_cells() - level.goals))
    assert evaluate_is_goal(puzzle.params, goal_key)


def test_moves_metric_keeps_the_exact_player_cell():
    level = microban(1)
    puzzle = SokobanPuzzle(level, "moves", "matching")
    cells = sorted(level.reachable())
    keys = {puzzle.key_of(level.boxes, c).tobytes() for c in cells}
    assert len(keys) == len(cells)
    pushes = SokobanPuzzle(level, "pushes", "matching")
    assert len({pushes.key_of(level.boxes, c).tobytes() for c in cells}) == 1


def test_dead_squares_equal_the_reference_on_all_microban():
    for number in range(1, 156):
        level = microban(number)
        puzzle = SokobanPuzzle(level, heuristic="matching")
        reference = {int(c) for c in np.flatnonzero(dead_squares(level))}
        playable = level.playable_cells()
        assert puzzle.dead_squares & playable == reference & playable, number


def test_max_successors_and_move_codes():
    level = microban(6)
    puzzle = SokobanPuzzle(level, rules=NO_RULES, heuristic="matching")
    assert puzzle.max_successors == 4 * len(level.boxes)
    for boxes, _, cost, code in kernel_successors(puzzle, level.boxes, level.player):
        box, direction = divmod(code, 4)
        assert box in level.boxes and 0 <= direction < 4 and cost == 1
        assert box + level.delta("lurd"[direction]) in boxes


@pytest.mark.parametrize("number", LEVELS)
def test_push_ends_name_the_box_each_move_pushes_and_where_it_stops(number):
    """``push_ends`` (the learning reads where each child's box stopped with
    it) on every successor of random positions, tunnel macros included: the
    box that left a cell and the cell it reached, read off the keys."""
    from pdbsearch.search.common import expand_into, successor_buffers
    from pdbsearch.sokoban.kernels import push_ends

    level = microban(number)
    puzzle = SokobanPuzzle(level, "pushes", "zero")   # every rule on: tunnel macros too
    out_keys, out_costs, out_moves = successor_buffers(puzzle)
    rng = np.random.default_rng(number)
    pushes = macros = 0
    for _ in range(25):
        boxes, player = random_position(level, rng, avoid=puzzle.dead_squares)
        n = expand_into(puzzle.params, puzzle.key_of(boxes, player), out_keys, out_costs,
                        out_moves)
        for i in range(n):
            new_boxes, _ = puzzle.position_of(out_keys[i])
            b, t = push_ends(puzzle.params, out_moves[i])
            assert (boxes - new_boxes, new_boxes - boxes) == ({b}, {t})
            pushes += 1
            macros += out_costs[i] > 1
    assert pushes > 0
    if number == 155:
        assert macros > 0   # the check covers tunnel macros
