"""Every registered search on random small Sokoban rooms, with every rule
on (pruning, macros, learning, probes), against our plain-Python BFS: a
solution exactly when the BFS finds one, "unsolvable" exactly when it finds
none, the optimum from the optimal searches, α × the optimum at most from
weighted A*, and every solution replayed by the independent checker.

Microban levels are all solvable, so a pruning rule that calls a live
position dead can only slow a search down there; random rooms are often
dead, and here such a rule shows up as a false "unsolvable"."""

from __future__ import annotations

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from pdbsearch.search import ALGORITHMS, Limits, Status, solve
from pdbsearch.sokoban import check_solution
from pdbsearch.sokoban.model import Level
from pdbsearch.sokoban.puzzle import SokobanPuzzle
from pdbsearch.testing.sokoban import bfs_min_moves, bfs_min_pushes

from .test_reference import scrambled_rooms

#: Heuristics with no file to build (the pdb is tested on Microban, and
#: with A* below).
HEURISTICS = ("zero", "simple", "matching")
WEIGHT = 2.0


@st.composite
def rooms(draw, width=6, height=5, boxes=3, inner_walls=4):
    """A walled room up to ``width`` x ``height`` inside, with up to
    ``inner_walls`` inner walls, one to ``boxes`` boxes, as many goals (some
    boxes may start on them) and the player, on distinct free cells."""
    width, height = draw(st.integers(3, width)), draw(st.integers(2, height))
    walls = np.ones((height + 2, width + 2), dtype=bool)
    walls[1:-1, 1:-1] = False
    inside = [r * (width + 2) + c for r in range(1, height + 1) for c in range(1, width + 1)]
    for cell in draw(st.lists(st.sampled_from(inside), max_size=inner_walls)):
        walls.flat[cell] = True
    free = [c for c in inside if not walls.flat[c]]
    if len(free) < 3:
        walls[1:-1, 1:-1] = False
        free = inside
    n = min(draw(st.sampled_from(range(boxes, 0, -1))), len(free) - 1)
    pieces = draw(st.permutations(free))[:n + 1]
    goals = draw(st.permutations(free))[:n]
    return Level.from_parts(walls, goals, pieces[1:], [pieces[0]])


def _optimum(level: Level, metric: str) -> int | None:
    return bfs_min_pushes(level) if metric == "pushes" else bfs_min_moves(level)


def _check(level: Level, algo: str, metric: str, heuristic: str) -> None:
    spec = ALGORITHMS[algo]
    # (BFS counts edges: the puzzle then gives up its tunnel macros itself.)
    puzzle = SokobanPuzzle(level, metric, heuristic)
    weight = WEIGHT if spec.uses_weight else 1.0
    result = solve(puzzle, algo, weight, limits=Limits(time_seconds=20, threads=1))
    optimum = _optimum(level, metric)
    where = f"{algo}, {metric}, {heuristic}, level\n{level}"
    if optimum is None:
        assert result.status is Status.UNSOLVABLE, where
        return
    assert result.status is Status.SOLVED, where
    lurd = "".join(step.text for step in result.steps)
    pushes, moves = check_solution(level, lurd)
    assert result.cost == (pushes if metric == "pushes" else moves), where
    if spec.bounded and not spec.uses_weight:      # the optimal searches
        assert result.optimal and result.cost == optimum, where
    elif spec.uses_weight:
        assert optimum <= result.cost <= WEIGHT * optimum, where
    else:
        assert result.cost >= optimum, where


#: Random rooms (mostly dead with three boxes) and rooms scrambled from
#: the solved position by random pulls (always solvable).
ANY_ROOM = rooms() | scrambled_rooms(rooms=rooms).map(lambda case: case[0])


@settings(max_examples=150, deadline=None)
@given(ANY_ROOM, st.sampled_from(sorted(ALGORITHMS)), st.sampled_from(("pushes", "moves")),
       st.sampled_from(HEURISTICS))
def test_every_search_agrees_with_the_bfs_on_random_rooms(level, algo, metric, heuristic):
    if metric == "moves" and (ALGORITHMS[algo].needs_unit_costs or algo.startswith("fess")):
        metric = "pushes"       # refused for the moves metric (tested elsewhere)
    _check(level, algo, metric, heuristic)


@settings(max_examples=40, deadline=None)
@given(ANY_ROOM, st.sampled_from(("pushes", "moves")))
def test_lazy_astar_agrees_with_the_bfs_on_random_rooms(level, metric):
    """A* over the pdb heuristic queues nodes by the matching and takes the
    pattern bound only when a node comes first (lazy A*): still optimal,
    and "unsolvable" exactly when the BFS finds no solution."""
    _check(level, "astar", metric, "pdb")


@settings(max_examples=60, deadline=None)
@given(ANY_ROOM)
def test_the_fess_portfolio_agrees_with_the_bfs_on_random_rooms(level):
    """The whole portfolio (``--algo fess``: both forward FESS engines, the
    backward one, the perimeter, weighted A* and greedy), where any member
    that runs out of positions proves the level unsolvable."""
    _check(level, "fess", "pushes", "matching")


def _larger_rooms():
    """Rooms up to 8 x 6 with up to six boxes: too large for the BFS
    reference, so only scrambled (solvable) ones are used."""
    return rooms(width=8, height=6, boxes=6, inner_walls=8)


@settings(max_examples=40, deadline=None)
@given(scrambled_rooms(rooms=_larger_rooms, pull_range=(20, 80)),
       st.sampled_from(sorted(a for a in ALGORITHMS if not ALGORITHMS[a].needs_unit_costs)))
def test_no_search_calls_a_solvable_larger_room_unsolvable(case, algo):
    """Where the learned patterns, probes and stuck tests have boxes to
    work on: a level scrambled by random pulls is solvable, so the one
    wrong verdict is "unsolvable" (a limit is allowed); a solution
    replays, and an optimal one is no longer than the pulls."""
    level, pulls = case
    puzzle = SokobanPuzzle(level, "pushes", "matching")
    weight = WEIGHT if ALGORITHMS[algo].uses_weight else 1.0
    result = solve(puzzle, algo, weight, limits=Limits(time_seconds=10, threads=1))
    where = f"{algo}, level\n{level}"
    assert result.status in (Status.SOLVED, Status.LIMIT), where
    if result.status is Status.SOLVED:
        lurd = "".join(step.text for step in result.steps)
        assert check_solution(level, lurd)[0] == result.cost, where
        if result.optimal:
            assert result.cost <= (pulls or 0), where
