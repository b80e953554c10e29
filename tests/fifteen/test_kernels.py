"""The jitted kernels and rankings against the plain-Python model."""

from __future__ import annotations

import random

import numpy as np
import pytest

from pdbsearch.fifteen.abstraction import pattern_neighbours, pattern_params
from pdbsearch.fifteen.model import Board
from pdbsearch.fifteen.puzzle import FifteenPuzzle, decode, encode
from pdbsearch.pdb.ranking import advance_placement, next_placement, placements, \
    rank_partial, rank_partial_py, select_bit, unrank_digits, unrank_partial, unrank_partial_py
from pdbsearch.search.common import evaluate_heuristic, evaluate_is_goal, expand_into, \
    successor_buffers
from pdbsearch.testing.fifteen import pattern_moves


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


@pytest.mark.parametrize("n, k", [(6, 3), (9, 4), (7, 7), (64, 2)])
def test_stepping_through_placements_follows_the_ranks(n, k):
    cells = np.zeros(k, dtype=np.int64)
    unrank_partial(0, k, n, cells)
    count = min(placements(n, k), 5000)
    for r in range(count):
        assert list(cells) == unrank_partial_py(r, k, n)
        assert next_placement(cells, k, n) == (r + 1 < placements(n, k))
    # and from an arbitrary rank (carries over several digits)
    r = placements(n, k) // 3 - 1
    unrank_partial(r, k, n, cells)
    assert next_placement(cells, k, n)
    assert list(cells) == unrank_partial_py(r + 1, k, n)


@pytest.mark.parametrize("n, k", [(16, 8), (9, 4), (64, 3), (5, 5)])
def test_advancing_placements_follows_the_ranks(n, k):
    rng = random.Random(n + k)
    digits, cells = np.zeros(k, dtype=np.int64), np.zeros(k, dtype=np.int64)
    r = rng.randrange(placements(n, k) // 2)
    unrank_digits(r, k, n, digits, cells)
    assert list(cells) == unrank_partial_py(r, k, n)
    for _ in range(300):
        step = rng.choice([1, 2, 7, rng.randrange(1, 1 + placements(n, k) // 10000 + 50)])
        if r + step >= placements(n, k):
            break
        r += step
        advance_placement(digits, cells, k, n, step)
        assert list(cells) == unrank_partial_py(r, k, n)


def test_select_bit():
    rng = random.Random(5)
    for _ in range(500):
        mask = rng.getrandbits(64) | 1
        bits = [i for i in range(64) if mask >> i & 1]
        d = rng.randrange(len(bits))
        assert select_bit(np.uint64(mask), d) == bits[d]


@pytest.mark.parametrize("width, height, tiles", [
    (4, 4, (8, 9, 10, 11, 12, 13, 14, 15)), (4, 4, (1, 2, 3, 4, 5, 6, 7)), (3, 3, (1, 5, 7)),
    (5, 3, (2, 3, 7, 12, 13)), (8, 8, (9, 17, 18, 27))])
def test_pattern_neighbours_match_the_plain_moves(width, height, tiles):
    params = pattern_params(width, height, tiles)
    n, k, n_free = params.ncells, params.k, params.n_free
    out = np.zeros(4 * k, dtype=np.int64)
    work = np.zeros(k, dtype=np.int64)
    rng = random.Random(len(tiles))
    for _ in range(400):
        cells = tuple(rng.sample(range(n), k))
        free = [c for c in range(n) if c not in cells]
        j = rng.randrange(n_free)
        rank = rank_partial_py(list(cells), n) * n_free + j
        count = pattern_neighbours(params, rank, out, work)
        got = set()
        for s in out[:count]:
            child = tuple(unrank_partial_py(int(s) // n_free, k, n))
            child_free = [c for c in range(n) if c not in child]
            got.add((child, child_free[int(s) % n_free]))
        assert count == len(got)
        assert got == pattern_moves(width, height, cells, free[j])


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
