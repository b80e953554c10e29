"""The engines on the sliding-tile domain against a plain BFS of the whole space."""

from __future__ import annotations

import random
from functools import lru_cache

import pytest

from pdbsearch.fifteen.model import Board
from pdbsearch.fifteen.puzzle import FifteenPuzzle
from pdbsearch.search import Status, explore, solve
from pdbsearch.testing.fifteen import distances


@lru_cache(maxsize=None)
def oracle(width, height):
    return distances(width, height)


def test_whole_eight_puzzle_space():
    """181,440 reachable positions, the farthest 31 moves away (Reinefeld 1993;
    OEIS A089473), by the plain BFS and by the BFS engine through the kernels."""
    dist = oracle(3, 3)
    assert len(dist) == 181_440 and max(dist.values()) == 31
    far = max(dist, key=dist.get)
    result = explore(FifteenPuzzle(Board(3, 3, far), heuristic="zero"))
    assert result.status is Status.UNSOLVABLE and result.stored == 181_440


def test_a_farthest_eight_puzzle_position():
    dist = oracle(3, 3)
    far = max(dist, key=dist.get)
    for heuristic in ("manhattan", "pdb"):
        result = solve(FifteenPuzzle(Board(3, 3, far), heuristic=heuristic), "idastar")
        assert result.cost == 31 and result.optimal


#: Every algorithm with every heuristic it uses: bfs ignores the heuristic,
#: and without one greedy search and weighted A* only wander.
ALGO_HEURISTICS = [(algo, heuristic)
                   for algo in ["bfs", "astar", "idastar", "wastar", "greedy"]
                   for heuristic in ["zero", "manhattan", "pdb"]
                   if (heuristic == "zero") == (algo == "bfs")
                   or (algo in ("astar", "idastar") and heuristic == "zero")]


@pytest.mark.parametrize("width, height", [(2, 3), (3, 2), (3, 3), (2, 4)])
@pytest.mark.parametrize("algo, heuristic", ALGO_HEURISTICS)
def test_random_instances_against_the_oracle(width, height, algo, heuristic):
    dist = oracle(width, height)
    rng = random.Random(f"{width}x{height}{algo}{heuristic}")
    for board_tiles in rng.sample(sorted(dist), 4):
        puzzle = FifteenPuzzle(Board(width, height, board_tiles), heuristic=heuristic)
        result = solve(puzzle, algo, 2.0 if algo == "wastar" else None)
        assert result.status is Status.SOLVED
        if algo in ("greedy", "wastar"):
            assert dist[board_tiles] <= result.cost
            if algo == "wastar":
                assert result.cost <= 2 * dist[board_tiles]
        else:
            assert result.cost == dist[board_tiles] and result.optimal


def test_heuristics_are_admissible_on_the_whole_eight_puzzle():
    """Every one of the 181,440 positions: manhattan <= pdb <= the true distance."""
    import numpy as np

    from pdbsearch.fifteen.puzzle import encode
    from pdbsearch.search.common import evaluate_heuristic
    dist = oracle(3, 3)
    goal = Board(3, 3, tuple(range(9)))
    pdb = FifteenPuzzle(goal, heuristic="pdb").params
    md = FifteenPuzzle(goal, heuristic="manhattan").params
    worse = 0
    for tiles, d in dist.items():
        key = encode(Board(3, 3, tiles))
        h, m = evaluate_heuristic(pdb, key), evaluate_heuristic(md, key)
        assert m <= h <= d
        worse += h < d
    assert worse < len(dist)   # a bound, not the distance itself
    assert np.isfinite(worse)
