"""FESS capped at a cost (``Limits.cost_below``,
:meth:`pdbsearch.search.fess.FessSearch.cap_costs`), against our
plain-Python push BFS: below the optimum + 1 a solution it finds is
optimal; at the optimum it finds none, for none is cheaper; every solution
replayed by the independent checker."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from pdbsearch.search import Limits, Status, solve
from pdbsearch.sokoban.puzzle import SokobanPuzzle
from pdbsearch.testing.sokoban import bfs_min_pushes

from .helpers import microban
from .test_engines_random_rooms import rooms


def _capped(level, cost_below, heuristic="matching"):
    puzzle = SokobanPuzzle(level, "pushes", heuristic)
    limits = Limits(time_seconds=10, threads=1, cost_below=cost_below)
    return puzzle, solve(puzzle, "fess-only", limits=limits, shorten=0)


def _check_capped(level, optimum, above: int):
    """FESS capped below ``optimum + above``: what it finds costs less."""
    puzzle, result = _capped(level, optimum + above)
    assert result.extra["fess"]["cost_below"] == optimum + above
    # A capped search proves nothing: run out, it stops as incomplete.
    assert result.status is not Status.UNSOLVABLE
    if result.status is Status.LIMIT:
        assert result.stop_reason in ("incomplete", "time")
    if result.status is Status.SOLVED:
        _, pushes = puzzle.check_solution([s.code for s in result.steps])
        assert optimum <= pushes == result.cost < optimum + above
        assert not result.optimal                   # FESS claims nothing
    return result


@settings(max_examples=40, deadline=None)
@given(rooms(), st.integers(0, 3))
def test_capped_fess_finds_nothing_dearer_than_its_cap_on_random_rooms(level, above):
    optimum = bfs_min_pushes(level)
    if optimum is None or optimum == 0:
        return
    _check_capped(level, optimum, above)


@pytest.mark.parametrize("number", [2, 7, 20, 44, 90])
def test_capped_at_the_optimum_plus_one_fess_finds_an_optimal_solution(number):
    level = microban(number)
    optimum = bfs_min_pushes(level)
    result = _check_capped(level, optimum, 1)
    # These levels it solves, along the optimum (the cap drops the rest).
    assert result.status is Status.SOLVED and result.cost == optimum


@pytest.mark.parametrize("number", [2, 7, 20])
def test_capped_at_the_optimum_fess_finds_nothing(number):
    level = microban(number)
    result = _check_capped(level, bfs_min_pushes(level), 0)
    assert result.status is Status.LIMIT and result.stop_reason == "incomplete"
    assert result.extra["fess"]["capped"] > 0


def test_uncapped_fess_reports_no_cap():
    result = solve(SokobanPuzzle(microban(2), "pushes", "matching"), "fess-only",
                   limits=Limits(time_seconds=10, threads=1), shorten=0)
    assert result.status is Status.SOLVED and "cost_below" not in result.extra["fess"]
