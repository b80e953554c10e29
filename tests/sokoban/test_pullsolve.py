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
    assert [name for name, *_ in puzzle.fess_portfolio()] == ["wastar", "fess-backward"]
    full = SokobanPuzzle(level).fess_portfolio()
    assert [name for name, *_ in full] == list(PORTFOLIO_MEMBERS)
    assert sum(share for _, _, share, _ in full) == pytest.approx(1.0)
    for bad in (("fess-sideways",), ()):
        with pytest.raises(PdbsearchError, match="portfolio member"):
            SokobanPuzzle(level, members=bad)


@pytest.mark.parametrize("number", [6, 36, 93, 107, 144, 155])
def test_pull_children_have_the_connectivity_and_player_of_a_flood(number):
    """The backward solver reads each child's player regions and normalised
    player off the macro search's DFS (:func:`.macros.split_at`) instead of
    flooding the board: on positions it reaches, every child agrees with a
    plain-Python flood."""
    import numpy as np

    from pdbsearch.search.common import NODES, RUNNING
    from pdbsearch.search.fess_protocol import expand_once
    from pdbsearch.sokoban.pullsolve import PullSolveSearch
    from pdbsearch.testing.fess import connectivity, pull_macro_children

    level = microban(number)
    puzzle = SokobanPuzzle(level, "pushes", "matching")
    engine = PullSolveSearch(puzzle, Limits(nodes=3000))
    while engine.run(500) == RUNNING and int(engine.stats[NODES]) < 3000:
        pass
    domain = engine.domain
    stored = int(engine.stats[NODES])
    picks = np.random.default_rng(number).choice(stored, size=min(40, stored), replace=False)
    m, f = domain.max_children, domain.n_features
    out = (np.zeros((m, domain.key_words), np.uint64), np.zeros(m, np.int64),
           np.zeros(m, np.int32), np.zeros((m, f), np.int32), np.zeros(m, np.int64),
           np.zeros(m, np.uint8))
    info = np.zeros(f + 1, np.int64)
    checked = 0
    for i in picks:
        key = engine.store.keys[i].copy()
        if int(key[-1]) >> domain.params.player_shift == len(domain.region):
            continue   # the virtual root: no player yet
        oracle = pull_macro_children(level, domain.boxes_of(key), domain.player_of(key))
        for j in range(expand_once(domain.params, key, info, *out)):
            boxes = domain.boxes_of(out[0][j])
            player = domain.player_of(out[0][j])
            # the player in the right part, as its smallest cell (pruned
            # children aside, the kernel's are the oracle's)
            assert (frozenset(boxes), player) in oracle
            assert out[3][j, 1] == connectivity(level, boxes)
            checked += 1
    assert checked >= 20


def test_in_the_portfolio_the_backward_solver_follows_the_forward_engines():
    """Beside ``fess-only``, ``fess-backward`` takes in the positions of the
    forward engine's best paths (the start at least, before the forward
    engine publishes a best); alone, it has none to meet.  Either way
    Microban 144 is solved and the solution replays."""
    from pdbsearch.search.result import Status
    for members, followed in ((("fess-only", "fess-backward"), True), (("fess-backward",), False)):
        puzzle = SokobanPuzzle(microban(144), "pushes", "matching", members=members)
        result = solve(puzzle, "fess", limits=Limits(time_seconds=30, threads=1))
        assert result.status is Status.SOLVED
        report = result.extra["fess"]["members"]["fess-backward"]
        assert (report["meetable"] > 0) == followed, report
        puzzle.check_solution([s.code for s in result.steps])
