"""Optimal costs from the engines against the plain-BFS references, and the
checked LURD solutions."""

from __future__ import annotations

import pytest

from pdbsearch.errors import IllegalMoveError
from pdbsearch.search import Limits, Status, solve
from pdbsearch.sokoban import check_solution
from pdbsearch.testing.sokoban import bfs_min_moves, bfs_min_pushes
from pdbsearch.sokoban.puzzle import Rules, SokobanPuzzle

from .helpers import SMALL_MICROBAN, microban, xsb

#: (level, optimal pushes) computed once per session by the reference BFS
_OPTIMA: dict[int, int | None] = {}


def push_optimum(number: int) -> int | None:
    if number not in _OPTIMA:
        _OPTIMA[number] = bfs_min_pushes(microban(number))
    return _OPTIMA[number]


@pytest.mark.parametrize("algo", ["astar", "idastar", "bfs"])
@pytest.mark.parametrize("number", SMALL_MICROBAN[:10])
def test_push_optimal_cost_equals_reference_bfs(algo, number):
    level = microban(number)
    # BFS counts edges: it needs single pushes (no tunnel macros).
    rules = Rules(tunnel_macros=False) if algo == "bfs" else Rules()
    puzzle = SokobanPuzzle(level, heuristic="matching", rules=rules)
    result = solve(puzzle, algo)
    assert result.status is Status.SOLVED and result.optimal
    assert result.cost == push_optimum(number)
    lurd = "".join(s.text for s in result.steps)
    assert check_solution(level, lurd) == (result.cost, len(lurd))


@pytest.mark.parametrize("number", SMALL_MICROBAN[:10])
def test_push_optimal_without_any_rule_or_bound(number):
    puzzle = SokobanPuzzle(microban(number), heuristic="zero",
                           rules=Rules(False, False, False, False))
    assert solve(puzzle, "astar").cost == push_optimum(number)


@pytest.mark.parametrize("number", (1, 2, 4, 5, 7))
@pytest.mark.parametrize("algo", ["astar", "idastar"])
def test_move_optimal_cost_equals_reference_bfs(number, algo):
    level = microban(number)
    result = solve(SokobanPuzzle(level, metric="moves", heuristic="matching"), algo)
    assert result.status is Status.SOLVED and result.optimal
    assert result.cost == bfs_min_moves(level)
    lurd = "".join(s.text for s in result.steps)
    assert len(lurd) == result.cost and check_solution(level, lurd)[1] == result.cost


def test_bfs_is_refused_for_the_moves_metric():
    from pdbsearch.errors import PdbsearchError
    with pytest.raises(PdbsearchError, match="every move costs 1"):
        solve(SokobanPuzzle(microban(1), metric="moves", heuristic="matching"), "bfs")


def test_unsolvable_level_is_proved_so():
    text = """\
######
#@$  #
#   .#
######
"""
    result = solve(SokobanPuzzle(xsb(text), heuristic="matching"), "astar")
    assert result.status is Status.UNSOLVABLE


def test_solved_start_and_limits():
    text = """\
#####
#@* #
#####
"""
    result = solve(SokobanPuzzle(xsb(text), heuristic="matching"), "astar")
    assert result.status is Status.SOLVED and result.cost == 0
    assert result.extra == {"pushes": 0, "steps": 0, "lurd": ""}
    # One thread, so the perimeter cannot solve it in its own thread meanwhile.
    stopped = solve(SokobanPuzzle(microban(36), heuristic="matching"), "astar",
                    limits=Limits(nodes=5, threads=1))
    assert stopped.status is Status.LIMIT and stopped.lower_bound is not None
    assert stopped.extra["lurd"] is None


def test_checker_rejects_bad_move_codes():
    level = microban(1)
    puzzle = SokobanPuzzle(level, heuristic="matching")
    with pytest.raises(IllegalMoveError, match="no box"):
        puzzle.check_solution([level.player * 4])
    result = solve(puzzle, "astar")
    codes = [s.code for s in result.steps]
    with pytest.raises(IllegalMoveError, match="off the goals"):
        puzzle.check_solution(codes[:-1])


def test_weighted_and_greedy_give_checked_solutions():
    level = microban(36)
    for algo, weight in (("wastar", 3.0), ("greedy", 1.0)):
        result = solve(SokobanPuzzle(level, heuristic="matching"), algo, weight)
        assert result.status is Status.SOLVED
        lurd = "".join(s.text for s in result.steps)
        assert check_solution(level, lurd)[0] == result.cost >= 59
