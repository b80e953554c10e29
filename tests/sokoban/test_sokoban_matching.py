"""The Hungarian matching against brute force, and the lower bounds
against true optima."""

from __future__ import annotations

import itertools

import numpy as np
import pytest

from pdbsearch.puzzle import DEAD
from pdbsearch.search import solve
from pdbsearch.search.common import evaluate_heuristic
from pdbsearch.sokoban import bfs_min_pushes
from pdbsearch.sokoban.matching import matching_cost
from pdbsearch.sokoban.puzzle import SokobanPuzzle

from .helpers import SMALL_MICROBAN, microban, xsb


def brute_force(cost: np.ndarray) -> int:
    n = cost.shape[0]
    return min(sum(int(cost[i, p[i]]) for i in range(n))
               for p in itertools.permutations(range(n)))


@pytest.mark.parametrize("n", range(1, 8))
def test_hungarian_equals_brute_force(n):
    rng = np.random.default_rng(n)
    for _ in range(30):
        cost = rng.integers(0, 20, size=(n, n))
        assert matching_cost(cost) == brute_force(cost)


def test_hungarian_with_ties_and_zeros():
    assert matching_cost(np.zeros((5, 5), dtype=np.int64)) == 0
    assert matching_cost(np.full((4, 4), 3)) == 12
    assert matching_cost(np.array([[1, 2], [1, 9]])) == 3


@pytest.mark.parametrize("number", SMALL_MICROBAN)
def test_bounds_never_exceed_the_optimum_along_a_solution(number):
    level = microban(number)
    matching = SokobanPuzzle(level, heuristic="matching")
    simple = SokobanPuzzle(level, heuristic="simple")
    result = solve(matching, "astar")
    optimum = bfs_min_pushes(level)
    assert result.cost == optimum
    for i, key in enumerate(result.path_keys):
        left = optimum - i
        h_match = evaluate_heuristic(matching.params, key)
        h_simple = evaluate_heuristic(simple.params, key)
        assert h_simple <= h_match <= left


def test_bipartite_deadlock_is_dead_for_matching_only():
    # Both boxes are on the top row, which a box can never leave, so both
    # can reach only the left goal (the other one is in a pocket below row
    # 2): no one-to-one assignment exists although each box alone has a
    # finite distance.
    text = """\
#########
#.  $$  #
#@      #
##### ###
#####.###
#########
"""
    level = xsb(text)
    matching = SokobanPuzzle(level, heuristic="matching")
    simple = SokobanPuzzle(level, heuristic="simple")
    key = matching.initial_key()
    assert evaluate_heuristic(simple.params, key) < DEAD
    assert evaluate_heuristic(matching.params, key) == DEAD
    assert bfs_min_pushes(level) is None
