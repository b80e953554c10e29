"""The jitted Hakoiri kernels against the plain-Python board model."""

import random

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from pdbsearch.hakoiri import HakoiriPuzzle
from pdbsearch.hakoiri.vocabulary import METRICS as METRIC_TABLE
from pdbsearch.hakoiri.generator import Recipe, random_board
from pdbsearch.hakoiri.bounds import heuristic
from pdbsearch.hakoiri.kernels import expand, find_square, is_goal
from pdbsearch.hakoiri.puzzle import decode_board, encode
from pdbsearch.search.common import successor_buffers

METRICS = METRIC_TABLE.names


def _random_position(seed: int):
    rng = random.Random(seed)
    w, h = rng.randint(2, 8), rng.randint(3, 8)
    empty = rng.randint(1, min(4, w * h - 5))
    rest = w * h - 4 - empty
    recipe = Recipe(w, h, rng.randint(0, rest // 6), rng.randint(0, rest // 8), empty,
                    square="random")
    board = random_board(recipe, rng)
    # Wander a little so that the 2x2 is not always at the top.
    for _ in range(rng.randint(0, 30)):
        moves = board.moves("unit")
        if not moves:
            break
        board = board.moved(*rng.choice(moves))
    return board


@settings(max_examples=150, deadline=None)
@given(seed=st.integers(0, 10**9), metric=st.sampled_from(METRICS))
def test_successors_match_the_reference(seed, metric):
    board = _random_position(seed)
    puzzle = HakoiriPuzzle(board, metric, "simple")
    key = encode(board)
    keys, costs, codes = successor_buffers(puzzle)
    n = expand(puzzle.params, key, keys, costs, codes)
    got = sorted(decode_board(keys[i], board).canonical() for i in range(n))
    want = sorted(board.moved(i, x, y).canonical() for i, x, y in board.moves(metric))
    assert sorted(map(sorted, got)) == sorted(map(sorted, want))
    assert n <= puzzle.max_successors
    assert all(costs[:n] == 1)


@settings(max_examples=100, deadline=None)
@given(seed=st.integers(0, 10**9))
def test_encode_decode_round_trip(seed):
    board = _random_position(seed)
    key = encode(board)
    assert decode_board(key, board).canonical() == board.canonical()
    sq = board.square
    assert find_square(board.width, board.width * board.height, key) == sq.y * board.width + sq.x


@settings(max_examples=100, deadline=None)
@given(seed=st.integers(0, 10**9), metric=st.sampled_from(METRICS))
def test_goal_and_simple_heuristic(seed, metric):
    board = _random_position(seed)
    puzzle = HakoiriPuzzle(board, metric, "simple")
    key = encode(board)
    assert bool(is_goal(puzzle.params, key)) == board.is_solved()
    h = heuristic(puzzle.params, key)
    assert (h == 0) == board.is_solved()
    sq, (ex, ey) = board.square, board.exit
    manhattan = abs(sq.x - ex) + abs(sq.y - ey)
    assert h <= manhattan


def test_goal_needs_the_square_itself_on_the_exit():
    """The 2x2 one row above the exit, over a 2x1: the exit cell and the cell
    below both hold code 3, yet the puzzle is not solved."""
    from pdbsearch.hakoiri import parse_board
    above = parse_board("exit: 0 1\nAAB\nAAB\nC..\nC..\n")
    on_exit = parse_board("exit: 0 1\nB..\nAAC\nAAC\nD..\n")
    for board, solved in ((above, False), (on_exit, True)):
        puzzle = HakoiriPuzzle(board, "unit", "simple")
        assert board.is_solved() is solved
        assert bool(is_goal(puzzle.params, encode(board))) is solved


def test_key_is_canonical(classic_board):
    # Swapping two 1x1 pieces' labels gives the same key.
    from dataclasses import replace
    pieces = list(classic_board.pieces)
    singles = [i for i, p in enumerate(pieces) if p.shape.name == "SINGLE"]
    a, b = singles[:2]
    pieces[a], pieces[b] = (replace(pieces[a], label=pieces[b].label),
                            replace(pieces[b], label=pieces[a].label))
    swapped = replace(classic_board, pieces=tuple(pieces))
    assert np.array_equal(encode(swapped), encode(classic_board))


def test_key_width():
    from pdbsearch.hakoiri.puzzle import key_words_for
    assert key_words_for(4, 5) == 1
    assert key_words_for(8, 20) == 5
    assert key_words_for(16, 32) == 16


def test_checker_rejects_bad_solutions(classic_board):
    from pdbsearch.errors import IllegalMoveError
    from pdbsearch.hakoiri.kernels import MOVE_BASE
    from pdbsearch.search import solve

    puzzle = HakoiriPuzzle(classic_board, "straight", "simple")
    good = [s.code for s in solve(puzzle, "astar").steps]
    steps, cost = puzzle.check_solution(good)
    assert cost == len(good) == 90
    with pytest.raises(IllegalMoveError, match="do not bring"):
        puzzle.check_solution(good[:-1])
    with pytest.raises(IllegalMoveError, match="cannot move"):
        puzzle.check_solution([1 * MOVE_BASE + 5])   # the 2x2 cannot move down at the start
    with pytest.raises(IllegalMoveError, match="no piece"):
        puzzle.check_solution([17 * MOVE_BASE + 18])  # cell 17 is empty
