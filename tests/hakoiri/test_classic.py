"""The classic 4x5 board as an oracle.

Known values (design.md, and e.g. the Hakoiri-musume literature): 25,955
reachable states with same-shape pieces interchangeable, and an optimum of
116 unit / 90 straight / 81 free moves.  Each is recomputed here by BFS and
the searches must agree with BFS and with the known value.
"""

import pytest

from pdbsearch.hakoiri import HakoiriPuzzle
from pdbsearch.search import Status, explore, solve

KNOWN_OPTIMUM = {"unit": 116, "straight": 90, "free": 81}
KNOWN_STATES = 25_955


@pytest.mark.parametrize("metric", ["unit", "straight", "free"])
def test_bfs_enumerates_the_classic_space(classic_board, metric):
    result = explore(HakoiriPuzzle(classic_board, metric, "zero"))
    assert result.status is Status.UNSOLVABLE  # "exhausted": nothing left to expand
    assert result.stored == KNOWN_STATES


@pytest.fixture(scope="module")
def bfs_optimum(classic_board):
    return {m: solve(HakoiriPuzzle(classic_board, m, "zero"), "bfs").cost
            for m in KNOWN_OPTIMUM}


@pytest.mark.parametrize("metric", ["unit", "straight", "free"])
def test_bfs_optimum_matches_known_value(bfs_optimum, metric):
    assert bfs_optimum[metric] == KNOWN_OPTIMUM[metric]


@pytest.mark.parametrize("algo", ["astar", "idastar"])
@pytest.mark.parametrize("metric", ["unit", "straight", "free"])
def test_heuristic_searches_find_the_bfs_optimum(classic_board, bfs_optimum, algo, metric):
    result = solve(HakoiriPuzzle(classic_board, metric, "simple"), algo)
    assert result.status is Status.SOLVED
    assert result.optimal
    assert result.cost == bfs_optimum[metric]
    assert len(result.steps) == result.cost
    assert result.expanded > 0 and result.generated >= result.expanded


@pytest.mark.parametrize("weight", [1.5, 2.0, 5.0])
@pytest.mark.parametrize("metric", ["unit", "straight", "free"])
def test_weighted_astar_respects_its_bound(classic_board, bfs_optimum, metric, weight):
    result = solve(HakoiriPuzzle(classic_board, metric, "simple"), "wastar", weight)
    assert result.status is Status.SOLVED
    assert result.bound == weight
    assert bfs_optimum[metric] <= result.cost <= weight * bfs_optimum[metric]
