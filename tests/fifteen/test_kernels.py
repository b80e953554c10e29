"""The jitted kernels and rankings against the plain-Python model."""

from __future__ import annotations

import random

import numpy as np
import pytest

from pdbsearch.fifteen.model import Board
from pdbsearch.fifteen.puzzle import FifteenPuzzle, decode, encode
from pdbsearch.pdb.ranking import placements, rank_partial, rank_partial_py, unrank_partial, \
    unrank_partial_py
from pdbsearch.search.common import evaluate_heuristic, evaluate_is_goal, expand_into, \
    successor_buffers


def random_board(width, height, rng, moves=200):
    board = Board(width, height, tuple(range(width * height)))
    for _ in range(moves):
        board = rng.choice(board.neighbours())
    return board


@pytest.mark.parametrize("n, k", [(9, 4), (16, 7), (16, 8), (25, 6)])
def test_partial_rankings_agree(n, k):
    rng = random.Random(n * k)
    out = np.zeros(k, dtype=np.int64)
    for _ in range(300):
        cells = rng.sample(range(n), k)
        r = rank_partial(np.array(cells, dtype=np.int64), k, n)
        assert r == rank_partial_py(cells, n) < placements(n, k)
        unrank_partial(r, k, n, out)
        assert list(out) == cells == unrank_partial_py(r, k, n)


def test_ranking_is_a_bijection():
    seen = {rank_partial_py(unrank_partial_py(r, 3, 6), 6) for r in range(placements(6, 3))}
    assert seen == set(range(120))


@pytest.mark.parametrize("width, height", [(3, 3), (4, 4), (2, 4), (5, 5)])
def test_expand_matches_the_model(width, height):
    rng = random.Random(width * 10 + height)
    puzzle = FifteenPuzzle(Board(width, height, tuple(range(width * height))),
                           heuristic="manhattan")
    params = puzzle.params
    keys, costs, moves = successor_buffers(puzzle)
    for _ in range(50):
        board = random_board(width, height, rng)
        key = encode(board)
        assert decode(key, width, height) == board
        n = expand_into(params, key, keys, costs, moves)
        got = {decode(keys[i], width, height).tiles: int(moves[i]) for i in range(n)}
        want = {board.play(t, d).tiles: 4 * t + d for t, d in board.moves()}
        assert got == want and all(costs[:n] == 1)
        assert evaluate_heuristic(params, key) == board.manhattan()
        assert evaluate_is_goal(params, key) == board.is_solved()
    assert evaluate_is_goal(params, encode(Board(width, height, tuple(range(width * height)))))
