"""Goals sealed by frozen boxes (:func:`pdbsearch.sokoban.deadlocks.sealed_goal_deadlock`):
a drawn case, the kernel against its plain-Python reference on random
positions, soundness (every position it calls dead has no solution by our
own push BFS), and the rule inside the push expansion, where every
algorithm meets it in its stronger form (the stranded-goal test of
:func:`~pdbsearch.sokoban.deadlocks.stranded_goal_deadlock`, which knows
where the player stands)."""

from __future__ import annotations

import numpy as np
import pytest

from pdbsearch.search import Status, solve
from pdbsearch.search.result import Limits
from pdbsearch.sokoban.puzzle import Rules, SokobanPuzzle
from pdbsearch.testing.sokoban import (bfs_min_pushes, frozen_boxes, sealed_goals_dead,
                                       stranded_goals_dead)

from .helpers import (ONLY_FREEZE, SMALL_MICROBAN, goal_heavy_boxes, kernel_successors, microban,
                      python_successors, sealed_kernel, xsb)

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


def test_a_frozen_box_at_the_mouth_of_a_goal_corridor_seals_it():
    puzzle = SokobanPuzzle(SEALED, "pushes", "matching")
    assert sealed_kernel(puzzle, SEALED.boxes)
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
    assert not sealed_kernel(puzzle, OPEN.boxes)
    assert not sealed_goals_dead(OPEN, OPEN.boxes, puzzle.dead_squares)
    assert bfs_min_pushes(OPEN) is not None


def _check_level(number: int) -> int:
    """Kernel against reference, and soundness, on random positions of
    Microban ``number``; returns how many it called dead."""
    level = microban(number)
    puzzle = SokobanPuzzle(level, "pushes", "matching")
    dead = puzzle.dead_squares
    rng = np.random.default_rng(number)
    fired = 0
    for _ in range(40):
        boxes = goal_heavy_boxes(level, rng, dead)
        got = sealed_kernel(puzzle, boxes)
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


# -- the rule inside the push expansion (every algorithm) -----------------------

#: Pushing the box at (4, 2) left puts it on the corner goal at (4, 1), where
#: it freezes and seals the corridor goals above it (a box goes up the
#: corridor only with the player at (4, 1)): that push is never made.  The
#: position is solvable by filling the corridor first.
SEALING_PUSH = """\
#########
#.#######
#.#######
# $@    #
#.$ $   #
##      #
#########
"""


def test_the_push_that_seals_a_goal_is_not_generated():
    level = xsb(SEALING_PUSH)
    sealing = (level.cell(4, 1), level.cell(4, 2))   # the box there, pushed left
    with_rule = kernel_successors(SokobanPuzzle(level, "pushes", "zero", ONLY_FREEZE),
                                  level.boxes, level.player)
    without = kernel_successors(SokobanPuzzle(level, "pushes", "zero", Rules.none()),
                                level.boxes, level.player)
    sealed = {s for s in without if sealing[0] in s[0] and sealing[1] not in s[0]}
    assert len(sealed) == 1
    assert with_rule == without - sealed
    assert bfs_min_pushes(level) is not None


#: Microban levels with goals in corners and corridors, small and big.
EXPANSION_LEVELS = (1, 6, 36, 93, 144, 153, 155)


def _check_expansion(number: int) -> int:
    """Out of a live random position of Microban ``number``, the freeze rule
    prunes a push exactly when the pushed box freezes (the boxes that never
    move only grow then) and the child, with the player behind the pushed
    box, is stranded or frozen off goal, by the plain-Python reference;
    returns how many pushes it pruned.  (A push pruned where the sealed-goal
    test would keep it is drawn in ``test_stranded_goals.py``.)"""
    level = microban(number)
    puzzle = SokobanPuzzle(level, "pushes", "zero", ONLY_FREEZE)
    rng = np.random.default_rng(number)
    pruned = 0
    for _ in range(60):
        boxes = goal_heavy_boxes(level, rng, frozenset())
        if sealed_goals_dead(level, boxes):
            continue
        free = sorted(level.playable_cells() - boxes)
        player = free[int(rng.integers(len(free)))]
        every = python_successors(level, boxes, player, "pushes")
        dead = {s for s in every if stranded_goals_dead(level, s[0], s[1])
                and next(iter(s[0] - boxes)) in frozen_boxes(level, s[0])}
        assert kernel_successors(puzzle, boxes, player) == every - dead
        pruned += len(dead)
    return pruned


@pytest.mark.parametrize("number", EXPANSION_LEVELS)
def test_the_expansion_prunes_exactly_the_stranded_children(number):
    """Sound (nothing live is pruned) and complete (no freezing push that
    seals is missed)."""
    _check_expansion(number)


def test_the_expansion_rule_fires_on_random_positions():
    """The property above is not vacuous: some children are pruned."""
    assert sum(_check_expansion(n) for n in EXPANSION_LEVELS) > 0
