"""Goals sealed by frozen boxes (:func:`pdbsearch.sokoban.deadlocks.sealed_goal_deadlock`):
a drawn case, the kernel against its plain-Python reference on random
positions, and soundness: every position it calls dead has no solution
(our own push BFS)."""

from __future__ import annotations

import numpy as np
import pytest

from pdbsearch.search import Status, solve
from pdbsearch.search.result import Limits
from pdbsearch.sokoban.deadlocks import sealed_goal_deadlock
from pdbsearch.sokoban.kernels import N_COUNTERS, SEEN
from pdbsearch.sokoban.puzzle import SokobanPuzzle
from pdbsearch.testing.sokoban import bfs_min_pushes, sealed_goals_dead

from .helpers import SMALL_MICROBAN, microban, xsb

#: A dead-end goal corridor (column 1, rows 1 and 2) filled by pushing up
#: from row 3, the player below at row 4.  The box on the goal at (4, 1)
#: can never move, so the player can never stand there, and the corridor's
#: goals can never be filled.  The matching does not see it: each box
#: alone, with the others gone, could get there.
SEALED = xsb("""\
#######
#.#####
#.#####
#   $@#
#* $  #
#######
""")


def kernel_says_dead(puzzle, boxes) -> bool:
    """The kernel on ``boxes`` (fresh work arrays)."""
    p = puzzle.params
    n_grid = p.inside.shape[0]
    cells = np.array(sorted(boxes), np.int32)
    occ = np.zeros(n_grid, np.uint8)
    occ[cells] = 1
    return bool(sealed_goal_deadlock(cells, len(cells), occ, p.inside, p.goal, p.goal_cells,
                                     p.dead,
                                     p.deltas, np.zeros(n_grid, np.int64), 1,
                                     np.zeros(n_grid, np.int64), np.zeros(N_COUNTERS, np.int64),
                                     SEEN, np.zeros(n_grid, np.int32)))


def test_a_frozen_box_at_the_mouth_of_a_goal_corridor_seals_it():
    puzzle = SokobanPuzzle(SEALED, "pushes", "matching")
    assert kernel_says_dead(puzzle, SEALED.boxes)
    assert sealed_goals_dead(SEALED, SEALED.boxes, puzzle.dead_squares)
    assert bfs_min_pushes(SEALED) is None
    # The search proves it too, and fast (the matching alone does not see it).
    result = solve(puzzle, "fess-only", limits=Limits(time_seconds=20))
    assert result.status is Status.UNSOLVABLE


#: The same corridor with a free row below: the box on the goal at (4, 1)
#: can still be pushed up into the corridor, so nothing is sealed.
OPEN = xsb("""\
########
#.######
#.######
#   $ @#
#*  $  #
#      #
########
""")


def test_nothing_is_sealed_while_the_box_can_still_move():
    puzzle = SokobanPuzzle(OPEN, "pushes", "matching")
    assert not kernel_says_dead(puzzle, OPEN.boxes)
    assert not sealed_goals_dead(OPEN, OPEN.boxes, puzzle.dead_squares)
    assert bfs_min_pushes(OPEN) is not None


def _random_boxes(level, rng, dead):
    """Boxes drawn half on goals, half anywhere live (so frozen goal boxes
    are common)."""
    goals = sorted(level.goals)
    live = sorted(set(level.playable_cells()) - set(dead))
    k = len(level.boxes)
    on_goals = set(rng.choice(goals, size=rng.integers(0, k + 1), replace=False).tolist())
    rest = [c for c in live if c not in on_goals]
    more = rng.choice(rest, size=k - len(on_goals), replace=False).tolist()
    return frozenset(on_goals | set(more))


def _check_level(number: int) -> int:
    """Kernel against reference, and soundness, on random positions of
    Microban ``number``; returns how many it called dead."""
    level = microban(number)
    puzzle = SokobanPuzzle(level, "pushes", "matching")
    dead = puzzle.dead_squares
    rng = np.random.default_rng(number)
    fired = 0
    for _ in range(40):
        boxes = _random_boxes(level, rng, dead)
        got = kernel_says_dead(puzzle, boxes)
        assert got == sealed_goals_dead(level, boxes, dead)
        if got:
            fired += 1
            # No player position solves it (the player where it may stand).
            for player in sorted(set(level.playable_cells()) - boxes)[:3]:
                assert bfs_min_pushes(level.with_state(boxes=boxes, player=player)) is None
    return fired


@pytest.mark.parametrize("number", SMALL_MICROBAN)
def test_the_kernel_matches_its_reference_and_is_sound(number):
    _check_level(number)


def test_the_kernel_fires_on_random_positions():
    """The property above is not vacuous: some positions are sealed."""
    assert sum(_check_level(n) for n in SMALL_MICROBAN) > 0
