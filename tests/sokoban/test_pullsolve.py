"""The backward solver (``fess-backward``, :mod:`pdbsearch.sokoban.pullsolve`):
FESS on the pull game from the solved position to the start, against our
plain-Python push BFS (the optimum, or no solution)."""

from __future__ import annotations

import pytest
from hypothesis import given, settings

from pdbsearch.search import solve
from pdbsearch.search.result import Limits, Status
from pdbsearch.errors import PdbsearchError
from pdbsearch.sokoban.puzzle import PORTFOLIO_MEMBERS, SokobanPuzzle
from pdbsearch.testing.sokoban import bfs_min_pushes

from .helpers import SMALL_MICROBAN, microban, xsb
from .test_reference import small_rooms


def backward_alone(level, seconds: float = 20):
    """``--algo fess`` with the backward solver as the only member."""
    puzzle = SokobanPuzzle(level, "pushes", "matching", members=("fess-backward",))
    result = solve(puzzle, "fess", limits=Limits(time_seconds=seconds, threads=1))
    return puzzle, result


def check_against_bfs(level, puzzle, result) -> None:
    """Solved exactly when our push BFS finds a solution (which it bounds
    from below), proved unsolvable exactly when it finds none."""
    optimum = bfs_min_pushes(level)
    if optimum is None:
        assert result.status is Status.UNSOLVABLE
        return
    assert result.status is Status.SOLVED
    if result.steps:   # a level solved at the start has no steps
        assert result.extra["fess"]["winner"] == "fess-backward"
    _, pushes = puzzle.check_solution([s.code for s in result.steps])
    assert pushes == result.cost >= optimum


@pytest.mark.parametrize("number", SMALL_MICROBAN)
def test_backward_solutions_of_microban_replay(number):
    level = microban(number)
    puzzle, result = backward_alone(level)
    check_against_bfs(level, puzzle, result)


@settings(max_examples=40, deadline=None)
@given(small_rooms())
def test_backward_solver_agrees_with_the_push_bfs_on_random_rooms(level):
    puzzle, result = backward_alone(level)
    check_against_bfs(level, puzzle, result)


def test_a_box_on_a_corner_start_square_is_never_reached_backwards():
    """The start box sits in a corner off the goal: no pull ends there, so
    the backward game runs out of positions, which proves the level
    unsolvable."""
    level = xsb("######\n#$  .#\n#  @ #\n######\n")
    puzzle, result = backward_alone(level)
    assert result.status is Status.UNSOLVABLE
    assert bfs_min_pushes(level) is None


def test_the_backward_solver_finds_what_forward_fess_needs_longer_for():
    """Microban 144 (16 boxes, a goal area filled in a strict order): the
    backward solver solves it within a few hundred expansions."""
    level = microban(144)
    puzzle, result = backward_alone(level, seconds=30)
    assert result.status is Status.SOLVED
    assert result.expanded < 5_000
    puzzle.check_solution([s.code for s in result.steps])


def test_a_portfolio_of_chosen_members_and_a_clear_error_for_others():
    level = microban(1)
    puzzle = SokobanPuzzle(level, members=("fess-backward", "wastar"))
    assert [name for name, _, _ in puzzle.fess_portfolio()] == ["wastar", "fess-backward"]
    full = SokobanPuzzle(level).fess_portfolio()
    assert [name for name, _, _ in full] == list(PORTFOLIO_MEMBERS)
    assert sum(share for _, _, share in full) == pytest.approx(1.0)
    for bad in (("fess-sideways",), ()):
        with pytest.raises(PdbsearchError, match="portfolio member"):
            SokobanPuzzle(level, members=bad)
