"""The Hungarian matching against brute force, and the lower bounds
against true optima."""

from __future__ import annotations

import itertools

import numpy as np
import pytest

from pdbsearch.puzzle import DEAD
from pdbsearch.search import solve
from pdbsearch.search.common import evaluate_heuristic
from pdbsearch.testing.fess import all_matched
from pdbsearch.testing.sokoban import bfs_min_pushes
from pdbsearch.sokoban.matching import (MAX_MASK_COLUMNS, mask_matching_work, matching_cost,
                                        hall_rows, min_cost_matching, rematch_row,
                                        rows_all_matched)
from pdbsearch.sokoban.puzzle import Rules, SokobanPuzzle

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


@pytest.mark.parametrize("n", range(1, 8))
def test_rematching_one_changed_row_equals_a_fresh_matching(n):
    rng = np.random.default_rng(100 + n)
    cost = rng.integers(0, 30, size=(n, n)).astype(np.int64)
    work = np.zeros((6, n + 1), dtype=np.int64)
    min_cost_matching(cost, n, work)
    for _ in range(40):
        # Change one row (as one pushed box does) and update in place.
        r = int(rng.integers(n))
        cost[r] = rng.integers(0, 30, size=n)
        if rng.random() < 0.2:
            cost[r, rng.integers(n)] = 1 << 40   # an impossible pair
        assert rematch_row(cost, n, r, work) == brute_force(cost)


@pytest.mark.parametrize("n", range(1, 8))
def test_rematching_among_many_equal_costs_equals_a_fresh_matching(n):
    """Costs of 0 to 2 tie everywhere, so the augmenting search often has
    a free column and matched ones equally near (it ends at the free one)."""
    rng = np.random.default_rng(200 + n)
    cost = rng.integers(0, 3, size=(n, n)).astype(np.int64)
    work = np.zeros((6, n + 1), dtype=np.int64)
    assert min_cost_matching(cost, n, work) == brute_force(cost)
    for _ in range(60):
        r = int(rng.integers(n))
        cost[r] = rng.integers(0, 3, size=n)
        if rng.random() < 0.1:
            cost[r, rng.integers(n)] = 1 << 40
        assert rematch_row(cost, n, r, work) == brute_force(cost)


@pytest.mark.parametrize("rows", range(0, 9))
def test_the_mask_matching_agrees_with_an_exhaustive_one(rows):
    """Random bit masks, sparse enough that both answers come up, over a
    few columns and over columns near the top bit."""
    rng = np.random.default_rng(rows)
    work = mask_matching_work()
    answers = set()
    for trial in range(60):
        n_cols = int(rng.integers(max(rows, 1), rows + 3))
        base = MAX_MASK_COLUMNS - n_cols if trial % 2 else 0
        choices = [frozenset(int(c) + base for c in range(n_cols) if rng.random() < 0.35)
                   for _ in range(rows)]
        masks = np.zeros(max(rows, 1), np.uint64)
        for r, cols in enumerate(choices):
            for c in cols:
                masks[r] |= np.uint64(1) << np.uint64(c)
        want = all_matched(choices)
        assert rows_all_matched(masks, rows, work) == want, choices
        answers.add(want)
        # Without a matching, the proof: k distinct rows whose columns
        # together are fewer than k.
        k = hall_rows(masks, rows, work)
        assert (k == 0) == want, choices
        if k:
            listed = [int(r) for r in work[3, :k]]
            assert len(set(listed)) == k and all(0 <= r < rows for r in listed)
            assert len(frozenset().union(*(choices[r] for r in listed))) < k, choices
    assert answers == {True, False} or rows == 0


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


@pytest.mark.parametrize("number", (1, 6, 36, 139))
def test_player_aware_bound_is_exact_for_a_lone_box(number):
    # With one box and one goal the bound is the box's exact push distance
    # from where the player stands: compare with the reference BFS.
    from pdbsearch.sokoban import Level
    level = microban(number)
    cells = sorted(level.playable_cells())
    rng = np.random.default_rng(number)
    for _ in range(40):
        box, goal, player = (cells[i] for i in rng.choice(len(cells), 3, replace=False))
        lone = Level(level.width, level.height, level.walls, frozenset({goal}),
                     frozenset({box}), player)
        puzzle = SokobanPuzzle(lone, heuristic="matching")
        h = evaluate_heuristic(puzzle.params, puzzle.initial_key())
        exact = bfs_min_pushes(lone)
        assert h == (DEAD if exact is None else exact)
        assert h >= SokobanPuzzle(lone, heuristic="simple").params.dist[0, box] or h == DEAD


@pytest.mark.parametrize("algo", ["astar", "idastar"])
@pytest.mark.parametrize("number", (36, 111, 146))
def test_updated_matchings_equal_rebuilt_ones(algo, number):
    # The bound updated row by row from the last matching must be exactly
    # the rebuilt one: the searches then expand the same nodes.
    from pdbsearch.search import Limits
    level = microban(number)
    runs = []
    for incremental in (1, 0):
        # Without the perimeter beside A*: its turns go by the clock.
        puzzle = SokobanPuzzle(level, heuristic="matching", rules=Rules(perimeter=False))
        puzzle.params = puzzle.params._replace(incremental=incremental)
        result = solve(puzzle, algo, limits=Limits(nodes=20_000))
        runs.append((result.status, result.cost, result.expanded, result.generated))
    assert runs[0] == runs[1]
